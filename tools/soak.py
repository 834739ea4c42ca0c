"""A release's soak, every fault mix and table on every core: python tools/soak.py [--rounds N].

It plays seeded simulator rounds with the invariants checked:

    python tools/soak.py [--rounds 100000] [--seed 1] [--jobs N | --cluster HOST:PORT] [--json]

The tables: 2, 3, 4, 6, 8 and 14 peers, and teams 2+2, 2+1+2 and 3+3, each under every
fault mix (`p2pnerts sim --help` lists them); the mixes that crash, partition or churn play
four rounds a seed, the others two. Seeds are dealt to the tables in turn until
``--rounds`` rounds are asked for, and all of them go through one fan-out (`p2pnerts.
fanout`), so one progress bar counts them and the report is the same however they ran.

Prints a line per table (seeds, rounds, plays, faults injected, violations), the total and
its rate, and for every seed that broke an invariant the violation and the command that
replays it. Exits 1 if any did, 0 if none did.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

if importlib.util.find_spec("p2pnerts") is None:  # a checkout, run without installing it
    # (Only then: an installed or compiled p2pnerts, tools/native.py's, comes first.)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from p2pnerts.bots import SimpleBots
from p2pnerts.driver import Drivers
from p2pnerts.fanout import FanOutError, Where, fan_out
from p2pnerts.rules import TableOptions
from p2pnerts.sim import MIXES, SeedResult, SimConfig, run_seed

PEERS = (2, 3, 4, 6, 8, 14)
TEAMS = ((2, 2), (2, 1, 2), (3, 3))
LONG = frozenset({"partition", "crash", "churn"})
"""Mixes whose faults take a while to come and heal: four rounds a seed, not two."""


@dataclass(frozen=True, slots=True)
class Table:
    """One table of the soak: its size or teams, and its fault mix."""

    peers: int
    teams: tuple[int, ...]
    mix: str

    @property
    def rounds(self) -> int:
        return 4 if self.mix in LONG else 2

    def config(self) -> SimConfig:
        return SimConfig(self.peers, self.rounds, MIXES[self.mix], TableOptions(teams=self.teams))

    def name(self) -> str:
        size = "+".join(map(str, self.teams)) if self.teams else f"{self.peers}p"
        return f"{size} {self.mix}"

    def command(self, seed: int) -> str:
        size = (
            f"--teams {'+'.join(map(str, self.teams))}" if self.teams else f"--peers {self.peers}"
        )
        return (
            f"p2pnerts sim {size} --faults {self.mix} --rounds {self.rounds} "
            f"--seed {seed} --seeds 1"
        )


TABLES = tuple(Table(peers, (), mix) for mix in MIXES for peers in PEERS) + tuple(
    Table(sum(teams), teams, mix) for mix in MIXES for teams in TEAMS
)


def soak_one(job: tuple[tuple[Table, ...], int, Drivers], index: int) -> SeedResult:
    """The ``index``-th run of the soak: its table in turn, its seed counted from ``job``'s."""
    tables, first, bots = job
    table = tables[index % len(tables)]
    result, _ = run_seed((table.config(), bots, False), first + index // len(tables))
    return result


def plan(rounds: int, tables: Sequence[Table] = TABLES) -> int:
    """How many runs (seeds dealt to the tables in turn) make at least ``rounds`` rounds."""
    runs = done = 0
    while done < rounds:
        done += tables[runs % len(tables)].rounds
        runs += 1
    return runs


def soak(rounds: int, first: int, where: Where, progress: bool = True) -> dict[str, object]:
    """Run the soak; its report as plain data."""
    runs = plan(rounds)
    started = time.monotonic()

    def tell(done: int, total: int) -> None:
        if progress:
            print(f"\r{done}/{total} runs", end="", file=sys.stderr, flush=True)

    fanned = fan_out(soak_one, (TABLES, first, SimpleBots()), range(runs), where, progress=tell)
    if progress:
        print(file=sys.stderr)
    seconds = time.monotonic() - started
    per_table: dict[str, dict[str, int]] = {}
    failures = []
    for index, result in enumerate(fanned.records):
        table = TABLES[index % len(TABLES)]
        row = per_table.setdefault(
            table.name(), {"seeds": 0, "rounds": 0, "plays": 0, "faults": 0, "violations": 0}
        )
        row["seeds"] += 1
        row["rounds"] += result.tally.rounds
        row["plays"] += result.tally.plays
        row["faults"] += sum(result.tally.faults.values())
        if result.violation is not None:
            row["violations"] += 1
            failures.append(
                {
                    "table": table.name(),
                    "seed": result.seed,
                    "command": table.command(result.seed),
                    "violation": result.violation.message,
                }
            )
    total = sum(row["rounds"] for row in per_table.values())
    return {
        "runs": runs,
        "rounds": total,
        "seconds": round(seconds, 1),
        "rounds_per_second": round(total / seconds, 2) if seconds else None,
        "workers": len(fanned.workers),
        "tables": per_table,
        "failures": failures,
    }


def text(report: dict[str, object]) -> str:
    tables = report["tables"]
    assert isinstance(tables, dict)
    lines = [f"{'table':14} {'seeds':>6} {'rounds':>7} {'plays':>8} {'faults':>7}  violations"]
    for name, row in tables.items():
        lines.append(
            f"{name:14} {row['seeds']:6} {row['rounds']:7} {row['plays']:8} {row['faults']:7}"
            f"  {row['violations']}"
        )
    lines.append(
        f"{report['rounds']} rounds in {report['runs']} runs, {report['seconds']} s "
        f"({report['rounds_per_second']} rounds/s, {report['workers']} worker processes)"
    )
    failures = report["failures"]
    assert isinstance(failures, list)
    for failure in failures:
        lines.append(f"FAILED {failure['table']} seed {failure['seed']}: {failure['violation']}")
        lines.append(f"  replay it: {failure['command']}")
    lines.append(
        "every invariant held"
        if not failures
        else f"{len(failures)} seed{'s' * (len(failures) > 1)} failed"
    )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=100_000, help="rounds in all (100000)")
    parser.add_argument("--seed", type=int, default=1, help="the first seed (1)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--jobs", type=int, default=None, help="worker processes (one per core)")
    where.add_argument("--cluster", metavar="HOST:PORT", help="a Dask scheduler's workers")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds takes 1 or more")
    jobs = args.jobs if args.jobs is not None else os.cpu_count() or 1
    try:
        where_ = Where(cluster=args.cluster) if args.cluster else Where(jobs=jobs)
        report = soak(args.rounds, args.seed, where_, progress=not args.quiet)
    except FanOutError as exc:
        print(f"soak: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(report, indent=2) if args.json else text(report))
    return 1 if report["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
