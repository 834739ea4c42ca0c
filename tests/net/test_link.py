"""One connection's queue and the mesh's one link per pair of seats."""

from __future__ import annotations

import random
import select
from collections.abc import Callable

import pytest
import trio
import trio.testing
from _hosting import hosted
from _sockets import NO_TWIN, tcp_pair

from p2pnerts.net import JoinError, Player, Refused, TablePeer, TableSpec, join_table
from p2pnerts.net._link import Connection, Received
from p2pnerts.protocol import (
    PROTOCOL_VERSION,
    Ack,
    FrameDecoder,
    Hello,
    Ready,
    Refuse,
    Seat,
    decode,
    encode,
)
from p2pnerts.rules import TableOptions


def _ack(seq: int) -> Ack:
    return Ack(0, 0, seq, seq, (seq, 0), 0, bytes(16))


async def test_a_stuck_peer_loses_its_connection_and_never_stalls_another() -> None:
    stuck_end, _never_read = trio.testing.lockstep_stream_pair()
    ok_end, ok_far = trio.testing.memory_stream_pair()
    stuck = Connection(stuck_end, "stuck", queue_limit=8)
    ok = Connection(ok_end, "ok", queue_limit=8)
    got: list[Received] = []
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(stuck.serve)
            nursery.start_soon(ok.serve)
            for seq in range(1, 101):
                stuck.send_nowait(_ack(seq))  # never blocks, whoever does not read
                ok.send_nowait(_ack(seq))
                await trio.testing.wait_all_tasks_blocked()
            decoder = FrameDecoder()
            while len(got) < 100:
                got += decoder.feed(bytes(await ok_far.receive_some()))
            assert stuck.closed and not ok.closed
            ok.close()
    assert got == [_ack(seq) for seq in range(1, 101)]


class _CountedWrites(trio.abc.SendStream):
    """A stream's sending end that keeps every write apart (``writes``)."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        self.writes.append(bytes(data))
        await trio.lowlevel.checkpoint()

    async def wait_send_all_might_not_block(self) -> None:
        await trio.lowlevel.checkpoint()

    async def aclose(self) -> None:
        await trio.lowlevel.checkpoint()


async def test_frames_queued_together_go_out_in_one_write_in_their_order() -> None:
    out = _CountedWrites()
    stream = trio.StapledStream(out, trio.testing.memory_stream_pair()[1])
    conn = Connection(stream, "counted")
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            for seq in (1, 2, 3):
                conn.send_nowait(_ack(seq))  # one step of the replica sends all three
            nursery.start_soon(conn.serve)
            await trio.testing.wait_all_tasks_blocked()
            conn.send_nowait(_ack(4))  # a later step: a write of its own
            await trio.testing.wait_all_tasks_blocked()
            conn.close()
    assert [len(list(FrameDecoder().feed(w))) for w in out.writes] == [3, 1]
    decoder = FrameDecoder()
    assert [m for w in out.writes for m in decoder.feed(w)] == [_ack(s) for s in (1, 2, 3, 4)]


def _seat_of_two(report: Callable[[str], None] = lambda _: None) -> TablePeer:
    """Seat 0 of a table of two, played by a person, its links not yet adopted."""
    roster = [Seat(0, "Ann", "127.0.0.1", 1), Seat(1, "Bea", "127.0.0.1", 2)]
    return TablePeer(
        bytes(16), 0, roster, TableOptions(), rng=random.Random(1), driver=None, report=report
    )


async def test_a_second_connection_to_a_seat_replaces_the_first() -> None:
    peer = _seat_of_two()
    first = Connection(trio.testing.memory_stream_pair()[0], "first")
    second = Connection(trio.testing.memory_stream_pair()[0], "second")
    peer.adopt(1, first)
    peer.adopt(1, second)
    assert peer.links == {1: second}
    assert first.closed and not second.closed
    peer.lost(1, first)  # the old one's end, reported late, leaves the new one alone
    assert peer.links == {1: second}


async def test_a_frame_that_came_early_and_breaks_the_protocol_refuses_its_seat() -> None:
    # What a seat sent before the table took its connection over (play may begin at the
    # host before it does here) is heard when it is: one that breaks the protocol refuses
    # the seat and drops the connection, as it would have on arrival, where it used to be
    # raised out of the process (a seat committing by a majority at a table that does not).
    told: list[str] = []
    peer = _seat_of_two(told.append)
    conn = Connection(trio.testing.memory_stream_pair()[0], "Bea")
    conn.early.append(Ready(1, 0, 1, 1, 0, bytes(32), (), below=(1, 1)))
    peer.adopt(1, conn)
    assert conn.closed  # (its server, when it ends, reports it lost)
    assert peer.replica.gate.refuses(1)
    assert any("below" in line for line in told), told


async def _refusing_seat(nursery: trio.Nursery, asked: list[int]) -> int:
    """A listener that answers every Hello with a Refuse (counted in ``asked``): its port."""

    async def answer(stream: trio.SocketStream) -> None:
        decoder = FrameDecoder()
        while not list(decoder.feed(bytes(await stream.receive_some(65536)))):
            pass
        asked.append(1)
        await stream.send_all(encode(Refuse("no thanks")))
        await stream.aclose()

    listeners = await nursery.start(trio.serve_tcp, answer, 0)
    return int(listeners[0].socket.getsockname()[1])


async def test_a_seat_refused_by_another_seat_plays_on_only_the_hosts_refusal_stops_it() -> None:
    # One seat cannot stop another by refusing it: this seat just dials it no more.
    asked: list[int] = []
    async with trio.open_nursery() as nursery:
        port = await _refusing_seat(nursery, asked)
        roster = [Seat(s, name, "127.0.0.1", port) for s, name in enumerate(["Ann", "Eve", "Bea"])]
        peer = TablePeer(
            bytes(16), 2, roster, TableOptions(), rng=random.Random(1), driver=None,
            report=lambda _: None,
        )  # fmt: skip
        with trio.fail_after(10):
            await peer.links.keep_dialled(roster[1], peer.hello, peer.key, nursery, peer.adopt)
        assert asked == [1] and 1 not in peer.links
        assert not peer.replica.gate.refuses(1)  # no attack said: it may be this seat that is wrong
        with trio.fail_after(10), pytest.raises(Refused, match=r"seat 0 .* refused this seat"):
            await peer.links.keep_dialled(roster[0], peer.hello, peer.key, nursery, peer.adopt)
        nursery.cancel_scope.cancel()


@NO_TWIN
async def test_a_frame_sent_with_nothing_queued_is_on_the_wire_before_any_task_runs() -> None:
    near, far = await tcp_pair()
    conn = Connection(near, "at once")
    with trio.fail_after(10):
        async with far, trio.open_nursery() as nursery:
            nursery.start_soon(conn.serve)
            await trio.testing.wait_all_tasks_blocked()
            conn.send_nowait(_ack(1))
            # No checkpoint between the send and this wait, which blocks the whole run: no
            # writer task can have written the frame meanwhile, only the send itself.
            readable, _, _ = select.select([far.socket.fileno()], [], [], 5)
            conn.close()
            assert readable
            assert list(FrameDecoder().feed(bytes(await far.receive_some()))) == [_ack(1)]


@NO_TWIN
async def test_frames_the_socket_cannot_take_at_once_follow_in_their_order() -> None:
    near, far = await tcp_pair()
    conn = Connection(near, "full socket")
    frames = [bytes([n % 251]) * 65536 for n in range(200)]  # far more than a socket buffers
    got = bytearray()
    with trio.fail_after(30):
        async with far, trio.open_nursery() as nursery:
            nursery.start_soon(conn.serve)
            await trio.testing.wait_all_tasks_blocked()
            for frame in frames:
                conn.send_encoded(frame)  # the first go out at once, the rest queue
            while len(got) < sum(map(len, frames)):
                got += await far.receive_some()
            conn.close()
    assert bytes(got) == b"".join(frames)


def _version_2(frame: bytes) -> bytes:
    """A link frame as a version-2 peer lays it out (the version is its payload's first
    item; the layout of what follows did not change)."""
    assert frame[5] == PROTOCOL_VERSION == 3
    return frame[:5] + bytes((2,)) + frame[6:]


async def test_a_version_2_peer_is_refused_in_the_clear_with_both_versions_named() -> None:
    player = Player("Ann", random.Random(1), None, lambda _: None)
    spec = TableSpec("three", 2, TableOptions(rounds=1))
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            port = await hosted(nursery, spec, player, {})
            stream = await trio.open_tcp_stream("127.0.0.1", port)
            await stream.send_all(_version_2(encode(Hello(bytes(16), -1, "Old", 9))))
            answer = bytearray()
            while data := await stream.receive_some():
                answer += data
            await stream.aclose()
            nursery.cancel_scope.cancel()
    assert decode(bytes(answer)) == Refuse("refused: protocol version 2, this peer speaks 3")


async def test_a_version_2_host_is_not_joined_and_the_joiner_says_which_versions() -> None:
    async def old_host(stream: trio.SocketStream) -> None:
        await stream.receive_some()  # a Noise frame it cannot read
        await stream.send_all(_version_2(encode(Refuse("refused: protocol version 3"))))
        await stream.aclose()

    player = Player("Bea", random.Random(2), None, lambda _: None)
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            listeners = await nursery.start(trio.serve_tcp, old_host, 0)
            port = listeners[0].socket.getsockname()[1]
            with pytest.raises(JoinError, match="protocol version 2, this peer speaks 3"):
                await join_table("127.0.0.1", port, player)
            nursery.cancel_scope.cancel()
