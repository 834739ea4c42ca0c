"""For the end-to-end tests: a terminal (a tmux server of the test's own), and the
processes a test starts beside it."""

from __future__ import annotations

import os
import re
import secrets
import shlex
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

TMUX = shutil.which("tmux")
needs_tmux = pytest.mark.skipif(
    TMUX is None, reason="tmux is not installed: the end-to-end terminal tests need it"
)
WAIT = 60.0
"""Seconds to wait for the screen to show something before the test fails."""
REVERSE = "\x1b[7m"
"""How tmux writes reverse video when it captures a pane with its escapes."""


def terminal_fixture(width: int, height: int) -> Callable[[], Iterator[Terminal]]:
    """A test module's ``terminal`` fixture: a fresh ``width``×``height`` terminal per
    test, closed after it (``terminal = terminal_fixture(100, 32)``)."""

    @pytest.fixture
    def terminal() -> Iterator[Terminal]:
        term = Terminal(width, height)
        try:
            yield term
        finally:
            term.close()

    return terminal


class Terminal:
    """A tmux server of the test's own, with one window of a given size running a shell."""

    def __init__(self, width: int, height: int) -> None:
        assert TMUX is not None
        socket = f"p2pnerts-test-{os.getpid()}-{secrets.token_hex(4)}"
        self.base = [TMUX, "-L", socket, "-f", os.devnull]
        self.tmux("new-session", "-d", "-s", "t", "-x", str(width), "-y", str(height), "sh")

    def tmux(self, *args: str) -> str:
        done = subprocess.run([*self.base, *args], capture_output=True, text=True, timeout=10)
        if done.returncode != 0:  # say why: tmux's own words, and what windows are left
            left = subprocess.run(
                [*self.base, "list-windows", "-a"], capture_output=True, text=True, timeout=10
            )
            pytest.fail(
                f"tmux {shlex.join(args)} failed (status {done.returncode}): "
                f"{done.stderr.strip() or 'it said nothing'}; windows: "
                f"{left.stdout.strip() or left.stderr.strip() or 'none'}"
            )
        return done.stdout

    def new_window(self) -> None:
        """Open the next window of the session, running a shell. (Its target is ``t:``, the
        session: a bare ``t`` names any window whose name starts with a t first, and tmux
        names a window after what runs in it.)"""
        self.tmux("new-window", "-t", "t:", "sh")

    def type(self, *keys: str) -> None:
        self.type_to("t:0", *keys)

    def type_to(self, window: str, *keys: str) -> None:
        self.tmux("send-keys", "-t", window, *keys)

    def screen(self, window: str = "t:0") -> str:
        return self.tmux("capture-pane", "-p", "-t", window)

    def joined(self, window: str = "t:0") -> str:
        """The screen with each line that wrapped onto the next rows joined back whole."""
        return self.tmux("capture-pane", "-p", "-J", "-t", window)

    def selected(self, window: str = "t:0") -> str:
        """The first line drawn in reverse video (the lobby's selected table), with its
        escapes; "" if none is."""
        lines = self.tmux("capture-pane", "-p", "-e", "-t", window).splitlines()
        return next((line for line in lines if REVERSE in line), "")

    def select(self, text: str, window: str = "t:0") -> None:
        """Press ↓ until the selected line shows ``text`` (other programs on this machine
        may list tables of their own before it), each time waiting for the line to move."""
        deadline = time.monotonic() + WAIT
        while text not in (line := self.selected(window)):
            self.type_to(window, "Down")
            while self.selected(window) == line:
                if time.monotonic() > deadline:
                    pytest.fail(f"{text!r} was never selected:\n{self.screen(window)}")
                time.sleep(0.1)

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


class Processes:
    """Processes a test starts beside its terminal, each writing to a file of its name in
    ``where``; `end` ends those still running."""

    def __init__(self, where: Path) -> None:
        self.where = where
        self.started: list[subprocess.Popen[str]] = []

    def start(self, args: list[str], name: str) -> subprocess.Popen[str]:
        with open(self.where / name, "w", encoding="utf-8") as out:
            proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, text=True)
        self.started.append(proc)
        return proc

    def output(self, name: str) -> str:
        return (self.where / name).read_text(encoding="utf-8")

    def wait_for(self, name: str, text: str) -> None:
        """Wait until process ``name`` has written ``text`` (WAIT seconds at most)."""
        deadline = time.monotonic() + WAIT
        while text not in self.output(name):
            assert time.monotonic() < deadline, f"{name} never said {text!r}"
            time.sleep(0.1)

    def end(self) -> None:
        for proc in self.started:
            if proc.poll() is None:
                proc.kill()
            proc.wait()


def port_in(text: str) -> int:
    """The port a host said it listens on (``open on port N``): the host picks a free one
    itself, as no port chosen beforehand is sure to stay free while other tests run."""
    found = re.search(r"open on port (\d+)", text)
    assert found, f"no port in {text!r}"
    return int(found[1])


def run_in(terminal: Terminal, window: str, args: list[str]) -> None:
    """Run a command in a window, then say its exit status."""
    terminal.type_to(window, f"LANG=C.UTF-8 {shlex.join(args)}; echo p2pnerts exited $?", "Enter")


PLAY_ON = ("space turns the stock", "stuck")
"""What the status line (the screen's last) shows once a round is on and the table waits for
nothing: the keys' hint, or the player's stuck line (the rules may find a tableau stuck at
once)."""


def round_on(text: str) -> bool:
    """Whether the screen shows round 1 being played: its number in the header and the
    status line of play. Not merely no countdown shown: the status line says first what
    else the table waits for (a seat heard late on a loaded machine), and a screen read
    while the terminal is still drawing may show the new header over the old status line."""
    lines = text.rstrip().splitlines()
    return "round 1" in lines[0] and any(said in lines[-1] for said in PLAY_ON)


def say_ready(terminal: Terminal, *windows: str) -> str:
    """Press Enter in each window (the first by default) once its table asks whether the
    player is ready, and wait out the countdown: the last window's screen once round 1 is on."""
    windows = windows or ("t:0",)
    for window in windows:
        terminal.wait_for(lambda t: "Enter when you are ready" in t, "the question", window)
        terminal.type_to(window, "Enter")
    for window in windows:
        text = terminal.wait_for(round_on, "round 1 on", window)
    return text


def quit_table(terminal: Terminal, window: str = "t:0") -> str:
    """Quit mid-match (q, then y): the shell's screen once the command has ended."""
    terminal.type_to(window, "q")
    terminal.wait_for(lambda t: "Leave the match? y" in t, "the question before quitting", window)
    terminal.type_to(window, "y")
    return terminal.wait_for(lambda t: "p2pnerts exited 0" in t, "the shell again", window)
