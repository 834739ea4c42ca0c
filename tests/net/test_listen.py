"""A seat listens on one port in every family it has, and gets that port back after a
restart even while the port is still held a moment."""

from __future__ import annotations

import errno
import socket

import pytest
import trio

from p2pnerts.net._lobby import listen, listen_again


def _has_ipv6() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::", 0))
    except OSError:
        return False
    return True


def _held(port: int) -> socket.socket:
    """Another program listening on ``port`` (IPv4)."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("0.0.0.0", port))
    sock.listen()
    return sock


async def test_a_seat_listens_on_one_port_in_ipv4_and_ipv6_where_the_machine_has_it() -> None:
    for _ in range(20):  # the kernel picks a fresh port each time
        listeners = await listen(0)
        try:
            names = [lst.socket.getsockname() for lst in listeners]
            families = {lst.socket.family for lst in listeners}
            assert len({name[1] for name in names}) == 1, names
            assert socket.AF_INET in families
            assert (socket.AF_INET6 in families) == _has_ipv6()
        finally:
            for lst in listeners:
                await lst.aclose()


async def test_a_seat_coming_back_waits_for_its_port_to_be_free_again(
    autojump_clock: trio.abc.Clock,
) -> None:
    first = await listen(0)
    port = first[0].socket.getsockname()[1]
    for lst in first:
        await lst.aclose()
    blocker = _held(port)
    got: list[trio.SocketListener] = []

    async def come_back() -> None:
        got.extend(await listen_again(port, wait=10.0))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(come_back)
        await trio.sleep(3.0)
        assert not got, "the port is still held: the seat waits"
        blocker.close()
    assert {lst.socket.getsockname()[1] for lst in got} == {port}
    for lst in got:
        await lst.aclose()


async def test_a_port_held_too_long_is_an_error_naming_it(autojump_clock: trio.abc.Clock) -> None:
    blocker = _held(0)
    port = blocker.getsockname()[1]
    try:
        with pytest.raises(OSError) as caught:
            await listen_again(port, wait=2.0)
        assert caught.value.errno == errno.EADDRINUSE
    finally:
        blocker.close()
