"""The table in words: teams named by their players, verbs that agree with "You"."""

from __future__ import annotations

from p2pnerts.net import MatchResult
from p2pnerts.words import apart, deck_names, marked, says, together, whose


def test_a_team_is_named_by_its_players_in_seat_order() -> None:
    names = ("You", "Bot 1", "Bot 2", "Bot 3", "Bot 4", "Bot 5")
    assert deck_names(names, (0, 0, 1, 2, 2, 2)) == (
        "You & Bot 1",
        "Bot 2",
        "Bot 3, Bot 4 & Bot 5",
    )
    assert deck_names(names[:3], (0, 1, 2)) == names[:3]
    assert together([]) == ""


def test_you_take_the_second_person_and_others_the_third() -> None:
    assert [says("You", v) for v in ("plays", "calls", "is", "was")] == [
        "You play",
        "You call",
        "You are",
        "You were",
    ]
    assert says("Bot 1", "plays") == "Bot 1 plays" and says("Bot 1", "is") == "Bot 1 is"
    assert (whose("You"), whose("Bot 1")) == ("Your", "Bot 1's")


def test_a_match_of_teams_is_summed_up_per_team() -> None:
    result = MatchResult(("You", "Bot 1", "Bot 2", "Bot 3"), (33, 15), (0,), 2, (0, 0, 1, 1))
    assert result.summary() == (
        "match over after 2 rounds: You & Bot 1 33, Bot 2 & Bot 3 15. Winner: You & Bot 1"
    )


def test_a_solo_match_reads_as_before_and_a_shared_win_names_every_winner() -> None:
    solo = MatchResult(("Ann", "Bea", "Cy"), (40, 52, 52), (1, 2), 3)
    assert solo.summary() == "match over after 3 rounds: Ann 40, Bea 52, Cy 52. Winners: Bea and Cy"
    alone = MatchResult(("Ann", "Bea"), (40, 12), (0,), 1, (0, 1))
    assert alone.summary() == "match over after 1 round: Ann 40, Bea 12. Winner: Ann"
    tied = MatchResult(("Ann", "Bea", "Cy"), (9, 9, 9), (0, 1, 2), 2)
    assert tied.summary().endswith("Winners: Ann, Bea and Cy")


def test_a_match_ended_before_any_round_names_no_leader() -> None:
    cut = MatchResult(("Ann", "Bea"), (0, 0), (0, 1), 0, ended="nobody answered")
    assert cut.summary() == "match ended before any round was over here, nobody answered"


def test_seats_of_one_name_are_told_apart_by_their_place_among_them() -> None:
    assert apart(["root", "Bot 2", "root", "root"]) == ("root", "Bot 2", "root (2)", "root (3)")
    assert apart(["Ann", "Bea"]) == ("Ann", "Bea")
    # A name that already reads as a numbered one is never shown twice.
    shown = apart(["root", "root (2)", "root"])
    assert len(set(shown)) == 3 and shown[:2] == ("root", "root (2)")


def test_the_readers_own_seat_is_marked_unless_it_is_you() -> None:
    assert marked(("root", "root (2)"), 1) == ("root", "root (2) (you)")
    assert marked(("You", "Bot 2"), 0) == ("You", "Bot 2")
