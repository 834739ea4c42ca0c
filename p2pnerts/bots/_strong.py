"""The strong bot: it plays its own tableau ahead before it moves, and watches the races.

A move is worth the change it makes to the tableau (Nerts cards left count most by far:
the sooner it calls, the more the others are left holding; a Nerts card that can go
somewhere, spaces, and cards ready for the foundations count too), plus, for a play to a
foundation, terms for the race: the foundations are shared, so a play there goes before
any rearranging at home, first of all when another player shows the same card (and
above all when it is their Nerts card, which then stays down); a play
that would only let another player's Nerts card go up next is held back, for at most one
pass of the stock. For its few best moves and for turning the stock it then plays on
alone for a few moves, the foundations as they are, and takes the move whose line
gains most. It calls Nerts as soon as it can, unless it has cards to play up and every
other player is far from calling.

It reads its own stock in order (a player who has turned through it once knows it), but
never its face-down Nerts cards: a Nerts card it has not turned up counts at a guess,
and a line of play stops where the next Nerts card would be turned up.
"""

from __future__ import annotations

from p2pnerts.rules import (
    ACE,
    NERTS,
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

CardPlay = ToFoundation | ToWork | SlideUnder

NERTS_CARD = 10.0
"""What a card off the Nerts pile is worth: the 2-point penalty saved, and above all a
step towards calling Nerts, which ends the round while the others still hold theirs."""
NERTS_UP = 2.0
"""The Nerts card on top could go to a foundation now."""
NERTS_DOWN = 1.2
"""The Nerts card on top could go onto a work pile (or into a space) now."""
NERTS_GUESS = 0.6
"""What a Nerts card not yet turned up is worth, for where it might go."""
SPACE = 0.8
"""An empty work pile, while Nerts cards are left to fill it."""
READY = 0.4
"""Each other exposed card of the tableau that could go to a foundation now."""
DIG = 0.1
"""Each card left in stock and waste: the fewer, the sooner each one shows."""
CARD_UP = 1.0
"""A card on a foundation: the point it scores."""
URGENT = 0.5
"""Any play to a foundation: the foundations are a race, rearranging at home can wait."""
RACE = 0.6
"""Another player shows the same card for the same foundation: play it first."""
BLOCK = 3.0
"""Another player's Nerts card wants the same place: taking it first keeps theirs down."""
FEED = 1.5
"""The play would let another player's Nerts card go up next."""
WORTH = 0.05
"""A move must gain at least this much to be made rather than turning the stock."""
KEEP_SCORING = 5
"""With an empty Nerts pile, keep playing cards up while every other player has at least
this many Nerts cards left; otherwise call Nerts."""
CANDIDATES = 3
"""How many of the best-looking moves are played ahead (turning the stock is, too)."""
AHEAD = 4
"""Moves played ahead after each candidate."""
LATER = 0.8
"""What a gain one move later is worth against the same gain now."""


class StrongBot:
    """Plays ahead over its own tableau, race-aware, with a sense of when to call.

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
        scored = _gains(view, seat, moves, table, patient)
        if CallNerts(seat) in moves:
            up = [m for gain, m in scored if isinstance(m, ToFoundation) and gain > WORTH]
            if not up or table.closest < KEEP_SCORING:
                return CallNerts(seat)
            return up[0]
        turn = TurnStock(seat) in moves and not tableau.stuck
        best = _look_ahead(view, seat, scored[:CANDIDATES], turn, table, patient)
        if best is not None:
            self._idle = 0
            return best
        if Rotate(seat) in moves:
            return Rotate(seat)
        if tableau.stuck:
            return None
        if is_stuck(view, seat):
            return DeclareStuck(seat)
        if turn and patient:
            self._idle += 1
            return TurnStock(seat)
        # A whole pass of the stock with nothing worth playing: make the best play that
        # gets anywhere, held back or not, so that a round never waits on this seat.
        progress = [m for _, m in scored if makes_progress(view, m)]
        if progress:
            self._idle = 0
            return progress[0]
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


def _look_ahead(
    view: State,
    seat: int,
    candidates: list[tuple[float, CardPlay]],
    turn: bool,
    table: _Table,
    patient: bool,
) -> CardPlay | None:
    """The candidate whose line of play gains most, if it beats turning the stock."""
    best, best_gain = None, WORTH
    if turn:
        after = apply(view, TurnStock(seat))[0]
        best_gain = max(best_gain, LATER * _line(after, seat, table, patient))
    for gain, move in candidates:
        if move.source != NERTS:
            gain += LATER * _line(apply(view, move)[0], seat, table, patient)
        if gain > best_gain:
            best, best_gain = move, gain
    return best


def _line(view: State, seat: int, table: _Table, patient: bool) -> float:
    """What playing on alone gains: the best move each time (or a turn of the stock),
    up to `AHEAD` moves or until a Nerts card would be turned up."""
    total, weight = 0.0, 1.0
    for _ in range(AHEAD):
        moves = legal_moves(view, seat)
        scored = _gains(view, seat, moves, table, patient)
        move: Move
        if scored and scored[0][0] > WORTH:
            gain, play = scored[0]
            total += weight * gain
            if play.source == NERTS:
                break
            move = play
        elif TurnStock(seat) in moves:
            move = TurnStock(seat)
        else:
            break
        view = apply(view, move)[0]
        weight *= LATER
    return total


def _gains(
    view: State, seat: int, moves: list[Move], table: _Table, patient: bool
) -> list[tuple[float, CardPlay]]:
    """Every card play among ``moves`` with what it gains, best first."""
    base = _worth(view, seat, known=True)
    scored = []
    for move in moves:
        if isinstance(move, ToFoundation | ToWork | SlideUnder):
            after = apply(view, move)[0]
            gain = _worth(after, seat, known=move.source != NERTS) - base
            if isinstance(move, ToFoundation):
                gain += _race(move, table, patient)
            scored.append((gain, move))
    scored.sort(key=lambda pair: -pair[0])
    return scored


def _race(move: ToFoundation, table: _Table, patient: bool) -> float:
    """The terms of a foundation play: its point, and what it means in the race."""
    gain = CARD_UP + URGENT
    card = move.card
    if card.is_joker:
        return gain
    if (card.suit, card.rank) in table.shown:
        gain += RACE
    if (card.suit, card.rank) in table.nerts_tops:
        gain += BLOCK
    stuck = table.nerts_tops.get((card.suit, card.rank + 1))
    if stuck is False and move.source != NERTS and patient:
        gain -= FEED
    return gain


def _worth(view: State, seat: int, *, known: bool) -> float:
    """What the seat's tableau is worth as it lies; with ``known`` False the Nerts card on
    top has just been turned up in a line of play, and counts at a guess."""
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
    if not known:
        worth += NERTS_GUESS
    elif _goes_up(top, wanted):
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
