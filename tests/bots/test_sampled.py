"""The expert with sampled look-ahead (tools/sampled.py): it plays the arena, changes only
the expert's choices between a move at home and a turn, and reads no card its seat has not
seen."""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

import sampled
from test_unseen import first_difference

from p2pnerts.arena import play_arena
from p2pnerts.bots import ExpertBot
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


@pytest.fixture(autouse=True)
def _short(monkeypatch: pytest.MonkeyPatch) -> None:
    """A few short lines of play, however long they take: the same choices every time."""
    monkeypatch.setattr(sampled.ExpertSampled, "PAIRS", 3)
    monkeypatch.setattr(sampled.ExpertSampled, "HORIZON", 0.2)
    monkeypatch.setattr(sampled.ExpertSampled, "BUDGET", math.inf)


def test_it_plays_the_fast_arena() -> None:
    report = play_arena(["expert", "sampled:ExpertSampled"], 1, seed=3, fast=True)
    assert all(f.seat_rounds >= 1 for f in report.figures)


def test_it_changes_only_the_expert_s_moves_at_home_and_turns(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Along the expert's play of a few two-player deals: where it differs from the expert
    (taking the other side wherever it comes out ahead at all), one of them turns and the
    other moves a card onto a work pile, legal; and it does differ somewhere."""
    monkeypatch.setattr(sampled.ExpertSampled, "MARGIN", 0.0)
    changed = 0
    for seed in range(4):
        state = deal(TableOptions(), (0, 1), rng=random.Random(seed))
        for look in range(60):
            view = private_view(state, 0)
            expert = ExpertBot().choose(view, 0)
            chosen = sampled.ExpertSampled(random.Random(look)).choose(view, 0)
            if chosen != expert:
                assert {type(expert), type(chosen)} == {ToWork, TurnStock}
                assert chosen in legal_moves(view, 0)
                changed += 1
            if not isinstance(expert, CardMove | TurnStock):
                break
            state = apply(state, expert)[0]
    assert changed > 0


def test_it_chooses_alike_whatever_the_cards_it_has_not_seen() -> None:
    assert first_difference(sampled.ExpertSampled, range(4)) is None
