"""The priority bot: a hand-tuned order of plays, as the best-known open Nerts bots play.

A sparring partner for the stronger bots: it takes the first of these that applies.

1. Call Nerts.
2. The Nerts card to a foundation.
3. The Nerts card to a work pile: slid under a pile while a pile is empty, else onto the
   first pile it fits.
4. The first work pile's top card that goes up; then the waste's top.
5. Rearranging the work piles: a whole pile onto another; part of a pile when that
   uncovers a card that goes up now; part of a pile uncovering a card that *plays soon*
   (rank 2 or less, or at most 4 above its suit's highest foundation) onto a pile whose
   top does not.
6. The waste's top onto a work pile, only when that helps: a pile's bottom card or the
   Nerts card could later go onto it, or most of the stock is still unturned, or its rank
   is 10 or more.
7. Turn the stock.

After `PATIENCE` looks in a row without a productive move, every restriction lifts: the
waste goes onto any pile that takes it and any rearrangement that gets somewhere is made.
"""

from __future__ import annotations

from collections.abc import Iterator

from p2pnerts.bots._policy import Sight, nothing_to_play
from p2pnerts.rules import (
    NERTS,
    WASTE,
    CallNerts,
    Card,
    Move,
    SlideUnder,
    State,
    Tableau,
    ToFoundation,
    ToWork,
    legal_moves,
    makes_progress,
)

PATIENCE = 30
"""Looks without a productive move before every restriction lifts."""
SOON = 4
"""A card plays soon if it is at most this far above its suit's highest foundation."""
HIGH = 10
"""A waste card this high goes onto a work pile whatever else."""


class PriorityBot:
    """Plays the first move of the first kind that applies (see the module's list).

    One instance plays one seat: it counts its looks without a productive move, and knows
    its stock as a person at the seat does (`Sight`).
    """

    def __init__(self) -> None:
        self._idle = 0
        self._sight = Sight()

    def choose(self, view: State, seat: int) -> Move | None:
        """The move to make now, or None to wait."""
        view = self._sight.known(view, seat)
        moves = legal_moves(view, seat)
        if not moves:
            return None
        move = next(_plays(view, seat, moves, relaxed=self._idle >= PATIENCE), None)
        if move is not None:
            self._idle = 0
            return move
        self._idle += 1
        return nothing_to_play(view, seat, moves)


def _plays(view: State, seat: int, moves: list[Move], *, relaxed: bool) -> Iterator[Move]:
    """The productive moves the bot would make, in its order of priority."""
    tableau = view.tableau_of(seat)
    up = [m for m in moves if isinstance(m, ToFoundation)]
    down = [m for m in moves if isinstance(m, ToWork | SlideUnder)]
    yield from (m for m in moves if isinstance(m, CallNerts))
    yield from (m for m in up if m.source == NERTS)
    yield from (m for m in down if m.source == NERTS and isinstance(m, SlideUnder))
    yield from (m for m in down if m.source == NERTS)
    yield from sorted((m for m in up if m.source >= 0), key=lambda m: m.source)
    yield from (m for m in up if m.source == WASTE)
    yield from _rearranging(view, tableau, down, relaxed=relaxed)
    yield from (m for m in down if m.source == WASTE and (relaxed or _helps(tableau, m)))


def _rearranging(
    view: State, tableau: Tableau, down: list[ToWork | SlideUnder], *, relaxed: bool
) -> Iterator[Move]:
    """Moves between work piles, in the bot's order: a whole pile onto another pile; part
    of a pile uncovering a card that goes up; part of a pile uncovering a card that plays
    soon, onto a pile whose top does not; relaxed, anything that gets somewhere."""
    highest = _highest(view)
    wanted = {(f.suit, f.rank + 1) for f in view.foundations}
    between = [m for m in down if isinstance(m, ToWork) and m.source >= 0]
    whole, uncovering, soon = [], [], []
    for move in between:
        cards = tableau.work[move.source].cards
        at = cards.index(move.card)
        if at == 0:
            if tableau.work[move.dest].cards:
                whole.append(move)
            continue
        below = cards[at - 1]
        if below.is_joker or (below.suit, below.rank) in wanted:
            uncovering.append(move)
        elif _plays_soon(below, highest) and _onto_a_slow_top(tableau, move.dest, highest):
            soon.append(move)
    yield from whole
    yield from uncovering
    yield from soon
    if relaxed:
        yield from (m for m in between if makes_progress(view, m))


def _helps(tableau: Tableau, move: ToWork | SlideUnder) -> bool:
    """Whether laying the waste's top on a work pile helps (see the module's list)."""
    if isinstance(move, SlideUnder) or not tableau.work[move.dest].cards:
        return False
    card = move.card
    if card.is_joker or card.rank >= HIGH:
        return True
    if len(tableau.stock) > len(tableau.waste):
        return True
    under = [p.cards[0] for p in tableau.work if p.cards] + [c for c in tableau.nerts[-1:] if c]
    return any(not c.is_joker and c.rank == card.rank - 1 and c.red != card.red for c in under)


def _highest(view: State) -> dict[int, int]:
    """Each suit's highest foundation rank (suits without one: absent)."""
    highest: dict[int, int] = {}
    for f in view.foundations:
        highest[f.suit] = max(highest.get(f.suit, 0), f.rank)
    return highest


def _plays_soon(card: Card, highest: dict[int, int]) -> bool:
    return card.is_joker or card.rank <= 2 or card.rank <= highest.get(card.suit, 0) + SOON


def _onto_a_slow_top(tableau: Tableau, pile: int, highest: dict[int, int]) -> bool:
    """Whether the pile has a top card, and it does not play soon."""
    cards = tableau.work[pile].cards
    return bool(cards) and not _plays_soon(cards[-1], highest)
