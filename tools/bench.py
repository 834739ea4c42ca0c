"""Benchmarks, one subcommand each: python tools/bench.py rules|sim|net|ui|bots|fast|sign [--json].

Every benchmark runs on one core from fixed seeds, so two runs measure the same work. This
file reads the command line and runs one; the benchmarks are in `tools/benchmarks/`, a
module each, with what they share in `benchmarks/common.py`. A new benchmark is one
function there taking the parsed arguments, and a subparser naming it in `parser()`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from benchmarks.bots import bench_bots, bench_fast  # beside this script
from benchmarks.common import HISTORY, Benchmark, keep_history, print_json
from benchmarks.net import NET_PEERS, bench_net
from benchmarks.rules import bench_rules
from benchmarks.sign import bench_sign
from benchmarks.sim import bench_sim
from benchmarks.ui import bench_ui


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    sub = top.add_subparsers(dest="benchmark", required=True)

    rules = sub.add_parser("rules", help="apply and legal_moves rates at 2, 4 and 14 players")
    rules.add_argument("--json", action="store_true", help="emit the figures as JSON")
    rules.add_argument("--profile", action="store_true", help="cProfile a 4-player run")
    rules.add_argument("--top", type=int, default=25, help="functions the profile lists")
    rules.add_argument("--playouts", type=int, default=20, help="rounds per table size")
    rules.add_argument("--max-moves", type=int, default=600, help="moves per round at most")
    rules.add_argument("--repeat", type=int, default=3, help="timing runs; the best counts")
    rules.add_argument("--seed", type=int, default=1, help="first deal and playout seed")
    rules.set_defaults(run=bench_rules)

    simulated = sub.add_parser(
        "sim",
        help="simulated rounds per second at 4 and 14 peers; messages, bytes and commit "
        "latency per play against a central sequencer, by peer count",
    )
    simulated.add_argument("--json", action="store_true", help="emit the figures as JSON")
    simulated.add_argument("--rounds", type=int, default=3, help="rounds per seed and table")
    simulated.add_argument("--seeds", type=int, default=2, help="seeds per table size")
    simulated.add_argument("--seed", type=int, default=1, help="first seed")
    simulated.add_argument(
        "--ack-at-once",
        action="store_true",
        help="the costs with Acks sent at once unless one went out within the coalescing "
        "delay (Timing.ack_at_once), for the trade-off in SPEC Appendix B",
    )
    simulated.add_argument(
        "--majority",
        action="store_true",
        help="replicas commit by version 3's majority rule (SPEC's notes: \"The replica on "
        "the majority's commit\"), not every member's acknowledgement",
    )
    simulated.set_defaults(run=bench_sim)

    net = sub.add_parser(
        "net", help="peer processes on loopback: commit latency against TCP's, traffic, CPU"
    )
    net.add_argument("--json", action="store_true", help="emit the figures as JSON")
    net.add_argument("--rounds", type=int, default=1, help="rounds each table plays")
    net.add_argument(
        "--peers", type=int, nargs="+", default=list(NET_PEERS), help="table sizes (2 4 8 14)"
    )
    net.add_argument(
        "--thinking",
        type=float,
        default=0.0,
        metavar="MS",
        help="the last bot thinks MS ms of CPU before each move; time the other seats",
    )
    net.add_argument(
        "--majority",
        action="store_true",
        help="each host commits by version 3's majority rule (tables of 4 seats or more), as "
        "the commands' tables do; without it, told --acks, by every seat's acknowledgement",
    )
    net.add_argument(
        "--hops",
        action="store_true",
        help="and where a play's milliseconds go: the round trip to each other seat's answer, "
        "that seat's own time, and the links' (from the game logs, each process's own clock)",
    )
    net.set_defaults(run=bench_net)

    front = sub.add_parser(
        "ui", help="the table screen: time per frame at 2, 4 and 14 players; key to screen"
    )
    front.add_argument("--json", action="store_true", help="emit the figures as JSON")
    front.add_argument("--frames", type=int, default=300, help="frames per table size")
    front.add_argument("--presses", type=int, default=100, help="keys pressed for latency")
    front.add_argument("--seed", type=int, default=1, help="the recorded rounds' seed")
    front.set_defaults(run=bench_ui)

    bots = sub.add_parser(
        "bots",
        help="decision time per policy (p50, p99), each level's policy against its thinking "
        "budget, and the strong bot's margin over the baseline in mean points per round "
        "over paired arena rounds, with its 95%% CI",
    )
    bots.add_argument("--json", action="store_true", help="emit the figures as JSON")
    bots.add_argument(
        "--rounds", type=int, default=2000, help="arena rounds (2000; 0: decision times only)"
    )
    bots.add_argument("--positions", type=int, default=3000, help="views timed per policy")
    bots.add_argument(
        "--cpu",
        action="store_true",
        help="time decisions by this process's CPU time, not the wall clock (on a core that "
        "other work shares)",
    )
    bots.add_argument("--seed", type=int, default=1, help="the arena's and the views' seed")
    bots.set_defaults(run=bench_bots)

    fast = sub.add_parser(
        "fast",
        help="the fast arena's 4-player rounds per second, one core; each policy's margin "
        "beside its decision p50 and p99",
    )
    fast.add_argument("--json", action="store_true", help="emit the figures as JSON")
    fast.add_argument("--rounds", type=int, default=400, help="rounds per mix (400)")
    fast.add_argument("--seed", type=int, default=1, help="the arena's seed")
    fast.set_defaults(run=bench_fast)

    sign = sub.add_parser("sign", help="the cost of signing and verifying one message")
    sign.add_argument("--json", action="store_true", help="emit the figures as JSON")
    sign.add_argument("--messages", type=int, default=5000, help="messages timed (5000)")
    sign.set_defaults(run=bench_sign)
    for each in sub.choices.values():
        each.add_argument(
            "--history",
            type=Path,
            default=HISTORY,
            metavar="FILE",
            help="append the figures to FILE and compare them with the last run of the "
            "same benchmark on another commit (default tools/bench-history.jsonl)",
        )
        each.add_argument("--no-history", action="store_true", help="keep no history")
    return top


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    run: Benchmark = args.run
    report = run(args)
    if args.json:
        print_json(args.benchmark, report)
    if not args.no_history:
        # (a table with a thinking bot, or one that commits by a majority, is another
        # benchmark than one without)
        thinking = getattr(args, "thinking", 0.0)
        name = args.benchmark + ("-majority" if getattr(args, "majority", False) else "")
        name = f"{name}-thinking-{thinking:g}ms" if thinking else name
        keep_history(args.history, name, report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
