"""A match's totals, its end and its winners, from every round's points per deck."""

from __future__ import annotations

import pytest

from p2pnerts.rules import Match, RoundScore, TableOptions


def test_a_match_of_points_is_the_match_its_rounds_record() -> None:
    rows = [(60, 40, -10), (39, 55, 30)]
    recorded = Match(TableOptions(), 3)
    for row in rows:
        recorded = recorded.record(
            tuple(RoundScore(d, 0, 0, 0, p, False) for d, p in enumerate(row))
        )
    assert Match.of_points(TableOptions(), 3, rows) == recorded
    assert recorded.totals == (99, 95, 20)


def test_scores_count_for_their_own_deck_whatever_their_order() -> None:
    scores = (RoundScore(1, 0, 0, 0, 7, False), RoundScore(0, 0, 0, 0, -2, False))
    assert Match(TableOptions(), 2).record(scores).totals == (-2, 7)


def test_a_match_of_fixed_rounds_ends_after_them_and_a_tie_has_two_winners() -> None:
    options = TableOptions(rounds=2)
    match = Match.of_points(options, 2, [(5, 3)])
    assert not match.over and match.winners == ()
    match = match.record_points((0, 2))
    assert match.over and match.totals == (5, 5) and match.winners == (0, 1)


def test_a_match_with_no_rounds_has_nothing_yet() -> None:
    match = Match.of_points(TableOptions(), 4, [])
    assert match.totals == (0, 0, 0, 0) and not match.over and match.winners == ()


@pytest.mark.parametrize("row", [(1,), (1, 2, 3)])
def test_a_round_must_score_every_deck(row: tuple[int, ...]) -> None:
    with pytest.raises(ValueError, match="scores for 2 decks"):
        Match.of_points(TableOptions(), 2, [row])
