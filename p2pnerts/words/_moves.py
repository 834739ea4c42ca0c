"""A move in a few words, as the ticker, the narration and the replay tell it."""

from __future__ import annotations

from collections.abc import Callable

from p2pnerts.rules import (
    NERTS,
    WASTE,
    CallNerts,
    Card,
    DeclareStuck,
    Move,
    SlideUnder,
    ToFoundation,
    ToWork,
    TurnStock,
)

OUTCOMES = ("landed", "tied", "returned", "came back late")
"""A committed message's outcome in words, by the value the running digest folds in
(`protocol.Outcome`, SPEC §4.6; the last, at a table that commits by a majority alone)."""


def move_words(move: Move, card: Callable[[Card], str] = str) -> str:
    """A move in a few words (``7♥ to pile 2``), its cards written by ``card``."""
    match move:
        case ToFoundation(card=moved, source=source):
            return f"{card(moved)} from {_source_words(source)} up"
        case ToWork(card=moved, dest=dest) | SlideUnder(card=moved, dest=dest):
            return f"{card(moved)} to pile {dest + 1}"
        case TurnStock():
            return "turn stock"
        case DeclareStuck():
            return "stuck"
        case CallNerts():
            return "Nerts!"
    return type(move).__name__


def _source_words(source: int) -> str:
    return {NERTS: "Nerts", WASTE: "waste"}.get(source, f"pile {source + 1}")
