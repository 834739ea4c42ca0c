"""The ``p2pnerts`` command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from functools import partial
from typing import TYPE_CHECKING

from p2pnerts import __version__, _netcommands
from p2pnerts._config import (
    HostConfig,
    JoinConfig,
    SeatConfig,
    log_from,
    seat_from,
    seed_from,
    shape_from,
    table_options_from,
    table_size,
)
from p2pnerts._lab_command import COMMAND as LAB
from p2pnerts._options import (
    Parser,
    count,
    host_key_option,
    idle_option,
    levels,
    link_options,
    log_options,
    look_options,
    player_options,
    table_name,
    table_options,
    table_target,
)
from p2pnerts._platform import never_die_of_encoding, terminate_as_interrupt
from p2pnerts._replay_command import COMMAND as REPLAY
from p2pnerts._sim_commands import ARENA, SIM
from p2pnerts._tables_command import tables_command
from p2pnerts._trace_command import COMMAND as TRACE
from p2pnerts._watch_command import COMMAND as WATCH
from p2pnerts.bots import NEWCOMER, POLICIES, level_help
from p2pnerts.cheats import CHEATS
from p2pnerts.errors import Error
from p2pnerts.net import TableSpec
from p2pnerts.protocol import PROTOCOL_VERSION

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
    host.add_argument(
        "--name", required=True, type=table_name, help="the table's name, as others see it"
    )
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
        type=table_target,
        metavar="NAME|HOST:PORT",
        help="a table's name, or where it is (none: choose in the lobby)",
    )
    host_key_option(join)
    player_options(join)
    join.mistaken = {"--name": "a table's name goes without an option; the player's is --player"}
    join.set_defaults(parser=join, run=_join)

    bot = commands.add_parser("bot", help="run a bot peer that plays a table's match")
    bot.add_argument(
        "--join", required=True, type=table_target, metavar="NAME|HOST:PORT", help="the table"
    )
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

    for command in (WATCH, TRACE, REPLAY, LAB, SIM, ARENA):
        command.add_to(commands)

    return parser


def _play(args: argparse.Namespace) -> int:
    seed = seed_from(args)
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
        f"p2pnerts — {players} players on this machine, bots of level {args.level} drawn "
        f"from seed {seed}. "
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
