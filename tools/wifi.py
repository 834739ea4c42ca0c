"""A table on bad Wi-Fi, real processes on loopback: python tools/wifi.py [--tree DIR ...].

What a stall or a lossy link costs.

    python tools/wifi.py [--tree DIR ...] [--runs 3] [--json]

For each checkout given (default: this one), in one run, four real peers (a headless
`host` and three `bot` processes, level 8, two rounds) play:

- **profile**: every peer's links at 15 ± 25 ms and 2% loss (`--delay 15 --jitter 25
  --loss 0.02`): commit p50 and p99 over every peer's plays, and whether all four printed
  the same final line;
- **drop S**: one bot's links cut for S seconds (3 and 3.5 s; `--stall 6:S`), the others
  healthy: the time from the link's return to the cut peer's "back" (its own record, and
  the last of the others' to hear it back), and how many connections were probed;
- **stall 1.5**: one bot's links cut for 1.5 s (too short to be left out): the longest
  any healthy peer's own play waited to commit.

The table commits as the checkout's tables of four do: by a majority unless told `--acks`
(this one on), where a seat cut for 3 s is no departure and is never left out, so that
its "back" figures are empty (None); a checkout from before committed by acknowledgement.

Each run is fresh processes with the checkout as their working directory (so that its
package, not an installed one, is the one run); the checkout must have ``--stall``.
Figures are medians over ``--runs``. Timings are wall-clock: run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

STALL_AT = 6.0
LIMIT = 300


def _table(tree: str, cut: list[str], everyone: list[str], workdir: Path) -> list[dict[str, Any]]:
    """Play a 4-seat, 2-round match: host and B1, B2 with ``everyone``'s options, B3 with
    ``cut``'s too; the four peers' ``--stats``, host first, each with its last line."""
    python = [sys.executable, "-m", "p2pnerts"]
    env = {**os.environ, "PYTHONPATH": tree}

    def spawn(args: list[str], name: str) -> subprocess.Popen[str]:
        stats = ["--stats", str(workdir / f"{name}.json")]
        return subprocess.Popen(
            [*python, *args, *stats, *everyone],
            cwd=tree,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )

    host = spawn(["host", "--name", "wifi", "--headless", "--no-advertise", "--seats", "4",
                  "--rounds", "2", "--level", "8"], "h")  # fmt: skip
    assert host.stdout is not None
    first = host.stdout.readline()
    port = re.search(r"open on port (\d+)", first)
    if port is None:
        host.kill()
        raise SystemExit(f"the host said {first!r}")
    join = ["bot", "--join", f"127.0.0.1:{port.group(1)}", "--level", "8"]
    bots = [spawn([*join, "--name", "B1"], "b1"), spawn([*join, "--name", "B2"], "b2")]
    bots.append(spawn([*join, "--name", "B3", *cut], "b3"))
    figures = []
    for name, proc in zip(("h", "b1", "b2", "b3"), (host, *bots), strict=True):
        out, _ = proc.communicate(timeout=LIMIT)
        if proc.returncode != 0:
            raise SystemExit(f"{name} exited {proc.returncode}:\n{first}{out}")
        stats = json.loads((workdir / f"{name}.json").read_text())
        stats["last"] = [line for line in out.splitlines() if line.startswith("match over")][-1]
        figures.append(stats)
    return figures


def profile(tree: str, workdir: Path) -> dict[str, Any]:
    peers = _table(tree, [], ["--delay", "15", "--jitter", "25", "--loss", "0.02"], workdir)
    latencies = sorted(t for p in peers for t in p["commit_latencies"])
    return {
        "p50_ms": 1000 * latencies[len(latencies) // 2],
        "p99_ms": 1000 * latencies[int(len(latencies) * 0.99)],
        "plays": len(latencies),
        "agree": len({p["last"] for p in peers}) == 1,
    }


def _back_at(records: list[dict[str, Any]], seat: int | None) -> float | None:
    """When a seat's 'back' record says it came back (``seat`` None: the peer's own)."""
    backs = [r["at"] for r in records if r["event"] == "back" and seat in (None, r.get("seat"))]
    return backs[0] if backs else None


def drop(tree: str, seconds: float, workdir: Path) -> dict[str, Any]:
    peers = _table(tree, ["--stall", f"{STALL_AT:g}:{seconds:g}"], [], workdir)
    back = STALL_AT + seconds  # on each peer's stats clock, which starts as play begins
    cut = peers[3]
    own = [r for r in cut["membership"] if r["event"] == "back"]
    cut_seat = own[0]["seat"] if own else None
    heard = [_back_at(p["membership"], cut_seat) for p in peers[:3]]
    others = [at for at in heard if at is not None]
    return {
        "own_back_s": None if not own else own[0]["at"] - back,
        "others_back_s": max(others) - back if len(others) == len(heard) else None,
        "probed": sum(p.get("probed", 0) for p in peers),
        "agree": len({p["last"] for p in peers}) == 1,
    }


def stall(tree: str, workdir: Path) -> dict[str, Any]:
    peers = _table(tree, ["--stall", f"{STALL_AT:g}:1.5"], [], workdir)
    healthy = [t for p in peers[:3] for t in p["commit_latencies"]]
    return {"longest_wait_s": max(healthy), "agree": len({p["last"] for p in peers}) == 1}


def _median(runs: list[dict[str, Any]]) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for key in runs[0]:
        values = [r[key] for r in runs]
        numbers = [v for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
        if isinstance(values[0], bool):
            merged[key] = all(values)
        elif numbers and len(numbers) == len(values):
            merged[key] = round(statistics.median(numbers), 3)
            merged[key + "_runs"] = [round(v, 3) for v in numbers]
        else:
            merged[key] = values
    return merged


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", action="append", help="a checkout to measure (repeatable)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    trees = args.tree or [str(Path(__file__).resolve().parent.parent)]
    cases = {
        "profile": profile,
        "drop 3": lambda t, w: drop(t, 3.0, w),
        "drop 3.5": lambda t, w: drop(t, 3.5, w),
        "stall 1.5": stall,
    }
    results: dict[str, dict[str, list[dict[str, Any]]]] = {t: {c: [] for c in cases} for t in trees}
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(args.runs):
            for case, measure in cases.items():
                for tree in trees:  # interleaved: the machine's moods fall on every tree
                    figures = measure(tree, Path(tmp))
                    results[tree][case].append(figures)
                    if not args.json:
                        print(f"run {run + 1} {case:9} {tree}: {figures}", flush=True)
    summary = {t: {c: _median(r) for c, r in cases_.items()} for t, cases_ in results.items()}
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        for tree, cases_ in summary.items():
            print(f"\n{tree} (median of {args.runs}):")
            for case, figures in cases_.items():
                print(f"  {case:9} {figures}")
        print(f"\n{time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
