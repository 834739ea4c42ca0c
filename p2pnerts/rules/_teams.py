"""Two or three players on one tableau, the rule texts' way: "one teammate turns and plays
from the stock, while the other teammate plays the work and Nertz piles".

A bot on a team keeps to its part, so that it does not race its teammates for the same
cards (on a shared tableau such races are real: the move ordered second comes back). A
person is free to do anything; a bot teamed with a person keeps to its part all the same.
"""

from __future__ import annotations

from collections.abc import Sequence

from p2pnerts.rules._moves import Move, SlideUnder, ToFoundation, ToWork, TurnStock
from p2pnerts.rules._state import WASTE


def my_part(move: Move, seat: int, present: Sequence[int]) -> bool:
    """Whether ``move`` is ``seat``'s to make, its teammates at the table being ``present``
    (``seat`` among them, in seat order). The first turns the stock and plays the waste;
    the others play the Nerts pile and the work piles. With no teammate present every
    move is one's own; a stuck declaration and the Nerts call are anyone's."""
    if len(present) < 2:
        return True
    turns_the_stock = seat == present[0]
    match move:
        case TurnStock():
            return turns_the_stock
        case ToFoundation(source=source) | ToWork(source=source) | SlideUnder(source=source):
            return (source == WASTE) == turns_the_stock
    return True


def part_in_words(seat: int, present: Sequence[int]) -> str:
    """``seat``'s part of its team's tableau, as `my_part` shares the work out."""
    if len(present) < 2:
        return "the whole tableau"
    if seat == present[0]:
        return "the stock and the waste"
    return "the Nerts pile and the work piles"
