"""The replay screen: stepping forward and back through a replayed log (the model), its keys
on a pipe, what it draws, and the whole command in a real terminal (tmux)."""

from __future__ import annotations

import re
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from _replaylogs import rewritten, sim_logs
from _tmux import Terminal, needs_tmux
from hypothesis import given
from hypothesis import strategies as st
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2pnerts.commands.replay import _start
from p2pnerts.logs import COMMIT, Replay, replay
from p2pnerts.ui import REPLAY_KEYS, ReplayModel, render_replay, replay_application

RIGHT, LEFT, HOME, END = "\x1b[C", "\x1b[D", "\x1b[H", "\x1b[F"


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return sim_logs(tmp_path_factory.mktemp("logs"), seed=5)[0]


@pytest.fixture(scope="module")
def replayed(log: Path) -> Replay:
    return replay(log)


@pytest.fixture
def pipe() -> Iterator[PipeInput]:
    with create_pipe_input() as pipe:
        yield pipe


def shown(model: ReplayModel, width: int = 100, height: int = 32) -> str:
    return render_replay(model, width, height).text()


MOVES = st.sampled_from(
    ["forward", "back", "page_on", "page_back", "next_round", "previous_round", "first", "last"]
)


def act(model: ReplayModel, move: str) -> None:
    match move:
        case "page_on":
            model.forward(10)
        case "page_back":
            model.back(10)
        case "first":
            model.go(0)
        case "last":
            model.go(model.count - 1)
        case _:
            getattr(model, move)()


@given(moves=st.lists(MOVES, max_size=30), seat=st.integers(0, 2))
def test_any_way_to_a_step_shows_what_going_straight_there_shows(
    replayed: Replay, moves: list[str], seat: int
) -> None:
    wandered = ReplayModel(replayed, seat)
    for move in moves:
        act(wandered, move)
    straight = ReplayModel(replayed, seat, at=wandered.at)
    assert 0 <= wandered.at < wandered.count
    assert shown(wandered) == shown(straight)
    assert wandered.table().snap == straight.table().snap


def test_forward_to_a_step_then_back_is_that_step_as_reached_directly(replayed: Replay) -> None:
    model = ReplayModel(replayed, 1)
    model.forward(300)
    at300 = shown(model)
    model.forward(57)
    model.back(57)
    assert model.at == 300 and shown(model) == at300 == shown(ReplayModel(replayed, 1, at=300))


def test_rounds_are_stepped_through_by_their_first_commits(replayed: Replay) -> None:
    model = ReplayModel(replayed, 0)
    rounds = []
    for _ in range(5):
        model.next_round()
        rounds.append(replayed.steps[model.at].round)
    assert rounds[:3] == [1, 2, 3] and model.at == model.count - 1
    model.previous_round()
    assert replayed.steps[model.at].round == 3 and replayed.steps[model.at - 1].round == 2


def test_the_screen_says_the_step_its_key_and_that_the_digest_matches(replayed: Replay) -> None:
    model = ReplayModel(replayed, 0)
    text = shown(model)
    assert f"step 1 of {model.count} · round 0 (before the first deal) · Ready from P" in text
    assert "for round 0 · key (L=1, 0, " in text and "matches the log" in text
    model.next_round()
    text = shown(model)
    assert "round 1" in text and "foundations" in text and "opponents" in text


def test_a_differing_digest_is_on_the_screen(log: Path, tmp_path: Path) -> None:
    tampered = tmp_path / "tampered.p2plog"
    rewritten(log, tampered, lambda _, r: [*r[:3], bytes(16)] if r[0] == COMMIT else None)
    model = ReplayModel(replay(tampered), 0)
    text = shown(model)
    assert "DIFFERS from the log" in text and "1 digest differs from the log" in text


def test_a_small_screen_is_told_and_every_size_is_drawn(replayed: Replay) -> None:
    model = ReplayModel(replayed, 2, at=400)
    assert "needs a terminal of 80×24" in shown(model, 60, 20)
    assert "q quits." in shown(model, 60, 20) and "leaves the match" not in shown(model, 60, 20)
    for width, height in [(80, 24), (120, 40), (200, 60), (1, 1)]:
        frame = render_replay(model, width, height)
        assert len(frame.rows) == height and all(row.width <= width for row in frame.rows)
    assert "step 401 of" in shown(model, 80, 24)
    assert ReplayModel(replayed, 0, at=10**6).at == model.count - 1


def run(pipe: PipeInput, replayed: Replay, keys: str) -> ReplayModel:
    model = ReplayModel(replayed, 0)
    app = replay_application(model, input=pipe, output=DummyOutput())
    pipe.send_text(keys + "q")
    app.run()
    return model


@pytest.mark.parametrize(
    ("keys", "at"),
    [
        (RIGHT * 3 + LEFT, 2),
        ("nnnb", 2),
        ("]", None),
        (END + "b", -2),
        (END + HOME, 0),
        ("\x1b[6~\x1b[6~\x1b[5~", 10),
    ],
)
def test_the_keys_step(pipe: PipeInput, replayed: Replay, keys: str, at: int | None) -> None:
    model = run(pipe, replayed, keys)
    if at is None:
        assert replayed.steps[model.at].round == 1 and replayed.steps[model.at - 1].round == 0
    else:
        assert model.at == at % model.count


def test_other_keys_do_nothing_and_help_comes_and_goes(pipe: PipeInput, replayed: Replay) -> None:
    model = run(pipe, replayed, "xyz123\t\r ?" + "cde" + RIGHT + "s?")
    assert model.at == 1 and model.seat == 1 and model.help
    assert "replaying a game log" in shown(model)


def test_a_key_that_does_nothing_says_so_until_one_that_does(
    pipe: PipeInput, replayed: Replay
) -> None:
    model = run(pipe, replayed, RIGHT + "z")
    assert model.at == 1 and "'z' does nothing here: ? lists every key" in shown(model)
    model.forward()
    assert "does nothing" not in shown(model)


def test_the_command_opens_at_the_first_deal_not_at_round_0(replayed: Replay) -> None:
    """Round 0 deals no cards: a replay that opened there showed an empty table."""
    start = _start(replayed, None)
    assert replayed.steps[start].round == 1 and replayed.steps[start - 1].round == 0
    text = shown(ReplayModel(replayed, 0, at=start))
    assert f"step {start + 1} of" in text and "· round 1 ·" in text and "opponents" in text
    assert _start(replayed, 0) == 0


@needs_tmux
def test_replay_in_a_terminal_steps_forward_and_back_and_quits(log: Path, replayed: Replay) -> None:
    first = _start(replayed, None) + 1  # round 1's first commit, as the screen counts
    terminal = Terminal(100, 32)
    try:
        command = shlex.join([sys.executable, "-m", "p2pnerts", "replay", str(log)])
        terminal.type(f"LANG=C.UTF-8 {command}; echo replay exited $?", "Enter")
        terminal.wait_for(
            lambda t: f"step {first} of" in t and "· round 1 ·" in t and "matches the log" in t,
            "round 1's first commit",
        )
        terminal.type("Left", "Left", "Left", "Right")
        text = terminal.wait_for(lambda t: f"step {first - 2} of" in t, "two steps back")
        assert "matches the log" in text and "round 0 (before the first deal)" in text
        terminal.type("]")
        text = terminal.wait_for(lambda t: "foundations" in t and "· round 1 ·" in t, "round 1")
        terminal.type("x", "Tab", "?")
        terminal.wait_for(lambda t: "replaying a game log" in t, "the help")
        terminal.type("Right")
        terminal.wait_for(lambda t: "matches the log" in t, "the table again")
        terminal.tmux("resize-window", "-t", "t:0", "-x", "80", "-y", "24")
        terminal.wait_for(lambda t: "matches the log" in t and "step" in t, "the small table")
        terminal.type("q")
        # (the command line on the screen says "replay exited $?": wait for a number)
        text = terminal.wait_for(lambda t: re.search(r"replay exited \d", t) is not None, "exit")
        assert "every digest recorded matches the log" in text and "replay exited 0" in text
    finally:
        terminal.close()


def test_the_key_map_document_lists_every_replay_key() -> None:
    document = (Path(__file__).parents[2] / "ui" / "KEYS.md").read_text(encoding="utf-8")
    for keys, what in REPLAY_KEYS:
        assert f"| `{keys}` | {what} |" in document
