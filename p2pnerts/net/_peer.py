"""A seat's peer on the network: its replica, a connection to every other seat, its timers.

The replica decides everything; this only moves bytes and time. Its connections are
`Links` (one per seat, dialled again when lost); an adopted connection is first sent the
replica's `resend_to`, which restores FIFO.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import trio

from p2pnerts.driver import Driver
from p2pnerts.net import _waits
from p2pnerts.net._closed import Closed
from p2pnerts.net._link import Connection, Received
from p2pnerts.net._links import Links
from p2pnerts.net._narration import Narrator
from p2pnerts.net._outgoing import FrameTraffic, Tamper, Traffic, ship, ship_frames
from p2pnerts.net._pace import COUNTDOWN, IDLE_AFTER, Pacing
from p2pnerts.net._result import MatchResult, PeerStats
from p2pnerts.net._rounds import Rounds
from p2pnerts.net._seatbot import play_seat
from p2pnerts.net._seatfile import Keeper, SeatFile
from p2pnerts.net._seatreplica import seat_replica
from p2pnerts.net._shaper import Shaper
from p2pnerts.protocol import (
    CommitFrame,
    Disk,
    Event,
    Hello,
    LinkMessage,
    LocalProtocolError,
    PlayCommitted,
    PlayReturned,
    Ready,
    RemoteProtocolError,
    RoundStarted,
    Seat,
    SeatKey,
    Status,
    Timing,
    table_terms,
)
from p2pnerts.rules import Match, Move, TableOptions, ToFoundation
from p2pnerts.words import apart, marked

FAREWELL = 1.0
"""Seconds a headless peer stopped by Ctrl-C gives the table to hear that it left."""


Watcher = Callable[[Sequence[Event]], None]
"""Hears the events of every change to the replica (after the change is made)."""


MAJORITY_SAID = "commits by a majority (protocol version 3's rule)"
"""What a seat that commits by version 3's majority rule says as play begins."""


class TablePeer:
    """One seat's replica on the network, played by a bot or by a person.

    With a ``driver`` a bot plays the seat; with ``driver`` None nobody does, and whoever
    plays the seat (the front end) calls `intend`, and reads `replica` after each change
    it hears through `watchers`.

    A person's seat deals a round only once they are ready (`ready`), and is declared
    stuck after ``idle_after`` seconds without a move; every seat waits out a
    ``countdown`` after a round's deal (`Pacing`). A seat left alone at the table ends the
    match at once; one that waits for a silent seat it cannot leave out says so, and its
    player may end the match there (`end_match`). A seat that cannot go on by itself and
    has heard no other seat for ``gone_after`` seconds (a few, once every other seat's port
    refuses connections: `_closed`) counts the table gone (`forsaken`):
    a bot ends the match there, and a person may. A bot ends it too once the table has
    waited ``gone_after`` seconds for silent seats, though it hears others (`Quiet.gives_up`).

    With a ``seat_file`` the peer keeps there what it needs to come back after a crash or
    after leaving (`SeatFile`, kept as it left); given the ``disk`` of such a file it
    starts as a peer coming back, and rebuilds the table from the others
    (`Replica.restart`). Stopped by Ctrl-C, a headless peer leaves first (`farewell`).
    """

    def __init__(
        self,
        table: bytes,
        seat: int,
        roster: Sequence[Seat],
        options: TableOptions,
        *,
        rng: random.Random,
        driver: Driver | None,
        report: Callable[[str], None],
        between_rounds: float = 1.0,
        countdown: float = COUNTDOWN,
        idle_after: float = IDLE_AFTER,
        gone_after: float = _waits.GONE_AFTER,
        tell: Callable[[str], None] | None = None,
        on_screen: bool = False,
        timing: Timing | None = None,
        seat_file: Path | None = None,
        disk: Disk | None = None,
        tamper: Tamper | None = None,
        shuns: Callable[[int], bool] | None = None,
        key: SeatKey | None = None,
        seeded: bool = False,
        shaper: Shaper | None = None,
        majority: bool = False,
    ) -> None:
        self.table = table
        self.seat = seat
        self.key = key or SeatKey.generate()
        """This seat's key pair: the roster gives the others its public half."""
        self.roster = tuple(roster)
        self.options = options
        self.name = ""
        """The table's name, if this seat knows it (kept in its state file)."""
        self.private = False
        """Whether the table asks a passphrase (kept in the state file, for spectators)."""
        self.log_path: Path | None = None
        """The game log this seat writes, if it writes one (`net._gamelog`)."""
        now = trio.current_time()
        self.replica = seat_replica(
            table,
            seat,
            self.roster,
            options,
            self.key,
            now=now,
            timing=timing,
            disk=disk,
            tamper=tamper,
            majority=majority,
        )
        self.resumed = disk is not None
        names = apart(s.name for s in self.roster)  # two seats of one name told apart
        self.narrator = Narrator(names, self.replica.seats, seat, you=on_screen)
        """Tells this seat's events in words: the table's news, and (to ``tell``) its plays."""
        self._kept = None if seat_file is None else Keeper(seat_file, report)
        self._saved: tuple[Disk, str, bool] | None = None
        """What the seat file was last given of what changes (`_save`)."""
        self._rng = rng
        if driver is None:
            # Drawn where a bot for the seat once was, so that a seed still draws the bots
            # it did.
            rng.getrandbits(64)
        self._driver = driver
        self._report = report
        self._tell = tell or (lambda _: None)
        """Where the plays themselves are told, play by play (for a watching player)."""
        self._on_screen = on_screen
        """The screen tells the events (`Player.on_screen`): the peer does not."""
        self.pacing = Pacing(person=driver is None, countdown=countdown, idle_after=idle_after)
        """Human time: a person's Ready, the countdown, who is idle (`Pacing`)."""
        self._waits = _waits.News(self.replica, self.pacing, self.narrator, report)
        self._quiet = _waits.Quiet(now, self.replica.timing.heartbeat, gone_after)
        """How long no other seat has said a word (`forsaken`), and when a bot gives up."""
        self._poke = trio.Event()
        self._done = trio.Event()
        self.moved: dict[int, float] = {}
        """When each seat last made a move (or the round began): a bot takes over the part
        of a teammate that has made none for a while (its driver's patience)."""
        self.stats = PeerStats.at(seat, trio.current_time())
        told = marked(names, seat) if on_screen else names  # the summary, a person's own
        self._rounds = Rounds(
            self.replica, self.pacing, told, self.stats, rng, seeded=seeded, between=between_rounds
        )
        """When this seat deals, and the match's result once it ends (`Rounds`)."""
        self.links = Links(
            self.stats,
            refuses=self.replica.gate.refuses,
            hear=self._on_message,
            broken=self._broken,
            shaper=shaper,
        )
        """This seat's connection to each other seat."""
        self._shaper = shaper
        self._sent_at: dict[Move, float] = {}
        self._nursery: trio.Nursery | None = None
        self.watchers: list[Watcher] = []
        self._tamper = tamper
        """What this seat puts on the wire in place of each message it sends (a cheat,
        for demonstrations and tests); None: the messages themselves."""
        self._shuns = shuns or (lambda _: False)
        """The seats this seat never dials (a cheat that cuts its links)."""
        self.traffic: list[Traffic] = []
        self.frame_traffic: list[FrameTraffic] = []

    # --- running --------------------------------------------------------------------------

    async def run(self) -> MatchResult:
        """Play the match to its end; returns the final totals."""
        if self._shaper is not None:
            self._shaper.begin(trio.current_time())
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            nursery.start_soon(self._drive)
            if self._shaper is not None:
                self._report(self._shaper.shape.describe())
                nursery.start_soon(self._shaper.tell, self._report)
            if self.replica.majority is not None:
                self._report(MAJORITY_SAID)
            if self._driver is not None:
                nursery.start_soon(play_seat, self, self._driver, self._rng, self._report)
            for other in self.roster:
                if other.seat < self.seat and not self._shuns(other.seat):
                    dialled = self.links.keep_dialled
                    nursery.start_soon(dialled, other, self.hello, self.key, nursery, self.adopt)
            self._probe_ports(nursery)
            if self.options.teams:  # which team this seat plays in, and with whom
                self._report(self.narrator.team(len(self.options.teams)))
            if self.resumed:
                self._flush()  # the request to rejoin
            elif self.pacing.said_ready:
                self._start_round()
            try:
                await self._done.wait()
            except KeyboardInterrupt:  # Ctrl-C of a headless peer
                await self.part()
                raise
            nursery.cancel_scope.cancel()
        self.links.close()
        assert self.result is not None
        return self.result

    def _probe_ports(self, nursery: trio.Nursery) -> None:
        """While this seat cannot play on, try the other seats' ports: once every one has
        refused for a while, the table counts as gone sooner (`_closed`)."""
        others = [o for o in self.roster if o.seat != self.seat and not self._shuns(o.seat)]
        self._quiet.closed = closed = Closed(o.seat for o in others)
        for other in others:
            nursery.start_soon(closed.keep_probed, other, self._cannot_play_on)

    def _cannot_play_on(self) -> bool:
        return self.result is None and _waits.cannot_play_on(self.replica)

    def adopt(self, seat: int, conn: Connection) -> None:
        """Take over a connection to ``seat`` (already being served), replacing any other,
        and send it what the seat may have missed; a seat that broke the protocol gets
        none (it was told once, when refused)."""
        if not self.links.adopt(seat, conn):
            return
        for message in self.replica.resend_to(seat):
            conn.send_nowait(message)
        if self.replica.status is Status.OUT:
            self.replica.tick(trio.current_time())
        self._flush()

    def lost(self, seat: int, conn: Connection) -> None:
        """A connection ended (whoever served it)."""
        self.links.lost(seat, conn)

    def hello(self) -> Hello:
        me = self.roster[self.seat]
        terms = table_terms(self.table, self.options, len(self.roster), self.replica.by_majority)
        return Hello(self.table, self.seat, me.name, me.port, self.key.public, terms=terms)

    async def _drive(self) -> None:
        """Call the replica's timer whenever it is due (or sooner, after news)."""
        while True:
            self._poke = trio.Event()
            now = trio.current_time()
            deadline = min(self.replica.next_deadline(), self.pacing.deadline(now))
            deadline = min(deadline, self._rounds.deadline, self._quiet.deadline(now))
            with trio.move_on_at(deadline):
                await self._poke.wait()
            now = trio.current_time()
            self._quiet.ran(now)
            self.replica.tick(now)
            self._flush()  # events first: a round's end may be the match's
            if self._waits.idle(now):
                self._flush()
            if self.result is None and _waits.alone(self.replica):
                self.end_match("everyone else has left the table")
            if self._driver is not None and self.result is None:
                why = self._quiet.gives_up(self.replica, self.narrator, now)
                if why is not None:  # (a bot: nobody to choose for it)
                    self.end_match(why, linger=False)
            self._waits.say(self.stranded, self.unready(), now)
            if self._rounds.due(now):
                self._start_round()

    def leave(self) -> bool:
        """Leave the table now (the player quits): every other seat hears it and plays on
        without this one at once, instead of after the silence that leaves it out. False
        if this seat cannot say so now (it is not a member of a settled view), or has
        said so already."""
        if self.replica.status is not Status.NORMAL or self.replica.leaving:
            return False
        self.replica.leave(trio.current_time())
        self._flush()
        self._poke.set()
        return True

    async def farewell(self) -> None:
        """Leave the table (`leave`) and wait until the others have heard it; nothing if
        this seat cannot leave now, or the match is over."""
        kept = self._kept is not None
        if self.result is not None or not self.leave():
            return
        gone = trio.Event()

        def heard(_: Sequence[Event]) -> None:
            if self.left:
                gone.set()

        self.watchers.append(heard)
        try:
            await gone.wait()
        finally:
            self.watchers.remove(heard)
        if kept:
            name = self.roster[self.seat].name
            self._report(f"{name} left the table: join it again to come back")

    async def part(self) -> None:
        """`farewell`, waited on for `FAREWELL` seconds at most: how a seat stopped from
        outside (Ctrl-C, SIGTERM) leaves before it ends."""
        with trio.move_on_after(FAREWELL):
            await self.farewell()

    @property
    def left(self) -> bool:
        """Whether this seat's Leave has committed: the others know it has gone."""
        return self.replica.status is Status.LEFT

    def intend(self, move: Move) -> Move:
        """Make ``move`` at this seat now; raises `IllegalMove` or `LocalProtocolError`."""
        now = trio.current_time()
        starts_in = self.pacing.starts_in(now)
        if starts_in > 0:
            raise LocalProtocolError(f"the round starts in {math.ceil(starts_in)} s")
        self.pacing.moved(now)
        sent = self.replica.intend(move, now)
        if isinstance(sent, ToFoundation):
            self._sent_at[sent] = trio.current_time()
        self._flush()
        self._poke.set()
        return sent

    def ready(self) -> None:
        """This seat's player is ready for the next round (or the first): say Ready now."""
        if self._rounds.ready(trio.current_time()):
            self._poke.set()

    def unready(self) -> tuple[int, ...]:
        """The seats the next round waits for to say they are ready (`_waits.unready`)."""
        return () if self.result is not None else _waits.unready(self.replica, self.pacing)

    def idle(self) -> tuple[float, ...]:
        """Per seat, for how long it has been idle if it is shown so (`Pacing.idle`)."""
        return _waits.idle(self.replica, self.pacing, trio.current_time())

    @property
    def stranded(self) -> frozenset[int]:
        """The silent seats the table cannot leave out, and waits for (`_waits.stranded`)."""
        return frozenset() if self.result is not None else _waits.stranded(self.replica)

    @property
    def forsaken(self) -> float:
        """For how many seconds no other seat has said a word, if that counts the table as
        gone (`_waits.Quiet.forsaken`); else 0."""
        if self.result is not None:
            return 0.0
        return self._quiet.forsaken(self.replica, trio.current_time())

    def end_match(self, why: str, *, linger: bool = True) -> None:
        """End the match here, with the rounds played so far (the others are gone, or the
        player chose not to wait for a silent seat); ``linger``: acknowledge a moment
        first, so that a seat whose Leave this one just committed hears it too."""
        if not self._rounds.end(why):
            return
        self._report(f"match ended: {why}")
        for watch in self.watchers:
            watch(())
        assert self._nursery is not None
        self._nursery.start_soon(self._finish, None if linger else 0.0)

    # --- messages and events -----------------------------------------------------------------

    def _on_message(self, seat: int, message: Received) -> None:
        if isinstance(message, LinkMessage):
            return  # lobby news after play began: nothing to do
        if message.sender != seat and not isinstance(message, CommitFrame):
            # (a commit frame may be handed on: its carrier is the replica's to check,
            # `Majority.take`)
            raise RemoteProtocolError(f"seat {seat}'s connection carried seat {message.sender}")
        if isinstance(message, CommitFrame):
            for hear_frame in self.frame_traffic:
                hear_frame(False, seat, message)
        else:
            for hear in self.traffic:
                hear(False, seat, message)
        self._quiet.heard(trio.current_time())
        try:
            self.replica.receive(message, trio.current_time(), via=seat)
            if isinstance(message, Ready):  # (its Ready of round 0 says it is ready for 1)
                self.pacing.said_ready_for(message.sender, max(message.round, 1))
        finally:
            self._flush()  # a refusal is told at once, before the link drops
        self._poke.set()

    def _broken(self, seat: int, why: str) -> None:
        """``seat``'s connection broke the protocol (or its limits): refuse the seat."""
        self.replica.refuse(seat, why)
        self._flush()
        self._poke.set()

    def _flush(self) -> None:
        replica = self.replica
        ship(replica.take_outgoing(), self.links, replica.signer, self._tamper, self.traffic)
        frames = replica.take_frames()
        ship_frames(frames, self.links, replica.signer, self._tamper, self.frame_traffic)
        events = self.replica.take_events()
        for event in events:
            self._on_event(event)
        for watch in self.watchers:
            watch(events)
        self._save()

    def _save(self) -> None:
        """Keep the seat file up to date with what the replica must keep (it changes
        once a round and once a view: seldom)."""
        if self._kept is None or self.result is not None:
            return
        disk = self.replica.disk
        if (disk, self.name, self.private) == self._saved and not self.left:
            return  # (unchanged: asked after every frame, it changes once a round or a view)
        self._saved = (disk, self.name, self.private)
        key = self.key.secret
        kept = SeatFile(
            self.table,
            self.seat,
            self.roster,
            self.options,
            disk,
            key,
            self.name,
            self.private,
            self.replica.by_majority,
        )
        self._kept.keep(kept)
        if self.left:
            self._kept = None  # kept as it left: this seat may come back to it

    def _on_event(self, event: Event) -> None:
        self.stats.count(event, trio.current_time())
        if isinstance(event, PlayCommitted | PlayReturned):
            self.moved[event.seat] = trio.current_time()
            self.pacing.heard(event.seat, event.move, trio.current_time())
            sent = self._sent_at.pop(event.move, None) if event.seat == self.seat else None
            if sent is not None:
                self.stats.landed(sent, trio.current_time())
        elif isinstance(event, RoundStarted):
            self.moved = dict.fromkeys(range(len(self.roster)), trio.current_time())
            self.pacing.round_started(len(self.roster), trio.current_time())
        told = None if self._on_screen else self.narrator.tell(event)
        if told is not None:
            (self._tell if told.play else self._report)(told.text)
        if self._rounds.heard(event, trio.current_time()):
            assert self._nursery is not None
            self._nursery.start_soon(self._finish)

    # --- rounds -------------------------------------------------------------------------------

    @property
    def match(self) -> Match:
        """The match so far (`Rounds.match`)."""
        return self._rounds.match

    @property
    def result(self) -> MatchResult | None:
        """How the match ended; None while it is on."""
        return self._rounds.result

    def standing(self) -> MatchResult:
        """What a seat that goes is told as it goes, whichever way (the match over, the
        player quitting, Ctrl-C): the match's result, or how it stood as it left, with the
        game log's path."""
        return replace(self._rounds.standing(), log=self.log_path)

    def _start_round(self) -> None:
        self._rounds.deal(trio.current_time())
        self._flush()
        self._poke.set()

    async def _finish(self, linger: float | None = None) -> None:
        await self._rounds.settle(linger)
        if self._kept is not None:
            self._kept.drop()
        self._done.set()
