"""No policy reads a face-down card of its own that its player has not seen.

A seat's view (`private_view`) holds its own deck's face-down order, as its peer does; a
person at the seat knows only what has turned face up: the Nerts card on top, and the
stock's cards once turned onto the waste. So a policy is held to what a person knows by
twin rounds: the seat's looks at a round are played to a fresh copy of the policy again,
with the cards it had not seen by some look put in another order under every look before
it (a deal that seat cannot tell from the real one), and it must choose as it did.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from p2pnerts.bots import POLICIES, ExpertBot, Policy
from p2pnerts.rules import (
    Card,
    Move,
    SlideUnder,
    State,
    TableOptions,
    ToFoundation,
    ToWork,
    TurnStock,
    apply,
    deal,
    private_view,
    solo_seats,
)

PLAYERS = 3
MAX_LOOKS = 2_000
"""The looks of one round played out, at most (a round rarely needs more)."""
CHECKS = 3
"""Looks of each seat after which the unseen cards are changed, per round."""


@dataclass(frozen=True, slots=True)
class Seat:
    """What one seat saw at each of its looks, and what its policy chose."""

    views: list[State]
    moves: list[Move | None]


def play(make: Callable[[random.Random], Policy], seed: int) -> list[Seat]:
    """A round of ``make``'s policy at every seat: each seat's looks and choices."""
    rng = random.Random(seed)
    state = deal(TableOptions(), solo_seats(PLAYERS), rng=rng)
    policies = [make(random.Random(seed * 100 + s)) for s in range(PLAYERS)]
    seats = [Seat([], []) for _ in range(PLAYERS)]
    for _ in range(MAX_LOOKS):
        if state.ended is not None:
            break
        seat = rng.randrange(PLAYERS)
        view = private_view(state, seat)
        move = policies[seat].choose(view, seat)
        seats[seat].views.append(view)
        seats[seat].moves.append(move)
        if move is not None:
            state, _ = apply(state, move)
    return seats


def unseen(views: list[State], seat: int) -> set[Card]:
    """The seat's own face-down cards at the last of ``views`` that no look showed it: not
    the Nerts card on top, and never on the waste."""
    seen: set[Card] = set()
    for view in views:
        tableau = view.tableau_of(seat)
        seen.update(c for c in (*tableau.waste, *tableau.nerts[-1:]) if c is not None)
    tableau = views[-1].tableau_of(seat)
    face_down = (*tableau.nerts[:-1], *tableau.stock)
    return {c for c in face_down if c is not None} - seen


def relabelled(view: State, seat: int, to: dict[Card, Card]) -> State:
    """The view with the seat's face-down cards swapped as ``to`` says."""
    own = view.seats[seat]
    tableau = view.tableaux[own]

    def swap(cards: tuple[Card | None, ...]) -> tuple[Card | None, ...]:
        return tuple(None if c is None else to.get(c, c) for c in cards)

    twin = tableau._replace(nerts=(*swap(tableau.nerts[:-1]), *tableau.nerts[-1:]))
    twin = twin._replace(stock=swap(tableau.stock))
    tableaux = list(view.tableaux)
    tableaux[own] = twin
    return view._replace(tableaux=tuple(tableaux))


def plain(move: Move | None) -> Move | None:
    """The move without the face-down cards it turns up (their names are the deal's,
    which the twin changed; the rules fill them in, not the policy's judgement)."""
    match move:
        case TurnStock() | ToFoundation() | ToWork() | SlideUnder():
            return dataclasses.replace(move, revealed=())
    return move


def first_difference(
    make: Callable[[random.Random], Policy], seeds: range
) -> tuple[int, int, int] | None:
    """The first (seed, seat, look) at which ``make``'s policy chose otherwise in a twin
    round, over rounds ``seeds``; None if it never did. Fails if the twins changed nothing."""
    changed = 0
    for seed in seeds:
        rng = random.Random(seed)
        for seat, played in enumerate(play(make, seed)):
            looks = len(played.views)
            for last in sorted(rng.sample(range(looks), min(CHECKS, looks))):
                hidden = sorted(unseen(played.views[: last + 1], seat))
                if len(hidden) < 2:
                    continue
                shuffled = hidden[:]
                while shuffled == hidden:
                    rng.shuffle(shuffled)
                to = dict(zip(hidden, shuffled, strict=True))
                changed += 1
                policy = make(random.Random(seed * 100 + seat))
                for look in range(last + 1):
                    twin = relabelled(played.views[look], seat, to)
                    if plain(policy.choose(twin, seat)) != plain(played.moves[look]):
                        return seed, seat, look
    assert changed > 10, "too few twin rounds changed a card: nothing was checked"
    return None


@pytest.mark.parametrize("name", sorted(POLICIES))
def test_a_policy_chooses_alike_whatever_the_cards_it_has_not_seen(name: str) -> None:
    assert first_difference(POLICIES[name], range(8)) is None


class PeeksAtItsNextNertsCard:
    """The expert, but it waits a look whenever the Nerts card below its top is red."""

    def __init__(self, _: random.Random) -> None:
        self._expert = ExpertBot()

    def choose(self, view: State, seat: int) -> Move | None:
        nerts = view.tableau_of(seat).nerts
        move = self._expert.choose(view, seat)
        below = nerts[-2] if len(nerts) > 1 else None
        return None if below is not None and below.red else move


class RemembersItsDeal:
    """The expert, but it notes its Nerts pile at its first look, and from then on waits a
    look whenever the card it noted below its top is red: it reads its face-down cards
    once, as the round starts, and never again."""

    def __init__(self, _: random.Random) -> None:
        self._expert = ExpertBot()
        self._dealt: tuple[Card | None, ...] | None = None

    def choose(self, view: State, seat: int) -> Move | None:
        nerts = view.tableau_of(seat).nerts
        if self._dealt is None:
            self._dealt = nerts
            return self._expert.choose(view, seat)
        below = self._dealt[len(nerts) - 2] if len(nerts) > 1 else None
        move = self._expert.choose(view, seat)
        return None if below is not None and below.red else move


@pytest.mark.parametrize("cheat", [PeeksAtItsNextNertsCard, RemembersItsDeal])
def test_the_twin_rounds_catch_a_policy_that_reads_its_face_down_cards(
    cheat: Callable[[random.Random], Policy],
) -> None:
    assert first_difference(cheat, range(8)) is not None
