"""How much the fan-out buys, in rounds per second: python tools/fanout_bench.py [--json].

Simulator and arena rounds per second serially, over a process pool and over a two-worker
Dask cluster on loopback, in one run, and the cost of one chunk.

    python tools/fanout_bench.py [--seeds 48] [--peers 4] [--no-cluster] [--json]

Every configuration runs the same seeds; the digests and the arena's margins must agree
(the script says so if they do not), and the figures are rounds per second of wall time.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from contextlib import nullcontext
from functools import partial
from typing import Any

from p2pnerts.arena import play_arena
from p2pnerts.bots import SimpleBots
from p2pnerts.fanout import Where, fan_out, loopback_cluster
from p2pnerts.sim import MIXES, SimConfig, run

CHUNKS = 400
"""Empty chunks sent to measure what one costs."""


ARENA = ("baseline", "strong")
"""The policies the arena's figures play."""


def nothing(_job: None, seed: int) -> int:
    """A task that does no work: what is left is the cost of the fan-out itself."""
    return seed


def _timed(work: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = work()
    return time.perf_counter() - start, result


def measure(seeds: int, peers: int, cluster: bool) -> dict[str, Any]:
    """Rounds per second per fan-out, and seconds per empty chunk on the pool."""
    config = SimConfig(peers, 1, MIXES["none"])
    places: dict[str, Where] = {"serial": Where(1), "jobs 2": Where(2)}
    figures: dict[str, Any] = {"seeds": seeds, "peers": peers}
    digests = set()
    margins: set[tuple[float | None, ...]] = set()
    context = loopback_cluster(2) if cluster else nullcontext(None)
    with context as address:
        if address is not None:
            places["cluster of 2"] = Where(cluster=address)
        for name, where in places.items():
            seconds, report = _timed(partial(run, config, range(seeds), SimpleBots(), where=where))
            figures[f"{name} rounds/s"] = round(seeds / seconds, 2)
            digests.add(report.digest)
        for name, where in places.items():
            arena = partial(play_arena, ARENA, seeds, 1, players=peers, where=where)
            seconds, result = _timed(arena)
            figures[f"{name} arena rounds/s"] = round(seeds / seconds, 2)
            margins.add(tuple(f.margin for f in result.figures))
        for name, where in places.items():
            if where.jobs == 1 and where.cluster is None:
                continue
            seconds, _ = _timed(partial(fan_out, nothing, None, range(CHUNKS), where, chunk=1))
            figures[f"{name} ms per chunk"] = round(1000 * seconds / CHUNKS, 3)
    serial = figures["serial rounds/s"]
    figures["jobs 2 / serial"] = round(figures["jobs 2 rounds/s"] / serial, 2)
    if cluster:
        figures["cluster of 2 / serial"] = round(figures["cluster of 2 rounds/s"] / serial, 2)
    for name in places:
        if name != "serial":
            ratio = figures[f"{name} arena rounds/s"] / figures["serial arena rounds/s"]
            figures[f"{name} / serial, arena"] = round(ratio, 2)
    figures["digests agree"] = len(digests) == 1 and len(margins) == 1
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=48, help="one-round seeds per run")
    parser.add_argument("--peers", type=int, default=4)
    parser.add_argument("--no-cluster", action="store_true", help="skip the Dask cluster")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    figures = measure(args.seeds, args.peers, not args.no_cluster)
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for name, value in figures.items():
            print(f"{name:<32}{value}")
    return 0 if figures["digests agree"] else 1


if __name__ == "__main__":
    sys.exit(main())
