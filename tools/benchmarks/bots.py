"""The bots' speed and strength, run by python tools/bench.py bots|fast [--rounds N] [--json].

`bots`: each policy's time per decision on the same views, each level's policy against the
level's thinking budget, and the strong bot's margin over the baseline in mean points per
round over paired arena rounds. `fast`: the fast arena's rounds per second on one core,
per mix of policies, and each policy's margin beside its decision times. The fast arena
plays on a simulated clock, so policies meet at equal looks whatever their thinking time.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from p2pnerts.arena import play_arena
from p2pnerts.bots import LEVELS, POLICIES, Policy
from p2pnerts.rules import State, TableOptions, apply, deal, private_view, solo_seats

from .common import progress

BOT_POLICIES = ("simple", "baseline", "strong")
BOT_PLAYERS = 4


def bot_positions(count: int, seed: int) -> list[tuple[State, int, int]]:
    """``count`` seats' views (with the seat and the round), from rounds of the built-in
    policies playing each other."""
    rng = random.Random(seed)
    views: list[tuple[State, int, int]] = []
    number = 0
    while len(views) < count:
        number += 1
        state = deal(TableOptions(), solo_seats(BOT_PLAYERS), rng=rng)
        bots = [POLICIES[BOT_POLICIES[s % 3]](random.Random(s)) for s in range(BOT_PLAYERS)]
        for _ in range(20_000):
            if state.ended is not None or len(views) >= count:
                break
            seat = rng.randrange(BOT_PLAYERS)
            view = private_view(state, seat)
            views.append((view, seat, number))
            move = bots[seat].choose(view, seat)
            if move is not None:
                state, _ = apply(state, move)
    return views


def decision_times(
    name: str,
    views: Sequence[tuple[State, int, int]],
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, float]:
    """Milliseconds per ``choose`` of policy ``name`` on each view: p50, p99, max, mean.

    One policy per seat and round, made outside the timing, sees that seat's views in
    turn (as at a table: a policy may remember what it has seen)."""
    make = POLICIES[name]
    times = []
    policies: dict[tuple[int, int], Policy] = {}
    for view, seat, number in views:
        policy = policies.setdefault((seat, number), make(random.Random(seat)))
        start = clock()
        policy.choose(view, seat)
        times.append(clock() - start)
    times.sort()

    def at(q: float) -> float:
        return 1000 * times[min(len(times) - 1, int(q * len(times)))]

    return {
        "p50_ms": at(0.50),
        "p99_ms": at(0.99),
        "max_ms": 1000 * times[-1],
        "mean_ms": 1000 * statistics.fmean(times),
    }


def bench_bots(args: argparse.Namespace) -> dict[str, Any]:
    views = bot_positions(int(args.positions), int(args.seed))
    clock = time.process_time if args.cpu else time.perf_counter
    timing = {name: decision_times(name, views, clock) for name in POLICIES}
    budgets = level_budgets(timing)
    if not args.json:
        kind = "CPU time of this process" if args.cpu else "wall-clock time"
        print(f"decision time per move ({kind}), {len(views)} views at {BOT_PLAYERS} players")
        print(f"{'policy':<10}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}{'mean ms':>9}")
        for name, t in timing.items():
            print(
                f"{name:<10}{t['p50_ms']:>9.3f}{t['p99_ms']:>9.3f}"
                f"{t['max_ms']:>9.3f}{t['mean_ms']:>9.3f}"
            )
        print(f"\n{'level':<7}{'policy':<10}{'budget ms':>10}{'p99 ms':>9}  within")
        for b in budgets:
            print(
                f"{b['level']:<7}{b['policy']:<10}{b['budget_ms']:>10g}{b['p99_ms']:>9.3f}  "
                f"{'yes' if b['within'] else 'NO'}"
            )
    if not args.rounds:
        return {"decision_ms": timing, "levels": budgets}
    shown = None if args.json else progress
    report = play_arena(
        ["baseline", "strong"],
        int(args.rounds),
        int(args.seed),
        players=BOT_PLAYERS,
        progress=shown,
    )
    strong = report.figures[1]
    assert strong.margin is not None and strong.margin_ci95 is not None
    low, high = strong.margin - strong.margin_ci95, strong.margin + strong.margin_ci95
    deciding = sum(f.decision_ms * f.decisions for f in report.figures) / 1000
    margin = {
        "rounds": report.rounds,
        "players": BOT_PLAYERS,
        "seed": report.seed,
        "baseline_points": report.figures[0].mean_points,
        "strong_points": strong.mean_points,
        "margin": strong.margin,
        "ci95": [low, high],
        "seconds": report.seconds,
        "seconds_per_round": report.seconds / report.rounds,
        "seconds_deciding": deciding,
    }
    if not args.json:
        print(
            f"\nstrong over baseline, {report.rounds} paired rounds at {BOT_PLAYERS} players "
            f"(seats baseline, strong, baseline, strong; each deal in all 4 rotations), "
            f"seed {report.seed}:"
        )
        print(
            f"  points per round: baseline {report.figures[0].mean_points:.2f}, strong "
            f"{strong.mean_points:.2f}; margin {strong.margin:+.2f}, 95% CI "
            f"[{low:+.2f}, {high:+.2f}]"
        )
        print(
            f"  arena: {report.seconds:.0f} s, {margin['seconds_per_round']:.3f} s per round, "
            f"{deciding / report.seconds:.0%} of it in the policies' decisions"
        )
    return {"decision_ms": timing, "levels": budgets, "margin": margin}


def level_budgets(timing: dict[str, dict[str, float]]) -> list[dict[str, Any]]:
    """Each level's policy's decision p99 against the level's thinking budget."""
    return [
        {
            "level": lv.number,
            "policy": lv.policy,
            "budget_ms": lv.budget_ms,
            "p99_ms": timing[lv.policy]["p99_ms"],
            "within": timing[lv.policy]["p99_ms"] <= lv.budget_ms,
        }
        for lv in LEVELS
    ]


FAST_MIXES = (("simple", "baseline"), ("baseline", "strong"))


def bench_fast(args: argparse.Namespace) -> dict[str, Any]:
    """The fast arena's four-player rounds per second on one core, per mix of policies,
    the share of that time the policies' own decisions take, and each policy's margin over
    the first beside its decision times."""
    figures: dict[str, dict[str, Any]] = {}
    for mix in FAST_MIXES:
        report = play_arena(list(mix), int(args.rounds), int(args.seed), fast=True)
        deciding = sum(f.decision_ms * f.decisions for f in report.figures) / 1000
        figures[",".join(mix)] = {
            "rounds": report.rounds,
            "rounds_per_second": report.rounds / report.seconds,
            "share_deciding": deciding / report.seconds,
            "policies": {
                f.name: {
                    "margin": f.to_json()["margin"],
                    "margin_ci95": f.to_json()["margin_ci95"],
                    "p50_ms": f.decision_p50_ms,
                    "p99_ms": f.decision_p99_ms,
                }
                for f in report.figures
            },
        }
    if not args.json:
        print(f"fast arena, {BOT_PLAYERS} players, one core, seed {args.seed}")
        print(f"{'policies':<20}{'rounds':>8}{'rounds/s':>10}{'deciding':>10}")
        for name, f in figures.items():
            print(
                f"{name:<20}{f['rounds']:>8}{f['rounds_per_second']:>10.1f}"
                f"{f['share_deciding']:>10.0%}"
            )
        print(f"\n{'policies':<20}{'policy':<10}{'margin':>16}{'p50 ms':>9}{'p99 ms':>9}")
        for name, f in figures.items():
            for policy, p in f["policies"].items():
                margin = _margin_text(p["margin"], p["margin_ci95"])
                print(f"{name:<20}{policy:<10}{margin:>16}{p['p50_ms']:>9.3f}{p['p99_ms']:>9.3f}")
    return {"fast_arena": figures}


def _margin_text(margin: float | None, ci95: float | None) -> str:
    """A margin ± its interval; blank for the first policy, no interval for one deal."""
    if margin is None:
        return ""
    return f"{margin:+.2f}" if ci95 is None else f"{margin:+.2f} ± {ci95:.2f}"
