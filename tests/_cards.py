"""Cards by the names a player reads, for every test: one parser, one deck-order builder.

A card is named by its rank and suit: ``"7H"``, ``"10s"``, ``"A♠"``, ``"QD"`` (suit by
letter, either case, or by symbol).
"""

from __future__ import annotations

from collections.abc import Sequence

from p2pnerts.rules import Card, Suit, TableOptions, new_deck

_RANKS = {"A": 1, "J": 11, "Q": 12, "K": 13} | {str(n): n for n in range(2, 11)}
_SUITS = {s.letter: s for s in Suit} | {s.symbol: s for s in Suit}


def card(name: str, deck: int = 0) -> Card:
    """One card of ``deck`` by its name: ``"7H"``, ``"10s"``, ``"A♠"``."""
    return Card(deck, _RANKS[name[:-1].upper()], _SUITS[name[-1].upper()])


def cards(names: str, deck: int = 0) -> tuple[Card, ...]:
    """Cards of ``deck`` by their names, separated by spaces: ``"KD QS JH"``."""
    return tuple(card(name, deck) for name in names.split())


def order(
    deck: int, nerts: Sequence[str], work: Sequence[str], options: TableOptions
) -> list[Card]:
    """A deck order dealing ``nerts`` (bottom first; the last is the face-up top) and
    ``work``, the rest of the deck filling the Nerts pile below and making the stock, in a
    fixed order."""
    chosen = [card(name, deck) for name in (*nerts, *work)]
    rest = [c for c in new_deck(deck, jokers=options.jokers) if c not in chosen]
    n = options.nerts_pile
    if len(nerts) > n:
        raise ValueError("more Nerts cards than the pile holds")
    filler, rest = rest[: n - len(nerts)], rest[n - len(nerts) :]
    return [*filler, *chosen[: len(nerts)], *chosen[len(nerts) :], *rest]
