"""The key bindings, driven through a real application on a pipe instead of a terminal."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from _tables import card, dealt
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2pnerts.rules import (
    NERTS,
    NEW_FOUNDATION,
    Move,
    TableOptions,
    ToFoundation,
    ToWork,
    TurnStock,
)
from p2pnerts.ui import Snapshot, TableModel, create_application, render

TABLE = dealt(["7H"], ["8S", "9D", "KC", "AS"])


@pytest.fixture
def pipe() -> Iterator[PipeInput]:
    with create_pipe_input() as pipe:
        yield pipe


def run(pipe: PipeInput, keys: str, *, over: bool = False) -> tuple[TableModel, list[Move]]:
    """Type ``keys`` at the table screen until it quits; the model and the moves it sent."""
    sent: list[Move] = []
    model = TableModel(0, ("You", "Bea"), TableOptions(), send=sent.append)
    model.refresh(Snapshot(display=TABLE, totals=(0, 0), over=over))
    app = create_application(model, input=pipe, output=DummyOutput())
    pipe.send_text(keys)
    app.run()
    return model, sent


def test_pile_keys_make_two_key_moves(pipe: PipeInput) -> None:
    _, sent = run(pipe, "n1" + "4f" + " " + "qy")
    assert sent == [
        ToWork(0, card(0, "7H"), NERTS, 0),
        ToFoundation(0, card(0, "AS"), 3, NEW_FOUNDATION),
        TurnStock(0),
    ]


def test_quitting_asks_first_and_no_plays_on(pipe: PipeInput) -> None:
    model, sent = run(pipe, "qn" + " " + "qy")
    # "n" answered the question (it did not select the Nerts card); play went on.
    assert sent == [TurnStock(0)]
    assert model.selection is None


def test_ctrl_c_asks_too(pipe: PipeInput) -> None:
    _, sent = run(pipe, "\x03" + "n" + "b" + "\x03" + "y")
    assert sent == [ToFoundation(0, card(0, "AS"), 3, NEW_FOUNDATION)]


def test_after_the_match_q_quits_at_once(pipe: PipeInput) -> None:
    model, sent = run(pipe, "q", over=True)
    assert sent == [] and not model.leave.asking


def test_the_help_overlay_swallows_play_keys_until_closed(pipe: PipeInput) -> None:
    model, sent = run(pipe, "?" + "4f " + "?" + "c" + "qy")
    assert sent == []  # "4", "f" and space were read as nothing while the help was up
    assert not model.help and model.classroom


def click(x: int, y: int) -> str:
    """A left click at column x, row y (from 0), as an xterm sends it (SGR mouse mode)."""
    return f"\x1b[<0;{x + 1};{y + 1}M\x1b[<0;{x + 1};{y + 1}m"


def test_click_click_moves_a_card_with_the_mouse(pipe: PipeInput) -> None:
    sent: list[Move] = []
    model = TableModel(0, ("You", "Bea"), TableOptions(), send=sent.append)
    model.refresh(Snapshot(display=TABLE, totals=(0, 0)))
    lines = render(model, 80, 40).text().splitlines()  # DummyOutput's size
    y = next(i for i, line in enumerate(lines) if "n Nerts" in line) + 1
    nerts, pile = lines[y].index("7♥"), lines[y].index("8♠")
    app = create_application(model, input=pipe, output=DummyOutput())
    pipe.send_text(click(nerts, y) + click(pile, y) + "qy")
    app.run()
    assert sent == [ToWork(0, card(0, "7H"), NERTS, 0)]


def test_a_shows_the_acks_in_the_classroom_pane_and_again_hides_them(pipe: PipeInput) -> None:
    model, _ = run(pipe, "c" + "a" + "qy")
    assert model.classroom and model.acks
    model, _ = run(pipe, "c" + "a" + "a" + "qy")
    assert not model.acks


def test_a_key_that_does_nothing_is_told_until_one_that_does(pipe: PipeInput) -> None:
    model, _ = run(pipe, "z" + "\t" + "qy")
    assert model.notice == "'Tab' does nothing here: ? lists every key"
    model.leave.asking = False  # (the status row asks about quitting until answered)
    assert "'Tab' does nothing here" in render(model, 100, 32).text()
    model, sent = run(pipe, "z" + " " + "qy")
    assert sent == [TurnStock(0)] and model.notice == ""
