"""The ``p2pnerts`` command."""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from pathlib import Path

import trio

from p2pnerts import __version__, _frontend, _netcommands, sim
from p2pnerts._config import HostConfig, JoinConfig, SeatConfig
from p2pnerts._platform import never_die_of_encoding
from p2pnerts._tables_command import tables_command
from p2pnerts.arena import ArenaError, play_arena
from p2pnerts.bots import POLICIES, PolicyError, SimpleBots
from p2pnerts.errors import Error
from p2pnerts.fanout import Where
from p2pnerts.net import TableSpec
from p2pnerts.protocol import PROTOCOL_VERSION
from p2pnerts.rules import BadOptions, TableOptions, TieRule, teams_from_text
from p2pnerts.sim import MIXES, SimConfig


def main(argv: Sequence[str] | None = None) -> int:
    never_die_of_encoding(sys.stdout, sys.stderr)
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        result: int = args.run(args)
    except Error as exc:  # what a person asked wrongly, or what went wrong: one line
        print(f"p2pnerts: {exc.context}: {exc}", file=sys.stderr)
        return exc.status
    except KeyboardInterrupt:
        print("\nInterrupted.", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (``| head``): nothing left to tell
        sys.stderr.close()
        return 1
    return result


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="p2pnerts", description="Nerts, peer to peer on a local network, with no server."
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"p2pnerts {__version__} (protocol {PROTOCOL_VERSION})",
    )
    commands = parser.add_subparsers(required=True, metavar="COMMAND")
    play = commands.add_parser(
        "play",
        help="play a game against bots on this machine",
        description="A table on this machine (loopback) with bot peers over real sockets; "
        "you play your seat on the table screen (? lists every key there).",
    )
    play.add_argument(
        "--bots", type=_count(1, 13), default=None, help="bots at the table (1-13; 3)"
    )
    play.add_argument("--seed", type=int, default=None, help="shuffle the decks from this seed")
    play.add_argument("--level", type=_count(1, 10), default=5, help="the bots' level 1-10 (5)")
    play.add_argument(
        "--headless", action="store_true", help="a bot plays your seat; the table is told in lines"
    )
    _look_options(play)
    _table_options(play)
    play.set_defaults(run=_play)

    host = commands.add_parser("host", help="host a table on the network")
    host.add_argument("--name", required=True, help="the table's name, as others see it")
    host.add_argument("--port", type=_count(0, 65535), default=0, help="TCP port (0: any)")
    host.add_argument(
        "--seats", type=_count(2, 14), default=None, help="seats at the table (2-14; 4)"
    )
    host.add_argument("--bots", type=_count(0, 13), default=0, help="bots from this machine")
    host.add_argument(
        "--bot-level",
        type=_levels,
        metavar="L[,L...]",
        help="the bots' level 1-10, or one level per bot in turn (default: --level)",
    )
    host.add_argument("--no-advertise", action="store_true", help="do not announce by mDNS")
    _player_options(host)
    _table_options(host)
    host.set_defaults(run=_host)

    join = commands.add_parser("join", help="take a seat at a table on the network")
    join.add_argument(
        "table",
        nargs="?",
        metavar="NAME|HOST:PORT",
        help="a table's name, or where it is (none: choose in the lobby)",
    )
    _player_options(join)
    join.set_defaults(run=_join)

    bot = commands.add_parser("bot", help="run a bot peer that plays a table's match")
    bot.add_argument("--join", required=True, metavar="NAME|HOST:PORT", help="the table")
    bot.add_argument(
        "--policy",
        metavar="POLICY",
        help="play this policy instead of the level's: "
        f"{', '.join(POLICIES)}, package.module:Class or file.py:Class",
    )
    _player_options(bot, flag="--name", default="Bot", headless=False)
    bot.set_defaults(run=_bot)

    tables = commands.add_parser("tables", help="list the tables announced on the network")
    tables.add_argument("--timeout", type=float, default=3.0, help="seconds to listen (3)")
    tables.add_argument("--json", action="store_true", help="print JSON")
    tables.add_argument("--interface", metavar="ADDR", help="listen for mDNS on this address")
    tables.set_defaults(run=lambda a: tables_command(a.timeout, a.json, a.interface))

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
        "--peers", type=_count(2, 14), help="peers at the table (2-14; default 4, or the teams')"
    )
    _teams_option(simulate, "peers")
    simulate.add_argument("--rounds", type=_count(1, 1000), default=10, help="rounds per seed")
    simulate.add_argument(
        "--faults",
        type=_choice(MIXES),
        default="light",
        metavar="MIX",
        help="the fault mix (below); default light",
    )
    simulate.add_argument(
        "--seed", type=int, default=None, help="first seed (default: a random one)"
    )
    simulate.add_argument(
        "--seeds", type=_count(1, 100_000), default=1, help="seeds to run, from --seed"
    )
    _tie_rule_option(simulate)
    simulate.add_argument(
        "--sequencer",
        action="store_true",
        help="also run a central-sequencer baseline on the same workload",
    )
    simulate.add_argument("--json", action="store_true", help="print the report as JSON")
    _fan_out_options(simulate, "seeds")
    simulate.set_defaults(run=_sim)

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
        default="baseline,strong",
        metavar="P1,P2,...",
        help=f"comma-separated: {', '.join(POLICIES)}, package.module:Class or file.py:Class",
    )
    arena.add_argument("--rounds", type=_count(1, 1_000_000), default=100, help="rounds (100)")
    arena.add_argument("--players", type=_count(2, 14), default=4, help="players (4)")
    arena.add_argument("--seed", type=int, default=None, help="seed (default: a random one)")
    arena.add_argument("--json", action="store_true", help="print the report as JSON")
    _fan_out_options(arena, "rounds")
    arena.set_defaults(run=_arena)
    return parser


def _player_options(
    parser: argparse.ArgumentParser,
    *,
    flag: str = "--player",
    default: str = "Player",
    headless: bool = True,
) -> None:
    parser.add_argument(flag, dest="player", default=default, help="the player's name")
    parser.add_argument("--level", type=_count(1, 10), default=5, help="bot level 1-10 (5)")
    parser.add_argument("--seed", type=int, default=None, help="shuffle from this seed")
    parser.add_argument("--interface", metavar="ADDR", help="use mDNS on this address only")
    parser.add_argument("--stats", metavar="FILE", help="write what this peer measured (JSON)")
    parser.add_argument(
        "--state",
        metavar="FILE",
        help="keep this seat's state in FILE while playing; if FILE exists, come back to "
        "the seat it keeps (after a crash)",
    )
    if headless:
        parser.add_argument(
            "--headless", action="store_true", help="a bot plays the seat; print progress lines"
        )
        _look_options(parser)


def _look_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ascii", action="store_true", help="suits as letters (S H D C)")
    parser.add_argument(
        "--four-colour", action="store_true", help="a four-colour deck (diamonds blue, clubs green)"
    )


def _table_options(parser: argparse.ArgumentParser, rounds: int | None = None) -> None:
    group = parser.add_argument_group("table options (the rule texts' variants)")
    end = group.add_mutually_exclusive_group()
    end.add_argument("--target", type=_count(1, 10_000), default=100, help="target score (100)")
    end.add_argument("--rounds", type=_count(1, 1000), default=rounds, help="fixed rounds")
    group.add_argument("--stock-turn", type=int, choices=(1, 3), default=3)
    group.add_argument("--work-piles", type=int, choices=(4, 5), default=4)
    group.add_argument("--nerts-pile", type=_count(1, 26), default=13)
    group.add_argument("--nerts-bonus", type=int, choices=(0, 10, 25), default=0)
    group.add_argument("--jokers", action="store_true", help="jokers as declared wild cards")
    _teams_option(group, "players")
    _tie_rule_option(group)


def _fan_out_options(parser: argparse.ArgumentParser, work: str) -> None:
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--jobs",
        type=_count(1, 1024),
        default=os.cpu_count() or 1,
        metavar="N",
        help=f"run the {work} in N processes of this machine (default: one per core, "
        f"{os.cpu_count() or 1}); the report is the same",
    )
    where.add_argument(
        "--cluster",
        metavar="HOST:PORT",
        help=f"run the {work} on the workers of a Dask scheduler (pip install "
        "'p2pnerts[cluster]'; docs/scale.md)",
    )


def _where(args: argparse.Namespace) -> Where:
    return Where(cluster=args.cluster) if args.cluster else Where(jobs=args.jobs)


def _teams_option(parser: argparse.ArgumentParser | argparse._ArgumentGroup, seats: str) -> None:
    parser.add_argument(
        "--teams",
        type=_team_sizes,
        default=(),
        metavar="N+N[+N...]",
        help="teams sharing a deck, sizes 1-3 in seat order (2+2: seats 1-2 and 3-4); "
        f"sets the number of {seats}",
    )


def _tie_rule_option(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    parser.add_argument(
        "--tie-rule",
        type=_choice(rule.value for rule in TieRule),
        default="both-stay",
        metavar="RULE",
        help="both-stay, rotate or seat",
    )


def _count(low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be {low} to {high}, not {value}")
        return value

    return parse


def _team_sizes(text: str) -> tuple[int, ...]:
    """Team sizes joined by '+', e.g. 2+2+1, as the options check them."""
    try:
        return teams_from_text(text)
    except BadOptions as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _levels(text: str) -> list[int]:
    """A comma-separated list of bot levels, 1 to 10."""
    return [_count(1, 10)(part) for part in text.split(",")]


def _choice(names: Iterable[str]) -> Callable[[str], str]:
    allowed = list(names)

    def parse(text: str) -> str:
        if text not in allowed:
            raise argparse.ArgumentTypeError(f"{text!r} is not one of {', '.join(allowed)}")
        return text

    return parse


def _sim(args: argparse.Namespace) -> int:
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 32)
    options = TableOptions(tie_rule=TieRule(args.tie_rule), teams=args.teams)
    peers = table_size(options, args.peers, "--peers")
    config = SimConfig(peers, args.rounds, MIXES[args.faults], options)
    seeds = range(seed, seed + args.seeds)
    report = sim.run(config, seeds, SimpleBots(), sequencer=args.sequencer, where=_where(args))
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(report.text())
    return 1 if report.violations else 0


def _arena(args: argparse.Namespace) -> int:
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 32)
    names = [name.strip() for name in args.policies.split(",") if name.strip()]
    try:
        report = play_arena(
            names, args.rounds, seed, players=args.players, progress=_bar, where=_where(args)
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
    options = _table_options_from(args)
    players = table_size(options, args.bots, "--bots", besides=1)
    seat = SeatConfig(
        "You",
        level=args.level,
        seed=seed,
        headless=args.headless,
        ascii=args.ascii,
        four_colour=args.four_colour,
    )
    spec = TableSpec("this machine", players, options)
    config = HostConfig(seat, spec, bots=players - 1, advertise=False, bind="127.0.0.1")
    if not args.headless:
        result = _frontend.TableScreen().play(config)
        if result is not None:
            print(result.summary())
        return 0
    print(
        f"p2pnerts — {players} players on this machine, decks shuffled from seed {seed}. "
        "(--headless: a bot plays your seat)\n",
        flush=True,
    )
    result = trio.run(partial(_netcommands.run_host, config, tell=_netcommands.say))
    print(result.summary())
    return 0


def _host(args: argparse.Namespace) -> int:
    seat = _seat_config(args)
    options = _table_options_from(args)
    spec = TableSpec(args.name, table_size(options, args.seats, "--seats"), options)
    levels = tuple(args.bot_level or ())
    advertise = not args.no_advertise
    config = HostConfig(seat, spec, args.port, args.bots, levels, advertise=advertise)
    return _netcommands.host_command(config, _screen(seat))


def _join(args: argparse.Namespace) -> int:
    seat = _seat_config(args)
    return _netcommands.join_command(JoinConfig(seat, args.table), _screen(seat))


def _bot(args: argparse.Namespace) -> int:
    seat = _seat_config(args, bot=True)
    return _netcommands.join_command(JoinConfig(seat, args.join), None)


def _screen(seat: SeatConfig) -> _netcommands.Screen | None:
    """The table screen for a person's seat; none where a bot plays it."""
    return None if seat.headless else _frontend.TableScreen()


def _seat_config(args: argparse.Namespace, *, bot: bool = False) -> SeatConfig:
    """The seat's options (`_player_options`), read once; ``bot``: the bot command's."""
    return SeatConfig(
        args.player,
        level=args.level,
        seed=args.seed,
        headless=bot or args.headless,
        policy=args.policy if bot else None,
        interface=args.interface,
        stats=None if args.stats is None else Path(args.stats),
        state=None if args.state is None else Path(args.state),
        ascii=not bot and args.ascii,
        four_colour=not bot and args.four_colour,
    )


def _table_options_from(args: argparse.Namespace) -> TableOptions:
    """The table options (`_table_options`), read once."""
    return TableOptions(
        nerts_pile=args.nerts_pile,
        work_piles=args.work_piles,
        stock_turn=args.stock_turn,
        jokers=args.jokers,
        nerts_bonus=args.nerts_bonus,
        target=args.target,
        rounds=args.rounds,
        tie_rule=TieRule(args.tie_rule),
        teams=args.teams,
    )


def table_size(
    options: TableOptions, given: int | None, flag: str, *, besides: int = 0, default: int = 4
) -> int:
    """The number of seats: as ``flag`` gives it (``given``, counting every seat but
    ``besides``), or as the teams make up, or ``default``. Raises `BadOptions` (a one-line
    error, exit 2) when the teams seat another number."""
    if not options.teams:
        return default if given is None else given + besides
    seats, teams = sum(options.teams), options.teams_text()
    if seats > 14:
        raise BadOptions(f"teams {teams} seat {seats} players: 14 at most")
    if given is not None and given + besides != seats:
        raise BadOptions(
            f"teams {teams} seat {seats} players: that takes {flag} {seats - besides} "
            f"(or no {flag}), not {flag} {given}"
        )
    return seats
