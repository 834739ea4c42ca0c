"""Property tests: random playouts over every variant keep the engine's invariants.

Hypothesis draws the table options, the seating (2–14 players on their own, or teams),
a deal seed and how the playout chooses; a seeded `random.Random` then plays a few
hundred moves, choosing among `legal_moves` (and, now and then, a tie that arbitration
could grant). The checks run after every step.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Iterator
from typing import NamedTuple, cast

import pytest
from hypothesis import event, example, given, settings
from hypothesis import strategies as st

from p2pnerts.rules import (
    ACE,
    KING,
    NERTS,
    NEW_FOUNDATION,
    WASTE,
    CallNerts,
    Card,
    CardPlayed,
    CardsMoved,
    CardsRevealed,
    DeclareStuck,
    EndReason,
    Event,
    IllegalMove,
    Move,
    Rotate,
    SlideUnder,
    State,
    Suit,
    Tableau,
    TableOptions,
    TieRule,
    ToFoundation,
    ToWork,
    TurnStock,
    WorkPile,
    all_cards,
    apply,
    deal,
    exposed,
    legal_moves,
    new_deck,
    public_digest,
    public_view,
    score_round,
    solo_seats,
    state_digest,
)

MAX_MOVES = 300
"""A playout stops after this many steps if the round has not ended by then."""


# --- what Hypothesis draws ---------------------------------------------------------------


class Table(NamedTuple):
    options: TableOptions
    seats: tuple[int, ...]
    deal_seed: int


class Plan(NamedTuple):
    """How a playout chooses its moves: the seed, and how keen it is on stuck and ties."""

    seed: int
    stuck_weight: int
    tie_chance: float


teams_of_6 = st.lists(st.integers(1, 3), min_size=2, max_size=6).map(tuple)


@st.composite
def tables(draw: st.DrawFn) -> Table:
    options = TableOptions(
        nerts_pile=draw(st.one_of(st.just(13), st.integers(1, 26))),
        work_piles=draw(st.sampled_from((4, 5))),
        stock_turn=draw(st.sampled_from((3, 1))),
        jokers=draw(st.booleans()),
        nerts_bonus=draw(st.sampled_from((0, 10, 25))),
        card_points=draw(st.integers(0, 10)),
        nerts_penalty=draw(st.integers(0, 10)),
        tie_rule=draw(st.sampled_from(TieRule)),
        teams=draw(st.one_of(st.just(()), st.tuples(*[st.integers(1, 3)] * 2) | teams_of_6)),
    )
    players = sum(options.teams) or draw(st.integers(2, 14))
    return Table(options, options.seating(players), draw(st.integers(0, 2**32 - 1)))


plans = st.builds(
    Plan,
    seed=st.integers(0, 2**32 - 1),
    stuck_weight=st.sampled_from((0, 2, 60, 10_000)),
    tie_chance=st.sampled_from((0.0, 0.3, 1.0)),
)


def deal_table(table: Table) -> State:
    return deal(table.options, table.seats, rng=random.Random(table.deal_seed))


# --- playing a round out -----------------------------------------------------------------


class Step(NamedTuple):
    before: State
    seat: int
    move: Move
    tie: bool
    after: State
    events: list[Event]


def playout(table: Table, plan: Plan) -> Iterator[Step]:
    """Play random moves until the round ends or `MAX_MOVES` steps have passed."""
    rng = random.Random(plan.seed)
    state = deal_table(table)
    for _ in range(MAX_MOVES):
        if state.ended is not None:
            return
        seat = rng.randrange(len(state.seats))
        ties = tie_plays(state, seat)
        if ties and rng.random() < plan.tie_chance:
            move: Move = rng.choice(ties)
            tie = True
        else:
            moves = legal_moves(state, seat)
            weights = [_weight(m, plan.stuck_weight) for m in moves]
            if not sum(weights):
                continue  # nothing this seat cares to do: it waits
            move = rng.choices(moves, weights)[0]
            tie = False
        after, events = apply(state, move, tie=tie)
        yield Step(state, seat, move, tie, after, events)
        state = after


def _weight(move: Move, stuck_weight: int) -> int:
    match move:
        case CallNerts() | Rotate():
            return 200
        case DeclareStuck():
            return stuck_weight
        case ToFoundation():
            return 30
        case ToWork(source=source) | SlideUnder(source=source) if source == NERTS:
            return 20
        case TurnStock():
            return 8
    return 4


def tie_plays(state: State, seat: int, *, any_top: bool = False) -> list[ToFoundation]:
    """Plays that tie with the top of a foundation another deck's card lies on (or, with
    ``any_top``, any card: all that `apply` accepts as a tie)."""
    if state.ended is not None:
        return []
    tableau = state.tableau_of(seat)
    plays = []
    for source, card in exposed(tableau):
        for f in state.all_foundations():
            if f.cards[-1].deck == tableau.deck and not any_top:
                continue
            if card.is_joker:
                if tableau.may_declare(card, f.rank, Suit(f.suit)):
                    plays.append(ToFoundation(seat, card, source, f.id, (f.rank, Suit(f.suit))))
            elif (card.rank, card.suit) == (f.rank, f.suit):
                plays.append(ToFoundation(seat, card, source, f.id))
    return plays


# --- invariants --------------------------------------------------------------------------


def every_card(state: State) -> Counter[Card | None]:
    decks = range(len(state.tableaux))
    return Counter(c for d in decks for c in new_deck(d, jokers=state.options.jokers))


def check_cards(state: State, expected: Counter[Card | None]) -> None:
    """Every card of every deck lies in exactly one place."""
    assert Counter(all_cards(state)) == expected


def check_foundations(state: State, ties: set[Card]) -> None:
    """Foundations run ace upward in one suit; a rank repeats only where a tie laid it."""
    ids = [f.id for f in state.all_foundations()]
    assert len(set(ids)) == len(ids)
    assert all(0 <= i < state.next_foundation for i in ids)
    assert all(f.rank < KING for f in state.foundations)
    assert all(f.rank == KING for f in state.completed)
    for f in state.all_foundations():
        rank = 0
        for card in f.cards:
            if card in ties:
                assert rank >= ACE, f"a tie at the bottom of foundation #{f.id}"
            else:
                rank += 1
            if not card.is_joker:
                assert (card.rank, card.suit) == (rank, f.suit), f"{card} on {f}"
        assert rank == f.rank


def check_work(state: State) -> None:
    """Work piles descend in alternating colours from a base their real cards and their
    jokers fixed for good give; a joker under a card is fixed for good."""
    for t in state.tableaux:
        assert len(t.work) == state.options.work_piles
        for pile in t.work:
            if not pile.cards:
                assert pile == WorkPile()
                continue
            anchors = [(at, _identity(t, c)) for at, c in enumerate(pile.cards) if t.anchors(c)]
            if not pile.base_rank:
                assert not anchors, f"real or fixed cards in a pile with no base: {pile}"
                assert len(pile.cards) <= KING
                continue
            assert anchors, f"a pile of free jokers alone has a fixed base: {pile}"
            assert all(t.anchors(c) for c in pile.cards[:-1]), f"a free joker covered: {pile}"
            assert ACE <= pile.base_rank - len(pile.cards) + 1 <= pile.base_rank <= KING
            for at, (rank, red) in anchors:
                assert rank == pile.base_rank - at, f"{pile.cards[at]} at {at} in {pile}"
                assert red == pile.base_red ^ bool(at & 1), f"{pile.cards[at]} at {at} in {pile}"


def _identity(tableau: Tableau, card: Card) -> tuple[int, bool]:
    fixed = tableau.fixed_as(card)
    return (fixed.rank, fixed.red) if fixed else (card.rank, card.red)


def check_state(state: State, expected: Counter[Card | None], ties: set[Card]) -> None:
    check_cards(state, expected)
    check_foundations(state, ties)
    check_work(state)


# --- candidate moves, legal or not -------------------------------------------------------


def candidates(state: State, seat: int, rng: random.Random) -> list[tuple[Move, bool]]:
    """Moves to try, each with whether it is tried as a tie.

    Complete wherever a move could be legal: every card of the tableau's work piles and
    the tops of its Nerts pile and waste onto every work pile, the exposed ones under
    every work pile and onto every foundation a play or a tie could name. Sampled where
    it cannot: wrong sources, other decks' cards, buried cards, piles and foundations that
    do not exist, misdeclared jokers and declared cards that are not jokers.
    """
    tableau = state.tableau_of(seat)
    work = range(len(tableau.work))
    nowhere = (-3, NERTS, WASTE, len(work))
    top = list(exposed(tableau))
    buried = [(i, c) for i, p in enumerate(tableau.work) for c in p.cards[:-1]]
    odd = [(rng.choice((*nowhere, *work)), c) for _, c in rng.sample(top, min(2, len(top)))]
    for source, pile in ((NERTS, tableau.nerts), (WASTE, tableau.waste)):
        if len(pile) > 1 and pile[0] is not None:
            odd.append((source, pile[0]))  # buried, but named as if on top
    other = state.tableaux[rng.randrange(len(state.tableaux))]
    odd += [(s, c) for s, c in exposed(other) if other.deck != tableau.deck][:2]
    foundations = state.all_foundations()
    moves: list[tuple[Move, bool]] = []
    for source, card in top + buried + odd:
        moves += [(ToWork(seat, card, source, dest), False) for dest in work]
        moves += [(ToWork(seat, card, source, rng.choice(nowhere)), False)]
        moves += [(SlideUnder(seat, card, source, rng.choice((*nowhere, *work))), False)]
    for source, card in top:
        moves += [(SlideUnder(seat, card, source, dest), False) for dest in work]
        if card.is_joker:
            for s in Suit:
                moves += [(ToFoundation(seat, card, source, NEW_FOUNDATION, (ACE, s)), False)]
            for f in foundations:
                suit = Suit(f.suit)
                moves += [(ToFoundation(seat, card, source, f.id, (f.rank + 1, suit)), False)]
                moves += [(ToFoundation(seat, card, source, f.id, (f.rank, suit)), True)]
        else:
            moves += [(ToFoundation(seat, card, source, NEW_FOUNDATION), False)]
            for f in foundations:
                if f.suit == card.suit and card.rank - 1 <= f.rank <= card.rank:
                    move = ToFoundation(seat, card, source, f.id)
                    moves += [(move, False), (move, True)]
    for source, card in top + odd + rng.sample(buried, min(3, len(buried))):
        fid = rng.choice([NEW_FOUNDATION, state.next_foundation, *(f.id for f in foundations)])
        named = [(f.rank, Suit(f.suit)) for f in foundations if f.id == fid]
        rank, suit = named[0] if named else (ACE, card.suit)
        for declare in _declares(card, rank, suit):
            move = ToFoundation(seat, card, source, fid, declare)
            moves += [(move, False), (move, True)]
    moves += [(m, False) for m in (TurnStock(seat), DeclareStuck(seat), Rotate(seat))]
    moves += [(CallNerts(seat), False), (TurnStock(seat), True), (CallNerts(seat), True)]
    moves += [(DeclareStuck(len(state.seats)), False), (DeclareStuck(-1), False)]
    moves += _wrong_reveals(state, seat)
    return moves


def _declares(card: Card, rank: int, suit: Suit) -> list[tuple[int, Suit] | None]:
    """Declarations for a card onto a foundation at ``rank``: mostly wrong ones."""
    other = Suit((suit + 1) % 4)
    bad_suit = cast(Suit, 4)  # as a move decoded off the wire might hold
    wrong = [(rank + 1, other), (0, suit), (14, suit), (rank + 1, bad_suit)]
    return [None, (rank + 1, suit), (rank, suit), (card.rank, card.suit), *wrong]


def _wrong_reveals(state: State, seat: int) -> list[tuple[Move, bool]]:
    """Moves that claim to turn up cards other than those they do."""
    tableau = state.tableau_of(seat)
    stranger = Card((tableau.deck + 1) % 64, 5, Suit.CLUBS)
    moves: list[tuple[Move, bool]] = [(TurnStock(seat, (stranger,)), False)]
    for source, card in exposed(tableau):
        for dest in range(len(tableau.work)):
            moves += [(ToWork(seat, card, source, dest, (stranger,)), False)]
            if source == NERTS and len(tableau.nerts) > 1:
                shown = tableau.nerts[-2]
                assert shown is not None
                moves += [(ToWork(seat, card, source, dest, (shown, shown)), False)]
    return moves


def check_moves(state: State, seat: int, rng: random.Random) -> None:
    """Every legal move applies; every candidate applies exactly when it is legal (as a
    tie: exactly when it names an exposed card equal to a foundation's top)."""
    digest = state_digest(state)
    legal = legal_moves(state, seat)
    allowed: dict[bool, set[Move]] = {
        False: set(legal),
        True: set(tie_plays(state, seat, any_top=True)),
    }
    assert len(allowed[False]) == len(legal), "a legal move is listed twice"
    for move in legal:
        apply(state, move)
    tried = candidates(state, seat, rng)
    assert allowed[False] <= {m for m, tie in tried if not tie}, "the candidates miss a move"
    assert allowed[True] <= {m for m, tie in tried if tie}, "the candidates miss a tie"
    for move, tie in tried:
        try:
            apply(state, move, tie=tie)
        except IllegalMove:
            accepted = False
        else:
            accepted = True
        assert accepted == (move in allowed[tie]), f"{move} (tie={tie}) accepted: {accepted}"
    assert state_digest(state) == digest


# --- the properties ----------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(tables(), plans)
@example(  # a joker left alone on its pile kept the rank it stood for
    Table(TableOptions(jokers=True, card_points=0, nerts_penalty=0), (0, 1), 0),
    Plan(seed=86940999, stuck_weight=0, tie_chance=0.0),
)
def test_invariants_hold_after_every_step(table: Table, plan: Plan) -> None:
    state = deal_table(table)
    expected = every_card(state)
    assert None not in expected
    check_state(state, expected, set())
    ties: set[Card] = set()
    for step in playout(table, plan):
        ties |= {e.card for e in step.events if isinstance(e, CardPlayed) and e.tie}
        check_state(step.after, expected, ties)


@settings(max_examples=15, deadline=None)  # each checks every move of a whole round: 1 s
@given(tables(), plans)
@example(  # declaring a joker's suit as anything but a Suit raised TypeError
    Table(TableOptions(jokers=True, card_points=0, nerts_penalty=0), (0, 1), 0),
    Plan(seed=0, stuck_weight=0, tie_chance=0.0),
)
def test_moves_apply_exactly_when_legal(table: Table, plan: Plan) -> None:
    rng = random.Random(plan.seed ^ 0x5EED)
    state = deal_table(table)
    check_moves(state, 0, rng)
    for step in playout(table, plan):
        check_moves(step.after, step.seat, rng)


@settings(max_examples=40, deadline=None)
@given(tables(), plans)
def test_replaying_the_moves_gives_the_same_states(table: Table, plan: Plan) -> None:
    steps = list(playout(table, plan))
    state = deal_table(table)
    for step in steps:
        state, events = apply(state, step.move, tie=step.tie)
        assert events == step.events
        assert state_digest(state) == state_digest(step.after)


@settings(max_examples=60, deadline=None)
@given(tables(), plans)
def test_round_scores_add_up(table: Table, plan: Plan) -> None:
    initial = deal_table(table)
    steps = list(playout(table, plan))
    final = steps[-1].after if steps else initial
    options = final.options
    on_foundations = Counter(c.deck for f in final.all_foundations() for c in f.cards)
    played = Counter(e.card.deck for s in steps for e in s.events if isinstance(e, CardPlayed))
    from_nerts = Counter(
        final.seats[e.seat]
        for s in steps
        for e in s.events
        if isinstance(e, CardPlayed | CardsMoved) and e.source == NERTS
    )
    caller = None
    if final.ended is not None and final.ended.reason is EndReason.NERTS:
        assert final.ended.caller is not None
        caller = final.seats[final.ended.caller]
        assert not final.tableaux[caller].nerts
    event(f"ended: {final.ended.reason if final.ended else 'no'}")
    event(f"rotations: {min(final.rotations, 2)}")
    event(f"ties: {min(sum(s.tie for s in steps), 2)}")
    scores = score_round(final)
    assert [s.deck for s in scores] == list(range(len(final.tableaux)))
    for deck, score in enumerate(scores):
        left = len(final.tableaux[deck].nerts)
        assert left == options.nerts_pile - from_nerts[deck]
        assert on_foundations[deck] == played[deck]
        bonus = options.nerts_bonus if deck == caller else 0
        points = played[deck] * options.card_points - left * options.nerts_penalty + bonus
        assert score == (deck, played[deck], left, bonus, points, deck == caller)


@settings(max_examples=40, deadline=None)
@given(tables(), plans)
def test_public_replay_follows_the_full_playout(table: Table, plan: Plan) -> None:
    full = deal_table(table)
    public = public_view(full)
    assert public_digest(public) == public_digest(full)
    for step in playout(table, plan):
        assert legal_moves(public, step.seat) == legal_moves(step.before, step.seat)
        move = step.move
        shown = tuple(c for e in step.events if isinstance(e, CardsRevealed) for c in e.cards)
        if shown:
            assert isinstance(move, TurnStock | ToFoundation | ToWork | SlideUnder)
            move = dataclasses.replace(move, revealed=shown)
        public, events = apply(public, move, tie=step.tie)
        assert events == step.events
        assert public_digest(public) == public_digest(step.after)


# --- regressions the properties found ----------------------------------------------------


def _order(deck: int, options: TableOptions, nerts: list[Card], work: list[Card]) -> list[Card]:
    """A deck order whose Nerts pile ends (top last) with ``nerts`` and whose first work
    piles get ``work``; every other card where `new_deck` puts it."""
    rest = [c for c in new_deck(deck, jokers=options.jokers) if c not in nerts + work]
    n = options.nerts_pile - len(nerts)
    w = options.work_piles - len(work)
    return rest[:n] + nerts + work + rest[n : n + w] + rest[n + w :]


def test_a_joker_left_alone_on_a_work_pile_stays_what_a_card_fixed_it_as() -> None:
    """Found by `test_invariants_hold_after_every_step`, then turned round by the rule
    text ("once a card is played on a Joker in a work pile, it now has a fixed existence"):
    lifting the card off a joker at the bottom of a work pile leaves it the red 6 it was."""
    options = TableOptions(jokers=True)
    joker, nine, five = Card(0, 0, Suit.SPADES), Card(0, 9, Suit.CLUBS), Card(0, 5, Suit.SPADES)
    ace = Card(0, ACE, Suit.HEARTS)
    order = _order(0, options, [nine, five], [joker, ace])
    state = deal(options, solo_seats(2), orders=[order, new_deck(1, jokers=True)])
    for move in (
        ToWork(0, five, NERTS, 0),  # the joker now stands for a red 6
        ToFoundation(0, ace, 1, NEW_FOUNDATION),
        ToWork(0, five, 0, 1),  # ... and nothing lies on it any more
    ):
        state, _ = apply(state, move)
    assert state.tableau_of(0).work[0] == WorkPile((joker,), 6, True)
    assert ToWork(0, nine, NERTS, 0) not in legal_moves(state, 0)
    with pytest.raises(IllegalMove, match="9♣ is not one below Joker \\(as red 6\\)"):
        apply(state, ToWork(0, nine, NERTS, 0))


def test_a_joker_declared_with_a_plain_int_suit() -> None:
    """Found by `test_moves_apply_exactly_when_legal`: before Python 3.12, ``suit in Suit``
    raises TypeError for anything but a member, so a declaration decoded as plain ints
    crashed `apply` instead of being read, or rejected with `IllegalMove`."""
    options = TableOptions(jokers=True)
    joker = Card(0, 0, Suit.HEARTS)
    order = _order(0, options, [joker], [])
    state = deal(options, solo_seats(2), orders=[order, new_deck(1, jokers=True)])
    bad = ToFoundation(0, joker, NERTS, NEW_FOUNDATION, (ACE, cast(Suit, 4)))
    with pytest.raises(IllegalMove, match="cannot be declared"):
        apply(state, bad)
    plain = ToFoundation(0, joker, NERTS, NEW_FOUNDATION, (ACE, cast(Suit, 1)))
    state, _ = apply(state, plain)
    assert state.foundations[0].suit == Suit.HEARTS
