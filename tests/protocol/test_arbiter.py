"""The verdict on a committed play, from the pure function that decides every race."""

from __future__ import annotations

import pytest
from _cards import card, order
from _table import Table

from p2pnerts.protocol import (
    Outcome,
    Play,
    PlayCommitted,
    PlayReturned,
    Race,
    Verdict,
    decide,
    told,
)
from p2pnerts.rules import (
    NERTS,
    NEW_FOUNDATION,
    State,
    TableOptions,
    TieRule,
    ToFoundation,
    TurnStock,
    apply,
)

CLOCK = 7


def _ace_on_the_table() -> State:
    """Two seats, each with the two of hearts on a work pile; seat 0's ace of hearts has
    started foundation #0."""
    options = TableOptions()
    table = Table(2, options)
    table.start(
        [order(s, ["AH" if s == 0 else "QS"], ["2H", "9C", "9S", "KD"], options) for s in (0, 1)]
    )
    table.play(0, ToFoundation(0, card("AH", 0), NERTS, NEW_FOUNDATION))
    public = table.replicas[0].public
    assert public is not None
    return public


def _two_of_hearts(seat: int, clock: int = CLOCK, round: int = 1) -> Play:
    return Play(seat, 0, clock, 5, round, ToFoundation(seat, card("2H", seat), 0, 0))


def _race(rule: TieRule = TieRule.BOTH_STAY, **placed: tuple[int, int]) -> Race:
    return Race(tie_rule=rule, placed={int(k[1:]): v for k, v in placed.items()}, deck=1)


def test_a_play_the_rules_take_lands_with_the_table_after_it() -> None:
    public = _ace_on_the_table()
    verdict = decide(_two_of_hearts(0), public, 1, _race(f0=(0, 3)))
    assert verdict.outcome is Outcome.LANDED and verdict.stays
    assert verdict.table is not None and verdict.table.foundations[0].cards[-1] == card("2H", 0)
    assert told(_two_of_hearts(0), verdict) == PlayCommitted(
        0, _two_of_hearts(0).move, CLOCK, False
    )


def _after_seat_0(clock: int = CLOCK) -> State:
    state, _ = apply(_ace_on_the_table(), _two_of_hearts(0, clock).move)
    return state


@pytest.mark.parametrize("rule", list(TieRule))
def test_equal_clocks_tie_under_both_stay_and_return_to_the_winner_otherwise(
    rule: TieRule,
) -> None:
    late = _two_of_hearts(1)
    verdict = decide(late, _after_seat_0(), 1, _race(rule, f0=(0, CLOCK)))
    if rule is TieRule.BOTH_STAY:
        assert verdict.outcome is Outcome.TIED
        assert verdict.table is not None
        assert verdict.table.foundations[0].cards[-2:] == (card("2H", 0), card("2H", 1))
        assert told(late, verdict) == PlayCommitted(1, late.move, CLOCK, True)
    else:
        assert verdict == Verdict(Outcome.RETURNED, winner=0, reason=verdict.reason, raced=True)
        assert "is not next on foundation #0" in verdict.reason


def test_a_later_clock_loses_the_race_even_under_both_stay() -> None:
    late = _two_of_hearts(1, CLOCK + 1)
    verdict = decide(late, _after_seat_0(), 1, _race(f0=(0, CLOCK)))
    assert (verdict.outcome, verdict.winner, verdict.raced) == (Outcome.RETURNED, 0, True)
    event = told(late, verdict)
    assert isinstance(event, PlayReturned)
    assert (event.seat, event.winner, event.reason, event.raced) == (1, 0, verdict.reason, True)


def test_a_seat_never_ties_with_its_own_card() -> None:
    again = Play(0, 0, CLOCK, 6, 1, ToFoundation(0, card("2H", 0), 0, 0))
    verdict = decide(again, _after_seat_0(), 1, _race(f0=(0, CLOCK)))
    assert verdict.outcome is Outcome.RETURNED


def test_a_play_of_a_round_over_returns_with_no_one_to_blame() -> None:
    verdict = decide(_two_of_hearts(0, round=1), _ace_on_the_table(), 2, _race())
    assert verdict == Verdict(Outcome.RETURNED, reason="the round is over")
    assert verdict == decide(_two_of_hearts(0), None, 1, _race())


def test_a_seat_that_sits_the_round_out_has_its_play_returned() -> None:
    race = Race(tie_rule=TieRule.SEAT, placed={}, deck=0, sitting_out=True)
    verdict = decide(_two_of_hearts(0), _ace_on_the_table(), 1, race)
    assert verdict == Verdict(Outcome.RETURNED, reason="that seat sits this round out")


def test_a_refused_move_that_raced_no_foundation_names_no_winner() -> None:
    bad = Play(0, 0, CLOCK, 5, 1, TurnStock(0, (card("KS", 0),)))
    verdict = decide(bad, _ace_on_the_table(), 1, _race())
    assert verdict.outcome is Outcome.RETURNED and verdict.winner is None and verdict.raced
