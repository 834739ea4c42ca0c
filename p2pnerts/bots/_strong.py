"""The strong bot: it searches its own tableau two moves ahead and watches the races.

It scores each move by what the tableau is worth after it (Nerts cards left count most;
a Nerts card that can go somewhere, spaces and cards ready for the foundations count
too) and, for moves between piles, by the best play they open up. Foundation plays get
a bonus when another player shows the same card (a race it should be first to), and are
held back while they would only feed another player's Nerts card. Once its Nerts pile is
empty it calls Nerts at once, unless it has cards to play and nobody is close to calling.
"""

from __future__ import annotations

from p2pnerts.rules import (
    ACE,
    NERTS,
    WASTE,
    CallNerts,
    Card,
    DeclareStuck,
    Move,
    Rotate,
    SlideUnder,
    State,
    Tableau,
    ToFoundation,
    ToWork,
    TurnStock,
    apply,
    exposed,
    fits,
    is_stuck,
    legal_moves,
    makes_progress,
)

NERTS_CARD = 3.0
"""What a card off the Nerts pile is worth: the 2-point penalty saved, and a bit more."""
NERTS_UP = 2.0
"""The Nerts card on top could go to a foundation now."""
NERTS_DOWN = 1.2
"""The Nerts card on top could go onto a work pile (or into a space) now."""
SPACE = 0.8
"""An empty work pile, while Nerts cards are left to fill it."""
READY = 0.4
"""Each other exposed card of the tableau that could go to a foundation now."""
CARD_UP = 1.0
"""A card on a foundation: the point it scores."""
URGENT = 1.5
"""Any play to a foundation: the foundations are a race, the tableau can wait."""
RACE = 0.6
"""Another player shows the same card for the same foundation: play it first."""
BLOCK = 3.0
"""Another player's Nerts card wants the same place: taking it first keeps theirs down."""
FEED = 1.5
"""The play would let another player's Nerts card go up next."""
ONWARD = 0.9
"""How much of the best play a move opens up counts for the move itself."""
WORTH = 0.05
"""A move must gain at least this much to be made rather than turning the stock."""
DIG = 0.1
"""Each card left in stock and waste: the fewer, the sooner each one shows."""
KEEP_SCORING = 5
"""With an empty Nerts pile, keep playing cards up while every other player has at least
this many Nerts cards left; otherwise call Nerts."""


class StrongBot:
    """Two-move search over its own tableau, race-aware, with a sense of when to call.

    One instance plays one seat: it remembers how many times in a row it has only turned
    the stock, so that it never holds back a play for more than one pass of its stock.
    """

    def __init__(self) -> None:
        self._idle = 0

    def choose(self, view: State, seat: int) -> Move | None:
        """The move to make now, or None to wait."""
        moves = legal_moves(view, seat)
        if not moves:
            return None
        tableau = view.tableau_of(seat)
        table = _Table(view, seat)
        patient = self._idle <= _pass_length(tableau, view.options.stock_turn)
        scored = [
            (_score(view, move, table, patient, onward=True), move)
            for move in moves
            if isinstance(move, ToFoundation | ToWork | SlideUnder)
        ]
        gain, best = max(scored, key=lambda pair: pair[0], default=(0.0, None))
        if CallNerts(seat) in moves and (gain <= WORTH or table.closest < KEEP_SCORING):
            return CallNerts(seat)
        if best is not None and gain > WORTH:
            self._idle = 0
            return best
        if Rotate(seat) in moves:
            return Rotate(seat)
        if tableau.stuck:
            return None
        if is_stuck(view, seat):
            return DeclareStuck(seat)
        turn = TurnStock(seat) in moves
        if turn and patient:
            self._idle += 1
            return TurnStock(seat)
        # A whole pass of the stock with nothing worth playing: make the best play that
        # gets anywhere, held back or not, so that a round never waits on this seat.
        progress = [(s, m) for s, m in scored if makes_progress(view, m)]
        if progress:
            self._idle = 0
            return max(progress, key=lambda pair: pair[0])[1]
        return TurnStock(seat) if turn else None


class _Table:
    """What a seat sees of the others: the cards they show, and who is close to calling."""

    def __init__(self, view: State, seat: int) -> None:
        own = view.seats[seat]
        self.shown: set[tuple[int, int]] = set()
        self.nerts_tops: dict[tuple[int, int], bool] = {}
        """Other players' Nerts tops, and whether that player is stuck (waiting)."""
        self.closest = 99
        for t in view.tableaux:
            if t.deck == own:
                continue
            self.closest = min(self.closest, len(t.nerts))
            for source, card in exposed(t):
                if card.is_joker:
                    continue
                self.shown.add((card.suit, card.rank))
                if source == NERTS:
                    self.nerts_tops[card.suit, card.rank] = t.stuck


def _score(
    view: State,
    move: ToFoundation | ToWork | SlideUnder,
    table: _Table,
    patient: bool,
    *,
    onward: bool,
) -> float:
    """What a move gains: the change in the tableau's worth, plus race and feeding terms,
    plus (with ``onward``, for moves between piles) part of the best play it opens up."""
    seat = move.seat
    after = apply(view, move)[0]
    score = _worth(after, seat) - _worth(view, seat)
    if isinstance(move, ToFoundation):
        score += CARD_UP + URGENT
        card = move.card
        if not card.is_joker:
            if (card.suit, card.rank) in table.shown:
                score += RACE
            if (card.suit, card.rank) in table.nerts_tops:
                score += BLOCK
            stuck = table.nerts_tops.get((card.suit, card.rank + 1))
            if stuck is False and move.source != NERTS and patient:
                score -= FEED
        return score
    if onward and (move.source >= 0 or move.source == WASTE):
        follow = max(
            (
                _score(after, m, table, patient, onward=False)
                for m in legal_moves(after, seat)
                if isinstance(m, ToFoundation | ToWork | SlideUnder) and not _undoes(m, move)
            ),
            default=0.0,
        )
        score += ONWARD * max(follow, 0.0)
    return score


def _undoes(move: ToWork | ToFoundation | SlideUnder, before: ToWork | SlideUnder) -> bool:
    """Whether ``move`` puts back the cards ``before`` moved."""
    return isinstance(move, ToWork) and move.card == before.card and move.dest == before.source


def _worth(view: State, seat: int) -> float:
    """What the seat's tableau is worth as it lies, for the choice of the next move."""
    tableau = view.tableau_of(seat)
    wanted = {(f.suit, f.rank + 1) for f in view.foundations}
    worth = -NERTS_CARD * len(tableau.nerts) - DIG * (len(tableau.stock) + len(tableau.waste))
    ready = sum(
        1 for source, card in exposed(tableau) if source != NERTS and _goes_up(card, wanted)
    )
    worth += READY * ready
    if not tableau.nerts:
        return worth
    top = tableau.nerts[-1]
    assert top is not None
    if _goes_up(top, wanted):
        worth += NERTS_UP
    elif _fits_down(tableau, top):
        worth += NERTS_DOWN
    worth += SPACE * sum(1 for pile in tableau.work if not pile.cards)
    return worth


def _goes_up(card: Card, wanted: set[tuple[int, int]]) -> bool:
    return card.is_joker or card.rank == ACE or (card.suit, card.rank) in wanted


def _fits_down(tableau: Tableau, card: Card) -> bool:
    rank = 0 if card.is_joker else card.rank
    return any(fits(pile, rank, card.red, 1) for pile in tableau.work)


def _pass_length(tableau: Tableau, turn: int) -> int:
    """Turns of the stock it takes to see every card of stock and waste once."""
    return (len(tableau.stock) + len(tableau.waste)) // turn + 2
