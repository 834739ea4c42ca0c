"""How each command ends when it is stopped or cannot go on: one line and a meaningful
exit status, never a traceback; run as real processes, as a person runs them."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import pytest

COMMAND = [sys.executable, "-m", "p2pnerts"]
LIMIT = 120
HOST = ["host", "--headless", "--name", "x", "--no-advertise"]

posix_signals = pytest.mark.skipif(
    sys.platform == "win32", reason="signals a child, which Windows consoles do not"
)


@contextmanager
def running(
    args: list[str], sigint: signal.Handlers = signal.SIG_DFL
) -> Iterator[subprocess.Popen[str]]:
    """``p2pnerts ARGS`` in a session of its own (a terminal's Ctrl-C reaches the whole
    group), SIGINT at its default as at a terminal (or ``sigint``: ignored, as a script's
    ``cmd &`` starts it); killed if a test leaves it running."""
    child = subprocess.Popen(
        [*COMMAND, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, sigint),
    )
    try:
        yield child
    finally:
        if child.poll() is None:
            child.kill()
        child.communicate()  # what is left, and the pipes closed, however the test ended


def stopped(child: subprocess.Popen[str], signum: int, *, group: bool = False) -> str:
    """Send ``signum`` (to the whole group, as Ctrl-C at a terminal does) and wait for the
    end: standard error. The pipe ends only once every process holding it has gone, the
    pool's workers too."""
    return stopped_saying(child, signum, group=group)[1]


def stopped_saying(
    child: subprocess.Popen[str], signum: int, *, group: bool = False
) -> tuple[str, str]:
    """`stopped`, with what the child wrote on standard output from then on."""
    if group and sys.platform != "win32":
        os.killpg(child.pid, signum)
    else:
        child.send_signal(signum)
    return child.communicate(timeout=LIMIT)


def first_line(stream: object, pattern: str) -> re.Match[str]:
    line = stream.readline()  # type: ignore[attr-defined]
    found = re.search(pattern, line)
    assert found, line
    return found


ENDS = [(signal.SIGINT, 130, "Interrupted."), (signal.SIGTERM, 143, "Terminated.")]


@posix_signals
@pytest.mark.parametrize(("signum", "status", "told"), ENDS)
@pytest.mark.parametrize(
    "args",
    [[*HOST, "--seats", "3"], ["play", "--headless", "--bots", "2"]],
    ids=["host", "play"],
)
def test_a_table_stopped_says_so_in_one_line(
    args: list[str], signum: int, status: int, told: str
) -> None:
    with running(args) as child:
        first_line(child.stdout, r"open on port|players on this machine")
        err = stopped(child, signum)
    assert (child.returncode, err.strip()) == (status, told)


@posix_signals
def test_a_table_started_in_the_background_by_a_script_ends_on_sigterm_in_one_line() -> None:
    # A script's `p2pnerts host ... &` runs with Ctrl-C ignored, so trio installs no
    # handler of its own for it: a SIGTERM handed to Ctrl-C's was raised inside trio's
    # loop, which spilt "guest run got abandoned" and a page of tracebacks after the line.
    with running([*HOST, "--seats", "3"], sigint=signal.SIG_IGN) as child:
        first_line(child.stdout, r"open on port")
        err = stopped(child, signal.SIGTERM)
    assert (child.returncode, err.strip()) == (143, "Terminated.")


@posix_signals
@pytest.mark.parametrize(("signum", "status", "told"), ENDS)
def test_a_bot_at_a_table_stopped_says_so_and_the_host_plays_on(
    signum: int, status: int, told: str
) -> None:
    with running([*HOST, "--seats", "3"]) as host:
        port = first_line(host.stdout, r"open on port (\d+)").group(1)
        with running(["bot", "--join", f"127.0.0.1:{port}"]) as bot:
            first_line(bot.stdout, "joining")
            err = stopped(bot, signum)
        assert (bot.returncode, err.strip()) == (status, told)
        assert host.poll() is None, host.communicate()


@posix_signals
@pytest.mark.parametrize(("signum", "status", "told"), ENDS)
def test_an_arena_stopped_mid_run_ends_its_worker_processes_too(
    signum: int, status: int, told: str
) -> None:
    # 64 rounds go out in 16 chunks of 4: the first stroke comes after 4 rounds, with
    # 60 to go (at 320 it came after 20, some 20 s of both cores).
    args = ["arena", "--rounds", "64", "--players", "2", "--jobs", "2", "--seed", "1"]
    with running(args) as child:
        assert child.stderr is not None
        # The progress bar's first stroke: the workers are at work (read unbuffered).
        assert os.read(child.stderr.fileno(), 2) == b"\r["
        err = stopped(child, signum, group=signum == signal.SIGINT)
    assert child.returncode == status
    assert err.splitlines()[-1] == told and "Traceback" not in err


HELD = """
import os, signal, subprocess, sys
from p2pnerts.system import interrupts_held, terminate_as_interrupt
signal.signal(signal.SIGINT, signal.default_int_handler)  # (as at a terminal: see below)
terminated = terminate_as_interrupt()
BLOCKED = "import signal; print(signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, ()))"
try:
    with interrupts_held() as check:
        os.kill(os.getpid(), signal.{name})
        print("held", flush=True)
        worker = subprocess.run([sys.executable, "-c", BLOCKED], capture_output=True, text=True)
        print("a process started meanwhile blocks it:", worker.stdout.strip(), flush=True)
        if {check}:
            check()
        print("not raised", flush=True)
except KeyboardInterrupt:
    print("raised; terminated:", terminated(), flush=True)
"""


@posix_signals
@pytest.mark.parametrize(
    ("name", "at_check", "told"),
    [
        ("SIGINT", True, "raised; terminated: False"),
        ("SIGTERM", True, "raised; terminated: True"),
        ("SIGINT", False, "raised; terminated: False"),
    ],
)
def test_ctrl_c_held_back_raises_where_the_fan_out_looks_for_it(
    name: str, at_check: bool, told: str
) -> None:
    # The arena once hung for ever at exit: Ctrl-C raised inside a future's lock left it
    # held, and the pool's thread waited on it. Held back, it raises at `check`, or as the
    # block ends; a worker started meanwhile begins with Ctrl-C blocked. The script takes
    # Ctrl-C as a terminal gives it whatever started the suite: a script's job in the
    # background has it ignored, where nothing is held back (all three failed so).
    script = HELD.format(name=name, check=at_check)
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=LIMIT
    )
    assert run.stdout.splitlines() == [
        "held",
        "a process started meanwhile blocks it: True",
        *([] if at_check else ["not raised"]),
        told,
    ], run.stderr
    assert run.stderr == ""


def test_a_port_in_use_is_one_line_and_status_1() -> None:
    with socket.socket() as taken:
        taken.bind(("0.0.0.0", 0))
        taken.listen()
        port = taken.getsockname()[1]
        run = subprocess.run(
            [*COMMAND, *HOST, "--port", str(port)], capture_output=True, text=True, timeout=LIMIT
        )
    assert run.returncode == 1
    assert re.fullmatch(rf"p2pnerts: cannot host: cannot listen on port {port}: .+\n", run.stderr)


@pytest.mark.parametrize(
    ("content", "told"),
    [
        ("garbage", "not a p2pnerts state file"),
        ('{"p2pnerts-seat": 9}', "not a usable p2pnerts state file (format 2 expected)"),
        (None, "cannot write it"),
    ],
)
def test_a_state_file_that_cannot_be_used_is_one_line_before_any_table(
    tmp_path: Path, content: str | None, told: str
) -> None:
    state = tmp_path / "seat.json"
    if content is None:
        state = tmp_path / "no such folder" / "seat.json"
    else:
        state.write_text(content, encoding="utf-8")
    run = subprocess.run(
        [*COMMAND, *HOST, "--seats", "2", "--state", str(state)],
        capture_output=True,
        text=True,
        timeout=LIMIT,
    )
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.startswith(f"p2pnerts: error: {state}: {told}")
    assert len(run.stderr.splitlines()) == 1


def said_by(stream: IO[str] | None, text: str) -> str:
    """Read the child's lines until one says ``text``: the lines read."""
    assert stream is not None
    lines: list[str] = []
    while text not in (line := stream.readline()):
        assert line, f"it never said {text!r}: {''.join(lines)}"
        lines.append(line)
    return "".join(lines) + line


FAST = ["--rounds", "2", "--level", "10"]
"""A match of two rounds whose bots play as fast as the table allows."""


def told_the_end(out: str, name: str, other: str) -> None:
    """The lines a seat stopped after round 1 ends on: the game log's path (a file), then
    the scores so far, each once."""
    *_, log, left = out.splitlines()
    assert re.fullmatch(rf"Left the table after round 1 of 2: {name} -?\d+, {other} -?\d+", left)
    assert log.startswith("game log: ") and Path(log.removeprefix("game log: ")).is_file()
    assert out.count("game log: ") == out.count("Left the table") == 1, out


@posix_signals
@pytest.mark.parametrize(("signum", "status", "told"), ENDS)
def test_a_headless_seat_stopped_mid_match_says_how_the_match_stood_and_where_its_log_is(
    signum: int, status: int, told: str
) -> None:
    with running(["play", "--headless", "--bots", "1", *FAST]) as child:
        said_by(child.stdout, "round 1 over")
        out, err = stopped_saying(child, signum)
    assert (child.returncode, err.strip()) == (status, told)
    told_the_end(out, "You", "Bot 2")


@posix_signals
@pytest.mark.parametrize(("signum", "status", "told"), ENDS)
def test_a_bot_stopped_mid_match_says_how_the_match_stood_and_where_its_log_is(
    signum: int, status: int, told: str
) -> None:
    with running([*HOST, "--seats", "2", *FAST]) as host:
        port = first_line(host.stdout, r"open on port (\d+)").group(1)
        bot = ["bot", "--join", f"127.0.0.1:{port}", "--name", "Cy", "--level", "10"]
        with running(bot) as child:
            said_by(child.stdout, "round 1 over")
            out, err = stopped_saying(child, signum)
        # It said it left, on SIGTERM as on Ctrl-C: the host, alone, ends the match at once
        # (a SIGTERM ended the bot unheard, and the host waited for it as for a silent seat).
        heard, _ = host.communicate(timeout=LIMIT)
    assert (child.returncode, err.strip()) == (status, told)
    told_the_end(out, "Player", "Cy")
    assert "Cy left the table; the others play on" in heard, heard
