"""``p2pnerts bot``: a headless bot peer that takes a seat at a table and plays its match."""

from __future__ import annotations

import argparse

from p2pnerts.bots import POLICIES
from p2pnerts.cheats import CHEATS
from p2pnerts.commands._config import JoinConfig, seat_from
from p2pnerts.commands._options import Command, host_key_option, player_options, table_target
from p2pnerts.commands._seats import join_command


def bot_options(bot: argparse.ArgumentParser) -> None:
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


def run_bot(args: argparse.Namespace) -> int:
    seat = seat_from(args, bot=True)
    return join_command(JoinConfig(seat, args.join), None)


COMMAND = Command(
    "bot",
    "run a bot peer that plays a table's match",
    None,
    bot_options,
    run_bot,
    mistaken=(("--player", "a bot's name is --name"),),
)
"""The ``bot`` command, as the command line adds it."""
