"""The ladder: paired rounds of every pair, one Bradley-Terry scale, intervals."""

from __future__ import annotations

import math
import random
import re

import pytest

from p2pnerts.arena import ArenaError, ladder_entries, play_ladder
from p2pnerts.arena._job import Job
from p2pnerts.arena._ladder import LadderReport, Rating, _fit, _rate
from p2pnerts.arena._report import Tally
from p2pnerts.bots import POLICIES, level
from p2pnerts.driver import Pace
from p2pnerts.rules import TableOptions


def test_a_fit_puts_three_to_one_odds_about_190_elo_apart_around_1500() -> None:
    """B wins 3 of every 4 rounds against A: Elo 400 log10(3) apart (a little less, for
    the half win each way that keeps a clean sweep finite)."""
    games = {("A", "B"): [1.0, 2.0, 0.5, -1.0] * 50}
    elo = _fit(["A", "B"], games)
    assert elo["B"] - elo["A"] == pytest.approx(400 * math.log10(3), rel=0.02)
    assert (elo["A"] + elo["B"]) / 2 == pytest.approx(1500)


def test_the_intervals_resample_deals_with_all_their_rounds() -> None:
    """B wins two of the four rounds of every deal: resampling deals always finds it level
    with A; resampling single rounds would not."""
    games = {("A", "B"): [1.0, -1.0, 1.0, -1.0] * 10}
    by_deal = {r.name: r for r in _rate(["A", "B"], games, 4, random.Random(1))}
    assert by_deal["B"].low == pytest.approx(by_deal["B"].high) == pytest.approx(1500)
    by_round = {r.name: r for r in _rate(["A", "B"], games, 1, random.Random(1))}
    low, high = by_round["B"].low, by_round["B"].high
    assert low is not None and high is not None and low < 1500 < high


def test_a_fit_orders_a_chain_and_counts_a_tie_as_half_a_win_each() -> None:
    chain = {("A", "B"): [1.0] * 30 + [-1.0] * 10, ("B", "C"): [1.0] * 30 + [-1.0] * 10}
    elo = _fit(["A", "B", "C"], chain)
    assert elo["A"] < elo["B"] < elo["C"]
    tied = _fit(["A", "B"], {("A", "B"): [0.0] * 40})
    assert tied["A"] == pytest.approx(tied["B"])


def test_the_ladder_rates_the_fastest_level_above_the_slowest_reproducibly() -> None:
    first = play_ladder(["L1", "L10", "strong"], 4, seed=2)
    again = play_ladder(["L1", "L10", "strong"], 4, seed=2)
    assert first.to_json()["ratings"] == again.to_json()["ratings"]
    names = [r.name for r in first.ratings]
    assert names[0] == "L10" and names[-1] == "L1"
    for r in first.ratings:
        assert 0 <= r.score <= 1
    assert sum(r.margin for r in first.ratings) == pytest.approx(0, abs=1e-9)


def test_a_ladder_of_too_few_rounds_for_an_interval_says_so_and_shows_none() -> None:
    # Before, 4 rounds a pair (one deal) resampled the one deal again and again, and the
    # table gave every entry an interval of a single value: '1939 to 1939'.
    report = play_ladder(["L1", "L10", "strong"], 4, seed=2)
    assert all(r.low is None and r.high is None for r in report.ratings)
    assert report.to_json()["ratings"][0]["elo_ci95"] is None
    text = report.text()
    assert re.search(r"^L10 +\d+ +- +100%", text, re.M), text
    assert (
        "no intervals: 4 rounds a pair are 1 deal at 4 players, too few to resample; an "
        "interval takes 5 deals a pair (--rounds 20)"
    ) in text
    deals = [[1, -1, 1, 1], [1, 1, 1, 1], [-1, -1, 1, -1], [1, 1, -1, 1], [1, -1, -1, 1]]
    games = {("A", "B"): [float(m) for deal in deals for m in deal]}  # 5 deals: intervals
    for r in _rate(["A", "B"], games, 4, random.Random(1)):
        assert r.low is not None and r.high is not None and r.low <= r.elo <= r.high
        assert r.low < r.high


def test_the_ladders_columns_hold_a_policy_named_by_a_long_path() -> None:
    long = "a folder of policies/and another/eager.py:Eager"
    ratings = (
        Rating(long, 1510.0, 1480.0, 1540.0, 0.5, 0.1),
        Rating("L2", 1490.0, 1460.0, 1520.0, 0.5, -0.1),
    )
    text = LadderReport(ratings, 24, 4, 1, True, 1.0).text()
    header, *rows = text.splitlines()[1:4]
    ends = {
        header.index("Elo") + 3,
        *(row.index(f"{r.elo:.0f}") + 4 for row, r in zip(rows, ratings, strict=True)),
    }
    assert len(ends) == 1, text  # every Elo below the heading's


def test_a_level_plays_at_its_own_pace_and_a_policy_at_the_arenas() -> None:
    job = Job(("L3", "strong"), 4, 1, Pace(0.05, 0.05), TableOptions(), fast=True)
    drivers = job.drivers({"L3": Tally(), "strong": Tally()}, 0, 0)
    assert drivers[0].pace == level(3).pace
    assert drivers[1].pace == Pace(0.05, 0.05)


def test_the_ladder_holds_every_policy_and_level_then_an_authors() -> None:
    entries = ladder_entries(["strong", "file.py:Mine"])
    assert entries[: len(POLICIES)] == list(POLICIES)
    assert entries[len(POLICIES) :] == [*(f"L{n}" for n in range(1, 11)), "file.py:Mine"]


@pytest.mark.parametrize("entries", [["strong"], ["strong", "strong"]])
def test_a_ladder_it_cannot_rate_says_why(entries: list[str]) -> None:
    with pytest.raises(ArenaError, match="two or more entries"):
        play_ladder(entries, 4, seed=1)
