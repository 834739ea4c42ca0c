"""``p2pnerts play``: a table on this machine (loopback) with bot peers over real sockets,
the person's seat on the table screen, or played by a bot with ``--headless``."""

from __future__ import annotations

import argparse

from p2pnerts.bots import NEWCOMER, level_help
from p2pnerts.commands._config import (
    HostConfig,
    SeatConfig,
    hosting,
    log_from,
    seed_from,
    shape_from,
    table_options_from,
    table_size,
)
from p2pnerts.commands._onscreen import table_screen
from p2pnerts.commands._options import (
    SEED_HELP,
    Command,
    count,
    idle_option,
    link_options,
    log_options,
    look_options,
    table_options,
)
from p2pnerts.commands._seats import host_headless
from p2pnerts.commands._telling import end_match, say
from p2pnerts.net import TableSpec


def play_options(play: argparse.ArgumentParser) -> None:
    play.add_argument("--bots", type=count(1, 13), default=None, help="bots at the table (1-13; 3)")
    play.add_argument("--seed", type=int, default=None, help=SEED_HELP)
    play.add_argument("--level", type=count(1, 10), default=NEWCOMER, help=level_help(NEWCOMER))
    play.add_argument(
        "--headless", action="store_true", help="a bot plays your seat; the table is told in lines"
    )
    idle_option(play)
    look_options(play)
    link_options(play)
    log_options(play)
    table_options(play)


def play_command(args: argparse.Namespace) -> int:
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
        majority=args.majority,
    )
    spec = TableSpec("this machine", players, options)
    seat = hosting(seat, players, players - 1)
    config = HostConfig(seat, spec, bots=players - 1, advertise=False, bind="127.0.0.1")
    if not args.headless:
        return end_match(table_screen().play(config), seat)
    print(
        f"p2pnerts — {players} players on this machine, bots of level {args.level} drawn "
        f"from seed {seed}. "
        "(--headless: a bot plays your seat)\n",
        flush=True,
    )
    return end_match(host_headless(config, tell=say), seat)


COMMAND = Command(
    "play",
    "play a game against bots on this machine",
    "A table on this machine (loopback) with bot peers over real sockets; "
    "you play your seat on the table screen (? lists every key there).",
    play_options,
    play_command,
)
"""The ``play`` command, as the command line adds it."""
