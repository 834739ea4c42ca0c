"""``p2pnerts host``: open a table on the network and announce it by mDNS."""

from __future__ import annotations

import argparse

from p2pnerts.commands._config import (
    HostConfig,
    hosting,
    seat_from,
    table_options_from,
    table_size,
)
from p2pnerts.commands._onscreen import screen_for
from p2pnerts.commands._options import (
    Command,
    count,
    levels,
    player_options,
    table_name,
    table_options,
)
from p2pnerts.commands._phrases import tell_passphrase
from p2pnerts.commands._seats import host_command
from p2pnerts.net import TableSpec


def host_options(host: argparse.ArgumentParser) -> None:
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
    player_options(host, hosting=True)
    table_options(host)


def host_table(args: argparse.Namespace) -> int:
    seat = seat_from(args)
    if seat.passphrase is not None:
        tell_passphrase(seat.passphrase, offered=seat.offered)
    options = table_options_from(args)
    spec = TableSpec(args.name, table_size(options, args.seats, "--seats"), options)
    bot_levels = tuple(args.bot_level or ())
    advertise = not args.no_advertise
    seat = hosting(seat, spec.seats, args.bots)
    config = HostConfig(seat, spec, args.port, args.bots, bot_levels, advertise=advertise)
    return host_command(config, screen_for(seat))


COMMAND = Command("host", "host a table on the network", None, host_options, host_table)
"""The ``host`` command, as the command line adds it."""
