"""The arena: reproducible from its seed, deals rotated across the seats, sane counts."""

from __future__ import annotations

import math
import random
import re
import statistics
from pathlib import Path

import pytest

from p2pnerts.arena import ArenaError, play_arena
from p2pnerts.arena._job import arena_deck
from p2pnerts.arena._report import clustered_ci95
from p2pnerts.bots import BotDriver, PolicyError, SimpleBot, level, paced
from p2pnerts.driver import Driver, Pace
from p2pnerts.errors import Error
from p2pnerts.protocol import Event, RoundOver
from p2pnerts.rules import Card, Move, State, TableOptions, TieRule
from p2pnerts.sim import MIXES, Lineup, SimConfig, Simulation

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "eager.py"


def test_the_same_seed_gives_the_same_results_and_another_seed_others() -> None:
    first = play_arena(["baseline", "strong"], 4, seed=11)
    again = play_arena(["baseline", "strong"], 4, seed=11)
    other = play_arena(["baseline", "strong"], 4, seed=12)
    assert first.to_json()["results"] == again.to_json()["results"]
    assert first.played == again.played
    assert first.to_json()["results"] != other.to_json()["results"]
    assert [r.dealt for r in first.played] != [r.dealt for r in other.played]


def test_each_deal_is_played_once_in_every_rotation_each_deck_from_every_seat() -> None:
    """What the simulator dealt: in rotation ``k`` seat ``s`` gets the deal's deck
    ``(s + k) mod players``, every deal once per rotation, each deal other decks."""
    players, deals = 3, 2
    report = play_arena(["simple", "baseline"], deals * players, seed=5, players=players)
    played = report.played
    assert [(r.deal, r.rotation) for r in played] == [
        (d, k) for d in range(deals) for k in range(players)
    ]
    for deal in range(deals):
        rounds = [r for r in played if r.deal == deal]
        base = rounds[0].dealt
        assert len(set(base)) == players
        for r in rounds:
            assert r.dealt == tuple(base[(s + r.rotation) % players] for s in range(players))
    assert set(played[0].dealt).isdisjoint(played[players].dealt)


def test_every_deal_is_played_from_every_seat() -> None:
    options = TableOptions()
    for players in (2, 3, 4):
        for rotation in range(players):
            for seat in range(players):
                dealt = arena_deck(7, 0, rotation, seat, players, options)
                base = arena_deck(7, 0, 0, (seat + rotation) % players, players, options)
                assert [c[1:] for c in dealt] == [c[1:] for c in base]
                assert {c.deck for c in dealt} == {seat}


def test_a_simulated_run_plays_the_lineup_it_is_given() -> None:
    options = TableOptions()
    config = SimConfig(3, 1, MIXES["none"], options)
    heard: list[tuple[int, Event]] = []
    asked: list[int] = []

    class Counting(SimpleBot):
        def choose(self, view: State, seat: int) -> Move | None:
            asked.append(seat)
            return super().choose(view, seat)

    def decks(round_: int, seat: int) -> tuple[Card, ...]:
        return arena_deck(3, round_, 1, seat, 3, options)

    def bots(seat: int, _rng: random.Random) -> Driver:
        return BotDriver(Counting(random.Random(seat)), Pace(0.01, 0.01))

    lineup = Lineup(decks, lambda seat, event: heard.append((seat, event)))
    sim = Simulation(config, 5, bots, lineup)
    result = sim.run()
    assert result.violation is None
    assert set(asked) == {0, 1, 2}
    assert {seat for seat, e in heard if isinstance(e, RoundOver)} == {0, 1, 2}
    for seat in range(3):
        assert sim.ledger.decks[seat, 1] == decks(1, seat)


def test_the_figures_add_up() -> None:
    report = play_arena(["simple", "baseline", "strong"], 6, seed=2, players=3)
    data = report.to_json()
    results = {r["policy"]: r for r in data["results"]}
    assert data["seats"] == ["simple", "baseline", "strong"]
    assert all(r["seat_rounds"] == 6 for r in results.values())
    won = sum(r["races_won"] for r in results.values())
    lost = sum(r["races_lost"] for r in results.values())
    assert won == pytest.approx(lost)
    assert sum(r["nerts_rate"] for r in results.values()) <= 1.0 + 1e-9
    # A round scores a card played up +1 and a Nerts card left -2 (no bonus by default).
    assert all(r["mean_points"] <= r["cards_played"] for r in results.values())
    assert results["simple"]["margin"] is None
    assert results["strong"]["margin"] == pytest.approx(
        results["strong"]["mean_points"] - results["simple"]["mean_points"], abs=1e-3
    )
    assert set(data["timing"]["decision_ms"]) == set(results)


def test_each_policys_figures_sum_up_the_points_its_seats_scored() -> None:
    """Four seats, three policies: the first plays seats 0 and 3, and its points per round
    are the mean of the two; a margin is per round, against the first policy's."""
    policies = ["simple", "baseline", "strong"]
    report = play_arena(policies, 8, seed=3, players=4)
    seats = {name: [s for s in range(4) if policies[s % 3] == name] for name in policies}
    per_round = {
        name: [statistics.fmean(r.points[s] for s in seats[name]) for r in report.played]
        for name in policies
    }
    first = per_round["simple"]
    for f in report.figures:
        assert f.seat_rounds == 8 * len(seats[f.name])
        assert f.mean_points == pytest.approx(statistics.fmean(per_round[f.name]))
        if f.name != "simple":
            margins = [a - b for a, b in zip(per_round[f.name], first, strict=True)]
            assert f.margin == pytest.approx(statistics.fmean(margins))
    assert len({r.points for r in report.played}) > 1  # the rounds differ


def test_an_interval_counts_deals_not_rounds() -> None:
    """The rounds of a deal share its decks: their mean's interval is the spread of the
    deals' means (equal deals), none where each deal's rounds cancel out, and none can be
    told from a single deal."""
    rng = random.Random(5)
    values = [rng.gauss(0, 3) for _ in range(40)]
    deals = [i // 4 for i in range(40)]
    means = [statistics.fmean(values[d * 4 : d * 4 + 4]) for d in range(10)]
    assert clustered_ci95(values, deals) == pytest.approx(clustered_ci95(means, range(10)))
    cancelling = [x for d in range(10) for x in (d + 1.0, -(d + 1.0), 2.0, -2.0)]
    assert clustered_ci95(cancelling, deals) == pytest.approx(0)
    assert clustered_ci95(cancelling, range(40)) > 1  # as if the rounds were independent
    assert clustered_ci95(values[:4], deals[:4]) == math.inf


def test_an_arena_of_one_deal_reports_no_interval() -> None:
    data = play_arena(["baseline", "strong"], 2, seed=4, players=2, fast=True).to_json()
    strong = next(r for r in data["results"] if r["policy"] == "strong")
    assert strong["margin_ci95"] is None and strong["points_ci95"] is None
    assert isinstance(strong["margin"], float)


def test_an_authors_policy_plays_in_the_arena() -> None:
    report = play_arena([f"{EXAMPLE}:Eager", "baseline"], 2, seed=4)
    eager = report.figures[0]
    assert eager.name.endswith("eager.py:Eager") and eager.seat_rounds == 4
    assert eager.decisions > 0
    points = [r.points[s] for r in report.played for s in (0, 2)]
    assert eager.mean_points == pytest.approx(statistics.fmean(points))


@pytest.mark.parametrize(
    ("policies", "players"),
    [([], 4), (["baseline"] * 5, 4), (["no-such-policy"], 4)],
)
def test_an_arena_it_cannot_run_says_why(policies: list[str], players: int) -> None:
    with pytest.raises((ArenaError, PolicyError)):
        play_arena(policies, 4, seed=1, players=players)


CALLS_AT_ONCE = """
from p2pnerts.rules import CallNerts

class Caller:
    def choose(self, view, seat):
        return CallNerts(seat)
"""


@pytest.mark.parametrize("fast", [True, False])
def test_a_policy_whose_move_the_rules_refuse_stops_the_run_naming_it_the_move_and_why(
    tmp_path: Path, fast: bool
) -> None:
    # Before, the fast arena took such a play as a race lost and scored on, silently; a
    # refused move of the seat's own tableau ended the run naming only the rules' line.
    path = tmp_path / "caller.py"
    path.write_text(CALLS_AT_ONCE, encoding="utf-8")
    with pytest.raises(Error) as raised:
        play_arena([f"{path}:Caller", "baseline"], 2, seed=4, fast=fast)
    said = str(raised.value)
    # (its seats 0 and 2: whichever looks first)
    assert re.search(
        rf"{re.escape(str(path))}:Caller chose CallNerts\(seat=[02]\), which the rules refuse: "
        "your Nerts pile still has 13 cards",
        said,
    ), said
    # Its author's file and line, where the full arena named its own ('(at
    # arena/_report.py:71, choose)'), the line that found the move refused.
    assert said.endswith(f"(its choose() is at {path}:5)"), said
    assert "_report.py" not in said


def test_a_policy_in_the_simulator_sees_no_other_seats_face_down_cards() -> None:
    """What a seat's replica hands its policy shows its own deck, and of the others only
    what has been face up: never a card below a Nerts pile's top, and in a stock only
    cards that went through the waste (turned over as the next pass)."""
    looked = 0
    shown: set[Card] = set()

    class Inspecting(SimpleBot):
        def choose(self, view: State, seat: int) -> Move | None:
            nonlocal looked
            own = view.seats[seat]
            for t in view.tableaux:
                shown.update(t.waste)
            for t in view.tableaux:
                if t.deck == own:
                    assert None not in (*t.nerts, *t.stock)
                    continue
                assert all(c is None for c in t.nerts[:-1])
                assert all(c is None or c in shown for c in t.stock), t.stock
            looked += 1
            return super().choose(view, seat)

    config = SimConfig(3, 1, MIXES["none"], TableOptions())

    def bots(seat: int, _rng: random.Random) -> Driver:
        return BotDriver(Inspecting(random.Random(seat)))

    assert Simulation(config, 8, bots).run().violation is None
    assert looked > 100


def test_a_policy_named_twice_is_refused_before_any_round() -> None:
    with pytest.raises(ArenaError, match="strong named twice"):
        play_arena(["strong", "baseline", "strong"], 4, seed=1)


def test_teams_play_the_arena_one_policy_per_team_deals_rotated_over_the_teams() -> None:
    options = TableOptions(teams=(2, 2))
    report = play_arena(["baseline", "strong"], 4, seed=6, players=4, options=options)
    assert report.seats == ("baseline", "baseline", "strong", "strong")
    assert [(r.deal, r.rotation) for r in report.played] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    for r in report.played:
        assert r.points[0] == r.points[1] and r.points[2] == r.points[3]  # a team's score
        assert r.dealt[0] == r.dealt[1] and r.dealt[2] == r.dealt[3]  # one deck per team
    first, second = report.played[:2]
    assert second.dealt == (first.dealt[2],) * 2 + (first.dealt[0],) * 2
    assert all(f.seat_rounds == 8 for f in report.figures)
    assert sum(f.nerts_rate for f in report.figures) <= 1.0 + 1e-9


def test_an_arena_with_more_policies_than_teams_says_why() -> None:
    with pytest.raises(ArenaError, match="3 policies cannot share 2 teams"):
        play_arena(["simple", "baseline", "strong"], 2, 1, options=TableOptions(teams=(2, 2)))


def test_at_two_players_a_race_is_a_tie_under_both_stay_and_counted_as_one() -> None:
    """Why 2-player arenas once showed no races: the two peers' clocks move together, so
    two plays onto one spot carry equal clocks; under the default both-stay rule both cards
    stay, and only returned cards were counted. Under the rotate rule the same race has a
    winner and a loser. (Seed 11 is one whose two rounds hold such a race.)"""
    both = play_arena(["strong", "baseline"], 2, seed=11, players=2)
    assert sum(f.races_tied for f in both.figures) > 0
    assert sum(f.races_won + f.races_lost for f in both.figures) == 0
    rotate = TableOptions(tie_rule=TieRule.ROTATE)
    raced = play_arena(["strong", "baseline"], 2, seed=11, players=2, options=rotate)
    assert sum(f.races_tied for f in raced.figures) == 0
    assert sum(f.races_won for f in raced.figures) == sum(f.races_lost for f in raced.figures)
    assert sum(f.races_won for f in raced.figures) > 0


def test_a_policy_beside_a_level_looks_as_often_as_the_level_unless_told() -> None:
    # Before, an author's policy beside L2 looked about 13 times a second, L2 0.4 times,
    # and the report said nothing of it: +14 points a round against -24.
    report = play_arena([f"{EXAMPLE}:Eager", "L2"], 4, seed=1, fast=True)
    eager, l2 = report.figures
    assert eager.decisions < 2 * l2.decisions  # not thirty times as many looks
    assert report.paces == (level(2).pace, level(2).pace) and report.pace_level == "L2"
    told = report.text().splitlines()[1]
    assert told == (
        f"looks a second: {EXAMPLE}:Eager 0.4, L2 0.4 (a policy named without @N looks as "
        "often as L2, the level it meets; POLICY@N looks N times a second)"
    )
    assert report.to_json()["looks_a_second"] == {f"{EXAMPLE}:Eager": 0.4, "L2": 0.4}
    report = play_arena(["baseline@13.3", "L2", "L5"], 3, seed=1, players=3, fast=True)
    assert report.paces == (paced("baseline@13.3")[1], level(2).pace, level(5).pace)
    report = play_arena(["baseline", "strong"], 2, seed=1, players=2, fast=True)
    assert report.paces == (Pace(), Pace()) and report.pace_level is None
    assert "looks at the arena's pace" in report.text().splitlines()[1]


def test_the_reports_columns_hold_a_policy_named_by_a_long_path(tmp_path: Path) -> None:
    # Before, a name longer than the first column pushed its row's figures to the right.
    path = tmp_path / "a folder of policies" / "eager.py"
    path.parent.mkdir()
    path.write_text(EXAMPLE.read_text(encoding="utf-8"), encoding="utf-8")
    report = play_arena([f"{path}:Eager", "baseline"], 2, seed=1, players=2, fast=True)
    header, *rows = report.text().splitlines()[2:5]
    assert len(rows[0]) > len(f"{path}:Eager") + 20
    # Each row's "±" sits below the heading's "points/round", 8 before its end.
    ends = {header.index("points/round") + len("points/round")}
    ends |= {row.index(" ± ") + 8 for row in rows}
    assert len(ends) == 1, report.text()
