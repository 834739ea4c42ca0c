"""Every built-in policy, on many seeded positions: only legal moves, only its own view."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pnerts.bots import POLICIES, BaselineBot, Sight, StrongBot
from p2pnerts.rules import (
    HIDDEN,
    NERTS,
    CallNerts,
    DeclareStuck,
    State,
    Tableau,
    TableOptions,
    ToFoundation,
    TurnStock,
    apply,
    deal,
    is_stuck,
    legal_moves,
    private_view,
    solo_seats,
)

OPTIONS = {
    "standard": TableOptions(),
    "turn-one-five-piles": TableOptions(stock_turn=1, work_piles=5),
    "jokers": TableOptions(jokers=True),
}


def positions(seed: int, players: int, options: TableOptions) -> list[State]:
    """Full-knowledge states along one round played by a mix of the built-in policies."""
    rng = random.Random(seed)
    state = deal(options, solo_seats(players), rng=rng)
    names = sorted(POLICIES)
    bots = [POLICIES[names[(seed + s) % len(names)]](random.Random(s)) for s in range(players)]
    seen = [state]
    for _ in range(20_000):
        if state.ended is not None:
            return seen
        seat = rng.randrange(players)
        move = bots[seat].choose(private_view(state, seat), seat)
        if move is not None:
            state, _ = apply(state, move)
            if state.ended is None and rng.random() < 0.05:
                seen.append(state)
    raise AssertionError(f"seed {seed}: the round did not end")


@pytest.mark.parametrize("name", sorted(POLICIES))
@pytest.mark.parametrize("options", OPTIONS.values(), ids=OPTIONS.keys())
def test_a_policy_only_ever_chooses_a_legal_move(name: str, options: TableOptions) -> None:
    checked = 0
    for seed in range(8):
        players = 2 + seed % 4
        for state in positions(seed, players, options):
            for seat in range(players):
                view = private_view(state, seat)
                move = POLICIES[name](random.Random(seed)).choose(view, seat)
                if move is None:
                    continue
                assert move in legal_moves(view, seat), (seed, seat, move)
                apply(state, move)  # the full table accepts it too
                checked += 1
    assert checked > 100


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    players=st.integers(2, 6),
    options=st.sampled_from(list(OPTIONS.values())),
    steps=st.integers(0, 250),
)
def test_no_policy_chooses_an_illegal_move_anywhere_random_play_leads(
    seed: int, players: int, options: TableOptions, steps: int
) -> None:
    """Positions reached by random legal moves (stranger than any bot makes): each
    policy's choice for each seat is one of that seat's legal moves, and the full table
    accepts it."""
    rng = random.Random(seed)
    state = deal(options, solo_seats(players), rng=rng)
    for _ in range(steps):
        if state.ended is not None:
            break
        seat = rng.randrange(players)
        moves = [m for m in legal_moves(state, seat) if not isinstance(m, CallNerts | DeclareStuck)]
        if moves:
            state, _ = apply(state, rng.choice(moves))
    for seat in range(players):
        view = private_view(state, seat)
        for name, make in sorted(POLICIES.items()):
            move = make(random.Random(seed)).choose(view, seat)
            if move is not None:
                assert move in legal_moves(view, seat), (name, seat, move)
                apply(state, move)


def _other_hidden_cards_shuffled(state: State, seat: int, rng: random.Random) -> State:
    """The same table, but every other deck's face-down cards (Nerts pile below its top,
    the stock) dealt again in another order: only what this seat cannot see differs."""
    own = state.seats[seat]
    tableaux = []
    for t in state.tableaux:
        if t.deck == own:
            tableaux.append(t)
            continue
        hidden = [c for c in (*t.nerts[:-1], *t.stock) if c is not None]
        rng.shuffle(hidden)
        n = len(t.nerts) - 1
        tableaux.append(t._replace(nerts=(*hidden[:n], *t.nerts[-1:]), stock=tuple(hidden[n:])))
    return state._replace(tableaux=tuple(tableaux))


def _others_hide_cards(state: State, seat: int) -> bool:
    own = state.tableau_of(seat)
    return any(
        t.deck != own.deck and (len(t.nerts) > 2 or len(t.stock) > 1) for t in state.tableaux
    )


@pytest.mark.parametrize("name", sorted(POLICIES))
def test_a_policy_decides_without_other_players_face_down_cards(name: str) -> None:
    """Given the full table, with every other deck's face-down cards in two different
    orders, a policy makes the same choice: it reads nothing it could not see."""
    rng = random.Random(1)
    compared = differed = 0
    for seed in range(10):
        for state in positions(seed, 4, TableOptions()):
            for seat in range(4):
                if not _others_hide_cards(state, seat):
                    continue
                other = _other_hidden_cards_shuffled(state, seat, rng)
                differed += other != state
                first = POLICIES[name](random.Random(seed)).choose(state, seat)
                second = POLICIES[name](random.Random(seed)).choose(other, seat)
                assert first == second, (seed, seat)
                compared += 1
    assert compared > 100 and differed > 100, "the shuffles changed nothing: no check ran"


def test_the_leak_check_catches_a_policy_that_peeks() -> None:
    """The check above fails for a policy that reads another seat's stock."""

    class Peeking:
        def choose(self, view: State, seat: int) -> DeclareStuck | None:
            stock = view.tableaux[(view.seats[seat] + 1) % len(view.tableaux)].stock
            return DeclareStuck(seat) if stock and stock[-1] is not None and stock[-1].red else None

    state = deal(TableOptions(), solo_seats(3), rng=random.Random(3))
    rng = random.Random(0)
    choices = {Peeking().choose(_other_hidden_cards_shuffled(state, 0, rng), 0) for _ in range(20)}
    assert len(choices) == 2


def _own_nerts_shuffled(tableau: Tableau, rng: random.Random) -> Tableau:
    below = list(tableau.nerts[:-1])
    rng.shuffle(below)
    return tableau._replace(nerts=(*below, *tableau.nerts[-1:]))


def test_the_strong_bot_does_not_read_its_own_face_down_nerts_cards() -> None:
    rng = random.Random(2)
    compared = 0
    for seed in range(10):
        for state in positions(seed, 4, TableOptions()):
            for seat in range(4):
                own = state.seats[seat]
                if len(state.tableaux[own].nerts) < 3:
                    continue
                tableaux = list(state.tableaux)
                tableaux[own] = _own_nerts_shuffled(tableaux[own], rng)
                other = state._replace(tableaux=tuple(tableaux))
                view, other_view = private_view(state, seat), private_view(other, seat)
                assert StrongBot().choose(view, seat) == StrongBot().choose(other_view, seat)
                compared += 1
    assert compared > 100


def test_views_hide_nothing_a_policy_needs() -> None:
    """Sanity of the premise: a seat's view keeps its own cards and hides the others'."""
    state = deal(TableOptions(), solo_seats(3), rng=random.Random(5))
    view = private_view(state, 1)
    assert view.tableau_of(1) == state.tableau_of(1)
    assert all(c is HIDDEN for c in view.tableau_of(0).stock)


def test_the_strong_bot_calls_nerts_or_plays_up_once_its_pile_is_empty() -> None:
    for seed in range(30):
        for state in positions(seed, 4, TableOptions()):
            for seat in range(4):
                if state.tableau_of(seat).nerts:
                    continue
                move = StrongBot().choose(private_view(state, seat), seat)
                assert isinstance(move, CallNerts | ToFoundation), move


def test_the_baseline_plays_nerts_cards_before_anything_but_a_call() -> None:
    checked = 0
    for seed in range(10):
        for state in positions(seed, 3, TableOptions()):
            for seat in range(3):
                view = private_view(state, seat)
                moves = legal_moves(view, seat)
                nerts = [m for m in moves if getattr(m, "source", None) == NERTS]
                if not nerts or CallNerts(seat) in moves:
                    continue
                assert BaselineBot().choose(view, seat) in nerts
                checked += 1
    assert checked > 20


@pytest.mark.parametrize("name", ["baseline", "strong"])
def test_a_policy_declares_stuck_only_when_it_is(name: str) -> None:
    """Over whole rounds of the policy at both seats: each time it says stuck, the seat is
    (on the full state), though it knows its stock only as it has seen it turned."""
    declared = 0
    for seed in range(10):
        rng = random.Random(seed)
        state = deal(TableOptions(), solo_seats(2), rng=rng)
        bots = [POLICIES[name](random.Random(s)) for s in range(2)]
        for _ in range(20_000):
            if state.ended is not None:
                break
            seat = rng.randrange(2)
            move = bots[seat].choose(private_view(state, seat), seat)
            if isinstance(move, DeclareStuck):
                assert is_stuck(state, seat)
                declared += 1
            if move is not None:
                state, _ = apply(state, move)
    assert declared > 0


def test_a_sight_knows_the_stock_once_it_has_turned_through_it() -> None:
    state = deal(TableOptions(), solo_seats(2), rng=random.Random(4))
    sight = Sight()
    assert all(c is HIDDEN for c in sight.known(state, 0).tableau_of(0).stock)
    while state.tableau_of(0).stock:
        sight.known(state, 0)
        state, _ = apply(state, TurnStock(0))
    sight.known(state, 0)
    state, _ = apply(state, TurnStock(0))  # the waste turned over: the second pass
    known = sight.known(state, 0).tableau_of(0)
    assert known.stock == state.tableau_of(0).stock and HIDDEN not in known.stock


def test_a_sight_forgets_the_stock_when_a_new_round_is_dealt() -> None:
    sight = Sight()
    state = deal(TableOptions(), solo_seats(2), rng=random.Random(4))
    for _ in range(30):
        sight.known(state, 0)
        state, _ = apply(state, TurnStock(0))
    assert HIDDEN not in sight.known(state, 0).tableau_of(0).stock
    again = deal(TableOptions(), solo_seats(2), rng=random.Random(5))
    assert all(c is HIDDEN for c in sight.known(again, 0).tableau_of(0).stock)
