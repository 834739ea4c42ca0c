"""``p2pnerts join``: take a seat at a table on the network, by its name, its address or
from the lobby's list."""

from __future__ import annotations

import argparse

from p2pnerts.commands._config import JoinConfig, seat_from
from p2pnerts.commands._onscreen import screen_for
from p2pnerts.commands._options import Command, host_key_option, player_options, table_target
from p2pnerts.commands._seats import join_command


def join_options(join: argparse.ArgumentParser) -> None:
    join.add_argument(
        "table",
        nargs="?",
        type=table_target,
        metavar="NAME|HOST:PORT",
        help="a table's name, or where it is (none: choose in the lobby)",
    )
    host_key_option(join)
    player_options(join)


def join_table(args: argparse.Namespace) -> int:
    seat = seat_from(args)
    return join_command(JoinConfig(seat, args.table), screen_for(seat))


COMMAND = Command(
    "join",
    "take a seat at a table on the network",
    None,
    join_options,
    join_table,
    mistaken=(("--name", "a table's name goes without an option; the player's is --player"),),
)
"""The ``join`` command, as the command line adds it."""
