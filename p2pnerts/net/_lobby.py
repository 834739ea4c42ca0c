"""Forming a table: the host seats newcomers, then every peer plays on its own.

The host is seat 0. A newcomer connects and says Hello with seat -1; the host answers
Welcome (its seat, the table's size and options) or Refuse (why not), and tells every
seated peer the roster as it fills. When the last seat is taken the roster goes out
marked started, and from then on the host is a seat like any other: play needs no
server. A connection that opens with a seat number is a seat of a started table
connecting to another (see `TablePeer`).
"""

from __future__ import annotations

import errno
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import NamedTuple

import trio

from p2pnerts.net._admission import JoinError, ask_for_a_seat
from p2pnerts.net._guesses import Guesses, answer_private
from p2pnerts.net._link import Connection, Received
from p2pnerts.net._result import MatchResult
from p2pnerts.net._seatfile import SeatFile
from p2pnerts.net._seating import Player, Seating, peer_address
from p2pnerts.net._spectators import Spectators
from p2pnerts.protocol import (
    LEAST_FOR_MAJORITY,
    Hello,
    Refuse,
    Roster,
    Seat,
    SeatKey,
    TableSecret,
    Welcome,
)
from p2pnerts.rules import TableOptions
from p2pnerts.words import shown

log = logging.getLogger("p2pnerts.net")
PORT_TRIES = 20
"""How many ports the kernel may pick before one is free in both families."""
REBIND_WAIT = 10.0
"""How long a seat coming back waits for its old port to be free again."""
ACKS_CHOSEN = (
    "the table's host chose to commit by every seat's acknowledgement, not by a majority: "
    "this seat commits so too"
)
"""What a seat told to commit by a majority says when the table it joins does not."""


def by_majority(asked: bool | None, seats: int) -> bool:
    """Whether a host asked ``asked`` commits by a majority at a table of ``seats``: never
    where the quorum would be every seat (`small_table`); there, unless told to commit by
    acknowledgement (False), as version 3's tables do."""
    return seats >= LEAST_FOR_MAJORITY and asked is not False


def small_table(seats: int) -> str:
    """What a host told to commit by a majority says at a table too small for one: where
    the quorum is every seat, a majority gains nothing on waiting for the slowest, and
    one seat voting every other seat's play late would return them all (SPEC's notes:
    "The red team at a majority's table")."""
    least, acks = LEAST_FOR_MAJORITY, f"a table of {seats} commits by acknowledgement"
    return f"--majority takes {least} seats or more: {acks}"


@dataclass(frozen=True, slots=True)
class TableSpec:
    name: str
    seats: int
    options: TableOptions


class Listening(NamedTuple):
    """Where a table being hosted listens, and the table's id (as mDNS announces it)."""

    port: int
    table: bytes


async def host_table(
    spec: TableSpec,
    player: Player,
    *,
    port: int = 0,
    bind: str | None = None,
    on_roster: Callable[[int], None] | None = None,
    task_status: trio.TaskStatus[Listening] = trio.TASK_STATUS_IGNORED,
) -> MatchResult:
    """Host a table: seat 0 here, newcomers seated as they come, then play the match.

    Started with ``nursery.start``, it tells where it listens once newcomers can come (an
    `OSError` opening the listener is raised there); ``on_roster`` hears how many seats
    are taken each time that changes."""
    player.table_name = spec.name
    asked, majority = player.majority, by_majority(player.majority, spec.seats)
    player.majority = majority
    if asked and not majority:
        player.report(small_table(spec.seats))
    seating = Seating(player)
    seating.table = secrets.token_bytes(16)
    listeners = await listen(port, bind)
    port = listeners[0].socket.getsockname()[1]
    roster: dict[int, Seat] = {0: Seat(0, player.name, "", port, player.key.public)}
    me, guesses = await _let_watch(seating, player, player.name, port, player.spectators)
    links: dict[int, Connection] = {}
    full = trio.Event()

    def broadcast(started: bool) -> None:
        message = Roster(tuple(roster[s] for s in sorted(roster)), started)
        for conn in links.values():
            conn.send_nowait(message)
        if on_roster is not None:
            on_roster(len(roster))
        if player.lobby is not None:
            player.lobby(message.seats)

    async def handle(stream: trio.SocketStream) -> None:
        async with seating.greet(stream) as greeted:
            if greeted is not None:
                await seat_or_mesh(*greeted, stream)

    async def seat_or_mesh(conn: Connection, hello: Hello, stream: trio.SocketStream) -> None:
        if hello.seat >= 0:
            await seating.serve_mesh(conn, hello)
        elif full.is_set():
            conn.send_nowait(Refuse(f"table {spec.name!r} is full"))
            await conn.finish()
        elif (
            refused := await answer_private(conn, hello, me, player.key, guesses, _ip(stream))
        ) is not None:
            player.report(f"refused {conn.peer} ({shown(hello.name)}): {refused}")
            conn.send_nowait(Refuse(f"{refused} for table {spec.name!r}"[:200]))
            await conn.finish()
        elif full.is_set():  # filled while this one proved itself
            conn.send_nowait(Refuse(f"table {spec.name!r} is full"))
            await conn.finish()
        elif (address := peer_address(stream)) is None:  # gone as it proved itself
            await conn.finish()
        else:
            seat = min(set(range(1, spec.seats)) - set(roster))
            name, host = hello.name[:32], address[0]
            roster[seat] = Seat(seat, name, host, hello.port, hello.key)
            links[seat] = conn
            welcome = Welcome(seating.table, seat, spec.seats, spec.options, spec.name, majority)
            conn.send_nowait(welcome)
            broadcast(started=len(roster) == spec.seats)
            if len(roster) == spec.seats:
                full.set()
            try:
                await conn.serve()
            finally:
                if seating.peer is not None:
                    seating.peer.lost(seat, conn)
                elif not full.is_set():  # left the lobby: the seat is free again
                    del roster[seat], links[seat]
                    broadcast(started=False)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(trio.serve_listeners, handle, listeners)
        task_status.started(Listening(port, seating.table))
        await full.wait()
        result = await seating.play(0, [roster[s] for s in sorted(roster)], spec.options, links)
        nursery.cancel_scope.cancel()
    return result


async def join_table(host: str, port: int, player: Player) -> MatchResult:
    """Take a seat at the table listening at host:port, and play the match."""
    seating = Seating(player)
    listeners = await listen(0)
    my_port = listeners[0].socket.getsockname()[1]
    try:
        stream = await trio.open_tcp_stream(host, port)
    except OSError as exc:
        for listener in listeners:
            await listener.aclose()
        raise JoinError(f"cannot reach {host}:{port}: {exc.strerror or exc}") from None
    conn = Connection(stream, f"host {host}:{port}", shape=player.link_shape())
    try:
        answer, host_key = await ask_for_a_seat(conn, player, my_port, f"{host}:{port}")
    except JoinError:
        await conn.finish()
        for listener in listeners:
            await listener.aclose()
        raise
    if player.majority and not answer.majority:
        player.report(ACKS_CHOSEN)
    player.majority = answer.majority  # the host's choice, whatever this seat was told
    seating.table = answer.table
    if player.seat_file is None and player.kept_seats is not None:
        player.seat_file = player.kept_seats.path(answer.table, answer.seat)
    if player.welcomed is not None:
        player.welcomed(answer)
    roster: list[Seat] = []
    started = trio.Event()

    def lobby(message: Received) -> None:
        if isinstance(message, Roster):
            roster[:] = message.seats
            if player.lobby is not None:
                player.lobby(message.seats)
            if message.started:
                started.set()
        else:
            conn.early.append(message)  # play may begin at the host before it does here

    conn.on_message = lobby

    async def handle(stream: trio.SocketStream) -> None:
        async with seating.greet(stream) as greeted:
            if greeted is None:
                return
            incoming, hello = greeted
            if hello.seat < 0:
                incoming.send_nowait(Refuse("this is not the table's host"))
                await incoming.finish()
            else:
                await seating.serve_mesh(incoming, hello)

    async with trio.open_nursery() as nursery:
        lobby_done = trio.Event()

        async def serve_host() -> None:
            try:
                await conn.serve()
            finally:
                if seating.peer is not None:
                    seating.peer.lost(0, conn)
                lobby_done.set()

        nursery.start_soon(serve_host)
        nursery.start_soon(trio.serve_listeners, handle, listeners)
        with trio.CancelScope() as waiting:
            nursery.start_soon(_cancel_when, lobby_done, waiting)
            await started.wait()
        if not started.is_set():
            raise JoinError(f"{host}:{port} closed the table before it started")
        if roster[0].key != host_key:
            raise JoinError(f"{host}:{port} named another key for itself than it proved")
        seats = [replace(s, host=host) if s.seat == 0 else s for s in roster]
        result = await seating.play(answer.seat, seats, answer.options, {0: conn})
        nursery.cancel_scope.cancel()
    return result


async def resume_table(saved: SeatFile, player: Player) -> MatchResult:
    """Come back to the seat ``saved`` describes (after this process was killed, say):
    listen where the seat listened, dial the others, rebuild the table from them."""
    player.key = SeatKey.from_secret(saved.key)  # the seat the others know
    player.table_name = saved.name
    player.majority = saved.majority  # as the table commits, whatever this seat was told
    seating = Seating(player)
    seating.table = saved.table
    me = saved.roster[saved.seat]
    try:
        listeners = await listen_again(me.port)
    except OSError as exc:
        raise JoinError(f"cannot listen on port {me.port} again: {exc.strerror}") from None
    seating.private = saved.private
    if saved.seat == 0:  # the host, back: spectators watch here again, as they did
        if not saved.private:
            player.passphrase = None
        # (A private table's host asks them the passphrase: it must be given again.)
        watchers = player.spectators and (player.passphrase is not None or not saved.private)
        await _let_watch(seating, player, me.name, me.port, watchers)

    async def handle(stream: trio.SocketStream) -> None:
        async with seating.greet(stream) as greeted:
            if greeted is not None:
                await mesh(*greeted)

    async def mesh(incoming: Connection, hello: Hello) -> None:
        if hello.seat < 0:
            incoming.send_nowait(Refuse("this table has started"))
            await incoming.finish()
        else:
            await seating.serve_mesh(incoming, hello)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(trio.serve_listeners, handle, listeners)
        result = await seating.play(
            saved.seat, list(saved.roster), saved.options, {}, disk=saved.disk
        )
        nursery.cancel_scope.cancel()
    return result


async def _let_watch(
    seating: Seating, player: Player, name: str, port: int, allowed: bool
) -> tuple[Hello, Guesses | None]:
    """Make ``seating`` the host's: how it answers a newcomer's Hello or a spectator's
    Watch, and whether it lets spectators in (``allowed``); returns that answer and, at a
    private table, its passphrase with the wrong guesses counted (None: no passphrase)."""
    guesses = None
    if player.passphrase is not None:
        guesses = Guesses(TableSecret(player.passphrase), player.report)
    seating.answer = Hello(seating.table, 0, name, port, player.key.public)
    seating.spectators = Spectators(allowed, guesses, player.report)
    return seating.answer, guesses


def _ip(stream: trio.SocketStream) -> str:
    """The address a connection comes from, as the passphrase's guesses are counted."""
    address = peer_address(stream)
    return "a closed connection" if address is None else str(address[0])


async def listen(port: int, host: str | None = None) -> list[trio.SocketListener]:
    """Listen on ``port`` (0: one the kernel picks) at ``host``, or at the wildcard
    address of IPv4 and, where this machine has it, IPv6 — on one port for both, since
    the roster gives the others a single port to dial."""
    if host is not None:
        return await trio.open_tcp_listeners(port, host=host)
    for _ in range(PORT_TRIES):
        first = await trio.open_tcp_listeners(port, host="0.0.0.0")
        chosen = first[0].socket.getsockname()[1]
        try:
            return [*first, *await trio.open_tcp_listeners(chosen, host="::")]
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE:
                return first  # no IPv6 on this machine: IPv4 alone
            for listener in first:
                await listener.aclose()
            if port != 0:
                raise
    raise OSError(errno.EADDRINUSE, f"no port free in both IPv4 and IPv6 in {PORT_TRIES} tries")


async def listen_again(port: int, wait: float = REBIND_WAIT) -> list[trio.SocketListener]:
    """`listen` on ``port`` once more, waiting up to ``wait`` seconds while it is in use:
    a connection of the killed process may hold it a moment longer, and the others know
    no other port to dial."""
    deadline = trio.current_time() + wait
    while True:
        try:
            return await listen(port)
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE or trio.current_time() >= deadline:
                raise
        await trio.sleep(0.2)


async def _cancel_when(event: trio.Event, scope: trio.CancelScope) -> None:
    await event.wait()
    scope.cancel()
