"""Someone between a joiner and the host, on loopback (SPEC §2.8): a relay that copies and
records every byte learns nothing and the table plays on; a relay that splices itself in,
with a Noise handshake of its own to each end, is refused by both ends."""

from __future__ import annotations

import contextlib
import random
from collections.abc import Awaitable, Callable
from functools import partial

import pytest
import trio
from _hosting import hosted
from _sockets import noise_link

from p2pnerts.bots import BotDriver, SimpleBot
from p2pnerts.driver import Pace
from p2pnerts.net import JoinError, MatchResult, Player, TablePeer, TableSpec, join_table
from p2pnerts.net._handshake import answer_channel, new_nonce, prove_to
from p2pnerts.net._link import Closed, Connection, Received
from p2pnerts.protocol import (
    MAX_FRAME,
    CommitFrame,
    Hello,
    LinkMessage,
    Message,
    Noise,
    Refuse,
    RemoteProtocolError,
    SeatKey,
    TeamDeal,
    Welcome,
    decode_any,
)
from p2pnerts.rules import TableOptions


def _player(name: str, seed: int, lines: list[str] | None = None) -> Player:
    rng = random.Random(seed)
    bot = BotDriver(SimpleBot(random.Random(rng.getrandbits(64))), Pace(0.01, 0.01))
    return Player(name, rng, bot, (lines if lines is not None else []).append)


Serve = Callable[[trio.SocketStream], Awaitable[None]]


async def _relay(nursery: trio.Nursery, serve: Serve) -> int:
    """A listener on loopback whose every connection ``serve`` takes, in ``nursery`` (one
    of its own, cancelled once the table is done): its port."""
    listeners = await nursery.start(partial(trio.serve_tcp, host="127.0.0.1"), serve, 0)
    return int(listeners[0].socket.getsockname()[1])


def _copying(to: int, recorded: list[tuple[str, bytearray]]) -> Serve:
    """A relay that copies every byte each way between its caller and port ``to``, and
    records them: ``recorded`` gains what went each way on each connection."""

    async def serve(joiner: trio.SocketStream) -> None:
        host = await trio.open_tcp_stream("127.0.0.1", to)
        ways = (("to the host", bytearray()), ("to the joiner", bytearray()))
        recorded.extend(ways)
        async with joiner, host, trio.open_nursery() as nursery:
            for (_, into), (a, b) in zip(ways, ((joiner, host), (host, joiner)), strict=True):
                nursery.start_soon(_copy, a, b, into, nursery.cancel_scope)

    return serve


async def _copy(
    a: trio.SocketStream, b: trio.SocketStream, into: bytearray, done: trio.CancelScope
) -> None:
    try:
        while data := await a.receive_some(65536):
            into += data
            await b.send_all(data)
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass
    done.cancel()


def _frames_in(recording: bytes) -> list[tuple[int, Message | LinkMessage | CommitFrame]]:
    """Every frame that parses anywhere in ``recording``, starting at any byte, with where."""
    found = []
    for at in range(len(recording) - 4):
        size = int.from_bytes(recording[at : at + 4], "big")
        if 0 < size <= MAX_FRAME and at + 4 + size <= len(recording):
            with contextlib.suppress(RemoteProtocolError):
                found.append((at, decode_any(recording[at + 4 : at + 4 + size])))
    return found


async def test_a_relay_copying_every_byte_reads_no_frame_and_no_team_secret() -> None:
    """Seat 1 plays deck 0 with the host, and joins through a relay that records every byte:
    the host deals it the team's secrets (its TeamDeals) through the relay, and the match
    plays to its end. In the recording, nothing but the two Noise frames that open the link
    parses as a frame, and no secret, next secret or seed of a TeamDeal is there."""
    results: dict[int, MatchResult] = {}
    recorded: list[tuple[str, bytearray]] = []
    deals: list[TeamDeal] = []

    def deals_at_the_host(peer: TablePeer) -> None:
        def traffic(_out: bool, other: int | None, message: Message) -> None:
            if isinstance(message, TeamDeal) and 1 in (other, message.to):
                deals.append(message)

        peer.traffic.append(traffic)

    host = _player("Ann", 1)
    host.seated = deals_at_the_host
    bea, cy = _player("Bea", 2), _player("Cy", 3)
    spec = TableSpec("relayed", 3, TableOptions(rounds=2, teams=(2, 1)))
    with trio.fail_after(120):
        async with trio.open_nursery() as relays:
            async with trio.open_nursery() as nursery:
                port = await hosted(nursery, spec, host, results)
                relay = await _relay(relays, _copying(port, recorded))

                async def join(k: int, player: Player, at: int) -> None:
                    results[k] = await join_table("127.0.0.1", at, player)

                seated = trio.Event()  # Bea takes seat 1, Ann's teammate, through the relay
                bea.lobby = lambda seats: seated.set() if len(seats) == 2 else None
                nursery.start_soon(join, 1, bea, relay)
                await seated.wait()
                nursery.start_soon(join, 2, cy, port)
            relays.cancel_scope.cancel()
    assert len(results) == 3 and len(set(results.values())) == 1
    assert results[0].rounds == 2
    assert deals, "no team deck was dealt between the host and seat 1"
    assert recorded and all(len(data) > 1000 for _, data in recorded)
    for way, data in recorded:
        frames = _frames_in(bytes(data))
        assert [(at, type(m)) for at, m in frames] == [(0, Noise)], way
        for deal in deals:
            for secret in (deal.secret, deal.next, deal.seed):
                assert secret == bytes(32) or secret not in data, way


def _splicing(to: int, forwarded: list[Received]) -> Serve:
    """A relay that runs a Noise handshake of its own with its caller and another with the
    host at port ``to``, and forwards every frame it opens from one to the other (what it
    forwards: ``forwarded``)."""

    async def serve(stream: trio.SocketStream) -> None:
        joiner = Connection(stream, "the joiner, at the relay")
        with trio.fail_after(10):
            opening = await joiner.receive()
            assert isinstance(opening, Noise)
            await answer_channel(joiner, opening)
            host = await noise_link(to)
        assert host is not None
        async with stream, host.stream, trio.open_nursery() as nursery:
            nursery.start_soon(_forward, joiner, host, forwarded, nursery.cancel_scope)
            nursery.start_soon(_forward, host, joiner, forwarded, nursery.cancel_scope)

    return serve


async def _forward(
    a: Connection, b: Connection, forwarded: list[Received], done: trio.CancelScope
) -> None:
    try:
        while True:
            message = await a.receive()
            forwarded.append(message)
            b.send_nowait(message)
            await b.write_queued()
    except (Closed, RemoteProtocolError, trio.BrokenResourceError, trio.ClosedResourceError):
        pass
    done.cancel()


async def test_a_splicing_relay_is_refused_by_the_joiner_and_the_host_seats_nobody() -> None:
    """The host's proof, passed on by the relay, was made for the relay's link to the host:
    the joiner refuses it, says why to the host (through the relay), and is not seated; the
    seat is still free, and the joiner that comes directly plays the match."""
    results: dict[int, MatchResult] = {}
    lines: list[str] = []
    told = trio.Event()
    forwarded: list[Received] = []
    spec = TableSpec("spliced", 2, TableOptions(rounds=1))
    host = _player("Ann", 1, lines)

    def report(line: str) -> None:
        lines.append(line)
        told.set()

    host.report = report
    with trio.fail_after(120):
        async with trio.open_nursery() as relays:
            async with trio.open_nursery() as nursery:
                port = await hosted(nursery, spec, host, results)
                relay = await _relay(relays, _splicing(port, forwarded))
                with pytest.raises(JoinError, match=r"its proof does not hold on this link"):
                    await join_table("127.0.0.1", relay, _player("Bea", 2))
                await told.wait()
                results[1] = await join_table("127.0.0.1", port, _player("Cal", 3))
            relays.cancel_scope.cancel()
    # The joiner's Hello, the host's, the joiner's Refuse; then the host's Refuse, at most.
    assert [type(m) for m in forwarded][:3] == [Hello, Hello, Refuse], forwarded
    assert forwarded[2] == Refuse("its proof does not hold on this link")
    assert not any(isinstance(m, Welcome) for m in forwarded)
    assert lines[0].startswith("refused 127.0.0.1:")
    assert lines[0].endswith("(Bea): its proof does not hold on this link"), lines
    assert results[0] == results[1] and results[0].names == ("Ann", "Cal")


async def test_a_joiner_that_does_not_check_the_host_is_still_refused_by_it() -> None:
    """A joiner that takes the host's proof unchecked and proves its own key over its link
    to the relay: the host checks that proof over its own link to the relay, and refuses."""
    lines: list[str] = []
    spec = TableSpec("spliced", 2, TableOptions(rounds=1))
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            port = await hosted(nursery, spec, _player("Ann", 1, lines), {})
            relay = await _relay(nursery, _splicing(port, []))
            conn = await noise_link(relay)
            assert conn is not None
            key = SeatKey.generate()
            mine = Hello(bytes(16), -1, "Eve", 4444, key.public, new_nonce())
            conn.send_nowait(mine)
            await conn.write_queued()
            host = await conn.receive()
            assert isinstance(host, Hello)
            await prove_to(conn, mine, host, key)
            assert await conn.receive() == Refuse("no proof of its key for table 'spliced'")
            await conn.stream.aclose()
            nursery.cancel_scope.cancel()
    assert lines == [lines[0]] and lines[0].endswith("(Eve): no proof of its key")
