"""The rules engine's speed, run by python tools/bench.py rules [--profile] [--json].

Rounds of random legal moves are recorded first, at 2, 4 and 14 players; then `apply`
replays their moves and `legal_moves` answers every seat they asked, timed apart. With
``--profile``, cProfile lists where a 4-player run spends its time.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import platform
import pstats
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from p2pnerts.rules import apply, legal_moves

from .common import ROOT, Playout, record_playout

RULES_PLAYERS = (2, 4, 14)
PROFILE_PLAYERS = 4


class RulesResult(NamedTuple):
    players: int
    playouts: int
    moves: int
    legal_calls: int
    apply_per_s: float
    legal_per_s: float


def time_apply(playouts: Sequence[Playout]) -> float:
    """Seconds spent in `apply` replaying every recorded move list."""
    total = 0.0
    for p in playouts:
        state = p.initial
        start = time.perf_counter()
        for move in p.moves:
            state, _ = apply(state, move)
        total += time.perf_counter() - start
    return total


def time_legal(playouts: Sequence[Playout]) -> float:
    """Seconds spent in `legal_moves` over every recorded (state, seat)."""
    total = 0.0
    for p in playouts:
        start = time.perf_counter()
        for state, seat in p.asked:
            legal_moves(state, seat)
        total += time.perf_counter() - start
    return total


def rules_figures(
    players: int, playouts: int, max_moves: int, repeat: int, seed: int
) -> RulesResult:
    """Best-of-``repeat`` rates for one table size over ``playouts`` recorded rounds."""
    recorded = [record_playout(players, seed + i, max_moves) for i in range(playouts)]
    moves = sum(len(p.moves) for p in recorded)
    calls = sum(len(p.asked) for p in recorded)
    apply_s = min(time_apply(recorded) for _ in range(repeat))
    legal_s = min(time_legal(recorded) for _ in range(repeat))
    return RulesResult(players, playouts, moves, calls, moves / apply_s, calls / legal_s)


def profile_rules(playouts: int, max_moves: int, seed: int, top: int) -> list[dict[str, Any]]:
    """cProfile a whole 4-player run (recording, replaying, generating); print the top."""
    profiler = cProfile.Profile()
    profiler.enable()
    recorded = [record_playout(PROFILE_PLAYERS, seed + i, max_moves) for i in range(playouts)]
    time_apply(recorded)
    time_legal(recorded)
    profiler.disable()
    stats = pstats.Stats(profiler, stream=io.StringIO()).sort_stats(pstats.SortKey.CUMULATIVE)
    rows = []
    for func, (_, ncalls, tottime, cumtime, _) in stats.stats.items():  # type: ignore[attr-defined]
        filename, line, name = func
        rows.append(
            {
                "function": f"{_short(filename)}:{line}({name})",
                "calls": ncalls,
                "tottime_s": round(tottime, 4),
                "cumtime_s": round(cumtime, 4),
            }
        )
    rows.sort(key=lambda r: -r["cumtime_s"])
    return rows[:top]


def _short(filename: str) -> str:
    """A profiled function's file: relative to the repository, else its last two parts."""
    path = Path(filename)
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else "/".join(path.parts[-2:])


def bench_rules(args: argparse.Namespace) -> dict[str, Any]:
    playouts, max_moves, seed = int(args.playouts), int(args.max_moves), int(args.seed)
    if args.profile:
        rows = profile_rules(playouts, max_moves, seed, int(args.top))
        if not args.json:
            print(f"cProfile, {PROFILE_PLAYERS} players, {playouts} playouts: top by cumulative")
            print(f"{'calls':>9} {'tottime':>8} {'cumtime':>8}  function")
            for row in rows:
                calls, tottime, cumtime = row["calls"], row["tottime_s"], row["cumtime_s"]
                print(f"{calls:>9} {tottime:>8.3f} {cumtime:>8.3f}  {row['function']}")
        return {"profile": rows}
    results = []
    if not args.json:
        print(f"rules engine, one core, Python {platform.python_version()}")
        print(f"{'players':>7} {'playouts':>8} {'moves':>7} {'apply/s':>10} {'legal_moves/s':>14}")
    for players in RULES_PLAYERS:
        r = rules_figures(players, playouts, max_moves, int(args.repeat), seed)
        results.append(r._asdict())
        if not args.json:
            print(
                f"{r.players:>7} {r.playouts:>8} {r.moves:>7} "
                f"{r.apply_per_s:>10,.0f} {r.legal_per_s:>14,.0f}"
            )
    return {"results": results}
