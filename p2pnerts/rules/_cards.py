"""Cards: rank, suit, colour and the deck (owner) each card belongs to."""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

ACE = 1
JACK = 11
QUEEN = 12
KING = 13
JOKER = 0
"""The rank a joker carries; jokers stand for a declared card instead."""


class Suit(IntEnum):
    """The four suits; hearts and diamonds are red."""

    SPADES = 0
    HEARTS = 1
    DIAMONDS = 2
    CLUBS = 3

    @property
    def red(self) -> bool:
        return self in _RED

    @property
    def symbol(self) -> str:
        return "♠♥♦♣"[self]

    @property
    def letter(self) -> str:
        return "SHDC"[self]


_RED = frozenset({Suit.HEARTS, Suit.DIAMONDS})
_RANK_NAMES = ("★", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


class Card(NamedTuple):
    """One physical card: the deck it belongs to, its rank (1–13, 0 for a joker) and suit.

    A joker's suit only tells a deck's two jokers apart; in play it stands for whatever
    card it is declared or fixed as.
    """

    deck: int
    rank: int
    suit: Suit

    @property
    def red(self) -> bool:
        return self.suit in _RED

    @property
    def is_joker(self) -> bool:
        return self.rank == JOKER

    def label(self, *, ascii_only: bool = False) -> str:
        """The card as a player reads it: ``7♥`` (or ``7H``), ``Joker`` for a joker."""
        if self.rank == JOKER:
            return "Joker"
        suit = self.suit.letter if ascii_only else self.suit.symbol
        return f"{_RANK_NAMES[self.rank]}{suit}"

    def __str__(self) -> str:
        return self.label()


def rank_name(rank: int) -> str:
    """The short name of a rank: ``A``, ``2`` … ``10``, ``J``, ``Q``, ``K``."""
    return _RANK_NAMES[rank]


def describe(rank: int, suit: Suit) -> str:
    """A rank and suit as a player reads them, e.g. ``Q♠``."""
    return f"{_RANK_NAMES[rank]}{suit.symbol}"


def new_deck(deck: int, *, jokers: bool = False) -> tuple[Card, ...]:
    """A fresh deck in a fixed order: suits in enum order, ranks ace to king, then jokers."""
    cards = [Card(deck, rank, suit) for suit in Suit for rank in range(ACE, KING + 1)]
    if jokers:
        cards += [Card(deck, JOKER, Suit.SPADES), Card(deck, JOKER, Suit.HEARTS)]
    return tuple(cards)


def card_code(card: Card) -> int:
    """A card as one stable integer: deck × 64 + rank × 4 + suit."""
    return card.deck << 6 | card.rank << 2 | card.suit


def card_from_code(code: int) -> Card:
    """The card `card_code` gave ``code`` for (the caller checks the range)."""
    return Card(code >> 6, code >> 2 & 15, Suit(code & 3))
