"""A deterministic simulated network driving many replicas in one process.

Everything that happens is an entry in one time-ordered queue — a message delivered,
a replica's timer, a bot's next look at the table — and every random choice comes from
one seeded generator, so the same seed gives the same run, step for step.
"""

from __future__ import annotations

import functools
import heapq
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from p2pnerts.bots import SimpleBot
from p2pnerts.protocol import (
    AuditFailed,
    AuditPassed,
    Event,
    Message,
    Replica,
    Timing,
)
from p2pnerts.rules import TableOptions, shuffled_deck


@dataclass(frozen=True, slots=True)
class LinkModel:
    """One-way delay of a link: a base latency plus uniform jitter, in seconds."""

    latency: float = 0.002
    jitter: float = 0.001

    def sample(self, rng: random.Random) -> float:
        return self.latency + rng.random() * self.jitter


@dataclass(frozen=True, slots=True)
class BotPace:
    """How long a simulated player takes between looks at the table."""

    think: float = 0.05
    spread: float = 0.05

    def sample(self, rng: random.Random) -> float:
        return self.think + rng.random() * self.spread


@dataclass(order=True)
class _Entry:
    time: float
    order: int
    action: Callable[[], None] = field(compare=False)


class Simulation:
    """Replicas with simple bots on a modelled network, all driven from one seed."""

    def __init__(
        self,
        players: int,
        seed: int,
        options: TableOptions | None = None,
        link: LinkModel | None = None,
        pace: BotPace | None = None,
        timing: Timing | None = None,
    ) -> None:
        self.rng = random.Random(seed)
        self.options = options or TableOptions()
        self.link = link or LinkModel()
        self.pace = pace or BotPace()
        self.now = 0.0
        self.replicas = [Replica(s, self.options, players, timing=timing) for s in range(players)]
        self.bots = [SimpleBot(random.Random(self.rng.getrandbits(64))) for _ in range(players)]
        self.events: list[list[Event]] = [[] for _ in range(players)]
        self.messages = 0
        self._queue: list[_Entry] = []
        self._counter = 0
        self._link_free: dict[tuple[int, int], float] = {}
        self._timer_at: list[float | None] = [None] * players

    def at(self, time: float, action: Callable[[], None]) -> None:
        self._counter += 1
        heapq.heappush(self._queue, _Entry(time, self._counter, action))

    def step(self) -> bool:
        """Run the next queued action; False when nothing is left."""
        if not self._queue:
            return False
        entry = heapq.heappop(self._queue)
        self.now = entry.time
        entry.action()
        return True

    def start_round(self) -> None:
        for seat, replica in enumerate(self.replicas):
            order = shuffled_deck(seat, self.options, self.rng)
            replica.start_round(order, self.rng.randbytes(16), self.now)
            self._after(seat)
            self.at(self.now + self.pace.sample(self.rng), functools.partial(self._bot, seat))

    def run_round(self, limit: float = 3600.0) -> None:
        """Play one round to its end, and on until every replica has audited it."""
        self.start_round()
        while self.step():
            if all(self._round_done(s) for s in range(len(self.replicas))):
                return
            if self.now > limit:
                raise RuntimeError(f"round not over after {limit} simulated seconds")

    def _round_done(self, seat: int) -> bool:
        audited = (AuditPassed, AuditFailed)
        return any(isinstance(e, audited) for e in self.events[seat])

    def _bot(self, seat: int) -> None:
        replica = self.replicas[seat]
        display = replica.display
        if display is None or display.ended is not None:
            return
        if replica.in_the_air is None:
            move = self.bots[seat].choose(display, seat)
            if move is not None:
                replica.intend(move, self.now)
            self._after(seat)
        self.at(self.now + self.pace.sample(self.rng), lambda: self._bot(seat))

    def _after(self, seat: int) -> None:
        """Ship what a replica wants sent, keep its events, and keep its timer set."""
        replica = self.replicas[seat]
        for message in replica.take_outgoing():
            self._broadcast(seat, message)
        self.events[seat] += replica.take_events()
        deadline = replica.next_deadline()
        if self._timer_at[seat] is None or deadline < self._timer_at[seat]:  # type: ignore[operator]
            self._timer_at[seat] = deadline
            self.at(deadline, lambda: self._timer(seat, deadline))

    def _timer(self, seat: int, deadline: float) -> None:
        if self._timer_at[seat] != deadline:
            return
        self._timer_at[seat] = None
        self.replicas[seat].tick(self.now)
        self._after(seat)

    def _broadcast(self, sender: int, message: Message) -> None:
        for dest in range(len(self.replicas)):
            if dest == sender:
                continue
            self.messages += 1
            link = (sender, dest)
            arrive = max(self.now + self.link.sample(self.rng), self._link_free.get(link, 0.0))
            self._link_free[link] = arrive
            self.at(arrive, functools.partial(self._deliver, dest, message))

    def _deliver(self, dest: int, message: Message) -> None:
        self.replicas[dest].receive(message, self.now)
        self._after(dest)
