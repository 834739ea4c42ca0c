"""Two checkouts' speed, before and after in one run: python tools/speed_ab.py BEFORE AFTER.

Simulated rounds per CPU second of two checkouts, their runs interleaved so that the
machine's moods fall on both alike.

    python tools/speed_ab.py BEFORE_DIR AFTER_DIR [--peers 4] [--seeds 30] [--runs 5] [--majority]
    python tools/speed_ab.py BEFORE_DIR AFTER_DIR --instructions [--seeds 4]

Each run is a fresh process with the checkout first on its path, timing `sim.run` over the
same one-round seeds with the process clock; the digests must agree. Prints each run, the
medians, the best of each, and the ratios after/before: of the medians, of the best, and
of each pair of runs (their mean with a 95% interval, and their median). A pair runs the
before first, the next pair the after first.

On a shared machine the process clock of one run can stray by a fifth from the next, and a
change of a few percent hides in that. ``--instructions`` counts instead the instructions
the rounds take, under valgrind's callgrind (the same count on every run, with hashing
seeded): a run of the seeds less a run of none, so that importing is not counted. Fewer
instructions is a guide, not the clock: memory and branches cost time it does not count.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys

PROBE = """
import inspect, sys, time
from p2pnerts.sim import MIXES, SimConfig, run
config = SimConfig({peers}, 1, MIXES["none"]{majority})
args = [config, range({seeds})]
try:
    takes_bots = "bots" in inspect.signature(run).parameters  # after the bots were handed in
except ValueError:  # compiled (tools/native.py), which keeps no signature: today's code
    takes_bots = True
if takes_bots:
    from p2pnerts.bots import SimpleBots
    args.append(SimpleBots())
start = time.process_time()
report = run(*args)
print({seeds} / (time.process_time() - start), report.digest)
"""


def in_tree(tree: str, code: str, *under: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh Python with the checkout ``tree`` first on its path (under a
    tool such as valgrind, given as the words before the interpreter)."""
    # Run from the checkout: ``-c`` puts the working directory first on the path, before
    # PYTHONPATH, and the caller's own checkout must not stand in for the one measured.
    return subprocess.run(
        [*under, sys.executable, "-c", code],
        env={**os.environ, "PYTHONPATH": tree, **env},
        capture_output=True,
        text=True,
        check=True,
        cwd=tree,
    )


def probe(peers: int, seeds: int, majority: bool) -> str:
    """The code one run runs: ``seeds`` one-round seeds at a table of ``peers``."""
    return PROBE.format(peers=peers, seeds=seeds, majority=", majority=True" if majority else "")


def one_run(tree: str, peers: int, seeds: int, majority: bool) -> tuple[float, str]:
    out = in_tree(tree, probe(peers, seeds, majority)).stdout.split()
    return float(out[0]), out[1]


def instructions(tree: str, peers: int, seeds: int, majority: bool) -> int:
    """The instructions `sim.run` takes over ``seeds`` seeds in ``tree`` (importing not
    counted: a run of no seeds is taken away)."""

    def counted(n: int) -> int:
        code = probe(peers, n, majority).rsplit("print(", 1)[0]  # (no rate: no clock)
        callgrind = ("valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null")
        run = in_tree(tree, code, *callgrind, PYTHONHASHSEED="0")
        found = re.search(r"Collected : (\d+)", run.stderr)
        assert found, run.stderr[-500:]
        return int(found[1])

    return counted(seeds) - counted(0)


def count_instructions(before: str, after: str, peers: int, seeds: int, majority: bool) -> int:
    if shutil.which("valgrind") is None:
        print("--instructions needs valgrind (its callgrind tool)", file=sys.stderr)
        return 2
    counts = {tree: instructions(tree, peers, seeds, majority) for tree in (before, after)}
    for tree, count in counts.items():
        print(f"{tree}: {count / seeds / 1e6:.0f} million instructions a round")
    ratio = counts[before] / counts[after]
    print(f"instructions before/after {ratio:.3f} (above 1: the after takes fewer)")
    return 0


def paired(before: list[float], after: list[float]) -> str:
    """The ratio after/before of each pair of runs: their mean with a 95% interval (normal,
    from the pairs' spread), and their median."""
    ratios = [a / b for a, b in zip(after, before, strict=True)]
    mean = statistics.fmean(ratios)
    if len(ratios) < 2:
        return f"paired after/before {mean:.3f} (one pair: no interval)"
    half = 1.96 * statistics.stdev(ratios) / len(ratios) ** 0.5
    median = statistics.median(ratios)
    return (
        f"paired after/before {mean:.3f} ± {half:.3f} (95%, {len(ratios)} pairs), "
        f"median {median:.3f}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--peers", type=int, default=4)
    parser.add_argument("--seeds", type=int, default=30)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--instructions", action="store_true", help="count instructions (callgrind), not time"
    )
    parser.add_argument(
        "--majority", action="store_true", help="tables that commit by version 3's majority"
    )
    args = parser.parse_args()
    if args.instructions:
        return count_instructions(args.before, args.after, args.peers, args.seeds, args.majority)
    rates: dict[str, list[float]] = {args.before: [], args.after: []}
    digests = set()
    for run in range(args.runs):
        # Each pair of runs goes first one way, then the other, so that whatever the
        # machine does to a first or a second run falls on both alike.
        pair = (args.before, args.after) if run % 2 == 0 else (args.after, args.before)
        for tree in pair:
            rate, digest = one_run(tree, args.peers, args.seeds, args.majority)
            rates[tree].append(rate)
            digests.add(digest)
            print(f"{tree}: {rate:.3f} rounds/s")
    before, after = (statistics.median(rates[t]) for t in (args.before, args.after))
    print(f"median before {before:.3f}, after {after:.3f}: after/before {after / before:.3f}")
    best_before, best_after = (max(rates[t]) for t in (args.before, args.after))
    print(f"best before {best_before:.3f}, after {best_after:.3f}: {best_after / best_before:.3f}")
    print(paired(rates[args.before], rates[args.after]))
    if len(digests) != 1:
        print("the digests differ: not the same work")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
