"""Playing a seat in this terminal: the table screen, the peer, and a clean exit."""

from __future__ import annotations

import logging
import random
import sys
from collections.abc import Awaitable, Callable

from p2pnerts.errors import UsageError
from p2pnerts.net import IDLE_AFTER, MatchResult
from p2pnerts.rules import TableOptions
from p2pnerts.ui._app import create_application, run_with_trio
from p2pnerts.ui._lobby import LobbyModel
from p2pnerts.ui._model import TableModel
from p2pnerts.ui._session import Session, TickerLog
from p2pnerts.ui._snapshot import Look


class NoTerminal(UsageError):
    """A screen was asked for where there is no terminal to draw it on."""


def need_terminal(why: str) -> None:
    """Raise `NoTerminal` saying ``why`` unless standard input and output are both a
    terminal: a full-screen application started without one fails deep inside
    prompt_toolkit, with a traceback."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise NoTerminal(why)


Start = Callable[[Session], Awaitable[MatchResult]]
"""Seats the session's player at a table and plays the match (inside trio)."""


def default_look(*, ascii: bool = False, four_colour: bool = False) -> Look:
    """ASCII suits when asked, or when the terminal's encoding cannot show the symbols."""
    encoding = (getattr(sys.stdout, "encoding", None) or "ascii").lower()
    return Look(ascii=ascii or "utf" not in encoding, four_colour=four_colour)


def play_in_terminal(
    name: str,
    seed: int | None,
    look: Look,
    start: Start,
    lobby: LobbyModel | None = None,
    *,
    idle_after: float = IDLE_AFTER,
) -> MatchResult | None:
    """Play a seat at the table ``start`` seats it at, on the full-screen table screen
    (after the ``lobby``, if there is one).

    The seat's deck is shuffled as a bot's at seat 0 would be from ``seed``. Returns the
    match's result, or how it stood when the player left (`Session.standing`), or None if
    they left before play began; raises what the network raised, once the terminal is
    restored. Raises `NoTerminal` if standard input or output is not a terminal. The seat
    is declared stuck after ``idle_after`` seconds without a move.
    """
    need_terminal(
        "the table screen needs a terminal (with --headless a bot plays the seat and the "
        "table is told in lines)"
    )
    model = TableModel(0, (name,), TableOptions(), look=look)
    app = create_application(model, lobby)
    rng = random.Random(random.Random(seed).getrandbits(64))
    session = Session(model, app.invalidate, name, rng, lobby, idle_after=idle_after)
    # Log records would be written over the screen: they go to the person instead.
    log, root = TickerLog(session), logging.getLogger()
    root.addHandler(log)
    try:
        result = run_with_trio(app, lambda: session.run(start), session.farewell)
    finally:
        root.removeHandler(log)
    return session.standing() if result is None else result
