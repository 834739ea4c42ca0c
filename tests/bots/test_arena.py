"""The arena: reproducible from its seed, deals rotated across the seats, sane counts."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from p2pnerts.arena import ArenaError, play_arena
from p2pnerts.arena._arena import arena_deck
from p2pnerts.bots import BotDriver, PolicyError, SimpleBot
from p2pnerts.driver import Driver, Pace
from p2pnerts.protocol import Event, RoundOver
from p2pnerts.rules import Card, Move, State, TableOptions
from p2pnerts.sim import MIXES, Lineup, SimConfig, Simulation

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "eager.py"


def test_the_same_seed_gives_the_same_results_and_another_seed_others() -> None:
    first = play_arena(["baseline", "strong"], 8, seed=11)
    again = play_arena(["baseline", "strong"], 8, seed=11)
    other = play_arena(["baseline", "strong"], 8, seed=12)
    assert first.to_json()["results"] == again.to_json()["results"]
    assert first.to_json()["results"] != other.to_json()["results"]


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
    assert all(r["cards_played"] > 0 for r in results.values())
    assert results["simple"]["margin"] is None
    assert results["strong"]["margin"] == pytest.approx(
        results["strong"]["mean_points"] - results["simple"]["mean_points"], abs=1e-3
    )
    assert set(data["timing"]["decision_ms"]) == set(results)


def test_an_authors_policy_plays_in_the_arena() -> None:
    report = play_arena([f"{EXAMPLE}:Eager", "baseline"], 2, seed=4)
    assert report.figures[0].cards_played > 0


@pytest.mark.parametrize(
    ("policies", "players"),
    [([], 4), (["baseline"] * 5, 4), (["no-such-policy"], 4)],
)
def test_an_arena_it_cannot_run_says_why(policies: list[str], players: int) -> None:
    with pytest.raises((ArenaError, PolicyError)):
        play_arena(policies, 4, seed=1, players=players)


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
