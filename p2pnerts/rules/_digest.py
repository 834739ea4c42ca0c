"""A stable digest of a state: equal states give equal digests in every process and on
every platform (unlike ``hash()``), so peers can compare what they have committed.

The state is written as bytes in a fixed layout (every sequence prefixed by its length,
every card as deck, rank and suit, 255 for a hidden card) and hashed with BLAKE2b.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from p2pnerts.rules._cards import Card
from p2pnerts.rules._state import State, public_view

DIGEST_SIZE = 16
_HIDDEN = b"\xff\xff\xff"


def state_digest(state: State) -> bytes:
    """The digest of everything the state knows, hidden cards as hidden."""
    out = bytearray(b"p2pnerts-state-1")
    o = state.options
    _ints(out, o.numbers())
    out += o.tie_rule.value.encode()
    _ints(out, state.seats)
    for t in state.tableaux:
        _ints(out, (t.deck, t.stuck))
        _cards(out, t.nerts)
        for pile in t.work:
            _ints(out, (pile.base_rank, pile.base_red))
            _cards(out, pile.cards)
        _cards(out, t.stock)
        _cards(out, t.waste)
        if t.fixed:  # only then, so that a table without jokers digests as it always did
            _cards(out, (f.card for f in t.fixed))
            _ints(out, (n for f in t.fixed for n in (f.rank, f.red)))
    for group in (state.foundations, state.completed):
        _ints(out, (len(group),))
        for f in group:
            _ints(out, (f.id, f.suit, f.rank))
            _cards(out, f.cards)
    ended = state.ended
    end = (0, 0) if ended is None else (1 + (ended.reason == "stuck"), 1 + (ended.caller or 0))
    _ints(out, (state.next_foundation, state.rotations, state.played_since_rotation, *end))
    return hashlib.blake2b(bytes(out), digest_size=DIGEST_SIZE).digest()


def public_digest(state: State) -> bytes:
    """The digest of the public table alone: what every peer of a table can agree on."""
    return state_digest(public_view(state))


def _ints(out: bytearray, values: Iterable[int]) -> None:
    values = tuple(values)
    out += len(values).to_bytes(2, "big")
    for v in values:
        out += int(v).to_bytes(4, "big", signed=True)


def _cards(out: bytearray, cards: Iterable[Card | None]) -> None:
    cards = tuple(cards)
    out += len(cards).to_bytes(2, "big")
    for c in cards:
        out += _HIDDEN if c is None else bytes((c.deck, c.rank, c.suit))
