"""Leaving, the same on every screen (the table, the host's waiting room, the join list, the
lab, the replay, the spectator's): Ctrl-C asks, a second Ctrl-C or y leaves, n or Esc
stays and other keys wait; q leaves from the help or the legend in one more press at most.
Each screen runs on a pipe; what its keys did is read from its model afterwards."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from _replaylogs import sim_logs
from _tables import dealt
from prompt_toolkit.application import Application
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2pnerts.lab import Desk, Lab, Table
from p2pnerts.lab import create_application as lab_application
from p2pnerts.logs import replay
from p2pnerts.rules import Move, TableOptions, TurnStock
from p2pnerts.system import discard_typed_ahead
from p2pnerts.ui import (
    Leave,
    LobbyModel,
    ReplayModel,
    Snapshot,
    TableModel,
    WatchModel,
    create_application,
    create_watch_application,
    replay_application,
)

CTRL_C, ESC = "\x03", "\x1b"
BOUND = 30.0
"""Seconds a screen has to end once its keys are typed (it takes milliseconds): a screen the
keys do not end fails the test instead of waiting for ever."""


@dataclass
class Screen:
    """A screen on a pipe: its question, one key of its own and whether that key acted, and
    the key of its help or legend (if it has one) and whether it is open."""

    app: Application[None]
    leave: Leave
    key: str
    acted: Callable[[], bool]
    overlay: str = ""
    open: Callable[[], bool] = lambda: False
    q_asks: bool = False
    """Whether q asks first (the table while the match is on)."""


def table(pipe: PipeInput, *, over: bool = False) -> Screen:
    sent: list[Move] = []
    model = TableModel(0, ("You", "Bea"), TableOptions(), send=sent.append)
    shown = dealt(["7H"], ["8S", "9D", "KC", "AS"])
    model.refresh(Snapshot(display=shown, totals=(0, 0), over=over))
    app = create_application(model, input=pipe, output=DummyOutput())
    return Screen(
        app, model.leave, " ", lambda: TurnStock(0) in sent, "?", lambda: model.help, True
    )


def waiting_room(pipe: PipeInput) -> Screen:
    added: list[int] = []
    lobby = LobbyModel(add_bot=added.append)
    lobby.waiting("Den", 4, hosting=True, roster=("Ann",))
    model = TableModel(0, ("Ann",), TableOptions())
    app = create_application(model, lobby, input=pipe, output=DummyOutput())
    return Screen(app, lobby.leave, "a", lambda: bool(added))


def join_list(pipe: PipeInput) -> Screen:
    lobby = LobbyModel()
    model = TableModel(0, ("Ann",), TableOptions())
    app = create_application(model, lobby, input=pipe, output=DummyOutput())
    return Screen(app, lobby.leave, "\r", lambda: "no table seen yet" in lobby.notice)


def lab(pipe: PipeInput) -> Screen:
    desk = Desk(Lab(Table(seed=1, peers=3)))
    app = lab_application(desk, input=pipe, output=DummyOutput())
    return Screen(app, desk.leave, "a", lambda: not desk.acks, "?", lambda: desk.legend)


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return sim_logs(tmp_path_factory.mktemp("logs"), seed=5, rounds=1)[0]


def replay_screen(pipe: PipeInput, log: Path) -> Screen:
    model = ReplayModel(replay(log), 0)
    app = replay_application(model, input=pipe, output=DummyOutput())
    return Screen(app, model.leave, "s", lambda: model.seat == 1, "?", lambda: model.help)


def watch(pipe: PipeInput) -> Screen:
    model = WatchModel("127.0.0.1:1")
    app = create_watch_application(model, input=pipe, output=DummyOutput())
    return Screen(app, model.leave, "a", lambda: model.acks, "?", lambda: model.help)


SCREENS = ["table", "waiting room", "join list", "lab", "replay", "watch"]
WITH_OVERLAYS = ["table", "lab", "replay", "watch"]


@pytest.fixture
def pipe() -> Iterator[PipeInput]:
    with create_pipe_input() as pipe:
        yield pipe


@pytest.fixture
def screen_of(pipe: PipeInput, request: pytest.FixtureRequest) -> Callable[[str], Screen]:
    def screen(name: str) -> Screen:
        if name == "replay":
            return replay_screen(pipe, request.getfixturevalue("replayed"))
        makers = {"table": table, "waiting room": waiting_room, "join list": join_list}
        return {**makers, "lab": lab, "watch": watch}[name](pipe)

    return screen


def typed(screen: Screen, pipe: PipeInput, keys: str) -> None:
    """Type ``keys`` at ``screen`` and run it until it ends."""

    async def run() -> None:
        await asyncio.wait_for(screen.app.run_async(), BOUND)

    pipe.send_text(keys)
    try:
        asyncio.run(run())
    except TimeoutError:
        pytest.fail(f"the screen was still open after {keys!r}")


@pytest.mark.parametrize("name", SCREENS)
def test_ctrl_c_asks_n_stays_and_a_second_ctrl_c_leaves(
    name: str, pipe: PipeInput, screen_of: Callable[[str], Screen]
) -> None:
    screen = screen_of(name)
    typed(screen, pipe, CTRL_C + "n" + screen.key + CTRL_C + CTRL_C)
    assert screen.acted(), "the first Ctrl-C left, or n did not go back to the screen"
    assert screen.leave.asking  # (the second Ctrl-C left while it asked)


@pytest.mark.parametrize("name", SCREENS)
def test_esc_stays_and_y_leaves(
    name: str, pipe: PipeInput, screen_of: Callable[[str], Screen]
) -> None:
    screen = screen_of(name)
    typed(screen, pipe, CTRL_C + ESC + screen.key + CTRL_C + "y")
    assert screen.acted()


@pytest.mark.parametrize("name", SCREENS)
def test_while_it_asks_the_screens_keys_wait(
    name: str, pipe: PipeInput, screen_of: Callable[[str], Screen]
) -> None:
    screen = screen_of(name)
    typed(screen, pipe, CTRL_C + screen.key + CTRL_C)
    assert not screen.acted() and screen.leave.asking


@pytest.mark.parametrize("name", WITH_OVERLAYS)
def test_q_leaves_from_the_help_or_legend_in_one_more_press_at_most(
    name: str, pipe: PipeInput, screen_of: Callable[[str], Screen]
) -> None:
    screen = screen_of(name)
    typed(screen, pipe, screen.overlay + "q" + ("y" if screen.q_asks else ""))
    assert screen.leave.asking == screen.q_asks
    assert screen.open() != screen.q_asks  # (the table's q closes its help to ask)


def test_the_lab_legend_takes_no_fault_keys_and_q_quits_from_it(pipe: PipeInput) -> None:
    """The issue's evening: the legend open, q pressed, then a shell line typed: the faults
    it spelled were struck at the lab's table."""
    desk = Desk(Lab(Table(seed=1, peers=4)))
    app = lab_application(desk, input=pipe, output=DummyOutput())
    pipe.send_text("?" + "q" + "2k3k4k")
    asyncio.run(asyncio.wait_for(app.run_async(), BOUND))
    assert desk.legend and not desk.selected
    assert not any("crash" in line.text for line in desk.lab.chronicle.lines)


def test_after_the_match_ctrl_c_still_asks_and_q_leaves_at_once(pipe: PipeInput) -> None:
    screen = table(pipe, over=True)
    typed(screen, pipe, CTRL_C + " " + CTRL_C)
    assert screen.leave.asking and not screen.acted()
    screen = table(pipe, over=True)
    typed(screen, pipe, "q")
    assert not screen.leave.asking


def test_keys_typed_ahead_on_a_terminal_are_dropped() -> None:
    if sys.platform == "win32":
        pytest.skip("a pseudo-terminal is POSIX's")
    main, side = os.openpty()
    try:
        os.write(main, b"k2k3k4\r")
        discard_typed_ahead(side)
        os.set_blocking(side, False)
        with pytest.raises(BlockingIOError):
            os.read(side, 100)
    finally:
        os.close(main)
        os.close(side)


def test_dropping_typed_ahead_keys_leaves_a_pipe_alone() -> None:
    read, write = os.pipe()
    try:
        os.write(write, b"kept")
        discard_typed_ahead(read)
        assert os.read(read, 100) == b"kept"
    finally:
        os.close(read)
        os.close(write)
