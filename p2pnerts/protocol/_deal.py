"""Dealing in the open without showing one's cards: commitments, the public deal, the audit.

Each peer shuffles its own deck and shows only what the deal turns face up. Its Ready
message commits to the whole order with a salted SHA-256; after the round the order is
revealed, and every peer replays the round with every deck known: a reveal that does not
match its commitment, or a card shown during play that the order contradicts, flags that
seat.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

from p2pnerts.rules import (
    HIDDEN,
    Card,
    IllegalMove,
    Move,
    RulesError,
    State,
    Tableau,
    TableOptions,
    WorkPile,
    apply,
    card_code,
    deal_tableau,
    pile_of,
)


def commitment(salt: bytes, order: Sequence[Card]) -> bytes:
    """The salted hash a seat publishes before the round, binding it to its deck order."""
    digest = hashlib.sha256(b"p2pnerts-deck-1")
    digest.update(len(salt).to_bytes(1, "big") + salt)
    for card in order:
        digest.update(card_code(card).to_bytes(2, "big"))
    return digest.digest()


def face_up(order: Sequence[Card], options: TableOptions) -> tuple[Card, ...]:
    """The cards a deal from ``order`` shows: the Nerts pile's top, then each work pile."""
    n, w = options.nerts_pile, options.work_piles
    return (order[n - 1], *order[n : n + w])


def public_tableau(deck: int, shown: Sequence[Card], options: TableOptions) -> Tableau:
    """A tableau as the other seats see it after the deal: face-down cards hidden."""
    n, w = options.nerts_pile, options.work_piles
    if len(shown) != 1 + w or any(c.deck != deck for c in shown):
        raise RulesError(f"deck {deck + 1} shows {len(shown)} cards, the deal shows {1 + w}")
    stock = options.deck_size - n - w
    nerts = (HIDDEN,) * (n - 1) + (shown[0],)
    return Tableau(deck, nerts, tuple(pile_of((c,)) for c in shown[1:]), (HIDDEN,) * stock)


def public_deal(
    options: TableOptions, seats: Sequence[int], shown: Mapping[int, Sequence[Card]]
) -> State:
    """The state every peer agrees on at the start: all decks' face-up cards, no more.

    A deck that was not dealt in (its seat away when the round began) is an empty tableau.
    """
    decks = max(seats) + 1
    tableaux = tuple(
        public_tableau(d, shown[d], options) if d in shown else _empty(d, options)
        for d in range(decks)
    )
    return State(options, tuple(seats), tableaux, ())


def _empty(deck: int, options: TableOptions) -> Tableau:
    return Tableau(deck, (), (WorkPile(),) * options.work_piles, ())


def with_own_deck(public: State, deck: int, order: Sequence[Card]) -> State:
    """The public deal with one deck's face-down cards known: what that deck's peer holds."""
    own = deal_tableau(deck, order, public.options)
    tableaux = public.tableaux
    return public._replace(tableaux=tableaux[:deck] + (own,) + tableaux[deck + 1 :])


def audit(
    options: TableOptions,
    seats: Sequence[int],
    reveals: Mapping[int, tuple[bytes, Sequence[Card]]],
    commitments: Mapping[int, bytes],
    shown: Mapping[int, Sequence[Card]],
    log: Sequence[tuple[Move, bool]],
) -> list[tuple[int, str]]:
    """Check every revealed deck, and replay the round with those decks known.

    ``reveals`` go by seat (each teammate reveals the team's deck); ``commitments`` and
    ``shown`` by deck. Returns (seat, reason) for each seat found cheating (empty when
    all is well).
    """
    failures = []
    decks: dict[int, Sequence[Card]] = {}
    for seat, (salt, order) in sorted(reveals.items()):
        deck = seats[seat]
        if deck not in commitments:
            continue
        if commitment(salt, order) != commitments[deck]:
            failures.append((seat, "revealed deck does not match its commitment"))
        elif tuple(face_up(order, options)) != tuple(shown[deck]):
            failures.append((seat, "revealed deck does not match the cards it dealt face up"))
        else:
            decks.setdefault(deck, order)
    if failures:
        return failures
    # Decks never revealed (their seats left, or lost their deck) are replayed as everyone
    # saw them: face-down cards unknown, so only the revealed decks are checked card by card.
    try:
        public = public_deal(options, seats, shown)
        tableaux = tuple(
            deal_tableau(d, decks[d], options) if d in decks else public.tableaux[d]
            for d in range(max(seats) + 1)
        )
    except RulesError as exc:
        return [(-1, f"revealed decks cannot be dealt: {exc}")]
    state = public._replace(tableaux=tableaux)
    for move, tie in log:
        try:
            state, _ = apply(state, move, tie=tie)
        except IllegalMove as exc:
            return [(move.seat, f"a card it showed contradicts its deck: {exc}")]
    return []
