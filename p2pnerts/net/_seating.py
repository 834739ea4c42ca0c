"""Seating at one peer: who plays its seat (`Player`), and the connections other seats
open to it, each greeted, checked and proven (SPEC §2.8) before it is a seat's link."""

from __future__ import annotations

import logging
import random
from collections import Counter
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import trio

from p2pnerts.driver import Driver
from p2pnerts.net._gamelog import keep_log
from p2pnerts.net._handshake import answer_channel, answer_link
from p2pnerts.net._link import Closed, Connection
from p2pnerts.net._outgoing import Tamper
from p2pnerts.net._pace import COUNTDOWN, IDLE_AFTER
from p2pnerts.net._peer import TablePeer
from p2pnerts.net._result import MatchResult
from p2pnerts.net._seatfile import KeptSeats
from p2pnerts.net._shaper import LinkShaper, Shaper
from p2pnerts.net._spectators import Spectators
from p2pnerts.net._waits import GONE_AFTER
from p2pnerts.protocol import (
    Disk,
    Hello,
    Noise,
    Refuse,
    RemoteProtocolError,
    Seat,
    SeatKey,
    Watch,
    Welcome,
)
from p2pnerts.rules import TableOptions

log = logging.getLogger("p2pnerts.net")
NO_TABLE = bytes(16)
"""The table id a newcomer names before it has one."""
HANDSHAKE_TIMEOUT = 10.0
"""Seconds a new connection has to say Hello, and a seat of a table that has not begun
here yet to wait for it."""
TERMS_DIFFER = "this table's size or options are not the ones that seat has"
NOT_NOISE = "a link opens with the Noise handshake (SPEC 2.8)"
PER_ADDRESS = 64
"""Connections one address may hold open to this peer at once: enough for every seat of
the largest table on one machine, too few to run it out of descriptors."""


@dataclass(slots=True)
class Player:
    """Who plays a seat here and how: the name, randomness, and the bot that plays it.

    ``driver`` None: a person plays the seat through the `TablePeer` given to ``seated``.
    """

    name: str
    rng: random.Random
    driver: Driver | None
    report: Callable[[str], None]
    tell: Callable[[str], None] | None = None
    """If given, hears every foundation play, race and Nerts call as it commits."""
    on_screen: bool = False
    """A person plays the seat on a screen, which tells the table's events itself: the
    peer tells only its own news on ``report``, to the player as "you"."""
    seated: Callable[[TablePeer], None] | None = None
    """Hears the seat's peer as play begins, before any message reaches it."""
    seat_file: Path | None = None
    """Where to keep what this seat needs to come back after a crash (`resume_table`)."""
    kept_seats: KeptSeats | None = None
    """Where a joiner with no ``seat_file`` keeps its seat, a file per table, to come back
    to it after leaving or a crash (None: it keeps none)."""
    lobby: Callable[[tuple[Seat, ...]], None] | None = None
    """Hears the roster while the table fills (seated so far, by seat)."""
    welcomed: Callable[[Welcome], None] | None = None
    """Hears the host's answer to a joiner: its seat, the table's size and options."""
    tamper: Tamper | None = None
    """Rewrites what this seat sends (a cheat, for demonstrations and tests)."""
    shuns: Callable[[int], bool] | None = None
    """The seats whose links this seat refuses and never dials (a cheat, likewise)."""
    key: SeatKey = field(default_factory=SeatKey.generate)
    """This seat's key pair (a state file keeps it, to come back as the same seat)."""
    expect_host: str | None = None
    """The host's key fingerprint as the table announced it, if known: a host that proves
    another key is not the table announced (`join_table` refuses it)."""
    passphrase: str | None = None
    """A private table's passphrase: the host seats only newcomers that prove they know
    it, and a joiner takes a seat only from a host that proves it (SPEC §2.9)."""
    table_name: str | None = None
    """The table's name where this seat knows it (the host's own; a joiner's, when it asked
    by name): said in messages, and kept in the state file."""
    between_rounds: float = 1.0
    """Seconds from a round's end to a bot's Ready for the next (a person says Ready when
    they are ready: `TablePeer.ready`)."""
    countdown: float = COUNTDOWN
    """Seconds from a round's deal to the first move this seat may make."""
    idle_after: float = IDLE_AFTER
    """Seconds without a move after which a person's seat is declared stuck."""
    gone_after: float = GONE_AFTER
    """Seconds without a word from any other seat after which a seat that cannot go on by
    itself counts the table gone (`TablePeer.forsaken`)."""
    seeded: bool = False
    """For tests alone: this seat's deal secrets are drawn from ``rng``, so that a test's
    deals repeat. No command sets it: a seat's secrets come from the system's randomness,
    whatever ``--seed`` says (a secret another can predict, by trying seeds against the
    round's public pledges, lets them know the deck)."""
    shaper: Shaper | None = None
    """How this seat's links are slowed, made lossy or cut (slow motion, a Wi-Fi test)."""
    majority: bool | None = False
    """Commit by version 3's majority rule (`protocol._majority`): the host's choice, which
    its Welcome tells and every seat follows (`join_table` and `resume_table` set this
    from the table, whatever the seat was told). None, as the commands have it unless told
    otherwise: a host commits by a majority at a table of `LEAST_FOR_MAJORITY` seats or
    more and by acknowledgement at a smaller one, saying nothing of it (`host_table`). A
    seat that joins follows its host, saying so only where it was told True and the
    table commits by acknowledgement. A seat that leaves is left out at once,
    a silent one only after `Timing.depart_after` (a quorum plays on meanwhile), or
    `Timing.exclude_after` where the silent seats leave the others no quorum; a seat
    left out, or that restarts, asks to come back and is let back in, as at any table."""
    log_dir: Path | None = None
    """Where to write this seat's game log (`net._gamelog`); None: nowhere."""
    spectators: bool = True
    """Whether the table this player hosts lets spectators watch (`net._spectators`)."""

    def link_shape(self) -> LinkShaper | None:
        """The shaping of one new connection of this seat's, if its links are shaped."""
        return None if self.shaper is None else self.shaper.link()


Greeted = tuple[Connection, Hello]
"""A new connection, and the Hello it opened with."""


class Seating:
    """The part of a table both the host and a joiner run: a listener for the seats that
    dial in, and the hand-over of connections to the table's peer once play begins."""

    def __init__(self, player: Player) -> None:
        self.player = player
        self.table = NO_TABLE
        self.peer: TablePeer | None = None
        self.playing = trio.Event()
        self._open: Counter[str] = Counter()
        """Connections open per address."""
        self.spectators: Spectators | None = None
        """Whom this seat lets watch the table (the host's); None: it sends them there."""
        self.answer: Hello | None = None
        """How this seat answers a newcomer's (or a spectator's) Hello: the host's."""
        self.private = player.passphrase is not None
        """Whether the table asks a passphrase (its state files keep it)."""

    @asynccontextmanager
    async def greet(self, stream: trio.SocketStream) -> AsyncIterator[Greeted | None]:
        """A new connection and its Hello; None, the connection closed, when the Hello does
        not come in time or the address holds too many connections already."""
        peer = peer_address(stream)
        if peer is None:  # reset as it opened
            await stream.aclose()
            yield None
            return
        address = peer[0]
        conn = Connection(stream, f"{address}:{peer[1]}", shape=self.player.link_shape())
        if self._open[address] >= PER_ADDRESS:
            await conn.finish()
            yield None
            return
        self._open[address] += 1
        try:
            hello = await _hello(conn)
            if isinstance(hello, Watch):
                await self._watched(conn, hello, address)
                yield None
            elif hello is None:
                await conn.finish()
                yield None
            else:
                conn.open_up()
                yield conn, hello
        finally:
            self._open[address] -= 1
            if not self._open[address]:
                del self._open[address]

    async def _watched(self, conn: Connection, watch: Watch, address: str) -> None:
        """A spectator: served at the host, and at any other seat with the host's ticket."""
        peer, key = lambda: self.peer, self.player.key
        if self.spectators is None or self.answer is None:
            self.spectators = self.spectators or Spectators(False, None, self.player.report)
            await self.spectators.serve_seat(conn, watch, address, key, self.playing, peer)
            return
        await self.spectators.serve(conn, watch, address, self.answer, key, self.playing, peer)

    async def serve_mesh(self, conn: Connection, hello: Hello) -> None:
        """A seat of a started table connecting to this one (it may dial before play has
        begun here: it waits a while)."""
        if hello.table == self.table:
            with trio.move_on_after(HANDSHAKE_TIMEOUT):
                await self.playing.wait()
        peer = self.peer
        if peer is None and hello.table == self.table:
            await conn.finish()  # not begun here yet: the seat dials again
            return
        if peer is None or hello.table != self.table or not 0 <= hello.seat < len(peer.roster):
            conn.send_nowait(Refuse("that is not a seat of this table"))
            await conn.finish()
            return
        if hello.key != peer.roster[hello.seat].key:
            conn.send_nowait(Refuse(f"that is not seat {hello.seat}'s key"))
            await conn.finish()
            return
        if self.player.shuns is not None and self.player.shuns(hello.seat):
            conn.send_nowait(Refuse("this seat links to the host alone"))
            await conn.finish()
            return
        refused = await answer_link(conn, hello, peer.hello(), peer.key)
        if refused is None and hello.terms != peer.hello().terms:
            refused = TERMS_DIFFER  # the seat proved itself, but plays another table
        if refused is not None:
            conn.send_nowait(Refuse(refused))
            await conn.finish()
            return
        conn.open_up()
        peer.adopt(hello.seat, conn)
        try:
            await conn.serve()
        finally:
            peer.lost(hello.seat, conn)

    async def play(
        self,
        seat: int,
        roster: list[Seat],
        options: TableOptions,
        links: dict[int, Connection],
        disk: Disk | None = None,
    ) -> MatchResult:
        """Play the match at ``seat``, over ``links`` already open (coming back with
        ``disk``, if given)."""
        p = self.player
        self.peer = TablePeer(
            self.table,
            seat,
            roster,
            options,
            rng=p.rng,
            driver=p.driver,
            report=p.report,
            tell=p.tell,
            on_screen=p.on_screen,
            seat_file=p.seat_file,
            disk=disk,
            between_rounds=p.between_rounds,
            tamper=p.tamper,
            shuns=p.shuns,
            key=p.key,
            countdown=p.countdown,
            idle_after=p.idle_after,
            gone_after=p.gone_after,
            seeded=p.seeded,
            shaper=p.shaper,
            majority=p.majority is True,
        )
        self.peer.name = p.table_name or ""
        self.peer.private = self.private
        stop_log = None
        if p.log_dir is not None:
            stop_log = keep_log(self.peer, p.log_dir, options.summary(), p.report)
        if p.seated is not None:
            p.seated(self.peer)
        for other, conn in links.items():
            self.peer.adopt(other, conn)
        self.playing.set()
        try:
            await self.peer.run()
        finally:
            if stop_log is not None:
                stop_log()
            stats = self.peer.stats
            stats.finished = stats.finished or trio.current_time()  # (left before the end)
        return self.peer.standing()


async def _hello(conn: Connection) -> Hello | Watch | None:
    """The first message on a new connection, once its Noise handshake has encrypted it,
    if it is a Hello (or a spectator's Watch) in time."""
    try:
        with trio.fail_after(HANDSHAKE_TIMEOUT):
            opening = await conn.receive()
            if isinstance(opening, Noise):
                await answer_channel(conn, opening)
                first = await conn.receive()
    except (trio.TooSlowError, Closed):
        return None
    except RemoteProtocolError as exc:
        log.warning("%s: refused at the handshake: %s", conn.peer, exc)
        await conn.say_last(Refuse(f"refused: {exc}"))
        return None
    if not isinstance(opening, Noise):
        await conn.say_last(Refuse(NOT_NOISE))
        return None
    return first if isinstance(first, Hello | Watch) else None


def peer_address(stream: trio.SocketStream) -> tuple[str, int] | None:
    """The other end's host and port; None if the connection is gone already (the other
    end reset it: it cannot be asked then, and the socket says so with an OSError)."""
    try:
        host, port = stream.socket.getpeername()[:2]
    except OSError:
        return None
    return str(host), int(port)
