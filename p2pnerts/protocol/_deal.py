"""Deals no one chooses: secrets, pledges, the common seed, the shuffle, and the audit.

Each deck's order for a round is a shuffle seeded from two values: a secret its seat
pledged (by hash) before anyone could know the other value, and the round's *common
seed*, made of the secrets every deck revealed after the round before (SPEC §3.5, §5.1).
So no seat picks its deck, none can compute another's before that seat reveals its
secret, and every peer recomputes and checks every deck afterwards. A deck that its seat
lied about, or whose secret never came, fails the audit: its round is voided (§5.5).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
from collections.abc import Callable, Mapping, Sequence

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
    new_deck,
    pile_of,
)

SECRET_BYTES = 32
"""The size of a round's secret."""
NEVER_REVEALED = "it never revealed its secret"
"""Why a deck whose seats all left the table before revealing fails the audit."""
SHUFFLES_KEPT = 256
"""How many deck orders a process remembers, and audit replays (`REPLAYS_KEPT`): every
replica of a simulated table computes the same ones, from the same inputs, as a round
ends."""
REPLAYS_KEPT = 16

Shuffle = Callable[[int, int, bytes, bytes], tuple[Card, ...]]
"""How a deck's order follows from (deck, round, secret, seed): `shuffle` on the wire. A
simulator may agree other decks for all its replicas alike (the arena's fair deals)."""


def pledge(number: int, deck: int, secret: bytes) -> bytes:
    """The hash a deck's seat publishes in the Ready before round ``number``: binding it to
    that round's secret without showing it."""
    head = b"p2pnerts-pledge-2" + number.to_bytes(4, "big") + deck.to_bytes(1, "big")
    return hashlib.sha256(head + secret).digest()


def common_seed(number: int, secrets: Mapping[int, bytes]) -> bytes:
    """Round ``number``'s common seed, from each deck's secret revealed after the round
    before (``secrets`` by deck)."""
    digest = hashlib.sha256(b"p2pnerts-seed-2" + number.to_bytes(4, "big"))
    for deck, secret in sorted(secrets.items()):
        digest.update(deck.to_bytes(1, "big") + secret)
    return digest.digest()


def derived(secret: bytes, label: int) -> bytes:
    """A secret derived from another, one-way: round 0's from round 1's (§5.1), and a
    seat's first secrets from the randomness it is given."""
    return hashlib.sha256(b"p2pnerts-derive-2" + label.to_bytes(4, "big") + secret).digest()


@functools.lru_cache(maxsize=SHUFFLES_KEPT)
def shuffle(
    deck: int, number: int, secret: bytes, seed: bytes, *, options: TableOptions
) -> tuple[Card, ...]:
    """Deck ``deck``'s order in round ``number``: a Fisher–Yates shuffle whose draws come
    from HMAC-SHA-256 keyed with the deck's secret over the common seed (§3.5)."""
    cards = sorted(new_deck(deck, jokers=options.jokers), key=card_code)  # codes ascending
    draws = _draws(secret, seed + number.to_bytes(4, "big") + deck.to_bytes(1, "big"))
    for i in range(len(cards) - 1, 0, -1):
        j = _below(i + 1, draws)
        cards[i], cards[j] = cards[j], cards[i]
    return tuple(cards)


def _draws(key: bytes, message: bytes) -> Callable[[], int]:
    """32-bit draws: HMAC(key, message ‖ counter), 8 draws a block."""
    block: list[int] = []
    counter = 0

    def draw() -> int:
        nonlocal counter
        if not block:
            mac = hmac.new(key, message + counter.to_bytes(4, "big"), hashlib.sha256).digest()
            block.extend(int.from_bytes(mac[k : k + 4], "big") for k in range(28, -1, -4))
            counter += 1
        return block.pop()

    return draw


def _below(n: int, draw: Callable[[], int]) -> int:
    """A uniform draw in 0 … n−1, rejecting the draws above the last whole multiple of n."""
    limit = (1 << 32) - (1 << 32) % n
    while (value := draw()) >= limit:
        pass
    return value % n


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


def check_deck(
    options: TableOptions,
    deal: Shuffle,
    deck: int,
    number: int,
    seed: bytes,
    promised: bytes | None,
    secret: bytes | None,
    shown: Sequence[Card],
) -> tuple[tuple[Card, ...], str]:
    """One dealt deck's order, checked against its pledge and the cards it showed; or no
    order and the reason it fails (§5.5 steps 1 and 2)."""
    if promised is None:
        return (), "it dealt without a pledge standing for the round"
    if secret is None:
        return (), NEVER_REVEALED
    if pledge(number, deck, secret) != promised:
        return (), "its revealed secret does not match its pledge"
    order = deal(deck, number, secret, seed)
    if tuple(face_up(order, options)) != tuple(shown):
        return (), "the cards it dealt face up are not its deck's"
    return order, ""


def replay(
    public: State, decks: Mapping[int, Sequence[Card]], log: Sequence[tuple[Move, bool]]
) -> dict[int, tuple[int, str]]:
    """Replay a round with the checked decks known (§5.5 step 2): per deck whose order
    contradicts a move, the seat that made the first such move and why; empty if every
    move fits.

    A deck found contradicted is dealt unknown and the round replayed again, until every
    move fits. So each deck's verdict rests on its own moves and the public table alone,
    never on which contradicted deck a replay met first: seats that committed plays of
    different spots in different sequences (they commute) fail the same decks, each
    naming the same seat."""
    known = {deck: tuple(order) for deck, order in decks.items()}
    failed: dict[int, tuple[int, str]] = {}
    while (found := _replay(public, tuple(sorted(known.items())), tuple(log))) is not None:
        deck, seat, why = found
        failed[deck] = (seat, why)
        del known[deck]
    return failed


@functools.lru_cache(maxsize=REPLAYS_KEPT)
def _replay(
    public: State,
    decks: tuple[tuple[int, tuple[Card, ...]], ...],
    log: tuple[tuple[Move, bool], ...],
) -> tuple[int, int, str] | None:
    """The first move of the log that the known decks contradict: its deck, its seat and
    why; None if every move fits."""
    # Keyed by every input, by value: an equal replay has the same verdict.
    known = dict(decks)
    state = public._replace(
        tableaux=tuple(_dealt(t, known, public.options) for t in public.tableaux)
    )
    for move, tie in log:
        try:
            state, _ = apply(state, move, tie=tie)
        except IllegalMove as exc:
            why = f"a card it showed contradicts its deck: {exc}"
            return state.tableau_of(move.seat).deck, move.seat, why
    return None


def _dealt(
    public: Tableau, known: Mapping[int, tuple[Card, ...]], options: TableOptions
) -> Tableau:
    """A deck's tableau as the replay deals it: from its order where that is known and
    deals (an order checked against its shuffle always does), else as the table saw it."""
    order = known.get(public.deck)
    if order is None:
        return public
    try:
        return deal_tableau(public.deck, order, options)
    except RulesError:
        return public
