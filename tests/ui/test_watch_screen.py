"""End to end: ``p2pnerts watch`` in a real terminal (tmux) beside a real ``host`` table of
bots on loopback: it shows the races as the table decides them, and leaves on q; a table
that takes no spectators says so."""

from __future__ import annotations

import re
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from _tmux import Processes, Terminal, needs_tmux, port_in, run_in

pytestmark = needs_tmux

P2PNERTS = [sys.executable, "-m", "p2pnerts"]


@pytest.fixture
def seen(tmp_path: Path) -> Iterator[tuple[Terminal, Processes]]:
    """A 100×32 terminal, and the processes started beside it (ended after the test)."""
    terminal, processes = Terminal(100, 32), Processes(tmp_path)
    try:
        yield terminal, processes
    finally:
        processes.end()
        terminal.close()


def _host(processes: Processes, *options: str, name: str = "Watched") -> int:
    """A four-seat table of fast bots on loopback, hosted by a bot; its port."""
    host = [*P2PNERTS, "host", "--name", name, "--seats", "4", "--bots", "3"]
    host += ["--player", "Ann", "--headless", "--level", "10", "--rounds", "3", "--no-log"]
    processes.start([*host, *options], "host")
    processes.wait_for("host", "open on port")
    return port_in(processes.output("host"))


def test_watch_shows_the_races_of_a_live_table_and_quits_on_q(
    seen: tuple[Terminal, Processes],
) -> None:
    terminal, processes = seen
    port = _host(processes, "--no-advertise")
    run_in(terminal, "t:0", [*P2PNERTS, "watch", f"127.0.0.1:{port}"])
    text = terminal.wait_for(lambda t: "race lost to" in t or "tie with" in t, "a race or a tie")
    assert "seats · clock · heard" in text and "time-space diagram" in text
    assert "committed order · key (clock, call, rank)" in text
    terminal.type("?")
    terminal.wait_for(lambda t: "a Lamport clock" in t, "the legend")
    terminal.type("x", "?", "a")  # a key that does nothing, the legend closed, Acks shown
    terminal.wait_for(lambda t: "Ack L=" in t, "the Acks in the diagram")
    processes.wait_for("host", "match over")
    assert "spectator watches the table" in processes.output("host")
    terminal.wait_for(lambda t: "table closed" in t, "the end of the match")
    terminal.type("q")
    terminal.wait_for(lambda t: "p2pnerts exited 0" in t, "the shell again")


def test_a_table_that_takes_no_spectators_says_so_to_one(seen: tuple[Terminal, Processes]) -> None:
    port = _host(seen[1], "--no-watchers", "--no-advertise")
    watch = [*P2PNERTS, "watch", f"127.0.0.1:{port}", "--headless"]
    done = subprocess.run(watch, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.strip() == (
        f"p2pnerts: cannot watch: 127.0.0.1:{port} refused: this table takes no spectators"
    )


def test_watch_finds_a_table_by_name_and_prints_a_line_per_commit(
    seen: tuple[Terminal, Processes],
) -> None:
    """By name, through mDNS on loopback (the suite's P2PNERTS_INTERFACES): the table's
    name is the test's own, as other tests announce tables too."""
    name = f"Den {secrets.token_hex(3)}"
    _host(seen[1], name=name)
    watch = [*P2PNERTS, "watch", name, "--headless"]
    done = subprocess.run(watch, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert re.fullmatch(r"watching Den \w+ as Ann sees it: Ann, Bot 2, Bot 3, Bot 4", lines[0])
    assert lines[-1] == "table closed: the match is over, or its host left"
    commits = [int(line.split()[0][1:]) for line in lines[1:-1]]
    assert commits == list(range(commits[0], commits[0] + len(commits)))  # none missed
