"""End to end: ``p2pnerts play`` in a real terminal (tmux), played by keys, then left; and
at a person's pace: the table waits for people to be ready, plays on without an idle one,
ends when every person has gone, and says why it waits for a seat it cannot leave out
(tmux windows and real processes on loopback)."""

from __future__ import annotations

import os
import re
import secrets
import shlex
import signal
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from _tmux import (
    Processes,
    Terminal,
    needs_tmux,
    port_in,
    quit_table,
    run_in,
    say_ready,
    terminal_fixture,
)

from p2pnerts.bots import NEWCOMER, level

pytestmark = needs_tmux


P2PNERTS = [sys.executable, "-m", "p2pnerts"]
AWAY = 12.0
"""Seconds a newcomer looks away while the bots play at the default level."""


terminal = terminal_fixture(80, 24)


@pytest.fixture
def processes(tmp_path: Path) -> Iterator[Processes]:
    started = Processes(tmp_path)
    try:
        yield started
    finally:
        started.end()


def own_row(text: str) -> str:
    """The screen row under the player's pile labels: Nerts top, waste top, stock count."""
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if "n Nerts" in line and "Stock" in line)
    return lines[at + 1]


COMMAND = [sys.executable, "-m", "p2pnerts", "play", "--bots", "3", "--seed", "7"]


def dealt_a_play(terminal: Terminal) -> str:
    """Start `COMMAND` and say ready: the screen once round 1 is on with a play in the
    player's tableau. About one deal in a hundred has none through a whole pass of the
    stock: the peer declares it stuck at once, and its stock turns only once another
    seat's card opens a play (SPEC 4.9). That match is left, and another started."""
    for _ in range(4):
        terminal.type(f"LANG=C.UTF-8 {shlex.join(COMMAND)}; echo p2pnerts exited $?", "Enter")
        text = say_ready(terminal)
        own = next(line for line in text.splitlines() if line.startswith("─ You · "))
        if "· stuck" not in own:
            return text
        quit_table(terminal)
        terminal.type("clear", "Enter")
        terminal.wait_for(lambda t: "p2pnerts exited" not in t, "the shell's screen cleared")
    pytest.fail("four deals in a row left the player no play")


def test_play_draws_the_table_moves_by_key_and_quits_to_the_shell(terminal: Terminal) -> None:
    text = dealt_a_play(terminal)
    assert terminal.alternate_screen()
    assert "opponents" in text
    for seat in (2, 3, 4):  # each bot in the seat its name says
        assert any(line.startswith(f" {seat} Bot {seat} ") for line in text.splitlines()), text
    assert own_row(text).split()[2] == "35"  # the whole stock: 52 - 13 - 4
    terminal.type("Space")
    text = terminal.wait_for(lambda t: own_row(t).split()[2] == "32", "the stock turned")
    assert "(+2)" in text  # three cards on the waste: its top and two more
    text = quit_table(terminal)
    told_the_end(terminal, "Left the table before the end of round 1")
    assert "foundations" not in text
    assert not terminal.alternate_screen()


def told_the_end(terminal: Terminal, summary: str) -> str:
    """The shell's screen after the table screen ended says the game log's path, then the
    ``summary`` (its start), each once: the screen, its lines joined whole."""
    text = terminal.joined()
    lines = text.splitlines()
    at = next((i for i, line in enumerate(lines) if "game log: " in line), None)
    assert at is not None and lines[at + 1].startswith(summary), text
    assert text.count("game log: ") == 1 and text.count(summary) == 1, text
    assert "Left the table." not in text and "Traceback" not in text, text
    return text


def test_quitting_between_rounds_says_the_scores_so_far_and_where_the_log_is(
    terminal: Terminal,
) -> None:
    run_in(terminal, "t:0", [*COMMAND, "--rounds", "2", "--level", "10"])
    say_ready(terminal)
    terminal.wait_for(lambda t: "ready for the next round" in t, "the end of round 1")
    quit_table(terminal)
    text = told_the_end(terminal, "Left the table after round 1 of 2: ")
    scores = r"round 1 of 2: You -?\d+, Bot 2 -?\d+, Bot 3 -?\d+, Bot 4 -?\d+ *$"
    assert re.search(scores, text, flags=re.MULTILINE), text


def test_ctrl_c_asks_and_a_second_ctrl_c_leaves_the_table(terminal: Terminal) -> None:
    terminal.type(f"LANG=C.UTF-8 {shlex.join(COMMAND)}; echo p2pnerts exited $?", "Enter")
    say_ready(terminal)
    terminal.type("C-c")
    terminal.wait_for(lambda t: "Leave the match? y or Ctrl-C: yes" in t, "the question")
    terminal.type("C-c")
    terminal.wait_for(lambda t: "p2pnerts exited 0" in t, "the shell again")
    told_the_end(terminal, "Left the table before the end of round 1")
    assert not terminal.alternate_screen()


def test_ctrl_c_twice_leaves_the_join_list_which_joined_no_table(terminal: Terminal) -> None:
    join = [sys.executable, "-m", "p2pnerts", "join", "--player", "Bea"]
    terminal.type(f"LANG=C.UTF-8 {shlex.join(join)}; echo p2pnerts exited $?", "Enter")
    terminal.wait_for(lambda t: "tables on the network" in t, "the list of tables")
    terminal.type("C-c")
    terminal.wait_for(lambda t: "Leave the lobby? y or Ctrl-C: yes" in t, "the question")
    terminal.type("C-c")
    text = terminal.wait_for(lambda t: "p2pnerts exited 0" in t, "the shell again")
    assert "Left the lobby." in text and "Left the table." not in text


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_resize_redraws_and_a_signal_restores_the_shell(
    terminal: Terminal, tmp_path: Path, signum: signal.Signals
) -> None:
    pid = tmp_path / "pid"
    inner = f"echo $$ > {shlex.quote(str(pid))}; exec {shlex.join(COMMAND)}"
    terminal.type(f"LANG=C.UTF-8 sh -c {shlex.quote(inner)}; echo p2pnerts exited $?", "Enter")
    terminal.wait_for(lambda t: "foundations" in t and "Enter when you are ready" in t, "the table")
    terminal.tmux("resize-window", "-t", "t:0", "-x", "100", "-y", "30")
    # The header's keys end at the right edge: the table was drawn again for 100 columns.
    terminal.wait_for(lambda t: len(t.splitlines()[0].rstrip()) == 99, "the table redrawn")
    os.kill(int(pid.read_text()), signum)
    text = terminal.wait_for(lambda t: "p2pnerts exited 0" in t, "the shell again")
    told_the_end(terminal, "Left the table before the end of round 1")
    assert "foundations" not in text
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
    loopback: the suite's P2PNERTS_INTERFACES reaches the shells through tmux). The table's
    name is the test's own: other tests, here or in other runs, announce tables on loopback
    too, and Bea must not join theirs."""
    attic = f"Attic {secrets.token_hex(3)}"
    p2pnerts = [sys.executable, "-m", "p2pnerts"]
    host = [*p2pnerts, "host", "--name", attic, "--seats", "3", "--player", "Ann"]
    terminal.type(f"LANG=C.UTF-8 {shlex.join(host)}", "Enter")
    terminal.wait_for(lambda t: f"{attic}: 1 of 3 seats taken" in t, "the host's waiting room")
    terminal.new_window()
    bea = "t:1"
    join = [*p2pnerts, "join", "--player", "Bea"]
    terminal.type_to(bea, f"LANG=C.UTF-8 {shlex.join(join)}", "Enter")
    mine = re.compile(rf"^ {attic} +1/3 ", re.M)
    terminal.wait_for(lambda t: bool(mine.search(t)), "the table in the list", bea)
    terminal.select(attic, bea)
    terminal.type_to(bea, "Enter")
    terminal.wait_for(lambda t: f"{attic}: 2 of 3 seats taken" in t and "Bea" in t, "Bea seated")
    # Bea's screen says so a moment after the host's does: wait for it, not just read it.
    text = terminal.wait_for(lambda t: "you have seat 2 of 3" in t, "Bea's seat", bea)
    assert "a adds a bot" not in text  # a joiner's keys
    terminal.type("a")  # Ann adds a bot; the table is full and play begins
    say_ready(terminal, "t:0", bea)
    for window in ("t:0", bea):
        text = terminal.screen(window)
        assert "Bot 3 L2" in text  # in seat 3, after Ann and Bea: the level play seats too


def test_enter_in_the_waiting_room_fills_every_open_seat_with_bots(terminal: Terminal) -> None:
    host = [sys.executable, "-m", "p2pnerts", "host", "--name", "Den", "--seats", "4"]
    host += ["--bots", "1", "--no-advertise", "--player", "Ann"]
    terminal.type(f"LANG=C.UTF-8 {shlex.join(host)}", "Enter")
    terminal.wait_for(lambda t: "Den: 2 of 4 seats taken" in t, "the bot asked for, seated")
    terminal.type("a")
    terminal.wait_for(lambda t: "Den: 3 of 4 seats taken" in t, "the bot added, seated")
    terminal.type("Enter")  # the last seat too, whichever bots are seated already
    text = say_ready(terminal)
    for seat in (2, 3, 4):
        assert any(line.startswith(f" {seat} Bot {seat} L2") for line in text.splitlines()), text


def test_play_in_teams_shows_one_tableau_and_one_score_per_team(terminal: Terminal) -> None:
    """Bots at level 10 play a one-round match: the teammate plays the shared deck."""
    teams = [*COMMAND[:4], "--teams", "2+2", "--level", "10", "--rounds", "1", "--seed", "7"]
    terminal.type(f"LANG=C.UTF-8 {shlex.join(teams)}; echo p2pnerts exited $?", "Enter")
    text = say_ready(terminal)
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
    terminal.type("q")  # at once: the match is over, its last audit still closing
    terminal.wait_for(lambda t: "p2pnerts exited 0" in t, "the shell again")
    told_the_end(terminal, "match over after 1 round: ")


def _nerts_left(text: str) -> dict[str, int]:
    """Each opponent's Nerts pile, from the opponents' rows (``2 Bot 3      N13 …``)."""
    rows = re.findall(r"^ \d+ (Bot \d+)\s+N\s*(\d+) ", text, flags=re.MULTILINE)
    return {name: int(left) for name, left in rows}


def test_play_waits_for_the_newcomer_and_its_bots_play_at_a_persons_pace(
    terminal: Terminal,
) -> None:
    """The defaults a newcomer meets: the table waits for her, then its bots play on while
    she looks away, no faster than the newcomer level's pace allows. A bot plays at most one
    card a look and waits at least ``reaction.think`` between looks, so in ``elapsed``
    seconds it can have played at most ``elapsed / think + 1`` cards off its Nerts pile,
    whatever the deal (the decks come from every seat's secret, not from ``--seed``)."""
    run_in(terminal, "t:0", [*P2PNERTS, "play", "--seed", "7"])
    # Every bot is ready (no one else is named as not ready): the table waits for the player.
    text = terminal.wait_for(
        lambda t: "Enter when you are ready for the first round" in t and "not yet" not in t,
        "the table waiting for the newcomer",
    )
    assert "round 1" not in text.splitlines()[0]
    started = time.monotonic()
    say_ready(terminal)
    time.sleep(AWAY)  # the newcomer looks away: no key pressed
    text = terminal.screen()
    most = int((time.monotonic() - started) / level(NEWCOMER).reaction.think) + 1
    left = _nerts_left(text)
    assert sorted(left) == ["Bot 2", "Bot 3", "Bot 4"], text  # named for their seats
    assert all(13 - n <= most for n in left.values()), (most, text)
    if most < 13:  # no bot can have emptied its Nerts pile yet
        assert "round 1 over" not in text and "round 1" in text.splitlines()[0], text
    quit_table(terminal)


def test_a_join_that_never_moves_does_not_stall_a_three_seat_table(
    terminal: Terminal, processes: Processes
) -> None:
    """A headless host, a bot, and a person who says ready and then never moves: the
    person is declared stuck, and the round is played out.

    She is declared stuck after ``--idle`` seconds without a move, or before that if the
    rules find her stuck (her seat looks, as every seat does): which one depends on the
    deal, and the decks come from every seat's secret. A Nerts pile of 26 mostly keeps the
    bots from ending the round by calling Nerts, so that it ends with everyone stuck, which
    it could not do unless Dee were declared stuck. But some deals let a bot dig through
    26 cards: her own screen shows her declared stuck either way."""
    table = ["--seats", "3", "--rounds", "1", "--nerts-pile", "26", "--level", "10", "--seed", "1"]
    host = [*P2PNERTS, "host", "--name", "idle", "--headless", "--no-advertise"]
    host_proc = processes.start([*host, *table], "host")
    processes.wait_for("host", "open on port")
    where = f"127.0.0.1:{port_in(processes.output('host'))}"
    run_in(terminal, "t:0", [*P2PNERTS, "join", where, "--player", "Dee", "--idle", "5"])
    processes.start([*P2PNERTS, "bot", "--join", where, "--level", "10", "--seed", "2"], "bot")
    say_ready(terminal)
    # Her tableau's title: "Dee (you) · 0 points · stuck" (Enter was her last key: no move), or
    # with the round's points once everyone stuck ended it: the screen may not be read in
    # between on a loaded machine.
    stuck = re.compile(r"Dee \(you\) · -?\d+ points · stuck")
    terminal.wait_for(lambda t: stuck.search(t) is not None, "Dee declared stuck for her")
    text = terminal.wait_for(lambda t: "Match over" in t, "the match's end")
    assert host_proc.wait(timeout=60) == 0
    summary = processes.output("host")
    ended = re.search(r"round 1 over \((.*?)\)", summary)
    assert ended is not None, summary
    # Everyone stuck (only Dee's seat, declared stuck for her, let that be), or a bot's call.
    assert ended[1] == "everyone stuck" or "called Nerts" in ended[1], summary
    assert "match over after 1 round:" in summary and "Dee" in summary
    assert "Traceback" not in text + summary


def _ann_hosts(terminal: Terminal, seats: int) -> str:
    """Ann hosts a table of ``seats`` in the terminal's first window; where it listens."""
    host = [*P2PNERTS, "host", "--name", "t", "--seats", str(seats), "--no-advertise"]
    run_in(terminal, "t:0", [*host, "--player", "Ann"])
    text = terminal.wait_for(
        lambda t: f"1 of {seats} seats taken" in t and "open on port" in t,
        "the host's waiting room",
    )
    return f"127.0.0.1:{port_in(text)}"


def test_both_people_quitting_a_three_seat_table_ends_the_bots_match(
    terminal: Terminal, processes: Processes
) -> None:
    where = _ann_hosts(terminal, 3)
    terminal.new_window()
    run_in(terminal, "t:1", [*P2PNERTS, "join", where, "--player", "Bea"])
    terminal.wait_for(lambda t: "2 of 3 seats taken" in t, "Bea seated")
    bot = processes.start([*P2PNERTS, "bot", "--join", where, "--name", "Cy"], "bot")
    say_ready(terminal, "t:0", "t:1")
    for window in ("t:0", "t:1"):
        quit_table(terminal, window)
    assert bot.wait(timeout=60) == 0
    out = processes.output("bot")
    assert "match ended: everyone else has left the table" in out
    assert "match ended before any round was over here, everyone else has left the table" in out
    assert "Traceback" not in out


def test_a_two_seat_table_whose_other_peer_is_killed_says_why_and_can_end_the_match(
    terminal: Terminal, processes: Processes
) -> None:
    where = _ann_hosts(terminal, 2)
    bot = processes.start([*P2PNERTS, "bot", "--join", where, "--name", "Cy"], "bot")
    say_ready(terminal)
    bot.kill()
    text = terminal.wait_for(lambda t: "e ends the match here" in t, "why the table waits")
    assert "Waiting for Cy to come back (1 of 2 is no majority)" in text
    terminal.type("e")
    terminal.wait_for(lambda t: "The match ended" in t, "the match ended")
    terminal.type("q")
    text = terminal.wait_for(lambda t: "p2pnerts exited 0" in t, "the shell again")
    assert "match ended before any round was over here, the player did not wait" in text
    assert "Traceback" not in text
