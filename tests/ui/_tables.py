"""Tables for the front end's tests: a deal chosen card by card, and tables played on."""

from __future__ import annotations

import random
from collections.abc import Sequence

from p2pnerts.bots import SimpleBot
from p2pnerts.rules import (
    Card,
    State,
    Suit,
    TableOptions,
    apply,
    deal,
    new_deck,
    private_view,
    solo_seats,
)


def card(deck: int, name: str) -> Card:
    """A card named like ``"7H"``, ``"AS"``, ``"10D"``."""
    ranks = {"A": 1, "J": 11, "Q": 12, "K": 13}
    rank = ranks.get(name[:-1]) or int(name[:-1])
    return Card(deck, rank, Suit("SHDC".index(name[-1])))


def order(
    deck: int, nerts: Sequence[str], work: Sequence[str], options: TableOptions
) -> list[Card]:
    """A deck order dealing ``nerts`` (the last is the face-up top) and ``work``; the rest
    of the deck fills the Nerts pile below and makes the stock, in a fixed order."""
    chosen = [card(deck, name) for name in (*nerts, *work)]
    rest = [c for c in new_deck(deck) if c not in chosen]
    filler, rest = rest[: options.nerts_pile - len(nerts)], rest[options.nerts_pile - len(nerts) :]
    return [*filler, *chosen[: len(nerts)], *chosen[len(nerts) :], *rest]


def dealt(nerts: Sequence[str], work: Sequence[str], options: TableOptions | None = None) -> State:
    """A two-seat table as seat 0 sees it, seat 0 dealt ``nerts`` and ``work``."""
    options = options or TableOptions()
    orders = [order(0, nerts, work, options), order(1, ["2C"], ["3H", "4H", "5H", "6H"], options)]
    return private_view(deal(options, solo_seats(2), orders=orders), 0)


def played(players: int, moves: int, seed: int = 1, options: TableOptions | None = None) -> State:
    """A table of ``players`` (in ``options``' teams) after bots made ``moves`` moves, as
    seat 0 sees it."""
    options = options or TableOptions()
    state = deal(options, options.seating(players), rng=random.Random(seed))
    bots = [SimpleBot(random.Random(seed + s)) for s in range(players)]
    rng = random.Random(seed)
    for _ in range(moves):
        seat = rng.randrange(players)
        move = bots[seat].choose(private_view(state, seat), seat)
        if move is not None and state.ended is None:
            state, _ = apply(state, move)
    return private_view(state, 0)
