"""The weights' tuner (tools/tune.py): SPSA on the fast arena, head to head."""

from __future__ import annotations

import math
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

import tune

from p2pnerts.arena import play_arena
from p2pnerts.bots._expert import EXPERT
from p2pnerts.fanout import SERIAL


def test_the_weights_start_at_the_experts_and_a_gain_later_never_outweighs_one_now() -> None:
    assert tune.weights([0.0] * len(tune.TUNED)) == {
        name: round(getattr(EXPERT, name), 4) for name in tune.TUNED
    }
    assert tune.weights([2.0] * len(tune.TUNED))["later"] == tune.LATER_MAX < 1


def test_a_step_moves_every_weight_towards_the_side_that_won(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """With the arena's verdict fixed (the Plus side ahead by a point), each weight moves by
    the same factor, towards the value the Plus side played it at."""

    @dataclass
    class Figures:
        margin: float

    @dataclass
    class Report:
        figures: list[Figures]

    plus: dict[str, float] = {}

    def arena(specs: list[str], rounds: int, seed: int, **options: object) -> Report:
        path, _, side = specs[1].partition(":")
        namespace: dict[str, type] = {}
        exec(Path(path).read_text(), namespace)
        plus.update(asdict(namespace[side]()._search._w))
        return Report([Figures(0.0), Figures(1.0)])

    monkeypatch.setattr(tune, "play_arena", arena)
    theta = tune.tune(1, 2, 7, SERIAL, tmp_path / "tuned.py")
    assert len({abs(t) for t in theta}) == 1 and theta[0] != 0
    for name, t in zip(tune.TUNED, theta, strict=True):
        start = getattr(EXPERT, name)
        if name != "later":
            assert (plus[name] > start) == (t > 0), name
            assert math.isclose(tune.weights(theta)[name], start * math.exp(t), rel_tol=1e-3)


def test_a_short_tuning_writes_a_policy_the_arena_plays_and_the_seed_fixes_it(
    tmp_path: Path,
) -> None:
    first, again = tmp_path / "first.py", tmp_path / "again.py"
    steps: list[float] = []
    tune.tune(2, 2, 3, SERIAL, first, lambda k, margin, theta: steps.append(margin))
    tune.tune(2, 2, 3, SERIAL, again)
    assert len(steps) == 2
    assert first.read_text() == again.read_text()
    report = play_arena(["strong", f"{first}:Tuned"], 2, seed=5, fast=True)
    assert [f.seat_rounds for f in report.figures] == [4, 4]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--iterations", "0"], "--iterations and --rounds are at least 1"),
        (["--out", "no/such/folder/tuned.py"], "no folder no/such/folder to write it in"),
    ],
)
def test_the_command_refuses_before_it_plays(
    args: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        tune.main(args)
    assert exited.value.code == 2
    assert said in capsys.readouterr().err


def test_every_weight_it_tunes_is_one_a_factor_can_move() -> None:
    # The expert's feed went to 0: a log factor would have left it there whatever the
    # arena said, and the step's test caught it.
    assert all(getattr(EXPERT, name) > 0 for name in tune.TUNED)
