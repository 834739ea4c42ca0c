"""The run driver: replicas with bots on the modelled network, faults injected, invariants
checked after every step.

Everything that happens is an entry in one time-ordered queue — a message landing, a
replica's timer, a bot's next look at the table, a fault striking or ending — and every
choice comes from generators the seed fixes, so the same seed gives the same run, step
for step, and the same digest.

A peer crashes by losing its replica, all but its ``disk``, and restarts with
`Replica.restart`. A connection that comes back up carries, first, what each side's
replica says to resend (`Replica.resend_to`) — and under a mix with duplicates, some of
what it had already delivered, too. The liveness checks (rounds end, a majority cut off
goes on) are the `Watchdog`'s.
"""

from __future__ import annotations

import functools
import random
import traceback
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from p2pnerts.driver import Driver, Drivers, Look
from p2pnerts.protocol import (
    SECRET_BYTES,
    CommitFrame,
    Disk,
    Event,
    LocalProtocolError,
    Message,
    ProtocolError,
    Replica,
    Shuffle,
    Status,
    addressed_to,
    encode,
)
from p2pnerts.rules import IllegalMove
from p2pnerts.sim._faults import Crash, Fault, LinkDrop, Partition, SlowPeer
from p2pnerts.sim._invariants import Violation
from p2pnerts.sim._ledger import Ledger
from p2pnerts.sim._logs import SimLogs
from p2pnerts.sim._network import Network, Scheduler
from p2pnerts.sim._quorum import (
    Watch,
    holders_outside,
    views_now,
    without_majority,
)
from p2pnerts.sim._report import SeedResult, ViolationReport
from p2pnerts.sim._trace import Trace
from p2pnerts.sim._watchdog import Watchdog
from p2pnerts.sim._watcher import Watcher
from p2pnerts.sim._workload import Lineup, SimConfig, setting

TIMER_GRAIN = 1e-6
"""A timer falls due this long after the step that set it, at the soonest: time moves on
between two steps of a real peer's loop, too (and a deadline the replica's ``tick`` does
not act on yet cannot spin the simulation)."""
SPINS = 1000
"""Steps in a row after which a replica's timer being due already is a fault of its own."""
REDELIVERED = 8
"""How many delivered messages a link keeps, to deliver again after a reconnect."""


@dataclass(slots=True)
class _Peer:
    """One seat's replica and bot, and the run's hold on its timer and its lives."""

    replica: Replica
    bot: Driver
    life: int = 0
    """Bumped by each crash, so that the old life's timers and looks lapse."""
    disk: Disk | None = None
    timer_at: float | None = None
    spins: int = 0


class Simulation:
    """One seed's run of a table of replicas with bots, on the mix's network.

    ``bots`` makes each seat's `Driver` (the bots' `SimpleBots`, say), from the
    generator the seed fixes for that seat's bot.
    """

    def __init__(
        self, config: SimConfig, seed: int, bots: Drivers, lineup: Lineup | None = None
    ) -> None:
        self.config, self.seed = config, seed
        self.lineup = lineup
        self._shuffle: Shuffle | None = None
        if lineup is not None and lineup.decks is not None:
            # The arena deals its own decks, the same to every replica (fair deals).
            decks, seating = lineup.decks, config.seating
            self._shuffle = lambda deck, number, _secret, _seed: decks(number, seating.index(deck))
        self.peers = config.peers
        fixed = setting(config, seed)
        self.scheduler = Scheduler()
        self.network: Network[Message | CommitFrame] = Network(
            self.scheduler, random.Random(fixed.network), fixed.links, self._arrive
        )
        self.ledger = Ledger(config, fixed.links)
        self.trace = Trace(config.trace)
        self.seats = [
            _Peer(self._replica(seat), bots(seat, random.Random(fixed.bots[seat])))
            for seat in range(self.peers)
        ]
        self._faults = fixed.faults
        self._pace = random.Random(fixed.pace)
        self._secrets = random.Random(fixed.deals)
        self._deals = fixed.deals
        self._delivered: dict[tuple[int, int], deque[Message]] = {}
        self.watchdog = Watchdog(
            config, self.ledger, self.network, self.scheduler, self._replicas, self._up
        )
        self.logs = None if config.log is None else SimLogs(Path(config.log), config, seed)
        self.watchers: list[Watcher] = [] if self.logs is None else [self.logs]

    @property
    def now(self) -> float:
        return self.scheduler.now

    def run(self) -> SeedResult:
        """Play the configured rounds; stop at the first violation."""
        violation = None
        try:
            self.begin()
            while self.ledger.done_at is None or self.scheduler.next_time <= self.ledger.done_at:
                if not self.scheduler.step():
                    raise Violation("nothing is left to happen, yet the rounds are not over")
            self.ledger.check_voids()
        except Violation as broken:
            violation = ViolationReport(self.seed, self.now, str(broken), self.trace.lines())
        except Exception as crash:  # a crash in a replica is reported like a violation
            frame = traceback.extract_tb(crash.__traceback__)[-1]
            where = f"{Path(frame.filename).parent.name}/{Path(frame.filename).name}"
            message = f"{type(crash).__name__}: {crash} (at {where}:{frame.lineno}, {frame.name})"
            violation = ViolationReport(self.seed, self.now, message, self.trace.lines())
        if self.logs is not None:
            self.logs.close()
        digest = self.ledger.digest([p.replica for p in self.seats])
        return SeedResult(self.seed, self.ledger.tally, digest, self.now, violation)

    def begin(self) -> None:
        """Set the bots looking, the faults coming and the watchdog watching: then each
        ``scheduler.step()`` takes the run one step on (`run` steps it to the end)."""
        for seat in range(self.peers):
            self._look_later(seat)
        self._next_fault()
        self.watchdog.start()

    # --- the players ----------------------------------------------------------------------

    def _look_later(self, seat: int) -> None:
        peer = self.seats[seat]
        action = functools.partial(self._look, seat, peer.life)
        self.scheduler.at(self.now + peer.bot.next_look(self._pace), action)

    def _look(self, seat: int, life: int) -> None:
        """A bot's look at its table: deal the next round when the last is over, else play.

        A player waits while the table regroups or this peer rejoins, and while the
        replica refuses a move (this seat sits the round out).
        """
        peer = self.seats[seat]
        if peer.life != life:
            return
        self._look_later(seat)
        replica = peer.replica
        if replica.status is not Status.NORMAL:
            return
        # (A seat that came back without its deck sat a round out: the table is ahead of
        # the last round it dealt for.)
        last = max(replica.round, replica.playing)
        if last < self.config.rounds and replica.should_deal():
            self._deal(seat)
            return
        display = replica.display
        if display is None or display.ended is not None or replica.in_the_air is not None:
            return
        # The simulator's bots never stop making moves: it keeps no times of them, so a
        # bot leaves its teammates' parts to them.
        move = peer.bot.choose(Look(display, seat, replica.team, replica.sitting_out(), self.now))
        if move is None:
            return
        self.trace.add(self.now, "intend", seat, move)
        try:
            replica.intend(move, self.now)
        except LocalProtocolError:
            return
        except IllegalMove as exc:
            raise Violation(f"seat {seat}'s replica finds its bot's move illegal: {exc}") from exc
        self._after(seat)

    def _deal(self, seat: int) -> None:
        replica = self.seats[seat].replica
        number = max(replica.round, replica.playing) + 1  # the round start_round deals
        self.trace.add(self.now, "deal", seat, number)
        replica.start_round(self._secrets.randbytes(SECRET_BYTES), self.now)
        self._after(seat)

    # --- replicas' inputs and outputs -------------------------------------------------------

    def _arrive(self, src: int, dst: int, message: Message | CommitFrame) -> None:
        self.trace.add(self.now, "deliver", dst, message)
        if isinstance(message, CommitFrame):
            for watcher in self.watchers:
                watcher.frame_arrived(src, dst, message, self.now)
            self._deliver(src, dst, message)
            return
        if self.config.faults.duplicate:
            self._delivered.setdefault((src, dst), deque(maxlen=REDELIVERED)).append(message)
        self.ledger.arrived(dst, message)
        for watcher in self.watchers:
            watcher.arrived(src, dst, message, self.now)
        self._deliver(src, dst, message)

    def _deliver(self, src: int, dst: int, message: Message | CommitFrame) -> None:
        try:
            self.seats[dst].replica.receive(message, self.now, via=src)
        except ProtocolError as exc:
            raise Violation(f"seat {dst} rejected a message from seat {src}: {exc}") from exc
        self._after(dst)

    def _timer(self, seat: int, life: int, deadline: float) -> None:
        peer = self.seats[seat]
        if peer.life != life or peer.timer_at != deadline:
            return
        peer.timer_at = None
        self.trace.add(self.now, "tick", seat, None)
        peer.replica.tick(self.now)
        self._after(seat)

    def _after(self, seat: int) -> None:
        """Ship what a replica wants sent, take its events, check it, keep its timer set."""
        peer, ledger = self.seats[seat], self.ledger
        replica = peer.replica
        for message in replica.take_outgoing():
            kind, size = ledger.sent(seat, message, self.now), self._size(seat, message)
            for watcher in self.watchers:
                watcher.sent(seat, message, self.now)
            for dst in range(self.peers):
                if addressed_to(message, dst):
                    self._send(seat, dst, message, kind, size)
        for frame, to in replica.take_frames():
            size = self._size(seat, frame)
            for watcher in self.watchers:
                watcher.framed(seat, frame, to, self.now)
            for dst in range(self.peers) if to is None else (to,):
                if dst != seat:
                    self._send(seat, dst, frame, "commit", size)
        events = replica.take_events()
        if events:
            self._take_events(seat, replica, events)
        ledger.check(seat, replica)
        for watcher in self.watchers:
            watcher.stepped(seat, replica, events, self.now)
        deadline = replica.next_deadline()
        peer.spins = peer.spins + 1 if deadline <= self.now else 0
        if peer.spins > SPINS:
            raise Violation(f"seat {seat}'s timer keeps falling due at once, again and again")
        if peer.timer_at is None or deadline < peer.timer_at:
            peer.timer_at = deadline
            action = functools.partial(self._timer, seat, peer.life, deadline)
            self.scheduler.at(max(deadline, self.now + TIMER_GRAIN), action)

    def _take_events(self, seat: int, replica: Replica, events: list[Event]) -> None:
        ledger = self.ledger
        rounds = ledger.tally.rounds
        hear = None if self.lineup is None else self.lineup.hear
        for event in events:
            ledger.event(seat, replica, event, self.now)
            if hear is not None:
                hear(seat, event)
        if ledger.tally.rounds != rounds:
            up = [
                p.replica.committed for p, r in zip(self.seats, ledger.seats, strict=True) if r.up
            ]
            ledger.invariants.forget_before(min(up))

    def _send(
        self, src: int, dst: int, message: Message | CommitFrame, kind: str, size: int
    ) -> None:
        self.ledger.tally.messages[kind] += 1
        self.ledger.tally.bytes[kind] += size
        self.network.send(src, dst, message)

    def _size(self, seat: int, message: Message | CommitFrame) -> int:
        try:
            return len(encode(message))
        except ValueError as exc:  # the codec refuses it: no peer could send it either
            name = type(message).__name__
            raise Violation(f"seat {seat}'s {name} cannot be sent: {exc}") from exc

    # --- faults -------------------------------------------------------------------------------

    def _next_fault(self) -> None:
        fault = next(self._faults, None)
        if fault is not None:
            self.scheduler.at(fault.at, functools.partial(self._strike, fault))

    def _strike(self, fault: Fault) -> None:
        self._next_fault()
        struck = self._start(fault)
        if struck is not None:
            lasts, lift = struck
            self._later(lasts, lift)

    def strike(self, fault: Fault) -> Callable[[], None] | None:
        """Strike ``fault`` now, outside the seed's schedule, and hold it until the call
        returned lifts it (the lab's teacher holds faults by hand); None if the run refuses
        it: a crash that would leave no seat holding the table."""
        struck = self._start(fault)
        return None if struck is None else struck[1]

    def _start(self, fault: Fault) -> tuple[float, Callable[[], None]] | None:
        """Strike a fault: how long it lasts and what lifts it, or None if refused."""
        if isinstance(fault, Crash) and not holders_outside(
            fault.seats, self._replicas(), self._up()
        ):
            self.trace.add(self.now, "no crash", -1, fault)
            self.ledger.refused(fault)
            return None
        self.ledger.struck(fault)
        self.trace.add(self.now, "fault", -1, fault)
        match fault:
            case LinkDrop(peers=(a, b)):
                self.network.hold_down(a, b)
                return fault.down_for, functools.partial(self._mend, [(a, b)])
            case SlowPeer(seat=seat):
                self.network.slow[seat] = self.network.slow.get(seat, 0.0) + fault.extra
                return fault.lasts, functools.partial(self._unslow, seat, fault.extra)
            case Partition():
                return fault.heal_after, self._partition(fault)
            case Crash():
                return fault.down_for, self._crash(fault)

    def _later(self, delay: float, action: Callable[..., None], *args: Any) -> None:
        self.scheduler.at(self.now + delay, functools.partial(action, *args))

    def _unslow(self, seat: int, extra: float) -> None:
        left = self.network.slow.pop(seat) - extra
        if left > 1e-9:  # another slow spell of this seat goes on
            self.network.slow[seat] = left

    def _mend(self, links: Iterable[tuple[int, int]]) -> None:
        """Lift one reason each link is down; resend on those that come back up."""
        for a, b in links:
            if self.network.release(a, b):
                self.watchdog.link_up(a, b)
                self._reconnect(a, b)

    def _reconnect(self, a: int, b: int) -> None:
        self.trace.add(self.now, "reconnect", a, b)
        for src, dst in ((a, b), (b, a)):
            again: list[Message] = []
            chance = self.config.faults.duplicate
            if chance and self._pace.random() < chance:
                again = list(self._delivered.get((src, dst), ()))
            for message in again + self.seats[src].replica.resend_to(dst):
                self._send(src, dst, message, "resent", self._size(src, message))

    def _partition(self, fault: Partition) -> Callable[[], None]:
        group = fault.group
        rest = tuple(s for s in range(self.peers) if s not in group)
        cut = [(a, b) for a in group for b in rest]
        for a, b in cut:
            self.network.hold_down(a, b)
        for side in (group, rest):
            if self._without_majority(side):
                self.ledger.cut(side, self.now)
        watch = self.watchdog.watch(rest, "partition") or self.watchdog.watch(group, "partition")
        return functools.partial(self._heal, cut, watch)

    def _up(self) -> list[bool]:
        return [record.up for record in self.ledger.seats]

    def _replicas(self) -> list[Replica]:
        return [peer.replica for peer in self.seats]

    def _without_majority(self, side: tuple[int, ...]) -> bool:
        """Whether ``side`` can neither commit nor form a view (see `without_majority`)."""
        return without_majority(side, views_now(self._replicas(), self._up()))

    def _heal(self, cut: list[tuple[int, int]], watch: Watch | None) -> None:
        self.watchdog.check_progress(watch)
        self.ledger.healed()
        self._mend(cut)

    def _crash(self, fault: Crash) -> Callable[[], None]:
        for seat in fault.seats:
            peer = self.seats[seat]
            peer.life, peer.disk = peer.life + 1, peer.replica.disk
            peer.timer_at = None
            self.ledger.crashed(seat)
            for other in range(self.peers):
                if other != seat:
                    self.network.hold_down(seat, other)
        survivors = tuple(s for s in range(self.peers) if s not in fault.seats)
        watch = self.watchdog.watch(survivors, "crash")
        if self._without_majority(survivors):
            self.ledger.cut(survivors, self.now)
        return functools.partial(self._restart, fault.seats, watch)

    def _replica(self, seat: int, disk: Disk | None = None) -> Replica:
        """``seat``'s replica as the table is set up: new, or (given its ``disk``) one
        coming back after a crash, asking to rejoin."""
        c = self.config
        if disk is None:
            return Replica(
                seat,
                c.options,
                c.peers,
                timing=c.timing,
                shuffle=self._shuffle,
                majority=c.majority,
            )
        return Replica.restart(
            seat,
            c.options,
            c.peers,
            disk=disk,
            now=self.now,
            timing=c.timing,
            shuffle=self._shuffle,
            majority=c.majority,
        )

    def _restart(self, seats: tuple[int, ...], watch: Watch | None) -> None:
        self.watchdog.check_progress(watch)
        self.ledger.healed()
        for seat in seats:
            peer = self.seats[seat]
            assert peer.disk is not None
            self.trace.add(self.now, "restart", seat, None)
            peer.replica = self._replica(seat, peer.disk)
            self.ledger.restarted(seat)
            for key in [k for k in self._delivered if seat in k]:
                del self._delivered[key]
        self._mend((s, o) for s in seats for o in range(self.peers) if o != s)
        for seat in seats:
            self._after(seat)
            self._look_later(seat)
