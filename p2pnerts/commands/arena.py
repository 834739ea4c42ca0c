"""``p2pnerts arena``: bot policies against each other on simulated tables, and the
ladder of levels, measured; rounds fanned out over this machine's cores or a cluster."""

from __future__ import annotations

import argparse
import json
import sys

from p2pnerts.arena import (
    ArenaError,
    ArenaReport,
    LadderReport,
    ladder_entries,
    play_arena,
    play_ladder,
)
from p2pnerts.bots import POLICIES, PolicyError
from p2pnerts.commands._config import seed_from, table_size
from p2pnerts.commands._options import Command, count, fan_out_options, teams_option, where_from
from p2pnerts.rules import TableOptions

ARENA_DESCRIPTION = (
    "Seat the policies around simulated tables (seat s plays policy s mod P) "
    "and play every deal once in each rotation of the seats, so that each policy meets "
    "each deck from each seat. Reports, per policy: mean points per round with a 95% "
    "confidence interval, its margin over the first policy, Nerts-call rate, cards "
    "played, races won and lost, and decision time. The same seed gives the same "
    "results (decision times are measured, and vary)."
)


def arena_options(arena: argparse.ArgumentParser) -> None:
    arena.add_argument(
        "--policies",
        metavar="P1,P2,...",
        help=f"comma-separated: {', '.join(POLICIES)}, L1-L10 (a level: its policy at its "
        "pace), package.module:Class or file.py:Class (default baseline,strong); any of them "
        "@N looks N times a second (strong@15: the arena's pace is about 13); beside a level, "
        "a policy named without @N looks as often as the first level named",
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
                where=where_from(args),
            )
        else:
            report = play_arena(
                names or ["baseline", "strong"],
                args.rounds,
                seed,
                players=players,
                options=options,
                progress=_bar,
                where=where_from(args),
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


COMMAND = Command(
    "arena",
    "play bot policies against each other on simulated tables, and measure them",
    ARENA_DESCRIPTION,
    arena_options,
    arena_command,
)
"""The ``arena`` command, as the command line adds it."""
