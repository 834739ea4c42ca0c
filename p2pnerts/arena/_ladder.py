"""The ladder: every pair of entries plays paired arena rounds, and one Bradley-Terry fit puts
them all on one Elo scale, with bootstrap intervals.

An entry is anything the arena seats: a built-in policy (at the arena's pace), a level
(``L1``-``L10``: its policy at its own pace) or an author's policy. Each pair plays the same
``rounds`` rounds an arena of the two would play (seats alternating, every deal in every
rotation), all pairs through one fan-out. A round is a game between the two: the one whose
seats scored more points on average wins it, equal points are half a win each. The
Bradley-Terry strengths that make those results likeliest are found by the usual
minorisation-maximisation steps and shown as Elo (400 points: ten to one odds), the
entries' mean at 1500. The intervals come from refitting on the deals of every pair
resampled with replacement, each with all its rounds (they share its decks, so they are
not independent; a seeded generator: the same seed gives the same table).
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from p2pnerts.arena._arena import RoundFailed, arena_round
from p2pnerts.arena._job import Job
from p2pnerts.arena._report import ArenaError, ArenaRound, Tally, name_width
from p2pnerts.bots import LEVELS, POLICIES
from p2pnerts.driver import Pace
from p2pnerts.fanout import SERIAL, TaskFailed, Where, fan_out
from p2pnerts.rules import TableOptions

ELO = 400 / math.log(10)
"""Elo points per unit of the natural log of a Bradley-Terry strength."""
RESAMPLES = 200
"""Bootstrap refits behind each interval."""
FEWEST_DEALS = 5
"""The deals each pair must play for an interval: resampling fewer gives a few refits
over and over (one deal, the same refit every time: '1939 to 1939'), not an interval."""
STEPS = 200
"""Minorisation-maximisation steps of a fit (ample for a few dozen entries)."""


@dataclass(frozen=True, slots=True)
class Rating:
    """One entry's place on the ladder."""

    name: str
    elo: float
    low: float | None
    high: float | None
    """The 95% bootstrap interval of ``elo`` (None: too few deals for one)."""
    score: float
    """Share of its rounds it won (a tie counts half)."""
    margin: float
    """Mean points per round above its opponents, over all its pairs."""

    def to_json(self) -> dict[str, Any]:
        return {
            "entry": self.name,
            "elo": round(self.elo, 1),
            "elo_ci95": (
                None
                if self.low is None or self.high is None
                else [round(self.low, 1), round(self.high, 1)]
            ),
            "score": round(self.score, 4),
            "margin": round(self.margin, 4),
        }


@dataclass(frozen=True, slots=True)
class LadderReport:
    """The ladder: its entries' ratings, best first, and what was played."""

    ratings: tuple[Rating, ...]
    rounds: int
    """Rounds per pair."""
    players: int
    seed: int
    fast: bool
    seconds: float
    deals: int = FEWEST_DEALS
    """Deals per pair (a deal: as many rounds as there are decks)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "rounds_per_pair": self.rounds,
            "deals_per_pair": self.deals,
            "players": self.players,
            "seed": self.seed,
            "fast": self.fast,
            "ratings": [r.to_json() for r in self.ratings],
            "timing": {"seconds": round(self.seconds, 3)},
        }

    def text(self) -> str:
        pairs = len(self.ratings) * (len(self.ratings) - 1) // 2
        kind = "on the rules alone (--fast)" if self.fast else "over the protocol"
        width = name_width([r.name for r in self.ratings])
        lines = [
            f"{pairs} pairs x {self.rounds} rounds at {self.players} players {kind}, "
            f"seed {self.seed}; {self.seconds:.1f} s",
            f"{'entry':<{width}}{'Elo':>6}{'95% interval':>16}{'won':>7}{'points/round':>14}",
        ]
        for r in self.ratings:
            interval = "-" if r.low is None else f"{r.low:.0f} to {r.high:.0f}"
            lines.append(
                f"{r.name:<{width}}{r.elo:>6.0f}{interval:>16}{r.score:>7.0%}{r.margin:>+14.2f}"
            )
        if self.deals < FEWEST_DEALS:
            lines.append(self.too_few())
        lines.append(
            "Elo: Bradley-Terry on rounds won (more points than the other in the same round), "
            "mean 1500; won: share of its rounds; points/round: its mean margin over its "
            "opponents"
        )
        return "\n".join(lines)

    def too_few(self) -> str:
        """Why the ladder has no intervals, and the rounds that would give them."""
        per_deal = math.ceil(self.rounds / self.deals)
        deals = "1 deal" if self.deals == 1 else f"{self.deals} deals"
        return (
            f"no intervals: {self.rounds} rounds a pair are {deals} at {self.players} players, "
            f"too few to resample; an interval takes {FEWEST_DEALS} deals a pair "
            f"(--rounds {FEWEST_DEALS * per_deal})"
        )


@dataclass(frozen=True, slots=True)
class _Ladder:
    """What every round of a ladder shares: the pairs' arena jobs."""

    jobs: tuple[Job, ...]
    rounds: int


def ladder_round(ladder: _Ladder, number: int) -> tuple[ArenaRound, dict[str, Tally]]:
    """Round ``number`` of the ladder: a round of one pair's arena (one fan-out task)."""
    pair, within = divmod(number, ladder.rounds)
    return arena_round(ladder.jobs[pair], within)


def ladder_entries(extra: Sequence[str] = ()) -> list[str]:
    """Every built-in policy, every level (``L1``-``L10``), then ``extra`` not among them."""
    entries = [*POLICIES, *(f"L{lv.number}" for lv in LEVELS)]
    return entries + [name for name in extra if name not in entries]


def play_ladder(
    entries: Sequence[str],
    rounds: int,
    seed: int,
    *,
    players: int = 4,
    pace: Pace | None = None,
    fast: bool = True,
    progress: Callable[[int, int], None] | None = None,
    where: Where = SERIAL,
) -> LadderReport:
    """Rate ``entries`` from ``rounds`` paired rounds of every pair of them."""
    if len(entries) < 2 or len(set(entries)) != len(entries):
        raise ArenaError("a ladder needs two or more entries, each named once")
    pairs = list(combinations(entries, 2))
    jobs = tuple(Job((a, b), players, seed, pace or Pace(), TableOptions(), fast) for a, b in pairs)
    started = time.perf_counter()
    try:
        fanned = fan_out(
            ladder_round, _Ladder(jobs, rounds), range(len(jobs) * rounds), where, progress=progress
        )
    except TaskFailed as exc:
        (a, b), within = pairs[exc.seed // rounds], exc.seed % rounds
        raise RoundFailed(f"round {within} of {a} against {b} failed: {exc.detail}") from None
    seconds = time.perf_counter() - started
    games: dict[tuple[str, str], list[float]] = {}
    for k, (job, (a, b)) in enumerate(zip(jobs, pairs, strict=True)):
        records = fanned.records[k * rounds : (k + 1) * rounds]
        games[a, b] = [_margin(record, job.seats, a, b) for record, _ in records]
    deal = jobs[0].decks  # (every pair's job seats the same players, so the same decks)
    ratings = _rate(list(entries), games, deal, random.Random(f"ladder:{seed}"))
    return LadderReport(ratings, rounds, players, seed, fast, seconds, math.ceil(rounds / deal))


def _margin(record: ArenaRound, seats: Sequence[str], a: str, b: str) -> float:
    """Points per seat of ``b`` above ``a`` in one round."""

    def mean(name: str) -> float:
        return statistics.fmean(p for p, s in zip(record.points, seats, strict=True) if s == name)

    return mean(b) - mean(a)


def _rate(
    entries: list[str], games: dict[tuple[str, str], list[float]], deal: int, rng: random.Random
) -> tuple[Rating, ...]:
    """Every entry's rating, best first: the fit to all rounds, bootstrap intervals over
    deals (``deal`` rounds each, in round order)."""
    elo = _fit(entries, games)
    deals = {pair: [m[i : i + deal] for i in range(0, len(m), deal)] for pair, m in games.items()}
    samples: dict[str, list[float]] = {name: [] for name in entries}
    resamples = RESAMPLES if min(map(len, deals.values())) >= FEWEST_DEALS else 0
    for _ in range(resamples):
        again = {
            pair: [x for one in rng.choices(d, k=len(d)) for x in one] for pair, d in deals.items()
        }
        for name, value in _fit(entries, again).items():
            samples[name].append(value)
    ratings = []
    for name in entries:
        low, high = _interval(samples[name])
        won, played, margins = 0.0, 0, []
        for (a, b), m in games.items():
            if name in (a, b):
                sign = 1 if name == b else -1
                margins += [sign * x for x in m]
                won += sum(_won(sign * x) for x in m)
                played += len(m)
        score, margin = won / played, statistics.fmean(margins)
        ratings.append(Rating(name, elo[name], low, high, score, margin))
    return tuple(sorted(ratings, key=lambda r: -r.elo))


def _interval(samples: list[float]) -> tuple[float | None, float | None]:
    """The 95% interval of bootstrap ``samples`` (none without them)."""
    if not samples:
        return None, None
    ordered = sorted(samples)
    return ordered[int(0.025 * len(ordered))], ordered[int(0.975 * len(ordered)) - 1]


def _won(margin: float) -> float:
    return 1.0 if margin > 0 else 0.5 if margin == 0 else 0.0


def _fit(entries: list[str], games: dict[tuple[str, str], list[float]]) -> dict[str, float]:
    """Bradley-Terry strengths by minorisation-maximisation, as Elo with mean 1500.

    Half a win is added to every pair both ways, so that an entry that won (or lost) every
    round still has a finite rating."""
    wins = {(a, b): 0.5 for a in entries for b in entries if a != b}
    for (a, b), margins in games.items():
        for m in margins:
            wins[b, a] += _won(m)
            wins[a, b] += 1 - _won(m)
    strength = dict.fromkeys(entries, 1.0)
    for _ in range(STEPS):
        for i in entries:
            total = sum(wins[i, j] for j in entries if j != i)
            games_ij = sum(
                (wins[i, j] + wins[j, i]) / (strength[i] + strength[j]) for j in entries if j != i
            )
            strength[i] = total / games_ij
        centre = statistics.fmean(math.log(s) for s in strength.values())
        strength = {k: math.exp(math.log(s) - centre) for k, s in strength.items()}
    return {k: 1500 + ELO * math.log(s) for k, s in strength.items()}
