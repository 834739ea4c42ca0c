"""``p2pnerts sim`` and ``p2pnerts arena``: simulated tables, to check the protocol and to
measure bot policies, each fanned out over this machine's cores or a cluster."""

from __future__ import annotations

import argparse
import json
import sys

from p2pnerts import sim
from p2pnerts._config import seed_from, table_size
from p2pnerts._options import Command, choice, count, fan_out_options, teams_option, tie_rule_option
from p2pnerts.arena import (
    ArenaError,
    ArenaReport,
    LadderReport,
    ladder_entries,
    play_arena,
    play_ladder,
)
from p2pnerts.bots import POLICIES, PolicyError, SimpleBots
from p2pnerts.fanout import Where
from p2pnerts.rules import TableOptions, TieRule
from p2pnerts.sim import MIXES, SimConfig

SIM_DESCRIPTION = (
    "Run a peer-to-peer table of bots on a simulated network, in this one\n"
    "process, from a seed: the same seed gives the same run and the same digest.\n"
    "Every step is checked: committed logs agree, every card is in one place,\n"
    "scores match the rules, a side of a partition without a majority commits\n"
    "nothing new, every round ends. The exit status is 1 if a check fails."
)

ARENA_DESCRIPTION = (
    "Seat the policies around simulated tables (seat s plays policy s mod P) "
    "and play every deal once in each rotation of the seats, so that each policy meets "
    "each deck from each seat. Reports, per policy: mean points per round with a 95% "
    "confidence interval, its margin over the first policy, Nerts-call rate, cards "
    "played, races won and lost, and decision time. The same seed gives the same "
    "results (decision times are measured, and vary)."
)


def sim_options(simulate: argparse.ArgumentParser) -> None:
    simulate.add_argument(
        "--peers", type=count(2, 14), help="peers at the table (2-14; default 4, or the teams')"
    )
    teams_option(simulate, "peers")
    simulate.add_argument("--rounds", type=count(1, 1000), default=10, help="rounds per seed")
    simulate.add_argument(
        "--faults",
        type=choice(MIXES),
        default="light",
        metavar="MIX",
        help="the fault mix (below); default light",
    )
    simulate.add_argument(
        "--seed", type=int, default=None, help="first seed (default: a random one)"
    )
    simulate.add_argument(
        "--seeds", type=count(1, 100_000), default=1, help="seeds to run, from --seed"
    )
    tie_rule_option(simulate)
    simulate.add_argument(
        "--sequencer",
        action="store_true",
        help="also run a central-sequencer baseline on the same workload",
    )
    simulate.add_argument("--json", action="store_true", help="print the report as JSON")
    simulate.add_argument(
        "--log", metavar="DIR", help="each seed's peers write their game logs in DIR"
    )
    fan_out_options(simulate, "seeds")


def arena_options(arena: argparse.ArgumentParser) -> None:
    arena.add_argument(
        "--policies",
        metavar="P1,P2,...",
        help=f"comma-separated: {', '.join(POLICIES)}, L1-L10 (a level: its policy at its "
        "pace), package.module:Class or file.py:Class (default baseline,strong); any of them "
        "@N looks N times a second (strong@15: the arena's pace is about 13)",
    )
    arena.add_argument(
        "--rounds",
        type=count(1, 1_000_000),
        default=100,
        help="rounds (100; per pair with --ladder)",
    )
    arena.add_argument(
        "--ladder",
        action="store_true",
        help="rate every built-in policy, every level L1-L10 and the --policies on one Elo "
        "scale: each pair plays --rounds paired rounds on the rules alone (as --fast)",
    )
    arena.add_argument("--players", type=count(2, 14), help="players (default 4, or the teams')")
    teams_option(arena, "players")
    arena.add_argument("--seed", type=int, default=None, help="seed (default: a random one)")
    arena.add_argument(
        "--fast",
        action="store_true",
        help="play on the rules engine alone, each race going to the play that lands first "
        "(a commit's time after it is made): many times quicker, the same margins within "
        "their intervals",
    )
    arena.add_argument("--json", action="store_true", help="print the report as JSON")
    fan_out_options(arena, "rounds")


def _where(args: argparse.Namespace) -> Where:
    return Where(cluster=args.cluster) if args.cluster else Where(jobs=args.jobs)


def sim_command(args: argparse.Namespace) -> int:
    options = TableOptions(tie_rule=TieRule(args.tie_rule), teams=args.teams)
    peers = table_size(options, args.peers, "--peers")
    config = SimConfig(peers, args.rounds, MIXES[args.faults], options, log=args.log)
    first = seed_from(args)
    seeds = range(first, first + args.seeds)
    report = sim.run(config, seeds, SimpleBots(), sequencer=args.sequencer, where=_where(args))
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(report.text())
    return 1 if report.violations else 0


def arena_command(args: argparse.Namespace) -> int:
    seed = seed_from(args)
    names = [name.strip() for name in (args.policies or "").split(",") if name.strip()]
    options = TableOptions(teams=args.teams)
    players = table_size(options, args.players, "--players")
    report: ArenaReport | LadderReport
    try:
        if args.ladder:
            if options.teams:
                raise ArenaError("the ladder seats no teams")
            report = play_ladder(
                ladder_entries(names),
                args.rounds,
                seed,
                players=players,
                progress=_bar,
                where=_where(args),
            )
        else:
            report = play_arena(
                names or ["baseline", "strong"],
                args.rounds,
                seed,
                players=players,
                options=options,
                progress=_bar,
                where=_where(args),
                fast=args.fast,
            )
    except PolicyError as exc:
        raise ArenaError(str(exc)) from None
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(report.text())
    return 0


def _bar(done: int, total: int, width: int = 30) -> None:
    """A progress bar on stderr, drawn over itself."""
    filled = width * done // total
    end = "\n" if done == total else ""
    bar = "#" * filled + "." * (width - filled)
    print(f"\r[{bar}] {done}/{total} rounds", end=end, file=sys.stderr, flush=True)


SIM = Command(
    "sim",
    "run the protocol on a simulated network, with faults, and check it",
    SIM_DESCRIPTION,
    sim_options,
    sim_command,
    epilog="fault mixes:\n" + "".join(f"  {name:<10} {mix.about}\n" for name, mix in MIXES.items()),
)
"""The ``sim`` command, as the command line adds it."""

ARENA = Command(
    "arena",
    "play bot policies against each other on simulated tables, and measure them",
    ARENA_DESCRIPTION,
    arena_options,
    arena_command,
)
"""The ``arena`` command, as the command line adds it."""
