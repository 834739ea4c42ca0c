"""The ``watch`` command: a read-only spectator of a live table, for the projector."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

import trio

from p2pnerts.commands._config import passphrase_from
from p2pnerts.commands._locate import address_of, find_table
from p2pnerts.commands._options import (
    Command,
    host_key_option,
    look_options,
    passphrase_options,
    player_name,
    table_target,
)
from p2pnerts.commands._seats import run_headless
from p2pnerts.commands._telling import say
from p2pnerts.net import JoinError, Sight, WatchError, watch_table
from p2pnerts.protocol import Scene

if TYPE_CHECKING:
    from p2pnerts.ui import Commit, WatchModel

WATCHING = (
    "Watch a live table without a seat: every seat's clock and health, the committed order "
    "with its keys, races and ties with their reasons, and a time-space diagram of the "
    "messages. A spectator sees only what is face up, and can change nothing."
)
CLOSED = "table closed: the match is over, or its host left"


def watch_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "table", type=table_target, metavar="NAME|HOST:PORT", help="a table's name, or where it is"
    )
    parser.add_argument(
        "--name", type=player_name, default="spectator", help="who watches, as the host sees it"
    )
    parser.add_argument(
        "--headless", action="store_true", help="print one line per commit and race instead"
    )
    parser.add_argument("--interface", metavar="ADDR", help="look for the table on this address")
    host_key_option(parser, "watch")
    look_options(parser)
    passphrase_options(parser)


def watch_command(args: argparse.Namespace) -> int:
    # The screen's modules (prompt_toolkit) load only for a command that shows one.
    from p2pnerts.ui import (
        WatchModel,
        commit_line,
        create_watch_application,
        default_look,
        need_terminal,
        run_with_trio,
    )

    if not args.headless:  # (before anything is asked or opened)
        need_terminal(
            "the watch screen needs a terminal (--headless prints a line per commit and race)"
        )
    passphrase = passphrase_from(args)
    model = WatchModel(args.table, default_look(ascii=args.ascii, four_colour=args.four_colour))
    watch = partial(_watch, args, passphrase)
    if args.headless:
        run_headless(watch, partial(_print, model, commit_line))
        say(CLOSED)
        return 0
    app = create_watch_application(model)

    def hear(sight: Sight) -> None:
        model.hear(sight)
        app.invalidate()

    async def main() -> None:
        await watch(hear)
        model.ended = "table closed: match over or host gone; q quits"  # (the screen stays)
        app.invalidate()
        await trio.sleep_forever()

    run_with_trio(app, main)
    return 0


async def _watch(
    args: argparse.Namespace, passphrase: str | None, hear: Callable[[Sight], None]
) -> None:
    """Find the table (by name, through mDNS, or at HOST:PORT) and watch it to its end."""
    address, expect, name = address_of(args.table), args.host_key, None
    if address is None:
        try:
            table = await find_table(args.table, args.interface)
        except JoinError as exc:
            raise WatchError(str(exc)) from None
        address, name = (table.host, table.port), table.name
        expect = expect or table.key or None
    await watch_table(
        *address, hear, name=args.name, passphrase=passphrase, table_name=name, expect_host=expect
    )


def _print(model: WatchModel, line: Callable[[Commit, WatchModel], str], sight: Sight) -> None:
    """A headless spectator's line for each commit (races and ties say why), after one
    that says whose table it is."""
    first = model.scene is None and isinstance(sight, Scene)
    commit = model.hear(sight)
    if first:
        names = ", ".join(model.scene.names) if model.scene is not None else ""
        say(f"watching {model.where} as {model.name(model.seat)} sees it: {names}")
    if commit is not None:
        say(line(commit, model))


COMMAND = Command(
    "watch",
    "watch a live table without a seat (for a projector)",
    WATCHING,
    watch_options,
    watch_command,
)
"""The ``watch`` command, as the command line adds it."""
