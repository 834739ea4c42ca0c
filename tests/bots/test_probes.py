"""The strong bot's probes (tools/probes.py): each plays the arena as the strong bot does
but for the one kind of decision it changes; and the beam searches (tools/beams.py)."""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

import beams
import probes
from test_unseen import relabelled, unseen

from p2pnerts.arena import play_arena
from p2pnerts.bots import ExpertBot, StrongBot
from p2pnerts.rules import (
    NERTS,
    CardMove,
    Move,
    SlideUnder,
    State,
    TableOptions,
    ToFoundation,
    ToWork,
    TurnStock,
    apply,
    deal,
    legal_moves,
    makes_progress,
    private_view,
)

PROBES = Path(probes.__file__)
CHEAP = [
    "AnyNertsPlace",
    "AnyRunMove",
    "AnyWasteMove",
    "HomeForTurn",
    "WasteForTurn",
    "TurnForHome",
    "AnyFoundationPlay",
    "TurnForUp",
    "ShortestPlan",
]


@pytest.mark.parametrize("probe", CHEAP)
def test_each_probe_plays_the_fast_arena(probe: str) -> None:
    report = play_arena(["strong", f"{PROBES}:{probe}"], 2, seed=3, fast=True)
    assert [f.seat_rounds for f in report.figures] == [4, 4]


def test_the_rollouts_play_both_options_on_and_keep_to_the_rules(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Short rollouts (one guess, a fifth of a second), that a round stays quick."""
    for rollouts in (probes.TableRollouts, probes.ExpertRollouts):
        monkeypatch.setattr(rollouts, "GUESSES", 1)
        monkeypatch.setattr(rollouts, "HORIZON", 0.2)
    policies = ["strong", "probes:TableRollouts", "probes:OwnRollouts", "probes:ExpertRollouts"]
    report = play_arena(policies, 1, seed=3, fast=True)
    assert all(f.seat_rounds >= 1 for f in report.figures)


def _home(move: Move | None) -> bool:
    return isinstance(move, ToWork)


def _up(move: Move | None) -> bool:
    return isinstance(move, ToFoundation) and move.source != NERTS


def _strong_play(deals: int, looks: int) -> Iterator[tuple[State, Move | None, int]]:
    """The strong bot's own play of seat 0 of a few two-player deals: each look's view, the
    bot's move there, and the look's number."""
    for seed in range(deals):
        state = deal(TableOptions(), (0, 1), rng=random.Random(seed))
        for look in range(looks):
            view = private_view(state, 0)
            strong = StrongBot().choose(view, 0)
            yield view, strong, look
            if not isinstance(strong, CardMove | TurnStock):
                break
            state = apply(state, strong)[0]


@pytest.mark.parametrize(("probe", "held"), [("TurnForHome", _home), ("TurnForUp", _up)])
def test_a_turn_probe_turns_only_where_the_strong_bot_makes_its_kind_of_move(
    probe: str, held: Callable[[Move | None], bool]
) -> None:
    """Along the strong bot's own play of a few deals, the probe turns at some looks where
    the strong bot makes the kind of move it holds (a card onto a work pile, a card other
    than the Nerts card up), and differs from it nowhere else."""
    turned = 0
    for view, strong, look in _strong_play(6, 60):
        chosen = getattr(probes, probe)(random.Random(look)).choose(view, 0)
        if chosen != strong:
            assert held(strong) and chosen == TurnStock(0)
            assert chosen in legal_moves(view, 0)
            turned += 1
    assert turned > 0


def test_any_foundation_play_plays_up_a_card_where_the_strong_bot_plays_one_up() -> None:
    """Where the strong bot plays up a card not its Nerts card, the probe plays some card up
    (another one at some looks); elsewhere it plays as the strong bot does."""
    other = 0
    for view, strong, look in _strong_play(20, 120):
        chosen = probes.AnyFoundationPlay(random.Random(look)).choose(view, 0)
        if chosen != strong:
            assert _up(strong) and isinstance(chosen, ToFoundation)
            assert chosen in legal_moves(view, 0)
            other += 1
    assert other > 0


def test_the_beam_probes_play_the_fast_arena(monkeypatch: pytest.MonkeyPatch) -> None:
    """A narrow, shallow beam, that the rounds stay quick."""
    monkeypatch.setattr(beams.BeamPlan, "WIDTH", 4)
    monkeypatch.setattr(beams.BeamPlan, "DEPTH", 3)
    monkeypatch.setattr(beams.BeamGuess, "WIDTH", 4)
    monkeypatch.setattr(beams.BeamGuess, "DEPTH", 3)
    policies = ["strong", "beams:BeamPlan", "beams:BeamHome", "beams:BeamGuess"]
    report = play_arena(policies, 1, seed=3, fast=True)
    assert all(f.seat_rounds >= 1 for f in report.figures)


def test_the_guessing_beam_plans_alike_whatever_the_cards_its_seat_has_not_seen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """At the first look of a few deals, the beam of `BeamGuess` is handed the same guesses
    (drawn from the same seed) whatever order the seat's face-down cards lie in. It guessed
    only the others' hidden cards, and read its own Nerts pile and stock from the view."""
    handed: list[State] = []

    def planned(_: beams.BeamPlan, view: State, seat: int) -> Move | None:
        handed.append(view)
        return None

    monkeypatch.setattr(beams.BeamPlan, "planned", planned)
    for seed in range(3):
        state = deal(TableOptions(), (0, 1), rng=random.Random(seed))
        view = private_view(state, 0)
        hidden = sorted(unseen([view], 0))
        twin = relabelled(view, 0, dict(zip(hidden, hidden[1:] + hidden[:1], strict=True)))
        handed.clear()
        for each in (view, twin):
            guessing = beams.BeamGuess(random.Random(seed))
            guessing.expert.choose(each, 0)  # (as `BeamHome.choose` does first: what it saw)
            guessing.planned(each, 0)
        assert len(handed) == 2 * beams.BeamGuess.GUESSES
        assert handed[: len(handed) // 2] == handed[len(handed) // 2 :]


def test_the_beam_at_home_changes_only_the_expert_s_moves_at_home_and_turns(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Along the strong bot's play of a few deals, BeamHome plays as the expert does but
    where the expert moves a card onto a work pile or turns: there, at some looks, a turn
    or a move that makes progress, legal, from the beam."""
    monkeypatch.setattr(beams.BeamPlan, "WIDTH", 8)
    monkeypatch.setattr(beams.BeamPlan, "DEPTH", 4)
    changed = 0
    for view, _, _ in _strong_play(4, 40):
        expert = ExpertBot().choose(view, 0)
        chosen = beams.BeamHome().choose(view, 0)
        if chosen != expert:
            assert isinstance(expert, ToWork | SlideUnder | TurnStock)
            assert chosen in legal_moves(view, 0)
            assert isinstance(chosen, TurnStock) or makes_progress(view, chosen)
            changed += 1
    assert changed > 0


def test_solo_counts_the_nerts_cards_left_and_the_cards_up_on_the_same_deals() -> None:
    """A seat that never moves leaves its whole Nerts pile and plays nothing up; the strong
    bot alone gets some of both done, the same on the same deals."""
    assert probes.solo(f"{PROBES}:_Still", 3) == (13.0, 0.0)
    left, up = probes.solo("strong", 3)
    assert left < 13 and up > 0
    assert probes.solo("strong", 3) == (left, up)
    assert probes.solo("strong", 3, seed=1) != (left, up)  # other deals


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["nosuch"], "'nosuch' is neither a policy"),
        (["strong", "--deals", "0"], "--deals: must be 1 to 100,000, not 0"),
    ],
)
def test_solo_s_command_refuses_bad_input_in_words(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        probes.main(argv)
    assert stopped.value.code == 2
    assert said in capsys.readouterr().err


def test_solo_s_command_prints_each_policy_s_figures(capsys: pytest.CaptureFixture[str]) -> None:
    probes.main(["strong", "--deals", "2"])
    left, up = probes.solo("strong", 2)
    assert f"strong: {left:.2f} Nerts cards left, {up:.2f} cards up" in capsys.readouterr().out
