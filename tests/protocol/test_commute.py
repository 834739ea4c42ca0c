"""What version 3's commit rule takes on trust from the rules of Nerts: two moves whose spots
do not conflict (`_spots.spots_of`, `_spots.conflict`) commute. Played in either order on
any table both are legal on, they end on the same table with the same cards shown, and
neither makes the other legal or illegal. So seats that commit them in different orders
(`_order`: plays of different spots commute) hold the same table at every barrier.

Tables come from real deals played on by random legal moves, at solo and team tables, with
and without jokers."""

from __future__ import annotations

import random
from itertools import combinations

import pytest
from _cards import card, cards, order

from p2pnerts.protocol._spots import conflict, spots_of
from p2pnerts.rules import (
    NERTS,
    Foundation,
    IllegalMove,
    Move,
    State,
    TableOptions,
    ToFoundation,
    apply,
    deal,
    legal_moves,
    state_digest,
)

TABLES = [
    (TableOptions(), (0, 1, 2, 3)),
    (TableOptions(jokers=True), (0, 1, 2)),
    (TableOptions(teams=(2, 2)), (0, 0, 1, 1)),
    (TableOptions(teams=(1, 3), nerts_pile=4), (0, 1, 1, 1)),
]


def _after(state: State, *moves: Move) -> State | None:
    """``state`` with ``moves`` applied in turn, or None once one is illegal."""
    for move in moves:
        try:
            state, _ = apply(state, move)
        except IllegalMove:
            return None
    return state


def _tables(options: TableOptions, seats: tuple[int, ...], seed: int) -> list[State]:
    """Tables met along one round played by random legal moves (foundation plays first
    half the time, as players make them), every fifth kept."""
    rng = random.Random(seed)
    state = deal(options, seats, rng=rng)
    kept = []
    for step in range(400):
        if state.ended is not None:
            break
        seat = rng.randrange(len(seats))
        moves = legal_moves(state, seat)
        if not moves:
            continue
        move = moves[0] if rng.random() < 0.5 else rng.choice(moves)
        state, _ = apply(state, move)
        if step % 5 == 0:
            kept.append(state)
    return kept


@pytest.mark.parametrize(("options", "seats"), TABLES)
def test_moves_of_spots_that_do_not_conflict_commute(
    options: TableOptions, seats: tuple[int, ...]
) -> None:
    pairs = 0
    for seed in range(6):
        for state in _tables(options, seats, seed):
            moves = [
                (seat, move, spots_of(move, seats[seat]))
                for seat in range(len(seats))
                for move in legal_moves(state, seat)
            ]
            for (a_seat, a, a_spots), (b_seat, b, b_spots) in combinations(moves, 2):
                if a_seat == b_seat or conflict(a_spots, b_spots):
                    continue
                ab, ba = _after(state, a, b), _after(state, b, a)
                assert ab is not None and ba is not None, (a, b)
                assert state_digest(ab) == state_digest(ba), (a, b)
                pairs += 1
    assert pairs > 1000


def test_two_foundations_completed_by_two_players_are_set_aside_alike_in_either_order() -> None:
    """Two kings onto two foundations act on two spots: seats may commit them in either
    order. The foundations set aside stay in the order they were started, whichever king
    came first (they were in the order completed, so the tables differed)."""
    options = TableOptions()
    decks = [order(0, ["KH"], [], options), order(1, ["KS"], [], options)]
    state = deal(options, (0, 1), orders=decks)
    names = "A 2 3 4 5 6 7 8 9 10 J Q"
    spades = Foundation(0, card("AS").suit, 12, cards(" ".join(f"{n}S" for n in names.split())))
    hearts = Foundation(1, card("AH").suit, 12, cards(" ".join(f"{n}H" for n in names.split())))
    state = state._replace(foundations=(spades, hearts), next_foundation=2)
    first = ToFoundation(0, card("KH", 0), NERTS, 1)
    second = ToFoundation(1, card("KS", 1), NERTS, 0)
    assert not conflict(spots_of(first, 0), spots_of(second, 1))
    ab, ba = _after(state, first, second), _after(state, second, first)
    assert ab is not None and ba is not None
    assert [f.id for f in ab.completed] == [f.id for f in ba.completed] == [0, 1]
    assert state_digest(ab) == state_digest(ba)
