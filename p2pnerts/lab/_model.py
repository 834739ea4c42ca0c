"""The lab's model: one seed's simulated table, taken a step at a time, forward and back.

Theory of operation
-------------------
A run is a seed, a table (peers, tie rule) and a *script*: the teacher's faults, each
as (step, action), struck right after that step. That is all the lab keeps: any state of
the run is reached again by building the `Simulation` afresh from the seed and stepping
it to the same step, striking the script's faults on the way. So stepping back is
replaying from the seed to the step before, and every state on the way is the state a
straight run reaches (the tests compare their digests).

A *step* is one entry of the simulator's time-ordered queue in which something happens:
a message sent or received, a commit, an event told, a fault struck. Entries in which
nothing happens (a timer with nothing due, a bot that looks and waits) are taken with the
step after them. A fault struck by hand holds until the teacher lifts it; striking one
when the script has faults later than the current step starts a new history from here:
those later faults are dropped, as a new edit drops what an undo left to redo.

The model does no IO and reads no clock: the screen asks it to step, to play up to a
simulated time, to go back, and reads what it shows (`seat_view`, the chronicle).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from p2pnerts.bots import SimpleBots
from p2pnerts.lab._chronicle import Chronicle
from p2pnerts.lab._records import Kind, Note
from p2pnerts.protocol import Play, Status
from p2pnerts.rules import CallNerts, TableOptions, TieRule, ToFoundation
from p2pnerts.sim import Crash, Fault, LinkDrop, Partition, SimConfig, Simulation, SlowPeer

ROUNDS = 10
"""Rounds a lab's table plays, as `p2pnerts sim` does by default."""
SLOW_EXTRA = 0.2
"""Seconds of delay, at most, a slow peer adds to each message to or from it."""
MAX_PEERS = 6
"""The most peers the lab seats: every replica is shown side by side."""
SPEEDS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)
"""Simulated seconds per real second the teacher may choose (on the desk): a message takes
1-4 ms on the simulated LAN, so at 0.01 (the default) an arrow takes a fifth of a second to
cross, and a bot thinks for a second or two."""
DEFAULT_SPEED = 0.01


@dataclass(frozen=True, slots=True)
class Table:
    """The run a lab steps through: its seed, peers, tie rule and commit rule."""

    seed: int = 1
    peers: int = 4
    tie_rule: TieRule = TieRule.BOTH_STAY
    majority: bool = False
    """Commit by protocol version 3's majority (Ballots to a play's sender, its Tally to
    every seat), not by every member's acknowledgement."""
    log: str | None = None
    """A directory where every seat writes its game log as the run goes (as ``sim --log``
    does): the messages a lesson's claim is checked from (`p2pnerts.lab.exported`)."""

    def __post_init__(self) -> None:
        if not 2 <= self.peers <= MAX_PEERS:
            raise ValueError(f"the lab seats 2 to {MAX_PEERS} peers, not {self.peers}")

    def config(self) -> SimConfig:
        options = TableOptions(tie_rule=self.tie_rule)
        return SimConfig(self.peers, ROUNDS, options=options, log=self.log, majority=self.majority)


@dataclass(frozen=True, slots=True)
class Action:
    """A teacher's fault, struck or lifted: ``verb`` on ``seats`` (seats from 0).

    Verbs: ``crash`` and ``restart`` (each seat), ``cut`` and ``heal`` (the link between
    two seats), ``partition`` (the seats apart from the rest) and ``join`` (heal it),
    ``slow`` and ``fast`` (each seat).
    """

    verb: str
    seats: tuple[int, ...]
    lesson: bool = False
    """Struck by a lesson's script, not by the teacher's key: the screen says whose."""

    @property
    def by(self) -> str:
        return "lesson" if self.lesson else "teacher"

    def words(self) -> str:
        seats = " ".join(str(s + 1) for s in self.seats)
        match self.verb:
            case "cut" | "heal":
                return f"{self.verb} the link {seats.replace(' ', '-')}"
            case "partition":
                return f"partition: {seats} apart from the rest"
            case "join":
                return "heal the partition"
        return f"{self.verb} {seats}"


_STATUS = {Status.CHANGING: "regrouping"}
"""A replica's status in the lab's word, where the protocol's is too long for a column
('regrouping after a silent seat': the legend says what regrouping is)."""

LIFTS = {"restart": "crash", "heal": "cut", "join": "partition", "fast": "slow"}
"""Each verb that lifts a fault, and the verb that strikes it."""


@dataclass(frozen=True, slots=True)
class SeatView:
    """What the screen shows of one replica."""

    seat: int
    up: bool
    clock: int
    view: int
    members: tuple[int, ...]
    status: str
    suspected: tuple[int, ...]
    silent: tuple[float, ...]
    """Per seat, seconds since this replica last heard from it."""
    committed: int
    digest: str
    pending: tuple[tuple[tuple[int, int, int], str], ...]
    slow: bool = False
    kept: int | None = None
    """Back from its disk and not yet sent the table: the round whose deck it kept (with
    the view it was last in, ``view``; it kept no commits: the others send it the table)."""
    applied: int | None = None
    """At a majority's table, the plays this replica applied as their Tallies decided them
    in; ``committed`` then counts what it folded into the digest in the canonical order,
    which waits for every member's clock (a silent member holds it back, not the plays)."""


class Lab:
    """One seed's run, stepped forward and back, with the teacher's faults."""

    def __init__(self, table: Table, script: Iterable[tuple[int, Action]] = ()) -> None:
        self.table = table
        self.script: list[tuple[int, Action]] = sorted(script, key=lambda entry: entry[0])
        self.stopped: str | None = None
        """Why the run can go no further (the match is over, or a check failed)."""
        self._build()

    # --- reading ------------------------------------------------------------------------

    @property
    def now(self) -> float:
        return self.sim.now

    @property
    def notes(self) -> list[Note]:
        return self.chronicle.notes

    def first(self, kind: Kind) -> Note | None:
        return next((note for note in self.notes if note.kind is kind), None)

    def seat_view(self, seat: int) -> SeatView:
        replica = self.sim.seats[seat].replica
        up = self.sim.ledger.seats[seat].up
        now = self.sim.now
        pending = tuple((p.key, _pending_words(p.message)) for p in replica.pending)
        if replica.majority is not None:  # held by the majority's rule until decided
            held = replica.majority.commits.order.unresolved.values()
            keys = sorted(((p.key[0], p.key[1], p.key[2]), p.seat, p.seq) for p in held)
            pending = tuple((key, self._held_words(seat, number)) for key, seat, number in keys)
        return SeatView(
            seat=seat,
            up=up,
            clock=replica.clock,
            view=replica.view,
            members=tuple(sorted(replica.members)),
            status=_STATUS.get(replica.status, replica.status.value) if up else "crashed",
            suspected=tuple(sorted(replica.suspected)),
            silent=tuple(now - heard for heard in replica.heard),
            committed=replica.committed,
            digest=replica.digest.hex()[:6],
            pending=pending,
            slow=seat in self.sim.network.slow,
            kept=replica.disk.round if replica.membership.from_disk else None,
            applied=self.chronicle.applied(seat, 0.0) if self.table.majority else None,
        )

    def state(self) -> tuple[object, ...]:
        """The run's state at this step, to compare two ways of reaching it."""
        seats = tuple(
            (r.committed, r.digest, r.clock, r.view, tuple(p.key for p in r.pending))
            for r in (peer.replica for peer in self.sim.seats)
        )
        return (self.step, self.sim.now, seats, self.stopped)

    def link_up(self, a: int, b: int) -> bool:
        return self.sim.network.is_up(a, b)

    # --- moving in time -------------------------------------------------------------------

    def forward(self) -> bool:
        """Take one step; False if the run can go no further."""
        if self.stopped is not None:
            return False
        self.chronicle.step = self.step + 1
        count = self.chronicle.count
        try:
            while self.chronicle.count == count:
                if not self.sim.scheduler.step():
                    self.stopped = "nothing is left to happen"
                    return False
        except Exception as exc:  # a failed check, or a replica's crash: shown, not raised
            self.stopped = f"the run stopped: {type(exc).__name__}: {exc}"
            return False
        self.step += 1
        done = self.sim.ledger.done_at
        if done is not None and self.sim.scheduler.next_time > done:
            self.stopped = f"the match is over ({ROUNDS} rounds)"
        self._strike_script()
        return True

    def forward_to(self, kinds: Callable[[Lab], bool], limit: int = 100_000) -> bool:
        """Step until ``kinds(self)`` holds (at most ``limit`` steps); whether it did."""
        for _ in range(limit):
            if kinds(self):
                return True
            if not self.forward():
                return False
        return kinds(self)

    def play_until(self, time: float, most: int) -> int:
        """Step while the next step starts by simulated ``time``, ``most`` steps at most;
        how many were taken."""
        taken = 0
        while taken < most and self.sim.scheduler.next_time <= time and self.forward():
            taken += 1
        return taken

    def back(self) -> None:
        """Go back one step: replay the run from its seed to the step before."""
        self.goto(self.step - 1)

    def goto(self, step: int) -> None:
        """Reach ``step`` (from the seed again, if it is behind)."""
        step = max(step, 0)
        if step < self.step:
            self._build()
        while self.step < step and self.forward():
            pass

    # --- the teacher's faults -------------------------------------------------------------

    def act(self, action: Action) -> str:
        """Strike or lift a fault now; what happened, in words (a refusal too). Faults the
        script held for later steps are dropped: this starts a new history."""
        self.script = [entry for entry in self.script if entry[0] <= self.step]
        self.script.append((self.step, action))
        return self._apply(action)

    def _apply(self, action: Action) -> str:
        told = self._strike(action)
        self.chronicle.fault(self.sim.now, told, action.by)
        return told

    def _strike(self, action: Action) -> str:
        if any(not 0 <= s < self.table.peers for s in action.seats):
            return f"no such seat: {action.words()}"
        if action.verb in LIFTS:
            return self._lift(action)
        refused = self._refusal(action)
        if refused is not None:
            return refused
        lift = self.sim.strike(self._fault(action))
        if lift is None:
            return f"refused: {action.words()} would leave no seat holding the table"
        self._lifts[_key(action)] = lift
        return action.words()

    def _refusal(self, action: Action) -> str | None:
        verb, seats, peers = action.verb, action.seats, self.table.peers
        if verb == "cut" and len(seats) != 2:
            return "a link joins two seats: select two"
        if verb == "partition" and not 0 < len(seats) < peers:
            return "a partition needs seats on both sides: select some, not all"
        if verb in ("crash", "slow") and len(seats) != 1:
            return f"{verb} one seat at a time"
        if _key(action) in self._lifts:
            return f"already so: {action.words()}"
        return None

    def _lift(self, action: Action) -> str:
        lift = self._lifts.pop(_key(action), None)
        if lift is None:
            return f"nothing to undo: {action.words()}"
        lift()
        if action.verb == "restart":
            self.chronicle.restarted(action.seats[0])
        return action.words()

    def _fault(self, action: Action) -> Fault:
        now, ever = self.sim.now, math.inf
        match action.verb:
            case "crash":
                return Crash(now, action.seats, ever)
            case "cut":
                a, b = action.seats
                return LinkDrop(now, (a, b), ever)
            case "partition":
                return Partition(now, action.seats, ever)
        return SlowPeer(now, action.seats[0], SLOW_EXTRA, ever)

    # --- the run itself -------------------------------------------------------------------

    def _build(self) -> None:
        table = self.table
        self.sim = Simulation(table.config(), table.seed, SimpleBots())
        timing = self.sim.config.timing
        self.chronicle = Chronicle(
            table.peers,
            table.tie_rule,
            majority=table.majority,
            depart_after=timing.depart_after,
            exclude_after=timing.exclude_after,
        )
        self.sim.watchers.append(self.chronicle)
        self.sim.begin()
        self.step = 0
        self.stopped = None
        self._lifts: dict[tuple[str, tuple[int, ...]], Callable[[], None]] = {}
        """The faults struck by hand that hold now, and what lifts each."""
        self._strike_script()

    def _strike_script(self) -> None:
        for step, action in self.script:
            if step == self.step:
                self._apply(action)

    def _held_words(self, seat: int, number: int) -> str:
        message = self.chronicle.numbered(seat, number)
        return f"#{number} of {seat + 1}" if message is None else _pending_words(message)


def _pending_words(message: object) -> str:
    name = type(message).__name__
    if isinstance(message, Play):
        move = message.move
        if isinstance(move, ToFoundation):
            return f"Play {message.sender + 1}:{move.card}"
        if isinstance(move, CallNerts):
            return f"Nerts! {message.sender + 1}"
        return f"Play {message.sender + 1}"
    sender = getattr(message, "sender", -1)
    return f"{name} {sender + 1}"


def _key(action: Action) -> tuple[str, tuple[int, ...]]:
    """Which fault an action strikes or lifts: a partition is one, whatever its sides."""
    verb = LIFTS.get(action.verb, action.verb)
    return (verb, ()) if verb == "partition" else (verb, action.seats)
