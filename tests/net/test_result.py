"""A match's result in words: played out, ended early, or as it stood when a seat left."""

from __future__ import annotations

from dataclasses import replace

import pytest

from p2pnerts.net import MatchResult
from p2pnerts.net._result import PeerStats
from p2pnerts.protocol import AuditFailed, PeerRefused, PeerStalled
from p2pnerts.rules import Match, TableOptions

NAMES = ("Player (you)", "Bot 2", "Bot 3")


def _result(points: list[tuple[int, ...]], rounds: int | None = 3) -> MatchResult:
    match = Match.of_points(TableOptions(rounds=rounds), len(NAMES), points)
    return MatchResult.of(NAMES, match, ())


@pytest.mark.parametrize(
    ("rounds", "told"),
    [
        (3, "Left the table after round 2 of 3: Player (you) 12, Bot 2 -4, Bot 3 5"),
        (None, "Left the table after round 2: Player (you) 12, Bot 2 -4, Bot 3 5"),
    ],
)
def test_a_seat_that_leaves_is_told_the_scores_of_the_rounds_played_so_far(
    rounds: int | None, told: str
) -> None:
    left = replace(_result([(7, -6, 1), (5, 2, 4)], rounds), left=True)
    assert left.summary() == told


def test_a_seat_that_leaves_before_any_round_ends_is_told_so_without_scores() -> None:
    assert (
        replace(_result([]), left=True).summary() == "Left the table before the end of round 1 of 3"
    )


def test_a_match_played_out_says_its_winner() -> None:
    over = _result([(7, -6, 1), (5, 2, 4), (1, 1, 1)])
    assert (
        over.summary()
        == "match over after 3 rounds: Player (you) 13, Bot 2 -3, Bot 3 6. Winner: Player (you)"
    )


def test_the_alarms_say_what_each_stalling_seat_never_said() -> None:
    stats = PeerStats.at(0, 0.0)
    stats.count(PeerStalled(1), 5.0)
    stats.count(PeerStalled(2, passed=True), 6.0)
    assert stats.stalled == [1, 2]
    assert stats.alarms(NAMES) == (
        "Bot 2 acknowledged nothing while it talked on; "
        "Bot 3 never said it passed more of the order while it talked on"
    )


def test_the_alarms_name_each_seat_as_the_screen_does() -> None:
    # The screen numbers seats from 1 and names them; the protocol counts from 0. A player
    # told "seat 2" at the end took the second seat on the screen for the cheat.
    stats = PeerStats.at(0, 0.0)
    stats.count(PeerRefused(2, "signed two plays as its play 4"), 3.0)
    stats.count(AuditFailed(2, 1, "its Reveal does not match its deal", -12), 4.0)
    assert stats.alarms(NAMES) == (
        "refused Bot 3: signed two plays as its play 4; "
        "Bot 2 failed the audit of its deal in round 2"
    )
    assert stats.alarms() == (
        "refused seat 3: signed two plays as its play 4; "
        "seat 2 failed the audit of its deal in round 2"
    )
