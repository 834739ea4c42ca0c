"""Small builders for rules tests: cards from short names, tables with chosen piles.

Cards are written as a player reads them, ``"7H"``, ``"10S"``, ``"QD"``, several
separated by spaces (``"KD QS JH"``). Piles list cards bottom first, as the state does:
the last card named is the top.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence

import pytest
from _cards import card as card
from _cards import cards as named

from p2pnerts.rules import (
    JOKER,
    Card,
    Foundation,
    IllegalMove,
    Move,
    State,
    Suit,
    Tableau,
    TableOptions,
    WorkPile,
    apply,
    join,
    new_deck,
    pile_of,
    state_digest,
)

Cards = str | Sequence[Card]
"""Cards by short names in one string, or as `Card` values (for jokers)."""


def cards(names: Cards, deck: int = 0) -> tuple[Card, ...]:
    """Cards of ``deck`` from space-separated short names (or the cards themselves)."""
    if isinstance(names, str):
        return named(names, deck)
    return tuple(names)


def joker(deck: int = 0, second: bool = False) -> Card:
    """One of a deck's two jokers."""
    return Card(deck, JOKER, Suit.HEARTS if second else Suit.SPADES)


def work_pile(names: Cards, deck: int = 0) -> WorkPile:
    """A work pile built card by card with the engine's own `join`, so it is a legal one."""
    run = cards(names, deck)
    if not run:
        return WorkPile()
    pile = pile_of(run[:1])
    for one in run[1:]:
        pile = join(pile, pile_of((one,)))
    return pile


def tableau(
    deck: int = 0,
    *,
    nerts: Cards = "",
    work: Sequence[Cards] = (),
    stock: Cards = "",
    waste: Cards = "",
    piles: int = 4,
) -> Tableau:
    """A tableau with chosen piles; ``work`` is padded with empty piles up to ``piles``."""
    work_piles = [work_pile(names, deck) for names in work]
    work_piles += [WorkPile()] * (piles - len(work_piles))
    return Tableau(
        deck,
        cards(nerts, deck),
        tuple(work_piles),
        cards(stock, deck),
        cards(waste, deck),
    )


def foundation(fid: int, names: Cards, deck: int = 0) -> Foundation:
    """A foundation built from its ace up, all cards from one deck unless given as cards."""
    built = cards(names, deck)
    return Foundation(fid, built[0].suit, len(built), built)


def table(
    *tableaux: Tableau,
    foundations: Sequence[Foundation] = (),
    options: TableOptions | None = None,
    seats: Sequence[int] | None = None,
) -> State:
    """A state from tableaux (deck 0, 1, … in order) and foundations; one seat per deck."""
    assert [t.deck for t in tableaux] == list(range(len(tableaux)))
    return State(
        options or TableOptions(),
        tuple(range(len(tableaux)) if seats is None else seats),
        tableaux,
        tuple(foundations),
        next_foundation=max((f.id + 1 for f in foundations), default=0),
    )


def deck_order(
    deck: int = 0,
    *,
    options: TableOptions | None = None,
    nerts: Cards = "",
    work: Cards = "",
    stock: Cards = "",
) -> tuple[Card, ...]:
    """A dealing order for `deal` with chosen cards where they matter.

    ``nerts`` names the top of the Nerts pile (bottom first: the last is the face-up top),
    ``work`` the first work piles' cards, ``stock`` the stock's first cards from its top
    down. The deck's other cards fill every other place in `new_deck` order.
    """
    options = options or TableOptions()
    top, piles, turned = cards(nerts, deck), cards(work, deck), cards(stock, deck)
    rest = [c for c in new_deck(deck, jokers=options.jokers) if c not in top + piles + turned]
    below = options.nerts_pile - len(top)
    more_piles = options.work_piles - len(piles)
    filler = rest[below : below + more_piles]
    return (*rest[:below], *top, *piles, *filler, *turned, *rest[below + more_piles :])


def top_first(pile: Sequence[Card | None]) -> tuple[Card | None, ...]:
    """A stock read from its top down, the way it is turned."""
    return tuple(reversed(pile))


def play(state: State, *moves: Move) -> State:
    """The state after applying ``moves`` in order, each one legal."""
    for move in moves:
        state, _ = apply(state, move)
    return state


def assert_illegal(state: State, move: Move, reason: str, *, tie: bool = False) -> None:
    """``move`` raises `IllegalMove` whose message contains ``reason``, and the state given
    is left exactly as it was."""
    snapshot = copy.deepcopy(state)
    digest = state_digest(state)
    with pytest.raises(IllegalMove, match=re.escape(reason)):
        apply(state, move, tie=tie)
    assert state == snapshot
    assert state_digest(state) == digest
