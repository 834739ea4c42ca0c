"""Tables for the front end's tests: a deal chosen card by card, and tables played on."""

from __future__ import annotations

import random
from collections.abc import Sequence

from _cards import card as named
from _cards import order as order

from p2pnerts.bots import SimpleBot
from p2pnerts.rules import (
    Card,
    State,
    TableOptions,
    apply,
    deal,
    private_view,
    solo_seats,
)


def card(deck: int, name: str) -> Card:
    """A card named like ``"7H"``, ``"AS"``, ``"10D"``."""
    return named(name, deck)


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
