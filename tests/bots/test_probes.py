"""The strong bot's probes (tools/probes.py): each plays the arena as the strong bot does
but for the one kind of decision it changes."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

import probes

from p2pnerts.arena import play_arena
from p2pnerts.bots import StrongBot
from p2pnerts.rules import (
    CardMove,
    TableOptions,
    ToWork,
    TurnStock,
    apply,
    deal,
    legal_moves,
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
    monkeypatch.setattr(probes.TableRollouts, "GUESSES", 1)
    monkeypatch.setattr(probes.TableRollouts, "HORIZON", 0.2)
    report = play_arena(
        ["strong", "probes:TableRollouts", "probes:OwnRollouts"], 1, seed=3, fast=True
    )
    assert all(f.seat_rounds >= 1 for f in report.figures)


def test_turn_for_home_turns_where_the_strong_bot_would_move_a_card_at_home() -> None:
    """Along the strong bot's own play of a few deals, the probe turns at some looks where
    the strong bot moves a card onto a work pile, and differs from it nowhere else."""
    turned = 0
    for seed in range(6):
        state = deal(TableOptions(), (0, 1), rng=random.Random(seed))
        for look in range(60):
            view = private_view(state, 0)
            strong = StrongBot().choose(view, 0)
            probe = probes.TurnForHome(random.Random(look)).choose(view, 0)
            if probe != strong:
                assert isinstance(strong, ToWork) and probe == TurnStock(0)
                assert probe in legal_moves(view, 0)
                turned += 1
            if not isinstance(strong, CardMove | TurnStock):
                break
            state = apply(state, strong)[0]
    assert turned > 0
