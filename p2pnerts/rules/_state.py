"""Table state: tableaux, work piles, foundations, the deal, and what each player may see.

A state is immutable (named tuples all the way down), so `apply` can share every pile a
move does not touch. Piles list cards bottom first: the last card is the top.

Face-down cards (the Nerts pile below its top, the whole stock) may be unknown in a
state: they hold ``None``. A full-knowledge state (simulation, replay) knows them all;
the public view knows none; a peer's own view knows its own. Moves that turn a card face
up carry its identity, so the same engine applies them whatever the state knows.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from enum import StrEnum
from typing import NamedTuple

from p2pnerts.rules._cards import KING, Card, Suit, new_deck
from p2pnerts.rules._errors import BadOptions
from p2pnerts.rules._options import TableOptions

HIDDEN = None
"""What a state holds in place of a face-down card it does not know."""

NERTS = -1
"""Pile reference: the top of the Nerts pile."""
WASTE = -2
"""Pile reference: the top of the waste pile. Work piles are referenced by 0, 1, …"""
NEW_FOUNDATION = -1
"""Foundation reference for an ace (or a joker declared an ace) starting a new one."""

MAX_DECKS = 64


class WorkPile(NamedTuple):
    """A work pile: cards bottom first, descending in alternating colours.

    ``base_rank`` and ``base_red`` say what the bottom card stands for; they are derived
    from the real cards, and only a pile of nothing but free jokers has ``base_rank`` 0.
    """

    cards: tuple[Card, ...] = ()
    base_rank: int = 0
    base_red: bool = False

    @property
    def top_rank(self) -> int:
        """The rank the exposed card stands for (0 if unknown or the pile is empty)."""
        return self.base_rank - len(self.cards) + 1 if self.base_rank else 0

    @property
    def top_red(self) -> bool:
        return self.base_red ^ bool((len(self.cards) - 1) & 1)


class FixedJoker(NamedTuple):
    """A joker a card has lain on in a work pile, and what it stood for then: the rule
    text's "once a card is played on a Joker in a work pile, it now has a fixed existence
    (rank, suit, color)". A work pile shows only rank and colour; the suit is the
    declaration's to choose among that colour's two, on the foundation it then goes to."""

    card: Card
    rank: int
    red: bool


class Tableau(NamedTuple):
    """One deck's private layout, played by one player or a team of 2–3."""

    deck: int
    nerts: tuple[Card | None, ...]
    work: tuple[WorkPile, ...]
    stock: tuple[Card | None, ...]
    waste: tuple[Card, ...] = ()
    stuck: bool = False
    fixed: tuple[FixedJoker, ...] = ()
    """The jokers fixed for good, in the order they were fixed."""

    def fixed_as(self, card: Card) -> FixedJoker | None:
        """What ``card`` is fixed as, if it is a joker fixed for good."""
        return next((f for f in self.fixed if f.card == card), None)

    def may_declare(self, card: Card, rank: int, suit: Suit) -> bool:
        """Whether joker ``card`` may go up as ``rank`` of ``suit``: anything while it is
        free, its fixed rank in a suit of its fixed colour once fixed."""
        fixed = self.fixed_as(card)
        return fixed is None or (fixed.rank, fixed.red) == (rank, suit.red)

    def anchors(self, card: Card) -> bool:
        """Whether ``card`` fixes the run it lies in: a real card, or a fixed joker."""
        return not card.is_joker or self.fixed_as(card) is not None


class Foundation(NamedTuple):
    """A shared pile in the middle, built up in one suit from an ace.

    ``cards`` may hold more cards than ``rank`` when the tie rule let two equal cards stay.
    """

    id: int
    suit: int
    rank: int
    cards: tuple[Card, ...]

    @property
    def complete(self) -> bool:
        return self.rank == KING


class EndReason(StrEnum):
    """Why a round ended."""

    NERTS = "nerts"
    STUCK = "stuck"


class RoundEnd(NamedTuple):
    reason: EndReason
    caller: int | None
    """The seat that called Nerts, if one did."""


class State(NamedTuple):
    """Everything on the table during one round."""

    options: TableOptions
    seats: tuple[int, ...]
    """The tableau each seat plays: teams are seats sharing one tableau."""
    tableaux: tuple[Tableau, ...]
    foundations: tuple[Foundation, ...]
    """Foundations still in the middle, in the order they were started."""
    completed: tuple[Foundation, ...] = ()
    """Foundations built to the king and set aside, in the order they were started
    (whichever king came first: two foundations completed by different players end on the
    same table in either order); their cards still score."""
    next_foundation: int = 0
    rotations: int = 0
    played_since_rotation: bool = False
    """Whether any card left a Nerts pile or a waste, or reached a foundation, since the last
    all-stuck rotation (moves between work piles do not count)."""
    ended: RoundEnd | None = None

    def tableau_of(self, seat: int) -> Tableau:
        return self.tableaux[self.seats[seat]]

    def all_foundations(self) -> tuple[Foundation, ...]:
        return self.completed + self.foundations


def check_seats(options: TableOptions, seats: Sequence[int]) -> None:
    """Raise `BadOptions` unless the seats play decks as the options' teams seat them (each
    seat a deck of its own without teams: seats share a deck only as a team)."""
    if len(seats) < 2:
        raise BadOptions("Nerts needs at least 2 players")
    if len(seats) > MAX_DECKS:
        raise BadOptions(f"a table has 2 to {MAX_DECKS} players")
    if tuple(seats) != options.seating(len(seats)):
        raise BadOptions(_seating_error(options, seats))


def _seating_error(options: TableOptions, seats: Sequence[int]) -> str:
    decks = " ".join(str(deck + 1) for deck in seats)
    if not options.teams:
        return (
            f"seats playing decks {decks}: without teams every seat plays a deck of its "
            "own (two seats share a deck only as a team)"
        )
    return f"seats playing decks {decks} are not how teams {options.teams_text()} sit"


def deal(
    options: TableOptions,
    seats: Sequence[int],
    *,
    rng: random.Random | None = None,
    orders: Sequence[Sequence[Card]] | None = None,
) -> State:
    """Deal a round from explicit deck orders, or from decks shuffled by ``rng``.

    A deck order lists cards in the order they are dealt: the Nerts pile first (its last
    card is the face-up top), then one card to each work pile, then the stock, whose first
    card is its top.
    """
    check_seats(options, seats)
    decks = max(seats) + 1
    if orders is None:
        if rng is None:
            raise BadOptions("deal needs deck orders or a seeded random generator")
        orders = [shuffled_deck(deck, options, rng) for deck in range(decks)]
    if len(orders) != decks:
        raise BadOptions(f"{len(orders)} deck orders for {decks} decks")
    tableaux = tuple(deal_tableau(deck, order, options) for deck, order in enumerate(orders))
    return State(options, tuple(seats), tableaux, ())


def shuffled_deck(deck: int, options: TableOptions, rng: random.Random) -> tuple[Card, ...]:
    """One deck shuffled by ``rng``: the only randomness a deal has."""
    cards = list(new_deck(deck, jokers=options.jokers))
    rng.shuffle(cards)
    return tuple(cards)


def deal_tableau(deck: int, order: Sequence[Card], options: TableOptions) -> Tableau:
    """One deck's tableau dealt from its order (see `deal`)."""
    if sorted(order) != sorted(new_deck(deck, jokers=options.jokers)):
        raise BadOptions(f"deck order {deck} is not exactly the cards of deck {deck}")
    n, w = options.nerts_pile, options.work_piles
    work = tuple(pile_of((card,)) for card in order[n : n + w])
    stock = tuple(reversed(order[n + w :]))
    return Tableau(deck, tuple(order[:n]), work, stock)


def pile_of(cards: tuple[Card, ...]) -> WorkPile:
    """A work pile holding one card, or a run whose bottom card is real."""
    bottom = cards[0]
    if bottom.is_joker:
        return WorkPile(cards)
    return WorkPile(cards, bottom.rank, bottom.red)


def public_view(state: State) -> State:
    """The table as everyone sees it: every face-down card hidden, counts kept."""
    return state._replace(tableaux=tuple(_hide(t) for t in state.tableaux))


def private_view(state: State, seat: int) -> State:
    """The table as one seat's peer holds it: public, plus its own deck's face-down order."""
    own = state.seats[seat]
    return state._replace(tableaux=tuple(t if t.deck == own else _hide(t) for t in state.tableaux))


def _hide(tableau: Tableau) -> Tableau:
    nerts = tableau.nerts
    hidden_nerts = (HIDDEN,) * (len(nerts) - 1) + nerts[-1:]
    return tableau._replace(nerts=hidden_nerts, stock=(HIDDEN,) * len(tableau.stock))


def all_cards(state: State) -> list[Card | None]:
    """Every card on the table, once each (hidden ones as None), in a fixed order."""
    cards: list[Card | None] = []
    for t in state.tableaux:
        cards += t.nerts
        for pile in t.work:
            cards += pile.cards
        cards += t.stock
        cards += t.waste
    for f in state.all_foundations():
        cards += f.cards
    return cards
