"""A seat's peer on the network: its replica, a connection to every other seat, its timers.

The replica decides everything; this only moves bytes and time. Seats dial every seat
with a lower number and accept the others, so each pair has one connection; a lost
connection is dialled again with backoff, and the replica's `resend_to` restores FIFO.
"""

from __future__ import annotations

import logging
import random
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import get_args

import trio

from p2pnerts.bots import Policy, SimpleBot, my_part, part_in_words
from p2pnerts.net._link import Closed, Connection, Received
from p2pnerts.net._result import MatchResult, PeerStats
from p2pnerts.net._seatfile import SeatFile
from p2pnerts.net._words import deck_names, either, says, together, whose
from p2pnerts.protocol import (
    AuditFailed,
    Disk,
    Event,
    Hello,
    LocalProtocolError,
    Message,
    PeerExcluded,
    PeerLeft,
    PeerRejoined,
    PeerSuspected,
    PlayCommitted,
    PlayReturned,
    RemoteProtocolError,
    Replica,
    RoundOver,
    RoundStarted,
    Seat,
    Status,
    Timing,
    addressed_to,
)
from p2pnerts.rules import (
    CallNerts,
    IllegalMove,
    Move,
    TableOptions,
    ToFoundation,
    shuffled_deck,
)

log = logging.getLogger("p2pnerts.net")

PROTOCOL_MESSAGES = get_args(Message)


@dataclass(frozen=True, slots=True)
class Pace:
    """How long a bot takes between looks at the table, in seconds."""

    think: float = 0.05
    spread: float = 0.05
    patience: float = 2.0
    """On a team, how long the bot leaves a teammate's part of the tableau to a teammate
    that makes no move before it plays that part too."""


Watcher = Callable[[Sequence[Event]], None]
"""Hears the events of every change to the replica (after the change is made)."""
Traffic = Callable[[bool, int | None, Message], None]
"""Hears every protocol message: outgoing or not, the other seat (None: to all), it."""


class TablePeer:
    """One seat's replica on the network, played by a policy at a pace, or by a person.

    With a ``pace`` a bot plays the seat (``policy``, or a `SimpleBot`); with ``pace``
    None nobody does, and whoever drives the seat (the front end) calls `intend`, and
    reads `replica` after each change it hears through `watchers`.

    With a ``seat_file`` the peer keeps there what it needs to come back after a crash
    (`SeatFile`); given the ``disk`` of such a file it starts as a peer coming back, and
    rebuilds the table from the others (`Replica.restart`).
    """

    def __init__(
        self,
        table: bytes,
        seat: int,
        roster: Sequence[Seat],
        options: TableOptions,
        *,
        rng: random.Random,
        pace: Pace | None,
        report: Callable[[str], None],
        policy: Policy | None = None,
        between_rounds: float = 1.0,
        tell: Callable[[str], None] | None = None,
        timing: Timing | None = None,
        seat_file: Path | None = None,
        disk: Disk | None = None,
    ) -> None:
        self.table = table
        self.seat = seat
        self.roster = tuple(roster)
        self.options = options
        now, players = trio.current_time(), len(roster)
        if disk is None:
            self.replica = Replica(seat, options, players, timing=timing, now=now)
        else:
            self.replica = Replica.restart(
                seat, options, players, disk=disk, now=now, timing=timing
            )
        self.resumed = disk is not None
        self._seat_file = seat_file
        self._saved: Disk | None = None
        self.links: dict[int, Connection] = {}
        self.result: MatchResult | None = None
        self._rng = rng
        self._bot: Policy = policy or SimpleBot(random.Random(rng.getrandbits(64)))
        self._pace = pace
        self._report = report
        self._tell = tell or (lambda _: None)
        """Where the plays themselves are told, play by play (for a watching player)."""
        self._between_rounds = between_rounds
        self._poke = trio.Event()
        self._done = trio.Event()
        self._lost: dict[int, trio.Event] = {}
        self._next_round_at: float | None = None
        self._moved: dict[int, float] = {}
        """When each seat last made a move (or the round began): a bot takes over the part
        of a teammate that has made none for a while (`Pace.patience`)."""
        self.stats = PeerStats([], started=trio.current_time())
        self._sent_at: dict[Move, float] = {}
        self._nursery: trio.Nursery | None = None
        self.watchers: list[Watcher] = []
        self.traffic: list[Traffic] = []

    # --- running --------------------------------------------------------------------------

    async def run(self, dial: Callable[[Seat], trio.abc.Stream] | None = None) -> MatchResult:
        """Play the match to its end; returns the final totals."""
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            nursery.start_soon(self._drive)
            if self._pace is not None:
                nursery.start_soon(self._play)
            for other in self.roster:
                if other.seat < self.seat:
                    nursery.start_soon(self._keep_dialled, other)
            self._say_team()
            if self.resumed:
                self._flush()  # the request to rejoin
            else:
                self._start_round()
            await self._done.wait()
            nursery.cancel_scope.cancel()
        for conn in self.links.values():
            self.stats.frames_sent += conn.frames_sent
            self.stats.bytes_sent += conn.bytes_sent
            conn.frames_sent = conn.bytes_sent = 0
            conn.close()
        assert self.result is not None
        return self.result

    def _say_team(self) -> None:
        """At a table of teams, tell which team this seat plays in, and with whom."""
        if not self.options.teams:
            return
        me = self._name(self.seat)
        mates = [self._name(s) for s in self.replica.team if s != self.seat]
        where = f"in team {self.replica.deck + 1} of {len(self.options.teams)}"
        part = part_in_words(self.seat, self.replica.team)
        self._report(
            f"{says(me, 'is')} {where}, "
            + (f"with {together(mates)} — {whose(me)} part: {part}" if mates else "alone")
        )

    def _teammates_here(self) -> list[int]:
        """This seat and the teammates minding their parts, in seat order: at the table,
        dealt in, and making moves (a person may stop; a bot then plays their part too)."""
        away, now = self.replica.away(), trio.current_time()
        patience = self._pace.patience if self._pace is not None else 0.0
        return [
            s
            for s in self.replica.team
            if s == self.seat or (s not in away and now - self._moved.get(s, now) < patience)
        ]

    def adopt(self, seat: int, conn: Connection) -> None:
        """Take over a connection to ``seat`` (already being served), replacing any other."""
        old = self.links.get(seat)
        if old is not None and old is not conn:
            old.close()
        self.links[seat] = conn
        conn.on_message = lambda message: self._on_message(seat, message)
        early, conn.early = conn.early, []
        for received in early:
            self._on_message(seat, received)
        for message in self.replica.resend_to(seat):
            conn.send_nowait(message)
        if self.replica.status is Status.OUT:
            self.replica.tick(trio.current_time())
        self._flush()

    def lost(self, seat: int, conn: Connection) -> None:
        """A connection ended (whoever served it)."""
        self.stats.frames_sent += conn.frames_sent
        self.stats.bytes_sent += conn.bytes_sent
        conn.frames_sent = conn.bytes_sent = 0
        if self.links.get(seat) is conn:
            del self.links[seat]
            self._lost.setdefault(seat, trio.Event()).set()

    def hello(self) -> Hello:
        me = self.roster[self.seat]
        return Hello(self.table, self.seat, me.name, me.port)

    async def _keep_dialled(self, other: Seat) -> None:
        """Keep a connection to a lower seat: dial, and dial again when it drops."""
        delay = 0.05
        while True:
            current = self.links.get(other.seat)
            if current is not None and not current.closed:
                lost = self._lost[other.seat] = trio.Event()
                await lost.wait()
                continue
            conn = await self._dial(other)
            if conn is None:
                await trio.sleep(delay)
                delay = min(delay * 2, 2.0)
                continue
            delay = 0.05
            assert self._nursery is not None
            done = trio.Event()

            async def serve(conn: Connection = conn, done: trio.Event = done) -> None:
                try:
                    await conn.serve()
                finally:
                    self.lost(other.seat, conn)
                    done.set()

            self._nursery.start_soon(serve)
            self.adopt(other.seat, conn)
            await done.wait()

    async def _dial(self, other: Seat) -> Connection | None:
        try:
            stream = await trio.open_tcp_stream(other.host, other.port)
        except OSError:
            return None
        conn = Connection(stream, f"seat {other.seat} ({other.host}:{other.port})")
        conn.send_nowait(self.hello())
        # The writer is not running yet: write the Hello by hand, then read the answer.
        try:
            with trio.fail_after(5):
                await stream.send_all(conn.take_queued())
                reply = await conn.receive()
        except (trio.TooSlowError, Closed, OSError, trio.BrokenResourceError):
            await stream.aclose()
            return None
        if not isinstance(reply, Hello) or reply.table != self.table or reply.seat != other.seat:
            log.warning("seat %d answered with %r: not this table's seat", other.seat, reply)
            await stream.aclose()
            return None
        return conn

    async def _drive(self) -> None:
        """Call the replica's timer whenever it is due (or sooner, after news)."""
        while True:
            self._poke = trio.Event()
            deadline = self.replica.next_deadline()
            if self._next_round_at is not None:
                deadline = min(deadline, self._next_round_at)
            with trio.move_on_at(deadline):
                await self._poke.wait()
            now = trio.current_time()
            self.replica.tick(now)
            self._flush()  # events first: a round's end may be the match's
            if self._next_round_at is None and self._wants_deal():
                self._next_round_at = now + self._between_rounds
            due = self._next_round_at is not None and now >= self._next_round_at
            if due and self._wants_deal():
                self._next_round_at = None
                self._start_round()
            elif due and self.replica.status is Status.NORMAL:
                # Nothing to deal: a teammate dealt this seat's deck and the round is on
                # (or the match is over).
                self._next_round_at = None

    def leave(self) -> bool:
        """Leave the table now (the player quits): every other seat hears it and plays on
        without this one at once, instead of after the silence that leaves it out. False
        if this seat cannot say so now (it is not a member of a settled view)."""
        if self.replica.status is not Status.NORMAL:
            return False
        self.replica.leave(trio.current_time())
        self._flush()
        self._poke.set()
        return True

    @property
    def left(self) -> bool:
        """Whether this seat's Leave has committed: the others know it has gone."""
        return self.replica.status is Status.LEFT

    def intend(self, move: Move) -> Move:
        """Make ``move`` at this seat now; raises `IllegalMove` or `LocalProtocolError`."""
        sent = self.replica.intend(move, trio.current_time())
        if isinstance(sent, ToFoundation):
            self._sent_at[sent] = trio.current_time()
        self._flush()
        self._poke.set()
        return sent

    def deal_next_round(self) -> None:
        """Say Ready for the next round now rather than after the pause between rounds."""
        if self._next_round_at is not None:
            self._next_round_at = trio.current_time()
            self._poke.set()

    async def _play(self) -> None:
        """The bot at this seat: look at the table now and then, and make a move."""
        pace = self._pace
        assert pace is not None
        while True:
            await trio.sleep(pace.think + self._rng.random() * pace.spread)
            replica = self.replica
            display = replica.display
            if (
                display is None
                or display.ended is not None
                or replica.in_the_air is not None
                or replica.status is not Status.NORMAL
                or replica.blind
            ):
                continue
            move = self._bot.choose(display, self.seat)
            if move is None or not my_part(move, self.seat, self._teammates_here()):
                continue  # (a teammate's part: it makes that move)
            try:
                self.intend(move)
            except (IllegalMove, LocalProtocolError):
                continue

    # --- messages and events -----------------------------------------------------------------

    def _on_message(self, seat: int, message: Received) -> None:
        if not isinstance(message, PROTOCOL_MESSAGES):
            return  # lobby news after play began: nothing to do
        if message.sender != seat:
            raise RemoteProtocolError(f"seat {seat}'s connection carried seat {message.sender}")
        for hear in self.traffic:
            hear(False, seat, message)
        self.replica.receive(message, trio.current_time())
        self._flush()
        self._poke.set()

    def _flush(self) -> None:
        for message in self.replica.take_outgoing():
            for hear in self.traffic:
                hear(True, None, message)
            for seat, conn in list(self.links.items()):
                if addressed_to(message, seat):
                    conn.send_nowait(message)
        events = self.replica.take_events()
        for event in events:
            self._on_event(event)
        for watch in self.watchers:
            watch(events)
        self._save()

    def _save(self) -> None:
        """Keep the seat file up to date with what the replica must keep (it changes
        once a round and once a view: seldom)."""
        if self._seat_file is not None and self.left:
            self._seat_file.unlink(missing_ok=True)  # gone for good: nothing to come back to
            self._seat_file = None
        disk = self.replica.disk
        if self._seat_file is None or disk == self._saved or self.result is not None:
            return
        SeatFile(self.table, self.seat, self.roster, self.options, disk).save(self._seat_file)
        self._saved = disk

    def _on_event(self, event: Event) -> None:
        name = self._name
        if isinstance(event, PlayCommitted | PlayReturned):
            self._moved[event.seat] = trio.current_time()
            sent = self._sent_at.pop(event.move, None) if event.seat == self.seat else None
            if sent is not None:
                self.stats.commit_latencies.append(trio.current_time() - sent)
        elif isinstance(event, RoundStarted):
            self._moved = dict.fromkeys(range(len(self.roster)), trio.current_time())
        match event:
            case RoundStarted(round=number):
                self._report(f"round {number} starts")
            case RoundOver(round=number, caller=caller, scores=scores):
                who = f"{name(caller)} called Nerts" if caller is not None else "everyone stuck"
                decks = deck_names([s.name for s in self.roster], self.replica.seats)
                points = ", ".join(f"{decks[s.deck]} {s.points:+d}" for s in scores)
                self._report(f"round {number} over ({who}): {points}")
                self._after_round()
            case PeerSuspected(seat=seat):
                self._report(f"{says(name(seat), 'is')} silent")
            case PeerExcluded(seat=seat):
                self._report(f"{says(name(seat), 'is')} left out; the table plays on")
            case PeerRejoined(seat=seat):
                self._report(f"{says(name(seat), 'is')} back")
            case PeerLeft(seat=seat) if seat != self.seat:
                self._report(f"{name(seat)} left the table; the others play on")
            case AuditFailed(seat=seat, reason=reason):
                self._report(f"audit: {name(seat)} {reason}")
            case PlayCommitted(seat=seat, move=ToFoundation(card=card), tie=tie):
                tie_text = " (a tie: both stay)" if tie else ""
                self._tell(f"{says(name(seat), 'plays')} {card}{tie_text}")
            case PlayReturned(seat=seat, move=ToFoundation(card=card), winner=w, raced=raced):
                first = self._first(seat, w, raced)
                if first is not None:
                    self._tell(f"{whose(name(seat))} {card} goes back: {first}")
            case PlayCommitted(seat=seat, move=CallNerts()):
                self._tell(f"{says(name(seat), 'calls')} Nerts!")

    def _first(self, seat: int, winner: int | None, raced: bool) -> str | None:
        """Who took the spot of ``seat``'s returned play, in words: the winner of the race;
        or, on a team's tableau, the teammates (one of whose moves, ordered first, changed
        the tableau under it). None if neither (the round was over, say)."""
        if winner is not None:
            return f"{says(self._name(winner), 'was')} first"
        mates = [self._name(s) for s in self.replica.team_of(seat) if s != seat]
        return f"{either(mates)} moved first" if mates and raced else None

    def _name(self, seat: int | None) -> str:
        return "nobody" if seat is None else self.roster[seat].name

    # --- rounds -------------------------------------------------------------------------------

    def _totals(self) -> tuple[int, ...]:
        """Every deck's total so far (a team's deck scores for the team)."""
        totals = [0] * (max(self.replica.seats) + 1)
        for row in self.replica.match_scores:
            for deck, points in enumerate(row):
                totals[deck] += points
        return tuple(totals)

    def _after_round(self) -> None:
        totals, rounds = self._totals(), len(self.replica.match_scores)
        limit = self.options.rounds
        over = rounds >= limit if limit is not None else max(totals) >= self.options.target
        assert self._nursery is not None
        if over:
            best = max(totals)
            winners = tuple(d for d, t in enumerate(totals) if t == best)
            names = tuple(s.name for s in self.roster)
            seats = self.replica.seats
            self.result = MatchResult(names, totals, winners, rounds, seats, self.stats)
            self._nursery.start_soon(self._finish)
        else:
            self._next_round_at = trio.current_time() + self._between_rounds

    def _wants_deal(self) -> bool:
        """Between rounds (or before the first) with no deck dealt for the next: as a
        peer that came back finds itself, having missed the end of a round."""
        return self.result is None and self.replica.should_deal()

    def _start_round(self) -> None:
        order = shuffled_deck(self.replica.deck, self.options, self._rng)
        self.replica.start_round(order, secrets.token_bytes(16), trio.current_time())
        self._flush()
        self._poke.set()

    async def _finish(self) -> None:
        # Linger a moment, acknowledging, so that every seat commits the last round too.
        await trio.sleep(max(2.0, 4 * self.replica.timing.heartbeat))
        self.stats.finished = trio.current_time()
        if self._seat_file is not None:
            self._seat_file.unlink(missing_ok=True)
        self._done.set()
