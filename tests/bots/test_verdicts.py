"""The rollouts' verdicts (tools/verdicts.py): labelled decisions, and the fit to them."""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

import verdicts
from test_policies import positions

from p2pnerts.arena import play_arena
from p2pnerts.bots import ExpertBot
from p2pnerts.rules import NERTS, TableOptions, ToWork, TurnStock, legal_moves, private_view


def test_least_squares_finds_the_weights_that_made_the_targets() -> None:
    rng = random.Random(1)
    rows = [[1.0, rng.uniform(-5, 5), rng.uniform(-5, 5), 0.0] for _ in range(400)]
    targets = [2 + 3 * x[1] - x[2] for x in rows]
    w = verdicts.solve(rows, targets)
    assert w[1:] == pytest.approx([3, -1, 0], abs=0.01)
    assert w[0] == pytest.approx(2, abs=0.05)  # (the ridge pulls a little)


def test_each_decision_is_labelled_with_its_features_and_a_verdict_a_guess() -> None:
    lines = verdicts.label(1, seed=7, guesses=2)
    assert lines == verdicts.label(1, seed=7, guesses=2)  # the same seed, the same file
    rows = [json.loads(line) for line in lines]
    assert len(rows) > 5
    kinds = {row[0][1] for row in rows}
    assert kinds <= {0.0, 1.0}
    for features, verdicts_ in rows:
        assert len(features) == len(verdicts.FEATURES) and features[0] == 1.0
        assert len(verdicts_) == 2
    assert any(v != 0 for _, vs in rows for v in vs)  # playing on tells the choices apart


def _made_up(seed: int, count: int) -> list[str]:
    """Decisions whose verdict is the search's line difference less a point, and noise."""
    rng = random.Random(seed)
    lines = []
    for k in range(count):
        row = [1.0, float(k % 2)] + [rng.uniform(-3, 3) for _ in verdicts.FEATURES[2:]]
        verdict = row[4] - 1 + rng.gauss(0, 0.1)
        lines.append(json.dumps([row, [verdict]]))
    return lines


def _figure(pattern: str, text: str) -> float:
    found = re.search(pattern, text)
    assert found is not None, f"{pattern!r} not in {text!r}"
    return float(found.group(1))


def test_the_fit_explains_verdicts_that_follow_a_feature_and_gains_by_switching() -> None:
    report = verdicts.fit(_made_up(2, 400))
    assert report.startswith("400 decisions")
    for kind in ("it moved a card", "it turned"):
        line = next(x for x in report.splitlines() if x.startswith(kind))
        assert _figure(r"the fit explains (-?\d+)%", line) >= 95
        assert _figure(r"gains ([+-][\d.]+)", line) > 0.2
    assert _figure(r"move less turn ([+-][\d.]+)", report) == pytest.approx(1, abs=0.02)


def test_too_few_decisions_are_not_fitted() -> None:
    assert "too few to fit" in verdicts.fit(_made_up(3, 10))


def test_bad_arguments_are_refused_before_any_round_is_played(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for argv in (
        ["label", "--rounds", "0", "--out", str(tmp_path / "v.jsonl")],
        ["label", "--out", str(tmp_path / "nowhere" / "v.jsonl")],
        ["fit", str(tmp_path / "missing.jsonl")],
    ):
        with pytest.raises(SystemExit) as stop:
            verdicts.main(argv)
        assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "at least 1" in err and "no folder" in err and "missing.jsonl" in err


def test_the_expert_switching_where_the_fit_says_plays_whole_rounds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fit that always says turn (a verdict of +5 for every move it turns instead of) must
    not keep a round from ending: the policy turns for at most one pass in a row."""
    rows = [json.loads(line) for line in verdicts.label(1, seed=7, guesses=1)]
    file = tmp_path / "v.jsonl"
    file.write_text("".join(json.dumps([row, [5.0]]) + "\n" for row, _ in rows))
    monkeypatch.setenv("VERDICTS", str(file))
    report = play_arena(["expert", f"{verdicts.__file__}:Switching"], 2, seed=3, fast=True)
    assert [f.seat_rounds for f in report.figures] == [4, 4]
    weights = verdicts.Switching(random.Random(1)).weights
    moved = [row for row, _ in rows if not row[1]]
    assert moved and all(sum(w * x for w, x in zip(weights, row, strict=True)) > 4 for row in moved)
    # Where the expert moves a card at home and could turn, it turns; but not after a pass
    # of turns in a row.
    checked = 0
    for state in positions(4, 4, TableOptions()):
        for seat in range(4):
            view = private_view(state, seat)
            move = ExpertBot().choose(view, seat)
            if not isinstance(move, ToWork) or move.source == NERTS:
                continue
            if TurnStock(seat) not in legal_moves(view, seat):
                continue
            fresh = verdicts.Switching(random.Random(1))
            assert fresh.choose(view, seat) == TurnStock(seat)
            fresh = verdicts.Switching(random.Random(1))
            fresh.turns = 60
            assert fresh.choose(view, seat) == move
            checked += 1
    assert checked > 3


def test_the_switching_policy_needs_its_files(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VERDICTS", raising=False)
    with pytest.raises(SystemExit, match="name the files"):
        verdicts.Switching(random.Random(1))
    monkeypatch.setenv("VERDICTS", "/nonexistent/v.jsonl")
    with pytest.raises(SystemExit, match="No such file"):
        verdicts.Switching(random.Random(1))
