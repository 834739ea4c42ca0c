"""A simple priority bot: the sensible move a beginner makes first, never a search."""

from __future__ import annotations

import random

from p2pnerts.bots._policy import Sight, nothing_to_play
from p2pnerts.rules import (
    NERTS,
    WASTE,
    CallNerts,
    Move,
    SlideUnder,
    State,
    ToFoundation,
    ToWork,
    legal_moves,
    makes_progress,
)


class SimpleBot:
    """Plays by a fixed order of preference; ``rng`` only breaks ties between equals.

    It chooses through `legal_moves`, which needs nothing face down, and knows its stock
    as a person at the seat does (`Sight`): it says it is stuck only once a whole pass has
    shown it every card.
    """

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._sight = Sight()

    def choose(self, state: State, seat: int) -> Move | None:
        """The move to make now, or None to wait."""
        state = self._sight.known(state, seat)
        moves = legal_moves(state, seat)
        plays = [m for m in moves if makes_progress(state, m)]
        if plays:
            best = min(map(_preference, plays))
            return self._rng.choice([m for m in plays if _preference(m) == best])
        return nothing_to_play(state, seat, moves)


def _preference(move: Move) -> int:
    """Among moves that make progress, lower is better."""
    match move:
        case CallNerts():
            return 0
        case ToFoundation(source=source):
            return 1 if source == NERTS else 2
        case ToWork(source=source) | SlideUnder(source=source) if source == NERTS:
            return 3
        case ToWork(source=source) | SlideUnder(source=source) if source == WASTE:
            return 4
    return 5
