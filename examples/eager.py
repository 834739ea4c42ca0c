"""An example bot policy: Nerts cards first, then anything up, else turn the stock.

Run it as a peer at a table:

    p2pnerts bot --join "Friday game" --policy examples/eager.py:Eager

or measure it against the built-in bots:

    p2pnerts arena --policies examples/eager.py:Eager,baseline --rounds 40 --seed 1
"""

from __future__ import annotations

from p2pnerts.rules import (
    NERTS,
    CallNerts,
    DeclareStuck,
    Move,
    State,
    ToFoundation,
    TurnStock,
    is_stuck,
    legal_moves,
    makes_progress,
)


class Eager:
    """Calls Nerts as soon as it can; otherwise makes the first play that gets somewhere,
    Nerts cards before the rest and foundations before work piles; otherwise turns the
    stock, or says it is stuck when a whole pass of the stock would not help."""

    def choose(self, view: State, seat: int) -> Move | None:
        # `view` is the table as this seat sees it: other players' face-down cards are
        # None. `legal_moves` lists every move the rules allow this seat right now.
        moves = legal_moves(view, seat)
        plays = [m for m in moves if makes_progress(view, m)]
        if plays:
            return min(plays, key=_preference)
        if view.tableau_of(seat).stuck:
            return None  # said stuck: wait until everyone is, and the stocks rotate
        if is_stuck(view, seat):
            return DeclareStuck(seat)
        if TurnStock(seat) in moves:
            return TurnStock(seat)
        return None  # nothing to do now: look again later


def _preference(move: Move) -> int:
    """Lower first: calling Nerts, then Nerts cards up, other Nerts plays, other plays up."""
    if isinstance(move, CallNerts):
        return 0
    from_nerts = getattr(move, "source", None) == NERTS
    up = isinstance(move, ToFoundation)
    return 1 + (not from_nerts) * 2 + (not up)
