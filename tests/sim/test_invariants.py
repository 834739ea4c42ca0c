"""The invariant checks, each shown to hold on good input and to fire on bad."""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

import pytest

from p2pnerts.bots import SimpleBot
from p2pnerts.protocol import RoundOver
from p2pnerts.rules import (
    Card,
    DeclareStuck,
    Move,
    Rotate,
    State,
    Tableau,
    TableOptions,
    ToFoundation,
    WorkPile,
    apply,
    deal,
    private_view,
    public_digest,
    public_view,
    score_round,
    shuffled_deck,
    solo_seats,
)
from p2pnerts.sim import (
    Invariants,
    Violation,
    check_cut_off,
    check_progress,
    check_round_over,
    check_round_time,
    misplaced_cards,
    replay_round,
)

OPTIONS = TableOptions()


def _orders(players: int, seed: int) -> list[tuple[Card, ...]]:
    rng = random.Random(seed)
    return [shuffled_deck(d, OPTIONS, rng) for d in range(players)]


def _playout(
    players: int, seed: int, options: TableOptions = OPTIONS
) -> tuple[list[tuple[Card, ...]], list[tuple[Move, bool]], State]:
    """Bots play a round with every deck known, stocks rotating as a replica rotates them
    (teammates, each with a bot of its own, on their team's one tableau); the moves as a
    replica's log has them, the rotations it makes by itself among them."""
    seats = options.seating(players)
    rng = random.Random(seed)
    orders = [shuffled_deck(d, options, rng) for d in range(max(seats) + 1)]
    state = deal(options, seats, orders=orders)
    bots = [SimpleBot(random.Random(seed + s)) for s in range(players)]
    plays: list[tuple[Move, bool]] = []
    while state.ended is None:
        seat = rng.randrange(players)
        move = bots[seat].choose(private_view(state, seat), seat)
        if move is None or isinstance(move, Rotate):
            continue
        state, _ = apply(state, move)
        plays.append((move, False))
        if isinstance(move, DeclareStuck) and all(t.stuck for t in state.tableaux):
            state, _ = apply(state, Rotate(seat))
            plays.append((Rotate(seat), False))
    return orders, plays, state


@dataclass
class _Replica:
    committed: int = 0
    public: State | None = None
    digests: dict[int, bytes] = field(default_factory=dict)

    def digest_at(self, committed: int) -> bytes:
        return self.digests[committed]


def test_a_dealt_table_has_every_card_once_seen_or_not() -> None:
    state = deal(OPTIONS, solo_seats(3), orders=_orders(3, 1))
    assert misplaced_cards(state) is None
    assert misplaced_cards(public_view(state)) is None


def test_a_card_in_two_places_is_found() -> None:
    state = deal(OPTIONS, solo_seats(2), orders=_orders(2, 1))
    t = state.tableaux[0]
    top = t.nerts[-1]
    assert top is not None
    doubled = t._replace(waste=(top,))
    assert "in two places" in str(
        misplaced_cards(state._replace(tableaux=(doubled, state.tableaux[1])))
    )


def test_a_lost_card_is_found_even_face_down() -> None:
    state = public_view(deal(OPTIONS, solo_seats(2), orders=_orders(2, 1)))
    t = state.tableaux[1]
    short = t._replace(stock=t.stock[1:])
    found = misplaced_cards(state._replace(tableaux=(state.tableaux[0], short)))
    assert found == "deck 2 has 51 cards, not 52"


def test_a_deck_not_dealt_in_may_be_absent_whole() -> None:
    state = deal(OPTIONS, solo_seats(2), orders=_orders(2, 1))
    empty = Tableau(1, (), (WorkPile(),) * OPTIONS.work_piles, (), stuck=True)
    assert misplaced_cards(state._replace(tableaux=(state.tableaux[0], empty))) is None


def test_replicas_that_agree_pass_and_one_that_differs_is_caught() -> None:
    table = public_view(deal(OPTIONS, solo_seats(2), orders=_orders(2, 1)))
    checker = Invariants()
    one = _Replica(2, table, {1: b"a", 2: b"b"})
    assert checker.after_step(0, one, 0) == 2
    same = _Replica(1, None, {1: b"a"})
    assert checker.after_step(1, same, 0) == 1
    other = _Replica(2, table, {1: b"a", 2: b"X"})
    with pytest.raises(Violation, match="seat 1's commit #2 differs"):
        checker.after_step(1, other, 1)


def test_equal_commit_counts_with_different_tables_are_caught() -> None:
    dealt = deal(OPTIONS, solo_seats(2), orders=_orders(2, 1))
    checker = Invariants()
    checker.after_step(0, _Replica(3, public_view(dealt), {}), 0)
    moved = public_view(dealt._replace(rotations=1))
    with pytest.raises(Violation, match="table after 3 commits differs"):
        checker.after_step(1, _Replica(3, moved, {}), 0)


@pytest.mark.parametrize("players", [2, 3, 5])
def test_the_replay_scores_the_round_as_the_rules_do(players: int) -> None:
    orders, plays, final = _playout(players, players)
    verdict = replay_round(OPTIONS, orders, plays)
    assert verdict.scores == score_round(final)
    assert verdict.digest == public_digest(final)


def test_a_team_round_replays_on_the_shuffle_its_team_dealt_and_scores_per_deck() -> None:
    teams = TableOptions(teams=(2, 1, 2))
    orders, plays, final = _playout(5, 3, teams)
    assert {m.seat for m, _ in plays} == set(range(5))  # every seat of each team played
    verdict = replay_round(teams, orders, plays)
    assert len(verdict.scores) == 3
    assert verdict == (score_round(final), public_digest(final))
    spare = shuffled_deck(0, teams, random.Random(99))  # a teammate's own shuffle
    with pytest.raises(Violation, match="does not replay on the real decks"):
        replay_round(teams, [spare, *orders[1:]], plays)


def test_a_round_with_a_deck_not_dealt_in_replays_with_that_tableau_empty() -> None:
    # Seat 2 was away when the round began: its tableau is empty and counted stuck, by
    # every replica at once; the others play as usual.
    rng = random.Random(5)
    orders = [shuffled_deck(d, OPTIONS, rng) for d in range(3)]
    state = deal(OPTIONS, solo_seats(3), orders=orders)
    empty = Tableau(2, (), (WorkPile(),) * OPTIONS.work_piles, ())
    state, _ = apply(state._replace(tableaux=(*state.tableaux[:2], empty)), DeclareStuck(2))
    plays: list[tuple[Move, bool]] = [(DeclareStuck(2), False)]
    bots = [SimpleBot(random.Random(s)) for s in range(2)]
    while state.ended is None:
        seat = rng.randrange(2)
        move = bots[seat].choose(private_view(state, seat), seat)
        if move is None or isinstance(move, Rotate):
            continue
        state, _ = apply(state, move)
        plays.append((move, False))
        while state.ended is None and all(t.stuck for t in state.tableaux):
            state, _ = apply(state, Rotate(0))
            plays.append((Rotate(0), False))
            if state.ended is None and not state.tableaux[2].stuck:
                state, _ = apply(state, DeclareStuck(2))
                plays.append((DeclareStuck(2), False))
    verdict = replay_round(OPTIONS, [orders[0], orders[1], None], plays)
    assert verdict == (score_round(final := state), public_digest(final))
    assert verdict.scores[2].points == 0
    dealt_in = replay_round(OPTIONS, orders, plays)  # as if seat 2 had its cards
    assert dealt_in.scores[2].points < 0, "its Nerts pile would count against it"


def test_a_log_that_does_not_rotate_when_every_tableau_is_stuck_is_caught() -> None:
    orders, plays, _ = _playout(2, 3)
    rotation = next(i for i, (m, _) in enumerate(plays) if isinstance(m, Rotate))
    with pytest.raises(Violation, match="every tableau is stuck, yet move"):
        replay_round(OPTIONS, orders, plays[:rotation] + plays[rotation + 1 :])


def test_a_log_the_real_decks_contradict_does_not_replay() -> None:
    orders, plays, _ = _playout(2, 5)
    first = next(i for i, (m, _) in enumerate(plays) if isinstance(m, ToFoundation))
    move = plays[first][0]
    assert isinstance(move, ToFoundation)
    forged = replace(move, card=Card(move.card.deck, 13, move.card.suit))
    with pytest.raises(Violation, match="does not replay"):
        replay_round(OPTIONS, orders, [*plays[:first], (forged, False), *plays[first + 1 :]])


def test_announced_scores_must_be_the_replays() -> None:
    orders, plays, final = _playout(2, 9)
    verdict = replay_round(OPTIONS, orders, plays)
    assert final.ended is not None
    over = RoundOver(1, final.ended.reason, final.ended.caller, verdict.scores, verdict.digest)
    check_round_over(0, over, verdict)
    inflated = (
        verdict.scores[0]._replace(points=verdict.scores[0].points + 1),
        *verdict.scores[1:],
    )
    with pytest.raises(Violation, match="the rules engine"):
        check_round_over(0, replace(over, scores=inflated), verdict)


def test_a_cut_off_minority_may_commit_only_what_was_sent_before_the_cut() -> None:
    check_cut_off(1, None, 5.0, "a play")
    check_cut_off(1, 4.0, 3.5, "a play")
    with pytest.raises(Violation, match=r"cut off without a majority since 4\.000 s"):
        check_cut_off(1, 4.0, 4.5, "a play")


def test_a_majority_cut_off_long_enough_must_go_on() -> None:
    check_progress({0: 10, 1: 10}, {0: 11, 1: 12}, 8.0, "partition")
    check_progress({0: 10, 1: 10}, {0: 11}, 8.0, "crash")  # seat 1 went down meanwhile
    with pytest.raises(Violation, match="seat 1, on the majority side of a crash"):
        check_progress({0: 10, 1: 10}, {0: 11, 1: 10}, 8.0, "crash")


def test_a_round_must_end_in_bounded_time() -> None:
    check_round_time(3, 100.0, 1299.0, 1200.0)
    with pytest.raises(Violation, match="round 3 has not ended"):
        check_round_time(3, 100.0, 1301.0, 1200.0)
