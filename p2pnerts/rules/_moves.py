"""Moves a player can make, and the events applying them produces.

Piles are referenced by `NERTS`, `WASTE` or a work pile's index. A move names the card it
moves so that a peer applying someone else's move can check it against the public table,
and carries in ``revealed`` every card it turns face up (the next Nerts card, the cards
turned from the stock), so that a peer that does not know them learns them.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2pnerts.rules._cards import Card, Suit
from p2pnerts.rules._state import EndReason


@dataclass(frozen=True, slots=True)
class TurnStock:
    """Turn the next cards of the stock onto the waste, or the waste over as a new stock.

    ``rotation`` names how many times the stocks had been rotated when the turn was made
    (`State.rotations`; None: whenever it is applied, as a plan on one's own table is).
    A turn sent to the others names it: a rotation ordered between its making and its
    place leaves other cards on top of the stock than those it shows, so it is refused
    there, at every seat alike, as a play that lost a race is."""

    seat: int
    revealed: tuple[Card, ...] = ()
    rotation: int | None = None


@dataclass(frozen=True, slots=True)
class ToFoundation:
    """Play a card to a foundation, or start a new one with an ace.

    A joker names what it stands for in ``declare``.
    """

    seat: int
    card: Card
    source: int
    foundation: int
    declare: tuple[int, Suit] | None = None
    revealed: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class ToWork:
    """Move a card (from a work pile: with every card on it) onto a work pile or a space."""

    seat: int
    card: Card
    source: int
    dest: int
    revealed: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class SlideUnder:
    """Slide a card under a work pile while another work pile is empty."""

    seat: int
    card: Card
    source: int
    dest: int
    revealed: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class DeclareStuck:
    """Say this tableau has nothing more to play until everyone is stuck."""

    seat: int


@dataclass(frozen=True, slots=True)
class Rotate:
    """Everyone stuck: every stock is re-formed and its top card goes to the bottom."""

    seat: int


@dataclass(frozen=True, slots=True)
class CallNerts:
    """Call "Nerts!" with an empty Nerts pile, ending the round."""

    seat: int


Move = TurnStock | ToFoundation | ToWork | SlideUnder | DeclareStuck | Rotate | CallNerts
CardMove = ToFoundation | ToWork | SlideUnder


@dataclass(frozen=True, slots=True)
class CardPlayed:
    """A card reached a foundation; ``rank`` and ``suit`` say what it counts as there."""

    seat: int
    card: Card
    source: int
    foundation: int
    rank: int
    suit: Suit
    tie: bool


@dataclass(frozen=True, slots=True)
class CardsMoved:
    """Cards moved within one tableau, onto a work pile or under it."""

    seat: int
    cards: tuple[Card, ...]
    source: int
    dest: int
    under: bool


@dataclass(frozen=True, slots=True)
class CardsRevealed:
    """Cards turned face up (the next Nerts card, or cards turned from the stock)."""

    seat: int
    source: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class WasteTurnedOver:
    seat: int


@dataclass(frozen=True, slots=True)
class FoundationCompleted:
    foundation: int


@dataclass(frozen=True, slots=True)
class StuckDeclared:
    seat: int


@dataclass(frozen=True, slots=True)
class StocksRotated:
    rotation: int


@dataclass(frozen=True, slots=True)
class RoundEnded:
    reason: EndReason
    caller: int | None


Event = (
    CardPlayed
    | CardsMoved
    | CardsRevealed
    | WasteTurnedOver
    | FoundationCompleted
    | StuckDeclared
    | StocksRotated
    | RoundEnded
)
