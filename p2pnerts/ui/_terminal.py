"""Playing a seat in this terminal: the table screen, the peer, and a clean exit."""

from __future__ import annotations

import logging
import random
import sys
from collections.abc import Awaitable, Callable

from p2pnerts.net import MatchResult, Player
from p2pnerts.rules import TableOptions
from p2pnerts.ui._app import create_application, run_with_trio
from p2pnerts.ui._model import Look, TableModel
from p2pnerts.ui._session import Session, TickerLog

Start = Callable[[Player, Callable[[str], None]], Awaitable[MatchResult]]
"""Seats the person's player at a table and plays the match; lines for the person go to
the callable it is given."""


def default_look(*, ascii: bool = False, four_colour: bool = False) -> Look:
    """ASCII suits when asked, or when the terminal's encoding cannot show the symbols."""
    encoding = (getattr(sys.stdout, "encoding", None) or "ascii").lower()
    return Look(ascii=ascii or "utf" not in encoding, four_colour=four_colour)


def play_in_terminal(name: str, seed: int | None, look: Look, start: Start) -> MatchResult | None:
    """Play a seat at the table ``start`` seats it at, on the full-screen table screen.

    The seat's deck is shuffled as a bot's at seat 0 would be from ``seed``. Returns the
    match's result, or None if the player left first; raises what the network raised,
    once the terminal is restored.
    """
    model = TableModel(0, (name,), TableOptions(), look=look)
    app = create_application(model)
    session = Session(model, app.invalidate)
    player = session.player(name, random.Random(random.Random(seed).getrandbits(64)))
    log = TickerLog(model)
    net_log = logging.getLogger("p2pnerts")
    net_log.addHandler(log)
    net_log.propagate = False
    try:
        return run_with_trio(app, lambda: start(player, model.tell))
    finally:
        net_log.removeHandler(log)
        net_log.propagate = True
