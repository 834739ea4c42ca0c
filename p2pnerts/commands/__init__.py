"""The ``p2pnerts`` commands, one module each, named after the command: `play`, `host`,
`join`, `bot`, `tables`, `watch`, `sim`, `arena`, `lab`, `replay` and `trace`. Each
module defines its options beside what it runs, as a `Command` that the command line
(`p2pnerts.cli`) adds.

Beside them, what they share: `_options` (the options and their checks), `_config` (what
a seat and a table are told from the options), `_locate` (finding a table by name or
address), `_seats` (hosting, joining and playing a seat, headless or on a screen),
`_screen` and `_onscreen` (the table screen, loaded only when one is shown) and
`_mdns_tool` (discovery by hand, ``python -m p2pnerts.commands._mdns_tool``).

The top of the house: it may import every package below it, and none imports it but
`p2pnerts.cli`.
"""

from p2pnerts.commands import (
    arena,
    bot,
    host,
    join,
    lab,
    play,
    replay,
    sim,
    tables,
    trace,
    watch,
)
from p2pnerts.commands._options import Command, Parser

COMMANDS: tuple[Command, ...] = (
    play.COMMAND,
    host.COMMAND,
    join.COMMAND,
    bot.COMMAND,
    tables.COMMAND,
    watch.COMMAND,
    trace.COMMAND,
    replay.COMMAND,
    lab.COMMAND,
    sim.COMMAND,
    arena.COMMAND,
)
"""Every command, in the order ``p2pnerts --help`` lists them."""

__all__ = ["COMMANDS", "Command", "Parser"]
