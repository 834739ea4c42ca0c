"""What a simulated run is given: its configuration, and all a seed fixes before it starts.

A seed fixes the network (every link's latency model), the schedule of faults, every
bot's generator and every deck of every round, each from a generator of its own. So the
peer-to-peer run and the central-sequencer baseline of one seed meet the same network,
deal the same cards and seat the same bots, whatever either of them does.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from p2pnerts.protocol import Event, Timing
from p2pnerts.rules import Card, TableOptions, shuffled_deck
from p2pnerts.sim._faults import MIXES, Fault, FaultMix, fault_schedule, link_models
from p2pnerts.sim._network import Link, LinkModel

MAX_PEERS = 14


@dataclass(frozen=True, slots=True)
class Lineup:
    """On which decks a run's seats play, and who hears what each replica tells: how an
    arena uses a run.

    ``decks(round, seat)`` gives seat ``seat``'s deck order for a round (a shuffle of the
    deck the seat plays, ``SimConfig.seating``); ``hear(seat, event)`` hears every event
    of seat ``seat``'s replica.
    """

    decks: Callable[[int, int], tuple[Card, ...]] | None = None
    hear: Callable[[int, Event], None] | None = None


@dataclass(frozen=True, slots=True)
class SimConfig:
    """One simulated table: its size, how many rounds each seed plays, and its network.

    A table of teams (``options.teams``) seats as many peers as the teams add up to.
    """

    peers: int = 4
    rounds: int = 1
    faults: FaultMix = field(default_factory=lambda: MIXES["none"])
    options: TableOptions = field(default_factory=TableOptions)
    timing: Timing = field(default_factory=Timing)
    round_limit: float = 1200.0
    """Simulated seconds a round may take, from the end of the one before, before it counts
    as never ending."""
    progress_after: float = 6.0
    """A majority cut off from the rest (by a partition, or others' crash) at least this
    long must have committed something new by the time the fault ends."""
    drain: float = 2.0
    """Simulated seconds to run on after the last round, so that its audit completes."""
    trace: int = 30
    """Steps a violation report shows."""
    log: str | None = None
    """A directory where each seed's peers write their game logs (`sim --log DIR`)."""
    majority: bool = False
    """Replicas commit by version 3's majority rule (`_majority`), not every member's
    acknowledgement."""

    def __post_init__(self) -> None:
        if not 2 <= self.peers <= MAX_PEERS:
            raise ValueError(f"a simulated table has 2 to {MAX_PEERS} peers, not {self.peers}")
        if self.rounds < 1:
            raise ValueError(f"a simulated table plays at least one round, not {self.rounds}")
        teams = self.options.teams
        if teams and sum(teams) != self.peers:
            raise ValueError(
                f"teams {self.options.teams_text()} seat {sum(teams)} peers, not {self.peers}"
            )

    @property
    def seating(self) -> tuple[int, ...]:
        """The deck each seat plays."""
        return self.options.seating(self.peers)

    @property
    def decks(self) -> int:
        """How many decks, and tableaux, the table has: one per team."""
        return len(self.options.teams) or self.peers


@dataclass(frozen=True, slots=True)
class Setting:
    """Everything a seed fixes before the run starts."""

    links: dict[Link, LinkModel]
    faults: Iterator[Fault]
    bots: tuple[int, ...]
    """Each seat's bot's generator seed."""
    network: int
    """The seed of the generator that samples each message's delay."""
    pace: int
    deals: int


def setting(config: SimConfig, seed: int) -> Setting:
    seeds = random.Random(seed)
    links = link_models(config.faults, config.peers, random.Random(seeds.getrandbits(64)))
    faults = fault_schedule(config.faults, config.peers, random.Random(seeds.getrandbits(64)))
    bots = tuple(seeds.getrandbits(64) for _ in range(config.peers))
    return Setting(links, faults, bots, *(seeds.getrandbits(64) for _ in range(3)))


def deck_order(deals: int, number: int, seat: int, config: SimConfig) -> tuple[Card, ...]:
    """Seat ``seat``'s shuffle of its deck in round ``number``: the same in every run of the
    seed. (A team's seats each have one; the team deals the first's unless it is away.)"""
    deck = config.seating[seat]
    return shuffled_deck(deck, config.options, random.Random(f"{deals}:{number}:{seat}"))


def rtt_to_slowest(links: dict[Link, LinkModel], seat: int) -> float:
    """The longest round trip, short of a spike, between ``seat`` and any other peer."""
    return max(2 * m.usual_max for (a, b), m in links.items() if seat in (a, b))


def commit_floors(config: SimConfig, seed: int) -> list[float]:
    """Per seat, the mean round trip to its farthest other peer, in the seed's mean round
    trips: no commit rule that waits for every member to hold a play commits it at its
    player sooner, on average (the benchmark sets it beside the sequencer's latency)."""
    links = setting(config, seed).links
    unit = mean_rtt(links)
    return [
        max(2 * m.mean for (a, b), m in links.items() if seat in (a, b)) / unit
        for seat in range(config.peers)
    ]


def mean_rtt(links: dict[Link, LinkModel]) -> float:
    """The network's mean round trip: the unit commit latencies are reported in."""
    return 2 * sum((m.mean for m in links.values()), 0.0) / len(links)
