"""The benchmarks' history, kept by python tools/bench.py KIND [--history FILE | --no-history].

Each run of `tools/bench.py` appends its figures to a small JSON-lines file, and prints
beside them the last run of the same benchmark on another commit, so that a change shows
its before and after.

A figure is a number in the report, named by its path: ``speed.4p.rounds_per_s``, say
(a row of a table is named by what it is about: its peers, policy or mix). Comparing
two runs of one machine at different times says less than `tools/speed_ab.py`, which
interleaves the two checkouts in one run; the history says which way things went.
"""

from __future__ import annotations

import datetime
import json
import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

KEEP = 200
"""Runs the file keeps (the oldest go first)."""
ROW_NAMES = (("peers", "p"), ("policy", ""), ("mix", ""), ("name", ""))
"""What a table's row is named by, with the unit written after it."""


def figures(report: Mapping[str, Any], prefix: str = "") -> dict[str, float]:
    """Every number of ``report`` (nested dicts and lists of rows), by its path."""
    out: dict[str, float] = {}
    for key, value in report.items():
        out.update(_numbers(value, f"{prefix}{key}"))
    return out


def _numbers(value: Any, path: str) -> Iterator[tuple[str, float]]:
    if isinstance(value, bool):
        return
    if isinstance(value, int | float):
        yield path, float(value)
    elif isinstance(value, Mapping):
        for key, inner in value.items():
            yield from _numbers(inner, f"{path}.{key}")
    elif isinstance(value, list):
        for index, row in enumerate(value):
            yield from _numbers(row, f"{path}.{_row_name(row, index)}")


def _row_name(row: Any, index: int) -> str:
    if isinstance(row, Mapping):
        for field, unit in ROW_NAMES:
            if field in row and not isinstance(row[field], Mapping | list):
                return f"{row[field]}{unit}"
    return str(index)


def commit(cwd: Path) -> str:
    """The checkout's commit, short, with ``+`` if its files differ from it; ``?`` outside
    a git checkout."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=cwd, capture_output=True, text=True
        )
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=cwd,
            capture_output=True,
            text=True,
        )
    except OSError:
        return "?"
    if head.returncode != 0:
        return "?"
    return head.stdout.strip() + ("+" if dirty.stdout.strip() else "")


def read(path: Path) -> list[dict[str, Any]]:
    """The runs in the file, oldest first; a line that is not a run (a torn write) is
    skipped."""
    if not path.exists():
        return []
    runs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            run = json.loads(line)
        except ValueError:
            continue
        if isinstance(run, dict) and isinstance(run.get("figures"), dict):
            runs.append(run)
    return runs


def previous(runs: list[dict[str, Any]], benchmark: str, at: str) -> dict[str, Any] | None:
    """The latest run of ``benchmark`` on a commit other than ``at``."""
    earlier = [r for r in runs if r.get("benchmark") == benchmark and r.get("commit") != at]
    return earlier[-1] if earlier else None


def record(path: Path, benchmark: str, report: Mapping[str, Any], at: str) -> dict[str, Any]:
    """Append this run to the file (keeping the last `KEEP`), and return it."""
    run = {
        "benchmark": benchmark,
        "commit": at,
        "when": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "figures": figures(report),
    }
    runs = [*read(path), run][-KEEP:]
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(r, sort_keys=True) + "\n" for r in runs)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(path)
    return run


def compare(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """Lines of ``before → after (ratio)`` for every figure both runs have that changed."""
    old, new = before["figures"], after["figures"]
    lines = [f"since {before['commit']} ({before['when']}):"]
    for name in sorted(old.keys() & new.keys()):
        a, b = old[name], new[name]
        if a == b:
            continue
        ratio = f"×{b / a:.3f}" if a else "new"
        lines.append(f"  {name:44} {a:12.4g} → {b:<12.4g} {ratio}")
    if len(lines) == 1:
        lines.append("  every figure as it was")
    return lines
