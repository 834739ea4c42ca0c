"""Fault mixes, and the schedule of faults a seed draws from one.

A `FaultMix` names a network (the spread of link latencies and their jitter) and how often
each kind of fault strikes, per simulated minute of the whole table. `fault_schedule`
draws the faults lazily, in time order, from a generator of their own, so the schedule
depends on the seed alone and not on what the peers do.

The rates alone would leave most short runs untouched: at 4 crashes a minute, a round of
5 to 10 simulated seconds meets none more often than not. So the schedule opens with one
fault of each kind the mix names, striking within the first seconds (`OPENING`), then
goes on at the mix's rates: every run, one round or more, meets every kind of fault its
mix names.

Partitions and crashes are the large faults: one at a time, each over before the next
begins, and a crash never takes down half the table or more — so a majority is connected
again within the longest fault's duration, and every round can end.
"""

from __future__ import annotations

import heapq
import itertools
import random
from collections.abc import Iterator
from dataclasses import dataclass

from p2pnerts.sim._network import Link, LinkModel

Span = tuple[float, float]
"""A range (low, high) a value is drawn from, uniformly."""


@dataclass(frozen=True, slots=True)
class LinkDrop:
    """The connection between two peers drops and is re-made ``down_for`` seconds later."""

    at: float
    peers: tuple[int, int]
    down_for: float


@dataclass(frozen=True, slots=True)
class SlowPeer:
    """A peer is slow (busy, on a poor radio) for a while: each message to or from it is
    delayed by up to ``extra`` seconds more."""

    at: float
    seat: int
    extra: float
    lasts: float


@dataclass(frozen=True, slots=True)
class Partition:
    """The network splits: ``group`` on one side, everyone else on the other, until it
    heals ``heal_after`` seconds later."""

    at: float
    group: tuple[int, ...]
    heal_after: float


@dataclass(frozen=True, slots=True)
class Crash:
    """Peers crash, losing all but what they keep on disk, and restart ``down_for``
    seconds later."""

    at: float
    seats: tuple[int, ...]
    down_for: float


Fault = LinkDrop | SlowPeer | Partition | Crash

KIND = {LinkDrop: "link-drop", SlowPeer: "slow-peer", Partition: "partition", Crash: "crash"}
"""How reports name each kind of fault."""


@dataclass(frozen=True, slots=True)
class FaultMix:
    """A network and the rates of its faults; rates are per simulated minute."""

    name: str
    about: str
    latency: Span = (0.001, 0.003)
    """Base one-way latency of a link."""
    jitter: Span = (0.0005, 0.001)
    spike_chance: float = 0.0
    spike: float = 0.0
    drops: float = 0.0
    drop_for: Span = (0.05, 1.0)
    duplicate: float = 0.0
    """Chance that a re-made connection also delivers again what it delivered last."""
    slow: float = 0.0
    slow_extra: Span = (0.02, 0.2)
    slow_for: Span = (1.0, 8.0)
    partitions: float = 0.0
    partition_for: Span = (0.5, 8.0)
    crashes: float = 0.0
    crash_for: Span = (0.5, 8.0)
    crash_size: int = 1
    """The most peers one crash takes down (always fewer than half the table)."""
    opening: bool = True
    """Whether the schedule opens with one fault of each kind the mix names (`OPENING`);
    without it, the first of each kind comes at the mix's rate, as the regression seeds
    found before the opening was added expect."""

    @property
    def large(self) -> float:
        return self.partitions + self.crashes


MIXES = {
    mix.name: mix
    for mix in (
        FaultMix("none", "a quiet LAN: 1-3 ms links, no faults"),
        FaultMix(
            "light",
            "a busy LAN: rare spikes, a few dropped links, duplicates, a slow peer",
            latency=(0.0005, 0.005),
            jitter=(0.0005, 0.002),
            spike_chance=0.002,
            spike=0.08,
            drops=2.0,
            drop_for=(0.05, 1.0),
            duplicate=0.5,
            slow=1.0,
            slow_extra=(0.01, 0.1),
            slow_for=(1.0, 5.0),
        ),
        FaultMix(
            "links",
            "flaky connections: frequent drops of up to 4 s, duplicates",
            latency=(0.0005, 0.01),
            jitter=(0.0005, 0.005),
            drops=12.0,
            drop_for=(0.05, 4.0),
            duplicate=0.7,
        ),
        FaultMix(
            "slow",
            "1-40 ms links with spikes, and frequent slow peers",
            latency=(0.001, 0.04),
            jitter=(0.001, 0.01),
            spike_chance=0.01,
            spike=0.25,
            slow=4.0,
            slow_extra=(0.05, 0.5),
            slow_for=(1.0, 10.0),
        ),
        FaultMix(
            "partition",
            "the network splits (minority/majority or halves) and heals",
            partitions=4.0,
            partition_for=(0.5, 12.0),
        ),
        FaultMix(
            "crash",
            "peers crash and restart from what they kept on disk",
            crashes=4.0,
            crash_for=(0.5, 12.0),
        ),
        FaultMix(
            "churn",
            "frequent crashes, several peers at once, over dropping links",
            drops=6.0,
            drop_for=(0.05, 2.0),
            duplicate=0.5,
            crashes=8.0,
            crash_for=(0.2, 6.0),
            crash_size=6,
        ),
        FaultMix(
            "heavy",
            "all at once: spikes, drops, slow peers, partitions, crashes",
            latency=(0.0005, 0.03),
            jitter=(0.0005, 0.01),
            spike_chance=0.01,
            spike=0.25,
            drops=8.0,
            drop_for=(0.05, 4.0),
            duplicate=0.5,
            slow=3.0,
            slow_extra=(0.02, 0.3),
            slow_for=(1.0, 10.0),
            partitions=1.5,
            partition_for=(0.5, 10.0),
            crashes=1.0,
            crash_for=(0.5, 10.0),
            crash_size=2,
        ),
    )
}
"""Every mix, by name."""

GAP = 0.5
"""Seconds between the end of one large fault and the start of the next, at least."""
OPENING: Span = (0.3, 1.2)
"""When the opening's first faults strike, in seconds from the start: once play has begun
(its first plays commit at about 0.15 s) and well within the first round (the quickest,
at a large table, last about 2 s)."""
BRIEF: Span = (0.5, 1.0)
"""How long the opening's crash lasts when a partition follows it, so that the partition
strikes within the first round too."""


def link_models(mix: FaultMix, peers: int, rng: random.Random) -> dict[Link, LinkModel]:
    """A latency model for every link of a table, drawn from the mix's spans."""
    return {
        (a, b): LinkModel(
            _draw(rng, mix.latency), _draw(rng, mix.jitter), mix.spike_chance, mix.spike
        )
        for a, b in itertools.combinations(range(peers), 2)
    }


def fault_schedule(mix: FaultMix, peers: int, rng: random.Random) -> Iterator[Fault]:
    """The mix's faults for a table of ``peers``, in time order, without end."""
    streams: list[Iterator[Fault]] = []
    if mix.drops:
        streams.append(_drops(mix, peers, rng))
    if mix.slow:
        streams.append(_slow(mix, peers, rng))
    if mix.large:
        streams.append(_large(mix, peers, rng))
    heap = [(fault.at, i, fault) for i, s in enumerate(streams) for fault in itertools.islice(s, 1)]
    heapq.heapify(heap)
    while heap:
        _, i, fault = heapq.heappop(heap)
        yield fault
        following = next(streams[i])
        heapq.heappush(heap, (following.at, i, following))


def _drops(mix: FaultMix, peers: int, rng: random.Random) -> Iterator[LinkDrop]:
    for at in _arrivals(mix, mix.drops, rng):
        a, b = sorted(rng.sample(range(peers), 2))
        yield LinkDrop(at, (a, b), _draw(rng, mix.drop_for))


def _slow(mix: FaultMix, peers: int, rng: random.Random) -> Iterator[SlowPeer]:
    for at in _arrivals(mix, mix.slow, rng):
        seat = rng.randrange(peers)
        yield SlowPeer(at, seat, _draw(rng, mix.slow_extra), _draw(rng, mix.slow_for))


def _arrivals(mix: FaultMix, rate: float, rng: random.Random) -> Iterator[float]:
    """When faults of one kind strike: at ``rate`` a minute, the first in the opening."""
    at = _draw(rng, OPENING) if mix.opening else rng.expovariate(rate / 60)
    while True:
        yield at
        at += rng.expovariate(rate / 60)


def _large(mix: FaultMix, peers: int, rng: random.Random) -> Iterator[Partition | Crash]:
    """Partitions and crashes, one at a time, so that a majority is soon connected again.

    The opening strikes a crash, then a partition, of those the mix names. The crash goes
    first because it needs a seat outside it holding the table, which the seats still
    regrouping after a partition may not be; and it is brief if a partition follows it.
    """
    free = 0.0
    if mix.opening:
        free = _draw(rng, OPENING)
        if mix.crashes:
            crash = _crash(mix, peers, rng, free, BRIEF if mix.partitions else mix.crash_for)
            yield crash
            free = crash.at + crash.down_for + GAP
        if mix.partitions:
            partition = _partition(mix, peers, rng, free)
            yield partition
            free = partition.at + partition.heal_after + GAP
    while True:
        at = free + rng.expovariate(mix.large / 60)
        fault: Partition | Crash
        if rng.random() * mix.large < mix.partitions:
            fault = _partition(mix, peers, rng, at)
            free = at + fault.heal_after + GAP
        else:
            fault = _crash(mix, peers, rng, at, mix.crash_for)
            free = at + fault.down_for + GAP
        yield fault


def _partition(mix: FaultMix, peers: int, rng: random.Random, at: float) -> Partition:
    group = tuple(sorted(rng.sample(range(peers), rng.randint(1, peers // 2))))
    return Partition(at, group, _draw(rng, mix.partition_for))


def _crash(mix: FaultMix, peers: int, rng: random.Random, at: float, lasts: Span) -> Crash:
    most = max(1, min(mix.crash_size, (peers - 1) // 2))
    seats = tuple(sorted(rng.sample(range(peers), rng.randint(1, most))))
    return Crash(at, seats, _draw(rng, lasts))


def _draw(rng: random.Random, span: Span) -> float:
    low, high = span
    return low + rng.random() * (high - low)
