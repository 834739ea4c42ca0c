"""Whether the other seats' ports are closed (`net._closed`): tried on loopback, a port
that listens takes the try, and one nobody listens on refuses it."""

from __future__ import annotations

import pytest
import trio

from p2pnerts.net import _closed
from p2pnerts.net._closed import Closed, listening, nobody_listens
from p2pnerts.protocol import Seat


async def _closed_port() -> int:
    """A loopback port that nobody listens on any more."""
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port: int = listeners[0].socket.getsockname()[1]
    for listener in listeners:
        await listener.aclose()
    return port


async def test_a_port_that_listens_takes_the_try_and_a_closed_one_refuses_it() -> None:
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    tried = trio.Event()

    async def take(stream: trio.SocketStream) -> None:
        assert await stream.receive_some() == b""  # opened and closed at once, unwritten
        tried.set()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(trio.serve_listeners, take, listeners)
        assert await listening("127.0.0.1", port) is True
        await tried.wait()
        nursery.cancel_scope.cancel()
    for listener in listeners:
        await listener.aclose()
    assert await listening("127.0.0.1", port) is False


def test_only_a_refusal_at_every_address_tried_says_nobody_listens() -> None:
    def failed(*errors: OSError) -> OSError:
        exc = OSError("all attempts to connect failed")
        exc.__cause__ = ExceptionGroup("attempts", list(errors))
        return exc

    refused = ConnectionRefusedError(111, "refused")
    assert nobody_listens(refused) and nobody_listens(failed(refused, refused))
    assert not nobody_listens(failed(refused, TimeoutError("timed out")))
    assert not nobody_listens(failed(OSError(101, "network is unreachable")))
    assert not nobody_listens(OSError("no cause"))


class _Told(Closed):
    """`Closed`, telling each refusal and each answer as it is counted."""

    def __init__(self) -> None:
        super().__init__([1])
        self.refusal, self.answer = trio.Event(), trio.Event()

    def refused(self, seat: int, now: float) -> None:
        super().refused(seat, now)
        self.refusal.set()

    def answered(self, seat: int) -> None:
        super().answered(seat)
        self.answer.set()


async def test_a_seat_s_port_is_tried_only_while_this_seat_cannot_play_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_closed, "PROBE_EVERY", 0.01)
    bea = Seat(1, "Bea", "127.0.0.1", await _closed_port())
    closed, blocked = _Told(), [False]
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(closed.keep_probed, bea, lambda: blocked[0])
            await closed.answer.wait()  # (not tried: it can play on)
            assert not closed.refusal.is_set()
            blocked[0] = True
            await closed.refusal.wait()
            assert closed.closed_for(trio.current_time() + 1.0) >= 1.0
            closed.answer = trio.Event()
            blocked[0] = False  # (it can play on again: the port's refusals are forgotten)
            await closed.answer.wait()
            assert closed.closed_for(trio.current_time() + 1.0) == 0.0
            nursery.cancel_scope.cancel()


def test_the_table_is_closed_only_once_every_other_seat_s_port_is() -> None:
    closed = Closed([1, 2])
    closed.refused(1, 10.0)
    assert closed.closed_for(20.0) == 0.0
    closed.refused(2, 15.0)
    closed.refused(2, 16.0)  # (refused again: closed since its first refusal)
    assert closed.closed_for(20.0) == 5.0
    closed.answered(1)
    assert closed.closed_for(20.0) == 0.0
    assert Closed([]).closed_for(20.0) == 0.0
