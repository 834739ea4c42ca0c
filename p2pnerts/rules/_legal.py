"""Legal-move generation, and whether a tableau is stuck.

`legal_moves` lists exactly the moves `apply` accepts from a seat (ties aside: a tie is
an arbitration outcome, never a player's choice). It shares `fits` with `apply`, so the
two cannot disagree about work piles; the property tests check the rest.
"""

from __future__ import annotations

from collections.abc import Iterator

from p2pnerts.rules._apply import fits
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
        for at, c in enumerate(pile.cards):
            length = size - at
            if (length == 1 and c.is_joker) or not pile.base_rank:
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


def is_stuck(state: State, seat: int) -> bool:
    """Whether ``seat``'s tableau has nothing worth playing through a whole turn of its stock.

    Worth playing: a card to a foundation, the Nerts or waste top onto the work piles, or a
    work-pile move that empties a pile or uncovers a card a foundation wants; calling Nerts
    too. Shuffling runs between work piles does not count. It needs the seat's own stock
    order (a private or full view): an unknown stock card proves nothing, so it answers
    False.
    """
    tableau = state.tableau_of(seat)
    if state.ended is not None or not tableau.nerts:
        return False
    wanted = {(f.suit, f.rank + 1) for f in state.foundations}
    if _work_worth_playing(tableau, wanted):
        return False
    candidates = [tableau.nerts[-1], *_stock_cycle(tableau, state.options.stock_turn)]
    return not any(c is None or _card_worth_playing(tableau, wanted, c) for c in candidates)


def _goes_up(card: Card, wanted: set[tuple[int, int]]) -> bool:
    return card.is_joker or card.rank == ACE or (card.suit, card.rank) in wanted


def _card_worth_playing(tableau: Tableau, wanted: set[tuple[int, int]], card: Card) -> bool:
    rank = 0 if card.is_joker else card.rank
    return _goes_up(card, wanted) or any(fits(p, rank, card.red, 1) for p in tableau.work)


def _work_worth_playing(tableau: Tableau, wanted: set[tuple[int, int]]) -> bool:
    for source, card, rank, red, length in _runs(tableau):
        if source < 0:
            continue
        if length == 1 and _goes_up(card, wanted):
            return True
        below = tableau.work[source].cards[:-length]
        if below and not _goes_up(below[-1], wanted):
            continue
        targets = (p for i, p in enumerate(tableau.work) if i != source and p.cards)
        if any(fits(p, rank, red, length) for p in targets):
            return True
    return False


def _stock_cycle(tableau: Tableau, turn: int) -> Iterator[Card | None]:
    """Every card that shows on top of the waste through a whole pass of stock and waste."""
    if tableau.waste:
        yield tableau.waste[-1]
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
