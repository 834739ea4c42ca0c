"""Turning what a player pointed at into a move, by asking the rules engine.

The front end never decides a game question: every move offered here is one of
`legal_moves`, or was tried with `apply` on the player's own view, and a refusal carries
the rules engine's own reason.
"""

from __future__ import annotations

from p2pnerts.rules import (
    NERTS,
    WASTE,
    Card,
    IllegalMove,
    Move,
    SlideUnder,
    State,
    ToFoundation,
    ToWork,
    apply,
    legal_moves,
    makes_progress,
    pile_name,
)

CardMove = ToFoundation | ToWork | SlideUnder


def pile_cards(state: State, seat: int, source: int) -> tuple[Card, ...]:
    """The face-up cards of one of the seat's piles, bottom first (Nerts: its top only)."""
    tableau = state.tableau_of(seat)
    if source == NERTS:
        top = tableau.nerts[-1:]
        return () if not top or top[0] is None else (top[0],)
    if source == WASTE:
        return tableau.waste[-1:]
    if 0 <= source < len(tableau.work):
        return tableau.work[source].cards
    return ()


def checked(state: State, move: Move) -> Move | str:
    """``move`` if the rules allow it on ``state``, else their reason why not."""
    try:
        apply(state, move)
    except IllegalMove as exc:
        return str(exc)
    return move


def onto_work(state: State, seat: int, card: Card, source: int, dest: int) -> Move | str:
    """Move ``card`` (with what lies on it) onto work pile ``dest``, or slide it under that
    pile; the move, or why the rules refuse it."""
    onto = checked(state, ToWork(seat, card, source, dest))
    if isinstance(onto, str):
        slide = checked(state, SlideUnder(seat, card, source, dest))
        return onto if isinstance(slide, str) else slide
    return onto


def to_foundation(state: State, seat: int, card: Card, source: int) -> Move | str:
    """Send ``card`` up to a foundation it fits, or say why it cannot go."""
    for move in legal_moves(state, seat):
        if isinstance(move, ToFoundation) and move.card == card and move.source == source:
            return move
    if pile_cards(state, seat, source)[-1:] != (card,):
        return f"only the exposed card of {pile_name(source)} can go up"
    return f"no foundation takes {card} now"


def best_move(state: State, seat: int, card: Card | None, source: int | None) -> Move | None:
    """The most useful move of the selected card, or of the whole tableau if none is
    selected: a foundation first, then what makes progress, Nerts cards before others."""
    moves = [
        m
        for m in legal_moves(state, seat)
        if isinstance(m, CardMove) and (card is None or (m.card == card and m.source == source))
    ]
    if card is None:
        moves = [m for m in moves if makes_progress(state, m)]
    if not moves:
        return None
    return min(moves, key=lambda m: _rank(state, m))


def _rank(state: State, move: CardMove) -> tuple[int, int]:
    """Lower is better: foundations, progress, then anything else; Nerts, waste, work."""
    kind = 0 if isinstance(move, ToFoundation) else 1 if makes_progress(state, move) else 2
    source = 0 if move.source == NERTS else 1 if move.source == WASTE else 2
    return kind, source
