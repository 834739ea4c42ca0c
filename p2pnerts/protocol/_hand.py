"""One hand: which of a player's moves wait for their plays still in the air (SPEC §4.9).

A foundation play in the air may still return: its card then goes back to the pile it
left, and the foundation it went to stays as it was. A next move that touches neither
cannot be changed by that verdict, so it goes at once: a stock turn while a card from a
work pile flies, a card from the Nerts pile to another foundation. One that does — takes
from or puts on that pile, builds on that foundation (or, while an ace starts a new one,
on any foundation the table has not agreed on yet), slides a card under (which asks
that a pile be empty) — waits, as does every move while a stuck declaration or a Nerts
call is in the air.

On a team's tableau any move may return (a teammate's, sorting first, took its card or
turned up its cards), so every move holds the hand there, and a next move waits for one
that touches a pile it touches: a stock turn for the stock turn before it, a card onto a
pile for the card flying from it. The rest goes at once, as on a tableau of one's own.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2pnerts.rules import (
    NEW_FOUNDATION,
    WASTE,
    Move,
    SlideUnder,
    ToFoundation,
    ToWork,
    TurnStock,
)


@dataclass(frozen=True, slots=True)
class Hand:
    """A seat's plays in the air that a next move may have to wait for."""

    held: tuple[Move, ...] = ()
    """The moves in the air that hold the hand, in the order sent."""
    agreed: int = 0
    """How many foundations the committed table has: one numbered from here on is new."""

    @property
    def last(self) -> Move | None:
        """The move in the air sent last, if any (what the screen shows flying)."""
        return self.held[-1] if self.held else None

    def waits_for(self, move: Move) -> Move | None:
        """The move in the air that ``move`` must wait for, or None: it may go now."""
        for held in reversed(self.held):
            if _depends(move, held, self.agreed):
                return held
        return None


def _depends(move: Move, held: Move, agreed: int) -> bool:
    """Whether ``move`` could be changed by the verdict on ``held``, in the air."""
    if isinstance(move, SlideUnder) or not isinstance(move, TurnStock | ToFoundation | ToWork):
        return True  # a slide asks that a pile be empty; a call or a stuck, the tableau
    match held:
        case ToFoundation():
            if held.source in _piles(move):
                return True  # the card would come back onto that pile
            if isinstance(move, ToFoundation) and move.foundation != NEW_FOUNDATION:
                return move.foundation == held.foundation or (
                    held.foundation == NEW_FOUNDATION and move.foundation >= agreed
                )
            return False
        case ToWork() | TurnStock():  # (held on a team's tableau only)
            return not set(_piles(held)).isdisjoint(_piles(move))
    return True  # a stuck declaration, a Nerts call, a slide: about the whole tableau


def _piles(move: TurnStock | ToFoundation | ToWork) -> tuple[int, ...]:
    """The tableau piles ``move`` takes from or puts on."""
    if isinstance(move, TurnStock):
        return (WASTE,)
    if isinstance(move, ToWork):
        return (move.source, move.dest)
    return (move.source,)
