"""The fast arena: the rules engine alone, races settled by pace, in step with the full one."""

from __future__ import annotations

import math
import random

import pytest

from p2pnerts.arena import play_arena
from p2pnerts.arena._fast import FastRound, Seat
from p2pnerts.arena._job import Job
from p2pnerts.arena._report import Tally
from p2pnerts.bots import BotDriver, PolicyError, SimpleBot
from p2pnerts.driver import Pace
from p2pnerts.rules import HIDDEN, Move, State, TableOptions, deal, solo_seats


def test_the_fast_arena_deals_what_the_full_one_deals_and_repeats_itself() -> None:
    fast = play_arena(["simple", "strong"], 6, seed=4, players=3, fast=True)
    again = play_arena(["simple", "strong"], 6, seed=4, players=3, fast=True)
    full = play_arena(["simple", "strong"], 6, seed=4, players=3)
    assert fast.played == again.played and fast.to_json()["results"] == again.to_json()["results"]
    assert [(r.deal, r.rotation, r.dealt) for r in fast.played] == [
        (r.deal, r.rotation, r.dealt) for r in full.played
    ]
    assert fast.to_json()["fast"] is True and full.to_json()["fast"] is False


def test_fast_and_full_arenas_agree_on_points_and_margins_within_their_intervals() -> None:
    """The same 20 rounds (5 deals in 4 rotations) played both ways: every policy's mean
    points and margin differ by less than the two 95% intervals combined."""
    policies = ["simple", "baseline", "strong"]
    fast = play_arena(policies, 20, seed=21, fast=True)
    full = play_arena(policies, 20, seed=21)
    for f, g in zip(fast.figures, full.figures, strict=True):
        assert abs(f.mean_points - g.mean_points) < math.hypot(f.points_ci95, g.points_ci95)
        assert abs(f.cards_played - g.cards_played) < 2.0
        if f.margin is not None and g.margin is not None:
            assert f.margin_ci95 is not None and g.margin_ci95 is not None
            assert abs(f.margin - g.margin) < math.hypot(f.margin_ci95, g.margin_ci95)


def test_every_race_of_the_fast_arena_has_a_winner_and_a_loser() -> None:
    report = play_arena(["baseline", "strong"], 16, seed=3, fast=True)
    won = sum(f.races_won for f in report.figures)
    assert won == pytest.approx(sum(f.races_lost for f in report.figures))
    assert won > 0
    assert all(f.races_tied == 0 for f in report.figures)


def test_teams_play_the_fast_arena() -> None:
    options = TableOptions(teams=(2, 2))
    report = play_arena(["baseline", "strong"], 4, seed=6, options=options, fast=True)
    for r in report.played:
        assert r.points[0] == r.points[1] and r.points[2] == r.points[3]
    assert all(f.seat_rounds == 8 for f in report.figures)


def test_a_policy_in_the_fast_arena_sees_its_own_view_only() -> None:
    """Other seats' face-down cards are hidden from it: their Nerts piles below the top
    and their stocks."""
    looked = 0

    class Inspecting(SimpleBot):
        def choose(self, view: State, seat: int) -> Move | None:
            nonlocal looked
            own = view.seats[seat]
            for t in view.tableaux:
                if t.deck == own:
                    assert HIDDEN not in (*t.nerts, *t.stock)
                else:
                    assert all(c is HIDDEN for c in (*t.nerts[:-1], *t.stock))
            looked += 1
            return super().choose(view, seat)

    state = deal(TableOptions(), solo_seats(3), rng=random.Random(5))
    name = "inspecting"
    seats = [Seat(BotDriver(Inspecting(random.Random(s))), name, (s,)) for s in range(3)]
    end = FastRound(state, seats, {name: Tally()}, random.Random(1)).run()
    assert end.ended is not None
    assert looked > 50


def test_a_round_played_only_for_a_while_stops_there() -> None:
    """`FastRound.run` with ``until`` (the probes' look ahead): the table half a second in,
    not ended, where the whole round, played from the same deal, ends."""

    def round_of_simple_bots() -> FastRound:
        state = deal(TableOptions(), solo_seats(3), rng=random.Random(5))
        seats = [Seat(BotDriver(SimpleBot(random.Random(s))), "simple", (s,)) for s in range(3)]
        return FastRound(state, seats, {"simple": Tally()}, random.Random(1))

    part = round_of_simple_bots()
    assert part.run(until=0.5).ended is None
    assert 0.4 < part.now <= 0.5
    assert round_of_simple_bots().run().ended is not None


def test_a_policy_given_a_quicker_pace_looks_more_often_and_wins_by_it() -> None:
    """The same policy, one side looking three times as often as the arena's pace (about
    13 looks a second): the quicker side plays more cards and scores more in every run."""
    job = Job(("strong", "strong@40"), 4, 5, Pace(), TableOptions(), fast=True)
    tallies = {name: Tally() for name in job.policies}
    paces = [driver.pace for driver in job.drivers(tallies, 0, 0)]
    assert paces[0] == paces[2] == Pace() and paces[1] == paces[3]
    assert paces[1].think + paces[1].spread / 2 == pytest.approx(1 / 40)
    report = play_arena(list(job.policies), 8, seed=5, fast=True)
    slow, quick = report.figures
    assert quick.cards_played > slow.cards_played
    assert quick.margin is not None and quick.margin > 0


def test_an_arena_pace_that_is_no_number_stops_the_run_before_any_round() -> None:
    with pytest.raises(PolicyError, match="after @ comes a pace"):
        play_arena(["strong", "strong@quick"], 4, seed=1, fast=True)
