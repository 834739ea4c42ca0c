"""Taking cards off a tableau's piles and laying them on work piles, for `apply`: what a
lift checks (the card is the mover's and where the move says), the next Nerts card turned
up, and a joker's identity kept, or fixed for good once a card covers it."""

from __future__ import annotations

from p2pnerts.rules._cards import Card
from p2pnerts.rules._errors import IllegalMove
from p2pnerts.rules._moves import CardsRevealed, Event, SlideUnder, ToFoundation, ToWork
from p2pnerts.rules._state import NERTS, WASTE, FixedJoker, Tableau, WorkPile, pile_of


def pile_name(source: int) -> str:
    """How a pile reference reads in a message."""
    if source == NERTS:
        return "your Nerts pile"
    if source == WASTE:
        return "your waste pile"
    return f"work pile {source + 1}"


def lift(
    tableau: Tableau, move: ToFoundation | ToWork | SlideUnder, events: list[Event]
) -> tuple[Tableau, WorkPile]:
    """Lift the move's card (with what lies on it) off its source pile."""
    card, source = move.card, move.source
    if card.deck != tableau.deck:
        raise IllegalMove(f"{card} is not your card (it belongs to deck {card.deck + 1})")
    if source == NERTS:
        _expect_top(tableau.nerts, card, source)
        nerts = _reveal_next(tableau, tableau.nerts[:-1], move, events)
        deck, _, work, stock, waste, stuck, fixed = tableau  # (field by field: the hot path)
        return Tableau(deck, nerts, work, stock, waste, stuck, fixed), pile_of((card,))
    if source == WASTE:
        _expect_top(tableau.waste, card, source)
        if move.revealed:
            raise IllegalMove("a play from the waste turns no card face up")
        deck, nerts, work, stock, waste, stuck, fixed = tableau
        return Tableau(deck, nerts, work, stock, waste[:-1], stuck, fixed), pile_of((card,))
    return _take_block(tableau, card, source, move)


def _expect_top(pile: tuple[Card | None, ...], card: Card, source: int) -> None:
    if not pile:
        raise IllegalMove(f"{pile_name(source)} is empty")
    if pile[-1] != card:
        raise IllegalMove(f"{card} is not the top of {pile_name(source)} ({pile[-1]} is)")


def _reveal_next(
    tableau: Tableau,
    rest: tuple[Card | None, ...],
    move: ToFoundation | ToWork | SlideUnder,
    events: list[Event],
) -> tuple[Card | None, ...]:
    """Turn the next Nerts card face up, learning it from the move if this state cannot."""
    if not rest:
        if move.revealed:
            raise IllegalMove("that was the last Nerts card: nothing is turned up")
        return rest
    known = rest[-1]
    if known is None:
        if len(move.revealed) != 1:
            raise IllegalMove("a play from the Nerts pile must reveal the next Nerts card")
        known = check_revealed(tableau, move.revealed[0])
        rest = rest[:-1] + (known,)
    elif move.revealed not in ((), (known,)):
        raise IllegalMove(f"the move reveals {move.revealed[0]} but the next card is {known}")
    events.append(CardsRevealed(move.seat, NERTS, (known,)))
    return rest


def check_revealed(tableau: Tableau, card: Card) -> Card:
    if not isinstance(card, Card) or card.deck != tableau.deck:
        raise IllegalMove(f"revealed card {card} is not from deck {tableau.deck + 1}")
    return card


def _take_block(
    tableau: Tableau, card: Card, source: int, move: ToFoundation | ToWork | SlideUnder
) -> tuple[Tableau, WorkPile]:
    if not 0 <= source < len(tableau.work):
        raise IllegalMove(f"there is no {pile_name(source)}")
    if move.revealed:
        raise IllegalMove("a work-pile move turns no card face up")
    pile = tableau.work[source]
    try:
        at = pile.cards.index(card)
    except ValueError:
        raise IllegalMove(f"{card} is not in {pile_name(source)}") from None
    block, below = pile.cards[at:], pile.cards[:at]
    if pile.base_rank:
        lifted = _part(tableau, block, pile.base_rank - at, pile.base_red ^ bool(at & 1))
        rest = _part(tableau, below, pile.base_rank, pile.base_red)
    else:
        lifted, rest = WorkPile(block), WorkPile(below)
    return tableau._replace(work=put(tableau.work, source, rest)), lifted


def _part(tableau: Tableau, cards: tuple[Card, ...], base_rank: int, base_red: bool) -> WorkPile:
    """Part of a pile whose bottom stood for ``base_rank``: it keeps that identity if a real
    card or a joker fixed for good is in it; a part of free jokers alone is wild again."""
    if any(tableau.anchors(c) for c in cards):
        return WorkPile(cards, base_rank, base_red)
    return WorkPile(cards)


def fix_covered(tableau: Tableau, index: int) -> Tableau:
    """Fix for good each joker a card now lies on in work pile ``index``, as what it stands
    for there (a pile of free jokers alone stands for nothing yet)."""
    pile = tableau.work[index]
    if not pile.base_rank:
        return tableau
    new = tuple(
        FixedJoker(c, pile.base_rank - at, pile.base_red ^ bool(at & 1))
        for at, c in enumerate(pile.cards[:-1])
        if not tableau.anchors(c)
    )
    return tableau._replace(fixed=tableau.fixed + new) if new else tableau


def put(piles: tuple[WorkPile, ...], index: int, pile: WorkPile) -> tuple[WorkPile, ...]:
    return piles[:index] + (pile,) + piles[index + 1 :]
