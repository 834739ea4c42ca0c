"""Policies against each other in the simulator, on the same deals in every seat rotation.

Seat ``s`` plays policy ``s mod P`` of the ``P`` policies named. A deal is one deck order
per seat; it is played ``players`` times, once in each rotation (in rotation ``k`` seat
``s`` gets the deal's deck ``(s + k) mod players``), so the rounds come in groups of
``players``. Every round is one simulated run with an ideal network (no faults), each
seat's replica playing its policy at the same pace; the seed fixes every deck, pace and
message delay, so the same seed gives the same figures. Decision times are measured with
the process clock around each ``choose`` and are the one thing that varies between runs.
"""

from __future__ import annotations

import functools
import hashlib
import math
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from p2pnerts.bots import BotDriver, Policy, load_policy
from p2pnerts.driver import Pace
from p2pnerts.errors import UsageError
from p2pnerts.fanout import SERIAL, TaskFailed, Where, fan_out
from p2pnerts.protocol import Event, PlayCommitted, PlayReturned, RoundOver
from p2pnerts.rules import Card, Move, State, TableOptions, ToFoundation, shuffled_deck
from p2pnerts.sim import MIXES, Lineup, SimConfig, Simulation

Z95 = 1.96
"""Normal quantile of a two-sided 95% confidence interval (rounds are many)."""


class ArenaError(UsageError):
    """The arena cannot run as asked, or a simulated round broke a protocol check."""

    context = "arena"


class RoundFailed(ArenaError):
    """A round of the arena raised, or broke a protocol check: named by its number."""

    status = 1


@dataclass(slots=True)
class _Tally:
    """What one policy did, summed over the seats it played."""

    seat_rounds: int = 0
    points: int = 0
    calls: int = 0
    cards: int = 0
    won: int = 0
    lost: int = 0
    decisions: list[float] = field(default_factory=list)
    """Seconds each ``choose`` took."""

    def add(self, other: _Tally) -> None:
        """Count ``other`` (a later round's tally) in too."""
        self.seat_rounds += other.seat_rounds
        self.points += other.points
        self.calls += other.calls
        self.cards += other.cards
        self.won += other.won
        self.lost += other.lost
        self.decisions += other.decisions


class _Timed:
    """A policy whose every decision is timed into a tally."""

    def __init__(self, policy: Policy, tally: _Tally) -> None:
        self._policy, self._tally = policy, tally

    def choose(self, view: State, seat: int) -> Move | None:
        start = time.perf_counter()
        move = self._policy.choose(view, seat)
        self._tally.decisions.append(time.perf_counter() - start)
        return move


@dataclass(frozen=True, slots=True)
class PolicyFigures:
    """One policy's figures: per round of one seat, unless the name says otherwise."""

    name: str
    seat_rounds: int
    mean_points: float
    points_ci95: float
    """Half the width of the 95% confidence interval of ``mean_points``."""
    nerts_rate: float
    """Share of its seat-rounds in which it called Nerts."""
    cards_played: float
    """Cards it played to the foundations."""
    races_won: float
    races_lost: float
    margin: float | None
    """Mean points per round above the first policy's, in the same rounds (None for it)."""
    margin_ci95: float | None
    decisions: int
    """How many times it was asked for a move."""
    decision_ms: float
    """Mean milliseconds per decision: measured, so it varies from run to run."""
    decision_p50_ms: float
    decision_p99_ms: float

    def to_json(self) -> dict[str, Any]:
        return {
            "policy": self.name,
            "seat_rounds": self.seat_rounds,
            "mean_points": round(self.mean_points, 4),
            "points_ci95": round(self.points_ci95, 4),
            "nerts_rate": round(self.nerts_rate, 4),
            "cards_played": round(self.cards_played, 4),
            "races_won": round(self.races_won, 4),
            "races_lost": round(self.races_lost, 4),
            "margin": None if self.margin is None else round(self.margin, 4),
            "margin_ci95": None if self.margin_ci95 is None else round(self.margin_ci95, 4),
        }


@dataclass(frozen=True, slots=True)
class ArenaRound:
    """One round of the arena: which deal and rotation, what each seat was dealt, and the
    points each seat scored."""

    deal: int
    rotation: int
    dealt: tuple[str, ...]
    """A fingerprint of each seat's deck order as the simulator dealt it (the cards' faces,
    whoever's deck they are): a deal's deck is the same fingerprint at whichever seat."""
    points: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ArenaReport:
    """The arena's result: what was played, and every policy's figures."""

    policies: tuple[str, ...]
    players: int
    rounds: int
    seed: int
    pace: Pace
    figures: tuple[PolicyFigures, ...]
    seconds: float
    """Wall-clock seconds the arena took (measured)."""
    played: tuple[ArenaRound, ...] = ()
    """Every round, in the order played (not in the JSON: its figures sum these up)."""

    def to_json(self) -> dict[str, Any]:
        """The report as JSON: ``results`` is the same for the same seed; ``timing`` holds
        what the clock measured."""
        return {
            "players": self.players,
            "rounds": self.rounds,
            "seed": self.seed,
            "pace": {"think": self.pace.think, "spread": self.pace.spread},
            "seats": [self.policies[s % len(self.policies)] for s in range(self.players)],
            "results": [f.to_json() for f in self.figures],
            "timing": {
                "seconds": round(self.seconds, 3),
                "decision_ms": {
                    f.name: {
                        "mean": round(f.decision_ms, 4),
                        "p50": round(f.decision_p50_ms, 4),
                        "p99": round(f.decision_p99_ms, 4),
                    }
                    for f in self.figures
                },
            },
        }

    def text(self) -> str:
        seats = ", ".join(self.policies[s % len(self.policies)] for s in range(self.players))
        lines = [
            f"{self.rounds} rounds at {self.players} players ({seats}), seed {self.seed}, "
            f"every deal in all {self.players} rotations; {self.seconds:.1f} s",
            f"{'policy':<16}{'points/round':>20}{'margin':>18}{'Nerts':>7}"
            f"{'cards':>7}{'won':>6}{'lost':>6}{'ms/move':>9}",
        ]
        for f in self.figures:
            margin = "" if f.margin is None else f"{f.margin:+.2f} ± {f.margin_ci95:.2f}"
            lines.append(
                f"{f.name:<16}{f.mean_points:>12.2f} ± {f.points_ci95:<5.2f}{margin:>18}"
                f"{f.nerts_rate:>7.0%}{f.cards_played:>7.1f}{f.races_won:>6.2f}"
                f"{f.races_lost:>6.2f}{f.decision_ms:>9.3f}"
            )
        lines.append(
            "points ± 95% confidence interval; margin: points/round above the first policy in "
            "the same rounds; Nerts: rounds it called; cards, won, lost: foundation plays and "
            "races per round"
        )
        return "\n".join(lines)


def play_arena(
    policies: Sequence[str],
    rounds: int,
    seed: int,
    *,
    players: int = 4,
    pace: Pace | None = None,
    options: TableOptions | None = None,
    progress: Callable[[int, int], None] | None = None,
    where: Where = SERIAL,
) -> ArenaReport:
    """Play ``rounds`` rounds of the named policies (built-in names,
    ``package.module:Class`` or ``file.py:Class``); ``progress(done, rounds)`` hears rounds
    finish; ``where`` says which processes play them, and changes nothing but the times."""
    if not policies:
        raise ArenaError("name at least one policy")
    if len(policies) > players:
        raise ArenaError(f"{len(policies)} policies cannot share {players} seats")
    if rounds < 1:
        raise ArenaError("play at least one round")
    for name in policies:
        load_policy(name)  # a name that does not load: said here, before any round
        if where.cluster is not None and ".py:" in name:
            raise ArenaError(
                f"{name} is a file on this machine: the cluster's workers cannot load it "
                "(install it as a module on every worker and name it package.module:Class)"
            )
    job = _Job(tuple(policies), players, seed, pace or Pace(), options or TableOptions())
    tallies = {name: _Tally() for name in policies}
    per_round: dict[str, list[float]] = {name: [] for name in policies}
    played = []
    started = time.perf_counter()
    try:
        fanned = fan_out(arena_round, job, range(rounds), where, progress=progress)
    except TaskFailed as exc:
        raise RoundFailed(f"round {exc.seed} failed: {exc.detail}") from None
    seconds = time.perf_counter() - started
    for record, round_tallies in fanned.records:
        played.append(record)
        for name in policies:
            tallies[name].add(round_tallies[name])
            mine = [p for s, p in enumerate(record.points) if policies[s % len(policies)] == name]
            per_round[name].append(sum(mine) / len(mine))
    first = per_round[policies[0]]
    figures = []
    for name in policies:
        t, points = tallies[name], per_round[name]
        margin = (
            None if name == policies[0] else [a - b for a, b in zip(points, first, strict=True)]
        )
        figures.append(
            PolicyFigures(
                name,
                t.seat_rounds,
                statistics.fmean(points),
                _ci95(points),
                t.calls / t.seat_rounds,
                t.cards / t.seat_rounds,
                t.won / t.seat_rounds,
                t.lost / t.seat_rounds,
                None if margin is None else statistics.fmean(margin),
                None if margin is None else _ci95(margin),
                len(t.decisions),
                1000 * statistics.fmean(t.decisions) if t.decisions else 0.0,
                1000 * _quantile(t.decisions, 0.50),
                1000 * _quantile(t.decisions, 0.99),
            )
        )
    return ArenaReport(
        job.policies, players, rounds, seed, job.pace, tuple(figures), seconds, tuple(played)
    )


@dataclass(frozen=True, slots=True)
class _Job:
    """What every round of one arena run shares: plain data, for any worker process."""

    policies: tuple[str, ...]
    players: int
    seed: int
    pace: Pace
    options: TableOptions


def arena_round(job: _Job, number: int) -> tuple[ArenaRound, dict[str, _Tally]]:
    """Round ``number`` of an arena run (its deal and rotation follow from the number),
    and what each policy did in it: one task of the fan-out."""
    config = SimConfig(job.players, 1, MIXES["none"], job.options)
    tallies = {name: _Tally() for name in job.policies}
    deal, rotation = divmod(number, job.players)
    makers = _makers(job.policies)
    record = _play_round(config, job.pace, job.policies, makers, tallies, job.seed, deal, rotation)
    return record, tallies


@functools.cache
def _makers(policies: tuple[str, ...]) -> list[Callable[[random.Random], Policy]]:
    """The policies' makers, loaded once per process."""
    return [load_policy(name) for name in policies]


def _play_round(
    config: SimConfig,
    pace: Pace,
    names: Sequence[str],
    makers: Sequence[Callable[[random.Random], Policy]],
    tallies: dict[str, _Tally],
    seed: int,
    deal: int,
    rotation: int,
) -> ArenaRound:
    """One simulated round: what every seat was dealt and scored, in seat order."""
    players, options = config.peers, config.options
    name_of = [names[s % len(names)] for s in range(players)]
    seeds = random.Random(f"arena:{seed}:{deal}:{rotation}")
    drivers = [
        BotDriver(
            _Timed(
                makers[s % len(makers)](random.Random(seeds.getrandbits(64))), tallies[name_of[s]]
            ),
            pace,
        )
        for s in range(players)
    ]
    points: list[int | None] = [None] * players

    def decks(_round: int, seat: int) -> tuple[Card, ...]:
        return arena_deck(seed, deal, rotation, seat, players, options)

    def hear(seat: int, event: Event) -> None:
        tally = tallies[name_of[seat]]
        match event:
            case PlayCommitted(seat=who, move=ToFoundation()) if who == seat:
                tally.cards += 1
            case PlayReturned(seat=who, move=ToFoundation(), winner=winner) if who == seat:
                if winner is not None:
                    tally.lost += 1
                    tallies[name_of[winner]].won += 1
            case RoundOver(caller=caller, scores=scores):
                points[seat] = scores[seat].points
                tally.seat_rounds += 1
                tally.calls += caller == seat
                tally.points += scores[seat].points

    bots = lambda seat, _rng: drivers[seat]  # noqa: E731 (the arena's own, not the seed's)
    sim = Simulation(config, seed * 1_000_003 + deal, bots, Lineup(decks, hear))
    result = sim.run()
    if result.violation is not None:
        raise ArenaError(
            f"deal {deal}, rotation {rotation}: {result.violation.message} "
            f"(seed {result.violation.seed})"
        )
    if None in points:
        raise ArenaError(f"deal {deal}, rotation {rotation}: a seat never saw the round end")
    dealt = tuple(_faces(sim.ledger.decks[seat, 1]) for seat in range(players))
    return ArenaRound(deal, rotation, dealt, tuple(p for p in points if p is not None))


def _faces(order: Sequence[Card]) -> str:
    """A short fingerprint of a deck order's faces, whichever deck the cards are of."""
    faces = " ".join(card.label(ascii_only=True) for card in order)
    return hashlib.blake2b(faces.encode(), digest_size=8).hexdigest()


def arena_deck(
    seed: int, deal: int, rotation: int, seat: int, players: int, options: TableOptions
) -> tuple[Card, ...]:
    """Seat ``seat``'s deck in rotation ``rotation`` of a deal: the deal's deck
    ``(seat + rotation) mod players``, in the same order, as deck ``seat``'s cards."""
    base = (seat + rotation) % players
    return shuffled_deck(seat, options, random.Random(f"arena:{seed}:{deal}:{base}"))


def _ci95(values: Sequence[float]) -> float:
    if len(values) < 2:
        return math.inf
    return Z95 * statistics.stdev(values) / math.sqrt(len(values))


def _quantile(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]
