"""What an arena measures: each policy's tally per round, and the report summing them up.

A round's task returns an `ArenaRound` and one `_Tally` per policy; `summarize` merges them
in round order into the figures, whichever arena (full protocol or fast) played them.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from p2pnerts.bots import Policy, refusal, refused
from p2pnerts.driver import Pace
from p2pnerts.errors import UsageError
from p2pnerts.rules import Move, State

Z95 = 1.96
"""Normal quantile of a two-sided 95% confidence interval (rounds are many)."""


class ArenaError(UsageError):
    """The arena cannot run as asked, or a simulated round broke a protocol check."""

    context = "arena"


@dataclass(slots=True)
class Tally:
    """What one policy did, summed over the seats it played."""

    seat_rounds: int = 0
    points: int = 0
    calls: int = 0
    cards: int = 0
    won: int = 0
    lost: int = 0
    tied: int = 0
    """Foundation plays that stayed beside an equal card (the both-stay tie rule)."""
    decisions: list[float] = field(default_factory=list)
    """Seconds each ``choose`` took."""

    def add(self, other: Tally) -> None:
        """Count ``other`` (a later round's tally) in too."""
        self.seat_rounds += other.seat_rounds
        self.points += other.points
        self.calls += other.calls
        self.cards += other.cards
        self.won += other.won
        self.lost += other.lost
        self.tied += other.tied
        self.decisions += other.decisions


class Timed:
    """A policy whose every decision is timed into a tally, and checked: a move the rules
    refuse ends the run, naming the policy, the move, why, and where its author wrote
    the policy's ``choose`` (`refusal`, kept for whoever catches the error)."""

    def __init__(self, policy: Policy, tally: Tally, name: str) -> None:
        self._policy, self._tally, self._name = policy, tally, name
        self.refusal: str | None = None

    def choose(self, view: State, seat: int) -> Move | None:
        start = time.perf_counter()
        move = self._policy.choose(view, seat)
        self._tally.decisions.append(time.perf_counter() - start)
        why = None if move is None else refused(view, seat, move)
        if move is not None and why is not None:
            self.refusal = refusal(self._name, self._policy, move, why)
            raise ArenaError(self.refusal)
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
    """Share of its seat-rounds in which it (or its team) called Nerts."""
    cards_played: float
    """Cards it played to the foundations."""
    races_won: float
    races_lost: float
    races_tied: float
    """Races that ended with both cards staying (the both-stay tie rule)."""
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
            "points_ci95": _finite(self.points_ci95),
            "nerts_rate": round(self.nerts_rate, 4),
            "cards_played": round(self.cards_played, 4),
            "races_won": round(self.races_won, 4),
            "races_lost": round(self.races_lost, 4),
            "races_tied": round(self.races_tied, 4),
            "margin": None if self.margin is None else round(self.margin, 4),
            "margin_ci95": _finite(self.margin_ci95),
        }


def _finite(interval: float | None) -> float | None:
    """An interval for the JSON: None where there is none (a single deal played)."""
    return round(interval, 4) if interval is not None and math.isfinite(interval) else None


@dataclass(frozen=True, slots=True)
class ArenaRound:
    """One round of the arena: which deal and rotation, what each seat was dealt, and the
    points each seat scored."""

    deal: int
    rotation: int
    dealt: tuple[str, ...]
    """A fingerprint of each seat's deck order as it was dealt (the cards' faces, whoever's
    deck they are): a deal's deck is the same fingerprint at whichever seat."""
    points: tuple[int, ...]
    """Each seat's points (a team's seats each show the team's)."""


@dataclass(frozen=True, slots=True)
class ArenaReport:
    """The arena's result: what was played, and every policy's figures."""

    policies: tuple[str, ...]
    seats: tuple[str, ...]
    """The policy at each seat."""
    rounds: int
    seed: int
    pace: Pace
    figures: tuple[PolicyFigures, ...]
    seconds: float
    """Wall-clock seconds the arena took (measured)."""
    played: tuple[ArenaRound, ...] = ()
    """Every round, in the order played (not in the JSON: its figures sum these up)."""
    teams: tuple[int, ...] = ()
    fast: bool = False
    """Played on the rules alone, races settled by pace (`p2pnerts.arena` explains)."""
    paces: tuple[Pace, ...] = ()
    """How often each policy looked at the table, in the order of ``policies``."""
    pace_level: str | None = None
    """The level whose pace the policies named without ``@N`` played at (None: at
    ``pace``, the arena's)."""

    @property
    def players(self) -> int:
        return len(self.seats)

    def paces_line(self) -> str:
        """How often each policy looked at the table, and why, in a line."""
        looks = ", ".join(
            f"{name} {looks_a_second(pace):.3g}"
            for name, pace in zip(self.policies, self.paces, strict=True)
        )
        pace = (
            "at the arena's pace"
            if self.pace_level is None
            else f"as often as {self.pace_level}, the level it meets"
        )
        return (
            f"looks a second: {looks} (a policy named without @N looks {pace}; "
            "POLICY@N looks N times a second)"
        )

    def to_json(self) -> dict[str, Any]:
        """The report as JSON: ``results`` is the same for the same seed; ``timing`` holds
        what the clock measured."""
        return {
            "players": self.players,
            "rounds": self.rounds,
            "seed": self.seed,
            "fast": self.fast,
            "teams": "+".join(map(str, self.teams)),
            "pace": {"think": self.pace.think, "spread": self.pace.spread},
            "looks_a_second": {
                name: round(looks_a_second(pace), 4)
                for name, pace in zip(self.policies, self.paces, strict=True)
            },
            "pace_level": self.pace_level,
            "seats": list(self.seats),
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
        teams = f", teams {'+'.join(map(str, self.teams))}" if self.teams else ""
        kind = " on the rules alone (--fast)" if self.fast else ""
        width = name_width(self.policies)
        lines = [
            f"{self.rounds} rounds at {self.players} players ({', '.join(self.seats)}{teams})"
            f"{kind}, seed {self.seed}, every deal in every rotation; {self.seconds:.1f} s",
            self.paces_line(),
            f"{'policy':<{width}}{'points/round':>20}{'margin':>18}{'Nerts':>7}"
            f"{'cards':>7}{'won':>6}{'lost':>6}{'tied':>6}{'ms p50 / p99':>15}",
        ]
        for f in self.figures:
            margin = "" if f.margin is None else f"{f.margin:+.2f} ± {f.margin_ci95:.2f}"
            lines.append(
                f"{f.name:<{width}}{f.mean_points:>12.2f} ± {f.points_ci95:<5.2f}{margin:>18}"
                f"{f.nerts_rate:>7.0%}{f.cards_played:>7.1f}{f.races_won:>6.2f}"
                f"{f.races_lost:>6.2f}{f.races_tied:>6.2f}"
                f"{f.decision_p50_ms:>8.2f} / {f.decision_p99_ms:<4.1f}"
            )
        lines.append(
            "points ± 95% confidence interval (over deals); margin: points/round above the "
            "first policy in the same rounds; Nerts: rounds it called; cards, won, lost, "
            "tied: foundation plays and races per round (a tie: two plays of equal clocks, "
            "both cards stay, as at 2 players nearly every race does); ms: how long the "
            "policy took to decide, median and 99th percentile (measured: they vary from "
            "run to run; the table's clock does not count them)"
        )
        return "\n".join(lines)


def looks_a_second(pace: Pace) -> float:
    """How many times a second a seat at ``pace`` looks at the table, on average."""
    return 1 / (pace.think + pace.spread / 2)


def name_width(names: Sequence[str]) -> int:
    """The width of a report's first column: 16, or room for the longest name (a policy
    named by its file's path) and two spaces."""
    return max(16, *(len(name) + 2 for name in names))


def summarize(
    policies: Sequence[str],
    seats: Sequence[str],
    records: Sequence[tuple[ArenaRound, dict[str, Tally]]],
) -> tuple[tuple[ArenaRound, ...], tuple[PolicyFigures, ...]]:
    """The rounds and every policy's figures, from the rounds' records in round order."""
    tallies = {name: Tally() for name in policies}
    per_round: dict[str, list[float]] = {name: [] for name in policies}
    for record, round_tallies in records:
        for name in policies:
            tallies[name].add(round_tallies[name])
            mine = [p for s, p in enumerate(record.points) if seats[s] == name]
            per_round[name].append(sum(mine) / len(mine))
    first = per_round[policies[0]]
    deals = [record.deal for record, _ in records]
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
                clustered_ci95(points, deals),
                t.calls / t.seat_rounds,
                t.cards / t.seat_rounds,
                t.won / t.seat_rounds,
                t.lost / t.seat_rounds,
                t.tied / t.seat_rounds,
                None if margin is None else statistics.fmean(margin),
                None if margin is None else clustered_ci95(margin, deals),
                len(t.decisions),
                1000 * statistics.fmean(t.decisions) if t.decisions else 0.0,
                1000 * quantile(t.decisions, 0.50),
                1000 * quantile(t.decisions, 0.99),
            )
        )
    return tuple(record for record, _ in records), tuple(figures)


def clustered_ci95(values: Sequence[float], groups: Sequence[int]) -> float:
    """Half the width of the 95% interval of the mean of ``values``, which are alike within
    each of ``groups`` (the rounds of one deal): the cluster-robust standard error, each
    group's deviations from the mean summed before they are squared. Rounds of one deal
    share its decks, so they are not independent; the rotations pair them, and a margin's
    luck of the deal cancels within the group. (Each value a group of its own: the usual
    interval of independent values.)"""
    if len(set(groups)) < 2:
        return math.inf
    mean = statistics.fmean(values)
    sums: dict[int, float] = {}
    for value, group in zip(values, groups, strict=True):
        sums[group] = sums.get(group, 0.0) + value - mean
    g = len(sums)
    variance = g / (g - 1) * sum(x * x for x in sums.values()) / len(values) ** 2
    return Z95 * math.sqrt(variance)


def quantile(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]
