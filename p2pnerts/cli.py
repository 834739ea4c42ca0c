"""The ``p2pnerts`` command."""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Iterator, Sequence
from functools import partial
from typing import TYPE_CHECKING

from p2pnerts import __version__, _netcommands, sim
from p2pnerts._config import (
    HostConfig,
    JoinConfig,
    SeatConfig,
    log_from,
    seat_from,
    shape_from,
    table_options_from,
    table_size,
)
from p2pnerts._lab_command import COMMAND as LAB
from p2pnerts._options import (
    Parser,
    choice,
    count,
    fan_out_options,
    host_key_option,
    idle_option,
    levels,
    link_options,
    log_options,
    look_options,
    player_options,
    table_options,
    teams_option,
    tie_rule_option,
)
from p2pnerts._platform import never_die_of_encoding, terminate_as_interrupt
from p2pnerts._replay_command import COMMAND as REPLAY
from p2pnerts._tables_command import tables_command
from p2pnerts._trace_command import COMMAND as TRACE
from p2pnerts._watch_command import COMMAND as WATCH
from p2pnerts.arena import (
    ArenaError,
    ArenaReport,
    LadderReport,
    ladder_entries,
    play_arena,
    play_ladder,
)
from p2pnerts.bots import NEWCOMER, POLICIES, PolicyError, SimpleBots, level_help
from p2pnerts.cheats import CHEATS
from p2pnerts.errors import Error
from p2pnerts.fanout import Where
from p2pnerts.net import TableSpec
from p2pnerts.protocol import PROTOCOL_VERSION
from p2pnerts.rules import TableOptions, TieRule
from p2pnerts.sim import MIXES, SimConfig

if TYPE_CHECKING:
    from p2pnerts._frontend import TableScreen


def main(argv: Sequence[str] | None = None) -> int:
    never_die_of_encoding(sys.stdout, sys.stderr)
    terminated = terminate_as_interrupt()
    parser = _parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # told by the command's own parser, whose usage it is
        args.parser.unrecognized(unknown)
    try:
        result: int = args.run(args)
    except BaseException as exc:
        ends = _ends(exc, terminated())  # trio wraps what ended its tasks in exception groups
        if ends is None:
            raise
        return ends
    return result


def _ends(exc: BaseException, terminated: bool = False) -> int | None:
    """How a run that raised ``exc`` ends without a traceback: Ctrl-C (130) or SIGTERM
    (``terminated``, 143), the reader of the output gone (``| head``, 1) or an error a
    person reads (one line, its status); None for anything else, a bug to show in full."""
    leaves = list(_leaves(exc))
    if all(isinstance(e, KeyboardInterrupt) for e in leaves):
        print("\nTerminated." if terminated else "\nInterrupted.", file=sys.stderr)
        return 143 if terminated else 130
    if all(isinstance(e, BrokenPipeError) for e in leaves):
        sys.stderr.close()  # nothing left to tell, and nowhere to tell it
        return 1
    errors = [e for e in leaves if isinstance(e, Error)]
    if errors and all(isinstance(e, Error | KeyboardInterrupt) for e in leaves):
        print(f"p2pnerts: {errors[0].context}: {errors[0]}", file=sys.stderr)
        return errors[0].status
    return None


def _leaves(exc: BaseException) -> Iterator[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            yield from _leaves(inner)
    else:
        yield exc


def _parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="p2pnerts", description="Nerts, peer to peer on a local network, with no server."
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"p2pnerts {__version__} (protocol {PROTOCOL_VERSION})",
    )
    commands = parser.add_subparsers(required=True, metavar="COMMAND", parser_class=Parser)
    play = commands.add_parser(
        "play",
        help="play a game against bots on this machine",
        description="A table on this machine (loopback) with bot peers over real sockets; "
        "you play your seat on the table screen (? lists every key there).",
    )
    play.add_argument("--bots", type=count(1, 13), default=None, help="bots at the table (1-13; 3)")
    play.add_argument("--seed", type=int, default=None, help="shuffle the decks from this seed")
    play.add_argument("--level", type=count(1, 10), default=NEWCOMER, help=level_help(NEWCOMER))
    play.add_argument(
        "--headless", action="store_true", help="a bot plays your seat; the table is told in lines"
    )
    idle_option(play)
    look_options(play)
    link_options(play)
    log_options(play)
    table_options(play)
    play.set_defaults(parser=play, run=_play)

    host = commands.add_parser("host", help="host a table on the network")
    host.add_argument("--name", required=True, help="the table's name, as others see it")
    host.add_argument("--port", type=count(0, 65535), default=0, help="TCP port (0: any)")
    host.add_argument(
        "--seats", type=count(2, 14), default=None, help="seats at the table (2-14; 4)"
    )
    host.add_argument("--bots", type=count(0, 13), default=0, help="bots from this machine")
    host.add_argument(
        "--bot-level",
        type=levels,
        metavar="L[,L...]",
        help="the bots' level 1-10, or one level per bot in turn (default: --level)",
    )
    host.add_argument("--no-advertise", action="store_true", help="do not announce by mDNS")
    player_options(host)
    table_options(host)
    host.set_defaults(parser=host, run=_host)

    join = commands.add_parser("join", help="take a seat at a table on the network")
    join.add_argument(
        "table",
        nargs="?",
        metavar="NAME|HOST:PORT",
        help="a table's name, or where it is (none: choose in the lobby)",
    )
    host_key_option(join)
    player_options(join)
    join.mistaken = {"--name": "a table's name goes without an option; the player's is --player"}
    join.set_defaults(parser=join, run=_join)

    bot = commands.add_parser("bot", help="run a bot peer that plays a table's match")
    bot.add_argument("--join", required=True, metavar="NAME|HOST:PORT", help="the table")
    bot.add_argument(
        "--policy",
        metavar="POLICY",
        help="play this policy instead of the level's: "
        f"{', '.join(POLICIES)}, package.module:Class or file.py:Class",
    )
    bot.add_argument(
        "--cheat",
        choices=sorted(CHEATS),
        metavar="KIND",
        help="lie on the wire as a demonstration the others must catch: "
        f"{', '.join(sorted(CHEATS))} (protocol/SECURITY.md)",
    )
    host_key_option(bot)
    player_options(bot, flag="--name", named_by_policy=True, headless=False)
    bot.mistaken = {"--player": "a bot's name is --name"}
    bot.set_defaults(parser=bot, run=_bot)

    tables = commands.add_parser("tables", help="list the tables announced on the network")
    tables.add_argument("--timeout", type=float, default=3.0, help="seconds to listen (3)")
    tables.add_argument("--json", action="store_true", help="print JSON")
    tables.add_argument("--interface", metavar="ADDR", help="listen for mDNS on this address")
    tables.set_defaults(parser=tables, run=lambda a: tables_command(a.timeout, a.json, a.interface))

    for command in (WATCH, TRACE, REPLAY, LAB):
        command.add_to(commands)

    simulate = commands.add_parser(
        "sim",
        help="run the protocol on a simulated network, with faults, and check it",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Run a peer-to-peer table of bots on a simulated network, in this one\n"
        "process, from a seed: the same seed gives the same run and the same digest.\n"
        "Every step is checked: committed logs agree, every card is in one place,\n"
        "scores match the rules, a side of a partition without a majority commits\n"
        "nothing new, every round ends. The exit status is 1 if a check fails.",
        epilog="fault mixes:\n"
        + "".join(f"  {name:<10} {mix.about}\n" for name, mix in MIXES.items()),
    )
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
    simulate.set_defaults(parser=simulate, run=_sim)

    arena = commands.add_parser(
        "arena",
        help="play bot policies against each other on simulated tables, and measure them",
        description="Seat the policies around simulated tables (seat s plays policy s mod P) "
        "and play every deal once in each rotation of the seats, so that each policy meets "
        "each deck from each seat. Reports, per policy: mean points per round with a 95% "
        "confidence interval, its margin over the first policy, Nerts-call rate, cards "
        "played, races won and lost, and decision time. The same seed gives the same "
        "results (decision times are measured, and vary).",
    )
    arena.add_argument(
        "--policies",
        metavar="P1,P2,...",
        help=f"comma-separated: {', '.join(POLICIES)}, L1-L10 (a level: its policy at its "
        "pace), package.module:Class or file.py:Class (default baseline,strong)",
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
    arena.set_defaults(parser=arena, run=_arena)
    return parser


def _where(args: argparse.Namespace) -> Where:
    return Where(cluster=args.cluster) if args.cluster else Where(jobs=args.jobs)


def _sim(args: argparse.Namespace) -> int:
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 32)
    options = TableOptions(tie_rule=TieRule(args.tie_rule), teams=args.teams)
    peers = table_size(options, args.peers, "--peers")
    config = SimConfig(peers, args.rounds, MIXES[args.faults], options, log=args.log)
    seeds = range(seed, seed + args.seeds)
    report = sim.run(config, seeds, SimpleBots(), sequencer=args.sequencer, where=_where(args))
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(report.text())
    return 1 if report.violations else 0


def _arena(args: argparse.Namespace) -> int:
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 32)
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


def _play(args: argparse.Namespace) -> int:
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 32)
    options = table_options_from(args)
    players = table_size(options, args.bots, "--bots", besides=1)
    seat = SeatConfig(
        "You",
        level=args.level,
        seed=seed,
        headless=args.headless,
        ascii=args.ascii,
        four_colour=args.four_colour,
        idle=args.idle,
        shape=shape_from(args),
        log=log_from(args),
    )
    spec = TableSpec("this machine", players, options)
    config = HostConfig(seat, spec, bots=players - 1, advertise=False, bind="127.0.0.1")
    if not args.headless:
        return _netcommands.end_match(_table_screen().play(config), seat)
    print(
        f"p2pnerts — {players} players on this machine, bots drawn from seed {seed}. "
        "(--headless: a bot plays your seat)\n",
        flush=True,
    )
    result = _netcommands.run_headless(
        partial(_netcommands.run_host, config, tell=_netcommands.say)
    )
    return _netcommands.end_match(result, seat)


def _host(args: argparse.Namespace) -> int:
    seat = seat_from(args)
    options = table_options_from(args)
    spec = TableSpec(args.name, table_size(options, args.seats, "--seats"), options)
    levels = tuple(args.bot_level or ())
    advertise = not args.no_advertise
    config = HostConfig(seat, spec, args.port, args.bots, levels, advertise=advertise)
    return _netcommands.host_command(config, _screen(seat))


def _join(args: argparse.Namespace) -> int:
    seat = seat_from(args)
    return _netcommands.join_command(JoinConfig(seat, args.table), _screen(seat))


def _bot(args: argparse.Namespace) -> int:
    seat = seat_from(args, bot=True)
    return _netcommands.join_command(JoinConfig(seat, args.join), None)


def _screen(seat: SeatConfig) -> _netcommands.Screen | None:
    """The table screen for a person's seat; none where a bot plays it."""
    return None if seat.headless else _table_screen()


def _table_screen() -> TableScreen:
    """The table screen; its modules (prompt_toolkit) load only for a command that shows
    one, so that a bot, a headless seat or the simulator starts without them."""
    from p2pnerts._frontend import TableScreen

    return TableScreen()
