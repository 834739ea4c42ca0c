"""The baseline: a fixed order of priorities, as a careful beginner plays, and no search."""

from __future__ import annotations

from p2pnerts.bots._policy import Sight, nothing_to_play
from p2pnerts.rules import (
    NERTS,
    WASTE,
    CallNerts,
    Move,
    SlideUnder,
    State,
    Tableau,
    ToFoundation,
    ToWork,
    apply,
    fits,
    legal_moves,
    makes_progress,
)


class BaselineBot:
    """Plays the first move of the first kind it finds, in this order:

    call Nerts; a Nerts card to a foundation; a Nerts card to a work pile; a work pile's
    top to a foundation; the waste's top to a foundation; a move between work piles that
    lets the Nerts card go down; the waste's top onto a work pile (not into a space,
    which is kept for Nerts cards); any other move that gets somewhere (`makes_progress`);
    turn the stock. Stuck, it says so; with everyone
    stuck, it rotates; it knows its stock as a person at the seat does (`Sight`), so it
    says it is stuck only once a whole pass has shown it every card. Deterministic: the
    same looks get the same moves.
    """

    def __init__(self) -> None:
        self._sight = Sight()

    def choose(self, view: State, seat: int) -> Move | None:
        """The move to make now, or None to wait."""
        view = self._sight.known(view, seat)
        moves = legal_moves(view, seat)
        if not moves:
            return None
        tableau = view.tableau_of(seat)
        best = min(moves, key=lambda m: _rank(m, tableau, view))
        if _rank(best, tableau, view) < _TURN:
            return best
        return nothing_to_play(view, seat, moves)


_TURN = 8
"""The rank of everything the baseline does not play of its own choice."""


def _rank(move: Move, tableau: Tableau, view: State) -> int:
    """Lower is played first; `_TURN` and above: not a play the baseline makes."""
    match move:
        case CallNerts():
            return 0
        case ToFoundation(source=source):
            return 1 if source == NERTS else 3 if source >= 0 else 4
        case ToWork(source=source) | SlideUnder(source=source) if source == NERTS:
            return 2
        case ToWork(source=source) if source >= 0 and _frees_nerts(view, move, tableau):
            return 5
        case ToWork(source=source, dest=dest) if source == WASTE and tableau.work[dest].cards:
            return 6
        case SlideUnder(source=source) if source == WASTE:
            return 6
    return 7 if makes_progress(view, move) else _TURN


def _frees_nerts(view: State, move: ToWork, tableau: Tableau) -> bool:
    """Whether, after a move between work piles, the Nerts card can go onto a work pile
    (or into a space) where it could not before."""
    if not tableau.nerts or _nerts_fits(tableau):
        return False
    after = apply(view, move)[0].tableau_of(move.seat)
    return _nerts_fits(after)


def _nerts_fits(tableau: Tableau) -> bool:
    top = tableau.nerts[-1] if tableau.nerts else None
    if top is None:
        return False
    rank = 0 if top.is_joker else top.rank
    return any(fits(pile, rank, top.red, 1) for pile in tableau.work)
