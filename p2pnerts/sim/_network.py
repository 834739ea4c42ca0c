"""The modelled network: one time-ordered queue, and links that are FIFO per direction.

Every link between two peers has its own latency model. A message never overtakes an
earlier one on the same link, however the jitter falls. A link can be held down — by a
connection drop, a partition, a crashed end — for several reasons at once; it comes back
up only when the last reason lifts, and whatever was in flight on it when it went down
is lost.

A network given `Links` (``network.wifi``, issue 45's study) times its messages by them
instead: Wi-Fi delay, jitter, loss and stalls, over TCP or datagrams. None by default, and
then nothing is drawn from them.
"""

from __future__ import annotations

import functools
import heapq
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

from p2pnerts.sim._links import Links

Payload = TypeVar("Payload")
Link = tuple[int, int]
"""A link's two ends, lower seat first."""


@dataclass(frozen=True, slots=True)
class LinkModel:
    """One-way delay of a link, in seconds: a base latency, uniform jitter on top, and now
    and then (``spike_chance`` per message) a spike of up to ``spike`` more."""

    latency: float = 0.002
    jitter: float = 0.001
    spike_chance: float = 0.0
    spike: float = 0.0

    def sample(self, rng: random.Random) -> float:
        delay = self.latency + rng.random() * self.jitter
        if self.spike_chance and rng.random() < self.spike_chance:
            delay += rng.random() * self.spike
        return delay

    @property
    def mean(self) -> float:
        return self.latency + self.jitter / 2 + self.spike_chance * self.spike / 2

    @property
    def usual_max(self) -> float:
        """The longest delay short of a spike."""
        return self.latency + self.jitter


class Scheduler:
    """Everything that will happen, in time order; equal times in the order scheduled."""

    def __init__(self) -> None:
        self.now = 0.0
        self._heap: list[tuple[float, int, Callable[[], object]]] = []
        self._count = 0

    def at(self, time: float, action: Callable[[], object]) -> None:
        self._count += 1
        heapq.heappush(self._heap, (time, self._count, action))

    @property
    def next_time(self) -> float:
        """When the next action is due (infinity if none is)."""
        return self._heap[0][0] if self._heap else float("inf")

    def step(self) -> bool:
        """Run the next action; False when nothing is left."""
        if not self._heap:
            return False
        self.now, _, action = heapq.heappop(self._heap)
        action()
        return True


def link(a: int, b: int) -> Link:
    return (a, b) if a < b else (b, a)


class Network(Generic[Payload]):
    """Links between every two of ``peers`` seats, delivering to ``arrive(src, dst, p)``."""

    def __init__(
        self,
        scheduler: Scheduler,
        rng: random.Random,
        models: Mapping[Link, LinkModel],
        arrive: Callable[[int, int, Payload], None],
    ) -> None:
        self.scheduler = scheduler
        self.models = dict(models)
        self._rng = rng
        self._arrive = arrive
        self._down = dict.fromkeys(self.models, 0)
        self._epoch = dict.fromkeys(self.models, 0)
        self._free: dict[tuple[int, int], float] = {}
        self.slow: dict[int, float] = {}
        """Extra delay, up to this many seconds, on every message to or from a seat."""
        self.wifi: Links | None = None
        """Wi-Fi links that time every message instead of ``models`` (set before the run)."""

    def is_up(self, a: int, b: int) -> bool:
        return self._down[link(a, b)] == 0

    def send(self, src: int, dst: int, payload: Payload) -> bool:
        """Put a message on the link; False if the link is down and it is lost."""
        pair = link(src, dst)
        if self._down[pair]:
            return False
        now = self.scheduler.now
        if self.wifi is not None:
            return self._send_over_wifi(self.wifi, src, dst, payload)
        delay = self.models[pair].sample(self._rng)
        extra = self.slow.get(src, 0.0) + self.slow.get(dst, 0.0)
        if extra:
            delay += self._rng.random() * extra
        arrive = max(now + delay, self._free.get((src, dst), 0.0))
        self._free[src, dst] = arrive
        action = functools.partial(self._land, src, dst, self._epoch[pair], payload)
        self.scheduler.at(arrive, action)
        return True

    def _send_over_wifi(self, wifi: Links, src: int, dst: int, payload: Payload) -> bool:
        """Put a message on a Wi-Fi link; a datagram it loses is sent all the same."""
        arrive = wifi.arrival(src, dst, self.scheduler.now)
        if arrive is not None:
            action = functools.partial(self._land, src, dst, self._epoch[link(src, dst)], payload)
            self.scheduler.at(arrive, action)
        return True

    def hold_down(self, a: int, b: int) -> None:
        """Take the link down for one more reason; what is in flight on it is lost."""
        pair = link(a, b)
        if self._down[pair] == 0:
            self._epoch[pair] += 1
        self._down[pair] += 1

    def release(self, a: int, b: int) -> bool:
        """Lift one reason the link is down; True if that brings it back up."""
        pair = link(a, b)
        self._down[pair] -= 1
        assert self._down[pair] >= 0, f"link {pair} released more often than held down"
        return self._down[pair] == 0

    def _land(self, src: int, dst: int, epoch: int, payload: Payload) -> None:
        if self._epoch[link(src, dst)] == epoch:
            self._arrive(src, dst, payload)
