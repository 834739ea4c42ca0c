"""End to end: ``p2pnerts play`` in a real terminal (tmux), played by keys, then left."""

from __future__ import annotations

import os
import re
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

TMUX = shutil.which("tmux")
pytestmark = pytest.mark.skipif(
    TMUX is None, reason="tmux is not installed: the end-to-end terminal test needs it"
)
WAIT = 60.0
"""Seconds to wait for the screen to show something before the test fails."""


class Terminal:
    """A tmux server of the test's own, with one window of a given size running a shell."""

    def __init__(self, width: int, height: int) -> None:
        assert TMUX is not None
        socket = f"p2pnerts-test-{os.getpid()}-{secrets.token_hex(4)}"
        self.base = [TMUX, "-L", socket, "-f", os.devnull]
        self.tmux("new-session", "-d", "-s", "t", "-x", str(width), "-y", str(height), "sh")

    def tmux(self, *args: str) -> str:
        return subprocess.run(
            [*self.base, *args], check=True, capture_output=True, text=True, timeout=10
        ).stdout

    def type(self, *keys: str) -> None:
        self.type_to("t:0", *keys)

    def type_to(self, window: str, *keys: str) -> None:
        self.tmux("send-keys", "-t", window, *keys)

    def screen(self, window: str = "t:0") -> str:
        return self.tmux("capture-pane", "-p", "-t", window)

    def alternate_screen(self) -> bool:
        return self.tmux("display-message", "-p", "-t", "t:0", "#{alternate_on}").strip() == "1"

    def wait_for(self, shown: Callable[[str], bool], what: str, window: str = "t:0") -> str:
        deadline = time.monotonic() + WAIT
        while True:
            text = self.screen(window)
            if shown(text):
                return text
            if time.monotonic() > deadline:
                pytest.fail(f"the screen never showed {what}:\n{text}")
            time.sleep(0.1)

    def close(self) -> None:
        subprocess.run([*self.base, "kill-server"], capture_output=True, timeout=10)


@pytest.fixture
def terminal() -> Iterator[Terminal]:
    term = Terminal(80, 24)
    try:
        yield term
    finally:
        term.close()


def own_row(text: str) -> str:
    """The screen row under the player's pile labels: Nerts top, waste top, stock count."""
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if "n Nerts" in line and "Stock" in line)
    return lines[at + 1]


COMMAND = [sys.executable, "-m", "p2pnerts", "play", "--bots", "3", "--seed", "7"]


def test_play_draws_the_table_moves_by_key_and_quits_to_the_shell(terminal: Terminal) -> None:
    terminal.type(f"LANG=C.UTF-8 {shlex.join(COMMAND)}; echo p2pnerts exited $?", "Enter")
    text = terminal.wait_for(lambda t: "foundations" in t and "round 1" in t, "the table")
    assert terminal.alternate_screen()
    assert "opponents" in text
    for seat in (2, 3, 4):  # each bot in the seat its name says
        assert any(line.startswith(f" {seat} Bot {seat} ") for line in text.splitlines()), text
    assert own_row(text).split()[2] == "35"  # the whole stock: 52 - 13 - 4
    terminal.type("Space")
    text = terminal.wait_for(lambda t: own_row(t).split()[2] == "32", "the stock turned")
    assert "(+2)" in text  # three cards on the waste: its top and two more
    terminal.type("q")
    terminal.wait_for(lambda t: "Leave the match? y" in t, "the question before quitting")
    terminal.type("y")
    text = terminal.wait_for(lambda t: "p2pnerts exited 0" in t, "the shell again")
    assert "Left the table." in text
    assert "foundations" not in text
    assert not terminal.alternate_screen()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_resize_redraws_and_a_signal_restores_the_shell(
    terminal: Terminal, tmp_path: Path, signum: signal.Signals
) -> None:
    pid = tmp_path / "pid"
    inner = f"echo $$ > {shlex.quote(str(pid))}; exec {shlex.join(COMMAND)}"
    terminal.type(f"LANG=C.UTF-8 sh -c {shlex.quote(inner)}; echo p2pnerts exited $?", "Enter")
    terminal.wait_for(lambda t: "foundations" in t and "round 1" in t, "the table")
    terminal.tmux("resize-window", "-t", "t:0", "-x", "100", "-y", "30")
    # The header's keys end at the right edge: the table was drawn again for 100 columns.
    terminal.wait_for(lambda t: len(t.splitlines()[0].rstrip()) == 99, "the table redrawn")
    os.kill(int(pid.read_text()), signum)
    text = terminal.wait_for(lambda t: "p2pnerts exited 0" in t, "the shell again")
    assert "Left the table." in text and "foundations" not in text
    assert not terminal.alternate_screen()


def test_a_small_terminal_is_told_its_size_until_it_grows(terminal: Terminal) -> None:
    terminal.tmux("resize-window", "-t", "t:0", "-x", "60", "-y", "15")
    terminal.type(f"LANG=C.UTF-8 {shlex.join(COMMAND)}; echo p2pnerts exited $?", "Enter")
    text = terminal.wait_for(lambda t: "this one is 60×15." in t, "the size it needs")
    assert "The table needs a terminal of 80×24 or more;" in text
    assert "foundations" not in text and "Traceback" not in text
    terminal.tmux("resize-window", "-t", "t:0", "-x", "80", "-y", "24")
    terminal.wait_for(lambda t: "foundations" in t and "opponents" in t, "the table, whole")
    terminal.tmux("resize-window", "-t", "t:0", "-x", "79", "-y", "24")
    terminal.wait_for(lambda t: "this one is 79×24." in t, "the size it needs again")
    terminal.type("q")
    terminal.wait_for(lambda t: "Leave the match? y" in t, "the question, on the small screen")
    terminal.type("y")
    terminal.wait_for(lambda t: "p2pnerts exited 0" in t, "the shell again")


def test_a_port_in_use_is_told_on_the_restored_shell(terminal: Terminal) -> None:
    with socket.socket() as taken:
        taken.bind(("0.0.0.0", 0))
        taken.listen()
        port = taken.getsockname()[1]
        host = [sys.executable, "-m", "p2pnerts", "host", "--name", "x", "--no-advertise"]
        host += ["--port", str(port)]
        terminal.type(f"LANG=C.UTF-8 {shlex.join(host)}; echo p2pnerts exited $?", "Enter")
        ended = re.compile(r"^p2pnerts exited \d", re.M)
        text = terminal.wait_for(lambda t: bool(ended.search(t)), "the shell again")
    assert f"p2pnerts: cannot host: cannot listen on port {port}: " in text
    assert "p2pnerts exited 1" in text
    assert "Traceback" not in text and not terminal.alternate_screen()


def test_a_network_error_is_told_on_the_restored_shell(terminal: Terminal) -> None:
    join = [sys.executable, "-m", "p2pnerts", "join", "127.0.0.1:1"]
    terminal.type(f"LANG=C.UTF-8 {shlex.join(join)}; echo p2pnerts exited $?", "Enter")
    text = terminal.wait_for(lambda t: "p2pnerts exited 1" in t, "the shell again")
    assert "p2pnerts: cannot join: cannot reach 127.0.0.1:1" in text
    assert "Traceback" not in text and not terminal.alternate_screen()


def test_host_and_join_meet_in_the_lobby_and_play(terminal: Terminal) -> None:
    """Two processes: Ann hosts, Bea picks the table from the lobby's list (mDNS on
    loopback: the suite's P2PNERTS_INTERFACES reaches the shells through tmux)."""
    p2pnerts = [sys.executable, "-m", "p2pnerts"]
    host = [*p2pnerts, "host", "--name", "Attic", "--seats", "3", "--player", "Ann"]
    terminal.type(f"LANG=C.UTF-8 {shlex.join(host)}", "Enter")
    terminal.wait_for(lambda t: "Attic: 1 of 3 seats taken" in t, "the host's waiting room")
    terminal.tmux("new-window", "-t", "t", "sh")
    bea = "t:1"
    join = [*p2pnerts, "join", "--player", "Bea"]
    terminal.type_to(bea, f"LANG=C.UTF-8 {shlex.join(join)}", "Enter")
    terminal.wait_for(lambda t: "Attic" in t and "1/3" in t, "the table in the list", bea)
    terminal.type_to(bea, "Enter")
    terminal.wait_for(lambda t: "Attic: 2 of 3 seats taken" in t and "Bea" in t, "Bea seated")
    text = terminal.screen(bea)
    assert "you have seat 2 of 3" in text and "a adds a bot" not in text  # a joiner's keys
    terminal.type("a")  # Ann adds a bot; the table is full and play begins
    for window in ("t:0", bea):
        text = terminal.wait_for(lambda t: "round 1" in t, "the table", window)
        assert "Bot 3 L5" in text  # in seat 3, after Ann and Bea


def test_enter_in_the_waiting_room_fills_every_open_seat_with_bots(terminal: Terminal) -> None:
    host = [sys.executable, "-m", "p2pnerts", "host", "--name", "Den", "--seats", "4"]
    host += ["--bots", "1", "--no-advertise", "--player", "Ann"]
    terminal.type(f"LANG=C.UTF-8 {shlex.join(host)}", "Enter")
    terminal.wait_for(lambda t: "Den: 2 of 4 seats taken" in t, "the bot asked for, seated")
    terminal.type("a")
    terminal.wait_for(lambda t: "Den: 3 of 4 seats taken" in t, "the bot added, seated")
    terminal.type("Enter")  # the last seat too, whichever bots are seated already
    text = terminal.wait_for(lambda t: "round 1" in t, "the table")
    for seat in (2, 3, 4):
        assert any(line.startswith(f" {seat} Bot {seat} L5") for line in text.splitlines()), text


def test_play_in_teams_shows_one_tableau_and_one_score_per_team(terminal: Terminal) -> None:
    """Bots at level 10 play a one-round match: the teammate plays the shared deck."""
    teams = [*COMMAND[:4], "--teams", "2+2", "--level", "10", "--rounds", "1", "--seed", "7"]
    terminal.type(f"LANG=C.UTF-8 {shlex.join(teams)}; echo p2pnerts exited $?", "Enter")
    text = terminal.wait_for(lambda t: "foundations" in t and "round 1" in t, "the table")
    assert "2 teams of 2" in text.splitlines()[0]
    mate = re.search(r"─ You & (Bot \d) · -?\d+ points", text)  # one tableau for the team
    assert mate is not None
    opponents = text.split("─ opponents")[1].split("─ You &")[0].splitlines()[1:]
    assert len(opponents) == 1 and re.match(r" 2 Bot\d&Bot\d ", opponents[0])
    text = terminal.wait_for(lambda t: "Match over" in t, "the match's end")
    rows = [line for line in text.splitlines() if re.match(r" [12] (You|Bot)", line)]
    assert len(rows) == 2  # a score per team
    assert f" 1 You & {mate[1]} " in text and re.search(r" 2 Bot \d & Bot \d ", text)
    assert re.search(r"Winner: (You & Bot \d|Bot \d & Bot \d)", text)
    terminal.type("q")
    text = terminal.wait_for(lambda t: "p2pnerts exited 0" in t, "the shell again")
    assert "Traceback" not in text
