"""Random schedules of closed lids and stalled links, replayed from many seeds: which tables
do not come back.

    python tools/schedules.py [--seeds 800] [--first 0] [--jobs 2] [--table 5:majority ...]

Each seed runs the schedule of ``tests/protocol/test_schedules.py`` (600 steps of 10 to
300 ms: a lid closes or opens, a link stalls or runs again, seats turn their stocks and
deal; then every lid open and every link up for 10 s) at three tables: three seats that
commit by acknowledgement, four by a majority, four by acknowledgement. A seed fails when
a seat is not back playing, a member, on one digest. Prints, per table, the failing
seeds with each seat's status, and how many failed (SPEC's notes, "Every seat out").
Needs the test extra (the schedule is the tests' own).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if importlib.util.find_spec("p2pnerts") is None:  # a checkout, run without installing it
    sys.path.insert(0, str(ROOT))
sys.path[:0] = [str(ROOT / "tests" / "protocol"), str(ROOT / "tests")]

from p2pnerts.fanout import FanOutError, Where, fan_out  # noqa: E402
from p2pnerts.protocol import Status  # noqa: E402

TABLES = ((3, False), (4, True), (4, False))
"""(seats, by a majority) of each table a seed runs at."""


def replay_one(job: tuple[int, bool, bool], seed: int) -> str | None:
    """How the schedule of ``seed`` ended at the table of ``job`` (seats, by a majority,
    playing on through the heal), if not with every seat back: each seat's status, or
    that the digests differ."""
    players, majority, play_on = job
    replay = importlib.import_module("test_schedules")._replay
    replayed = replay(seed, players, majority=majority, play_on=play_on)
    back = all(
        r.status is Status.NORMAL and r.members == frozenset(range(players))
        for r in replayed.replicas
    )
    if not back:
        return " ".join(r.status.name for r in replayed.replicas)
    try:
        replayed.agree()
    except AssertionError:
        return "back, on different digests"
    return None


def _table(text: str) -> tuple[int, bool]:
    """``SEATS:RULE``, as ``--table`` takes it."""
    seats, _, rule = text.partition(":")
    if not seats.isdigit() or not 2 <= int(seats) <= 14 or rule not in ("acks", "majority"):
        raise argparse.ArgumentTypeError(f"{text!r}: SEATS:RULE, 2-14 seats, acks or majority")
    if rule == "majority" and int(seats) < 4:
        raise argparse.ArgumentTypeError(f"{text!r}: a majority's table has 4 seats or more")
    return int(seats), rule == "majority"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=800, help="seeds per table (800)")
    parser.add_argument("--first", type=int, default=0, help="the first seed (0)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (1)")
    parser.add_argument(
        "--table",
        action="append",
        type=_table,
        metavar="SEATS:RULE",
        help="a table to run instead of the three (RULE: acks or majority, from 4 seats);"
        " may be given again",
    )
    parser.add_argument(
        "--play-on",
        action="store_true",
        help="the seats turn their stocks and deal through the heal too, as players do",
    )
    args = parser.parse_args(argv)
    seeds = range(args.first, args.first + args.seeds)
    failed = 0
    try:
        for players, majority in args.table or TABLES:
            rule = "a majority" if majority else "acknowledgement"
            job = (players, majority, args.play_on)
            fanned = fan_out(replay_one, job, seeds, Where(jobs=args.jobs))
            ends = [(seed, end) for seed, end in zip(seeds, fanned.records, strict=True) if end]
            for seed, end in ends:
                print(f"  seed {seed}: {end}")
            print(f"{players} seats by {rule}: {len(ends)} of {len(seeds)} did not come back")
            failed += len(ends)
    except FanOutError as error:
        print(f"schedules: {error}", file=sys.stderr)
        return 2
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
