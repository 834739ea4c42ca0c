"""What the benchmarks of python tools/bench.py share: recorded playouts, percentiles, the report.

Every benchmark runs on one core from fixed seeds, so two runs measure the same work. A
benchmark is a function taking the parsed arguments (a `Benchmark`): it prints its figures
unless ``--json`` and returns them, and `print_json` and `keep_history` do the rest.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import benchhistory  # beside tools/bench.py

from p2pnerts.rules import (
    NERTS,
    CallNerts,
    DeclareStuck,
    Move,
    Rotate,
    SlideUnder,
    State,
    TableOptions,
    ToFoundation,
    ToWork,
    TurnStock,
    apply,
    deal,
    legal_moves,
    solo_seats,
)

ROOT = Path(__file__).resolve().parent.parent.parent
"""The repository."""
HISTORY = ROOT / "tools" / "bench-history.jsonl"

Benchmark = Callable[[argparse.Namespace], dict[str, Any]]
"""A benchmark: it prints its figures (unless ``--json``) and returns them for JSON."""


class Playout(NamedTuple):
    """A recorded round: the deal, the moves made, and who was asked for moves before each."""

    initial: State
    moves: list[Move]
    asked: list[tuple[State, int]]


def record_playout(players: int, seed: int, max_moves: int) -> Playout:
    """Play random legal moves (foundation and Nerts plays preferred) from a seeded deal."""
    rng = random.Random(seed)
    state = deal(TableOptions(), solo_seats(players), rng=random.Random(seed))
    initial, moves, asked = state, list[Move](), list[tuple[State, int]]()
    while state.ended is None and len(moves) < max_moves and len(asked) < 4 * max_moves:
        seat = rng.randrange(players)
        asked.append((state, seat))
        legal = legal_moves(state, seat)
        if not legal:
            continue  # stuck, waiting for the others to be
        move = rng.choices(legal, [_weight(m) for m in legal])[0]
        state, _ = apply(state, move)
        moves.append(move)
    return Playout(initial, moves, asked)


def _weight(move: Move) -> int:
    match move:
        case CallNerts() | Rotate():
            return 1000
        case ToFoundation():
            return 30
        case ToWork(source=source) | SlideUnder(source=source) if source == NERTS:
            return 20
        case TurnStock():
            return 8
        case DeclareStuck():
            return 1
    return 4


def p99(ordered: Sequence[float]) -> float:
    """The 99th percentile of values sorted in ascending order (the lower of two, if between)."""
    return percentile(ordered, 99)


def percentile(ordered: Sequence[float], q: int) -> float:
    """The ``q``th percentile of values sorted in ascending order (the lower of two, if
    between)."""
    return ordered[int(q / 100 * (len(ordered) - 1))]


def progress(done: int, total: int) -> None:
    """Rounds done so far, on standard error, every 50 and at the end."""
    if done == total or done % 50 == 0:
        print(f"\r  {done}/{total} rounds", end="\n" if done == total else "", file=sys.stderr)


def print_json(benchmark: str, report: Mapping[str, Any]) -> None:
    """The figures as JSON on standard output, after the benchmark's name and Python's version."""
    meta = {"benchmark": benchmark, "python": platform.python_version()}
    json.dump(meta | dict(report), sys.stdout, indent=2)
    print()


def keep_history(path: Path, benchmark: str, report: Mapping[str, Any]) -> None:
    """Append the figures to the history at ``path``; compare them, on standard error, with
    the last run of the same benchmark on another commit."""
    at = benchhistory.commit(ROOT / "tools")
    before = benchhistory.previous(benchhistory.read(path), benchmark, at)
    after = benchhistory.record(path, benchmark, report, at)
    if before is not None:
        print("\n".join(benchhistory.compare(before, after)), file=sys.stderr)
