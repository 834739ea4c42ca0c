"""Legal-move generation, and whether a tableau is stuck.

`legal_moves` lists exactly the moves `apply` accepts from a seat (ties aside: a tie is
an arbitration outcome, never a player's choice). It shares `fits` with `apply`, so the
two cannot disagree about work piles; the property tests check the rest.
"""

from __future__ import annotations

from collections.abc import Iterator

from p2pnerts.rules._cards import ACE, Card, Suit
from p2pnerts.rules._moves import (
    CallNerts,
    DeclareStuck,
    Move,
    Rotate,
    SlideUnder,
    ToFoundation,
    ToWork,
    TurnStock,
)
from p2pnerts.rules._runs import fits
from p2pnerts.rules._state import NERTS, NEW_FOUNDATION, WASTE, State, Tableau, WorkPile


def legal_moves(state: State, seat: int) -> list[Move]:
    """Every move ``seat`` may make now, in a fixed order (foundation plays first)."""
    if state.ended is not None:
        return []
    tableau = state.tableau_of(seat)
    moves: list[Move] = list(_foundation_moves(state, seat, tableau))
    moves += _work_moves(seat, tableau)
    if tableau.stock or tableau.waste:
        moves.append(TurnStock(seat))
    if not tableau.stuck:
        moves.append(DeclareStuck(seat))
    elif all(t.stuck for t in state.tableaux):
        moves.append(Rotate(seat))
    if not tableau.nerts:
        moves.append(CallNerts(seat))
    return moves


def exposed(tableau: Tableau) -> Iterator[tuple[int, Card]]:
    """The cards a tableau can play to a foundation: Nerts top, waste top, work-pile tops."""
    if tableau.nerts:
        top = tableau.nerts[-1]
        assert top is not None, "the Nerts pile's top is always face up"
        yield NERTS, top
    if tableau.waste:
        yield WASTE, tableau.waste[-1]
    for index, pile in enumerate(tableau.work):
        if pile.cards:
            yield index, pile.cards[-1]


def _foundation_moves(state: State, seat: int, tableau: Tableau) -> Iterator[ToFoundation]:
    wanted: dict[tuple[int, int], list[int]] = {}
    for f in state.foundations:
        wanted.setdefault((f.suit, f.rank + 1), []).append(f.id)
    for source, card in exposed(tableau):
        if card.is_joker:
            for suit in Suit:
                yield ToFoundation(seat, card, source, NEW_FOUNDATION, (ACE, suit))
            for (suit_no, rank), ids in wanted.items():
                for fid in ids:
                    yield ToFoundation(seat, card, source, fid, (rank, Suit(suit_no)))
        elif card.rank == ACE:
            yield ToFoundation(seat, card, source, NEW_FOUNDATION)
        else:
            for fid in wanted.get((card.suit, card.rank), ()):
                yield ToFoundation(seat, card, source, fid)


def _runs(tableau: Tableau) -> Iterator[tuple[int, Card, int, bool, int]]:
    """Every run that can be lifted: (source, bottom card, base rank, base red, length)."""
    for source, card in ((NERTS, tableau.nerts[-1:]), (WASTE, tableau.waste[-1:])):
        for c in card:
            assert c is not None
            yield source, c, (0 if c.is_joker else c.rank), c.red, 1
    for source, pile in enumerate(tableau.work):
        size = len(pile.cards)
        free = size  # runs from `free` up hold no real card to fix their jokers: wild
        while free and pile.cards[free - 1].is_joker:
            free -= 1
        for at, c in enumerate(pile.cards):
            length = size - at
            if at >= free or not pile.base_rank:
                yield source, c, 0, False, length
            else:
                yield source, c, pile.base_rank - at, pile.base_red ^ bool(at & 1), length


def _work_moves(seat: int, tableau: Tableau) -> Iterator[ToWork | SlideUnder]:
    piles = tableau.work
    spaces = [i for i, p in enumerate(piles) if not p.cards]
    for source, card, rank, red, length in _runs(tableau):
        for dest, pile in enumerate(piles):
            if dest != source and fits(pile, rank, red, length):
                yield ToWork(seat, card, source, dest)
        if length != 1 or not spaces:
            continue
        single = WorkPile((card,), rank, red)
        for dest, pile in enumerate(piles):
            if dest == source or not pile.cards:
                continue
            if fits(single, pile.base_rank, pile.base_red, len(pile.cards)):
                yield SlideUnder(seat, card, source, dest)


def makes_progress(state: State, move: Move) -> bool:
    """Whether a move gets somewhere, rather than shuffling cards about.

    Progress: calling Nerts, a card to a foundation, the Nerts or waste top onto the work
    piles, or a work-pile move that empties its pile (into no other space) or uncovers a
    card that can go up.
    """
    match move:
        case CallNerts() | ToFoundation():
            return True
        case ToWork(source=source, card=card) | SlideUnder(source=source, card=card):
            if source < 0:
                return True
            work = state.tableau_of(move.seat).work
            below = work[source].cards[: work[source].cards.index(card)]
            if not below:  # empties its pile, unless it only moves into another space
                return bool(work[move.dest].cards)
            return _goes_up(below[-1], _wanted(state))
    return False


def is_stuck(state: State, seat: int) -> bool:
    """Whether ``seat``'s tableau can make no progress through a whole turn of its stock.

    Progress is what `makes_progress` says, now or with any card that would show on top of
    the waste as the stock is turned through. It needs the seat's own stock order (a
    private or full view): an unknown stock card proves nothing, so it answers False.
    """
    tableau = state.tableau_of(seat)
    if state.ended is not None or not tableau.nerts:
        return False
    # Each way to make progress is tried lazily, the cheapest first, and the first found
    # settles it: a foundation play (always progress), a card the stock shows as it is
    # turned through, then a work-pile move. (With a Nerts card left, turning the stock,
    # a stuck declaration or a rotation never make progress.)
    if next(_foundation_moves(state, seat, tableau), None) is not None:
        return False
    wanted = _wanted(state)
    for card in _stock_cycle(tableau, state.options.stock_turn):
        if card is None or _goes_up(card, wanted):
            return False
        rank = 0 if card.is_joker else card.rank
        if any(fits(p, rank, card.red, 1) for p in tableau.work):
            return False
    return not any(makes_progress(state, m) for m in _work_moves(seat, tableau))


def _wanted(state: State) -> set[tuple[int, int]]:
    return {(f.suit, f.rank + 1) for f in state.foundations}


def _goes_up(card: Card, wanted: set[tuple[int, int]]) -> bool:
    return card.is_joker or card.rank == ACE or (card.suit, card.rank) in wanted


def _stock_cycle(tableau: Tableau, turn: int) -> Iterator[Card | None]:
    """Every card that shows on top of the waste through a whole pass of stock and waste."""
    stock: list[Card | None] = list(tableau.stock)
    waste: list[Card | None] = list(tableau.waste)
    for _ in range(2 * ((len(stock) + len(waste)) // turn + 2)):
        if not stock:
            stock, waste = waste[::-1], []
            if not stock:
                return
        for _ in range(min(turn, len(stock))):
            waste.append(stock.pop())
        yield waste[-1]
