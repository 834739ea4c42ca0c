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

It knows its own stock as a person at the seat does (`Sight`): a card once it has been
turned onto the waste, so on the first pass a turn of the stock shows unknown cards and
counts at a guess (``turn_guess``), and from the second pass on it knows the order. It
never reads its face-down Nerts cards: a line of play stops where the next Nerts card would
be turned up.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2pnerts.bots._policy import Sight
from p2pnerts.rules import (
    ACE,
    NERTS,
    CallNerts,
    Card,
    DeclareStuck,
    IllegalMove,
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


@dataclass(frozen=True, slots=True)
class Weights:
    """What the strong bot's judgement is made of: the worth of a tableau's features, the
    terms of a race, and how far and wide it plays ahead."""

    nerts_card: float = 10.0
    """What a card off the Nerts pile is worth: the 2-point penalty saved, and above all a
    step towards calling Nerts, which ends the round while the others still hold theirs."""
    nerts_up: float = 2.0
    """The Nerts card on top could go to a foundation now."""
    nerts_down: float = 1.2
    """The Nerts card on top could go onto a work pile (or into a space) now."""
    nerts_guess: float = 0.6
    """What a Nerts card not yet turned up is worth, for where it might go."""
    space: float = 0.8
    """An empty work pile, while Nerts cards are left to fill it."""
    ready: float = 0.4
    """Each other exposed card of the tableau that could go to a foundation now."""
    soon: float = 0.0
    """Each other exposed card that could go to a foundation once another player plays
    the card below it, which they show where it could go up now: a card to keep clear."""
    dig: float = 0.1
    """Each card left in stock and waste: the fewer, the sooner each one shows."""
    card_up: float = 1.0
    """A card on a foundation: the point it scores."""
    urgent: float = 0.5
    """Any play to a foundation: the foundations are a race, rearranging at home can wait."""
    race: float = 0.6
    """Another player shows the same card for the same foundation: play it first."""
    block: float = 3.0
    """Another player's Nerts card wants the same place: taking it first keeps theirs
    down."""
    feed: float = 1.5
    """The play would let another player's Nerts card go up next."""
    worth: float = 0.05
    """A move must gain at least this much to be made rather than turning the stock."""
    keep_scoring: int = 5
    """With an empty Nerts pile, keep playing cards up while every other player has at
    least this many Nerts cards left; otherwise call Nerts."""
    candidates: int = 3
    """How many of the best-looking moves are played ahead (turning the stock is, too)."""
    ahead: int = 4
    """Moves played ahead after each candidate."""
    later: float = 0.8
    """What a gain one move later is worth against the same gain now."""
    turn_guess: float = 0.0
    """What turning the stock is worth when the cards it would show are not known yet
    (the stock's first pass)."""
    play_on: bool = False
    """Declared stuck, play on as soon as the others' plays let the tableau make progress
    (its next move clears the declaration), instead of waiting for the rotation."""


STRONG = Weights()


class StrongBot:
    """Plays ahead over its own tableau, race-aware, with a sense of when to call.

    One instance plays one seat: it remembers the stock cards it has seen, and how many
    times in a row it has only turned the stock, so that it never holds back a play for
    more than one pass of its stock.
    """

    def __init__(self, weights: Weights = STRONG) -> None:
        self._idle = 0
        self._w = weights
        self.sight = Sight()
        """What it knows of its own stock."""

    def choose(self, view: State, seat: int) -> Move | None:
        """The move to make now, or None to wait."""
        view = self.sight.known(view, seat)
        moves = legal_moves(view, seat)
        if not moves:
            return None
        tableau, w = view.tableau_of(seat), self._w
        patient = self._idle <= _pass_length(tableau, view.options.stock_turn)
        table = _Table(view, seat, w, patient)
        scored = _gains(view, seat, moves, table)
        if CallNerts(seat) in moves:
            up = [m for gain, m in scored if isinstance(m, ToFoundation) and gain > w.worth]
            if not up or table.closest < w.keep_scoring:
                return CallNerts(seat)
            return up[0]
        stuck = tableau.stuck and (not w.play_on or is_stuck(view, seat))
        turn = TurnStock(seat) in moves and not stuck
        best = _look_ahead(view, seat, scored[: w.candidates], turn, table)
        if best is not None:
            self._idle = 0
            return best
        if stuck:
            return Rotate(seat) if Rotate(seat) in moves else None
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
    """What a seat sees of the others (the cards they show, and who is close to calling),
    and how it judges: its weights, and whether it may still hold a play back."""

    def __init__(self, view: State, seat: int, weights: Weights, patient: bool) -> None:
        own = view.seats[seat]
        self.w, self.patient = weights, patient
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
    view: State, seat: int, candidates: list[tuple[float, CardPlay]], turn: bool, table: _Table
) -> CardPlay | None:
    """The candidate whose line of play gains most, if it beats turning the stock."""
    w = table.w
    best, best_gain = None, w.worth
    if turn:
        after = _after(view, TurnStock(seat))
        line = w.turn_guess if after is None else _line(after, seat, table)
        best_gain = max(best_gain, w.later * line)
    for gain, move in candidates:
        if move.source != NERTS:
            gain += w.later * _line(apply(view, move)[0], seat, table)
        if gain > best_gain:
            best, best_gain = move, gain
    return best


def _after(view: State, move: Move) -> State | None:
    """The table after ``move``; None if it would show cards the view does not know."""
    try:
        return apply(view, move)[0]
    except IllegalMove:
        return None


def _line(view: State, seat: int, table: _Table) -> float:
    """What playing on alone gains: the best move each time (or a turn of the stock),
    up to ``ahead`` moves or until a card not known would be turned up."""
    w = table.w
    total, weight = 0.0, 1.0
    for _ in range(w.ahead):
        moves = legal_moves(view, seat)
        scored = _gains(view, seat, moves, table)
        move: Move
        if scored and scored[0][0] > w.worth:
            gain, play = scored[0]
            total += weight * gain
            if play.source == NERTS:
                break
            move = play
        elif TurnStock(seat) in moves:
            move = TurnStock(seat)
        else:
            break
        after = _after(view, move)
        if after is None:
            break
        view = after
        weight *= w.later
    return total


def _gains(
    view: State, seat: int, moves: list[Move], table: _Table
) -> list[tuple[float, CardPlay]]:
    """Every card play among ``moves`` with what it gains, best first."""
    base = _worth(view, seat, table, known=True)
    scored = []
    for move in moves:
        if isinstance(move, ToFoundation | ToWork | SlideUnder):
            after = _after(view, move)
            if after is None:
                continue
            gain = _worth(after, seat, table, known=move.source != NERTS) - base
            if isinstance(move, ToFoundation):
                gain += _race(move, table)
            scored.append((gain, move))
    scored.sort(key=lambda pair: -pair[0])
    return scored


def _race(move: ToFoundation, table: _Table) -> float:
    """The terms of a foundation play: its point, and what it means in the race."""
    w = table.w
    gain = w.card_up + w.urgent
    card = move.card
    if card.is_joker:
        return gain
    if (card.suit, card.rank) in table.shown:
        gain += w.race
    if (card.suit, card.rank) in table.nerts_tops:
        gain += w.block
    stuck = table.nerts_tops.get((card.suit, card.rank + 1))
    if stuck is False and move.source != NERTS and table.patient:
        gain -= w.feed
    return gain


def _worth(view: State, seat: int, table: _Table, *, known: bool) -> float:
    """What the seat's tableau is worth as it lies; with ``known`` False the Nerts card on
    top has just been turned up in a line of play, and counts at a guess."""
    tableau, w = view.tableau_of(seat), table.w
    wanted = {(f.suit, f.rank + 1) for f in view.foundations}
    worth = -w.nerts_card * len(tableau.nerts) - w.dig * (len(tableau.stock) + len(tableau.waste))
    for source, card in exposed(tableau):
        if source == NERTS:
            continue
        if _goes_up(card, wanted):
            worth += w.ready
        elif w.soon and (below := (card.suit, card.rank - 1)) in wanted and below in table.shown:
            worth += w.soon
    if not tableau.nerts:
        return worth
    top = tableau.nerts[-1]
    assert top is not None
    if not known:
        worth += w.nerts_guess
    elif _goes_up(top, wanted):
        worth += w.nerts_up
    elif _fits_down(tableau, top):
        worth += w.nerts_down
    worth += w.space * sum(1 for pile in tableau.work if not pile.cards)
    return worth


def _goes_up(card: Card, wanted: set[tuple[int, int]]) -> bool:
    return card.is_joker or card.rank == ACE or (card.suit, card.rank) in wanted


def _fits_down(tableau: Tableau, card: Card) -> bool:
    rank = 0 if card.is_joker else card.rank
    return any(fits(pile, rank, card.red, 1) for pile in tableau.work)


def _pass_length(tableau: Tableau, turn: int) -> int:
    """Turns of the stock it takes to see every card of stock and waste once."""
    return (len(tableau.stock) + len(tableau.waste)) // turn + 2
