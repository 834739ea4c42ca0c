"""End to end: ``p2pnerts lab`` in a real terminal (tmux): a lesson stepped to its race,
the race shown with its reason, a key that does nothing answered, then quit; Ctrl-C asks
first, even over the legend, and a second Ctrl-C leaves without a key reaching the shell."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable

import pytest
from _tmux import Terminal, needs_tmux, terminal_fixture

from p2pnerts.lab._lessons import LESSONS

pytestmark = needs_tmux

COMMAND = [sys.executable, "-m", "p2pnerts", "lab", "--lesson", "race", "--seed", "1"]


terminal = terminal_fixture(100, 32)


def at_step(step: int) -> Callable[[str], bool]:
    return lambda text: f"step {step} " in text.splitlines()[0]


def test_the_race_lesson_steps_to_its_race_and_shows_why(terminal: Terminal) -> None:
    terminal.type(f"LANG=C.UTF-8 {shlex.join(COMMAND)}; echo p2pnerts exited $?", "Enter")
    terminal.wait_for(at_step(541), "the lesson's first step")
    assert "nothing yet: no race" in terminal.screen()
    for step in range(542, 545):
        terminal.type("n")
        terminal.wait_for(at_step(step), f"step {step}")
    assert "Play L=87" in terminal.screen()  # seat 4's play, sent at step 544
    terminal.type("g")
    text = terminal.wait_for(at_step(636), "the lesson's point")
    assert "RACE: seat 4's 3♣ beat seat 2's 3♣ to foundation 1" in text
    assert "why: L=87 < L=92" in text
    assert "← the lesson's point" in text
    terminal.type("b")
    text = terminal.wait_for(lambda t: "back to step 635" in t, "a step back")
    assert "nothing yet: no race" in text
    terminal.type("z")
    terminal.wait_for(lambda t: "'z' does nothing here: ? lists every key" in t, "the answer")
    terminal.type("q")
    terminal.wait_for(lambda t: "p2pnerts exited 0" in t, "the shell again")


@pytest.mark.parametrize("name", list(LESSONS))
def test_every_lesson_opens_before_its_point_and_g_shows_it_at_its_step(
    terminal: Terminal, name: str
) -> None:
    lesson = LESSONS[name]
    command = [sys.executable, "-m", "p2pnerts", "lab", "--lesson", name]
    terminal.type(f"LANG=C.UTF-8 {shlex.join(command)}; echo p2pnerts exited $?", "Enter")
    terminal.wait_for(at_step(lesson.start), f"step {lesson.start}, where the lesson opens")
    terminal.type("g")
    text = terminal.wait_for(lambda t: "the lesson's point" in t, "the lesson's point")
    assert at_step(lesson.by)(text), text.splitlines()[0]
    terminal.type("q")
    terminal.wait_for(lambda t: "p2pnerts exited 0" in t, "the shell again")


def test_ctrl_c_over_the_legend_asks_and_a_second_leaves_and_the_shell_gets_no_key(
    terminal: Terminal,
) -> None:
    """The issue's evening: Ctrl-C said it did nothing, and a shell line typed at what
    looked like the end struck faults (2k3k4k: crash 2; crash 3; crash 4)."""
    terminal.type(f"LANG=C.UTF-8 {shlex.join(COMMAND)}; echo p2pnerts exited $?", "Enter")
    terminal.wait_for(at_step(LESSONS["race"].start), "the lesson's first step")
    terminal.type("?")
    terminal.wait_for(lambda t: "legend · ? or Esc goes back · q quits" in t, "the legend")
    terminal.type("C-c")
    text = terminal.wait_for(lambda t: "Leave the lab? y or Ctrl-C: yes" in t, "the question")
    assert "does nothing" not in text and "teacher" not in text
    # The second Ctrl-C, and a shell line typed at once behind it, in one write.
    terminal.type("C-c", "2k3k4k", "Enter")
    terminal.wait_for(lambda t: "p2pnerts exited 0" in t, "the shell again")
    terminal.type("echo next-$((6 * 7))", "Enter")  # read by the shell after anything typed before
    text = terminal.wait_for(lambda t: "next-42" in t, "the next command's output")
    assert "2k3k4k" not in text and not terminal.alternate_screen(), text


def test_q_in_the_legend_quits_and_n_stays_after_ctrl_c(terminal: Terminal) -> None:
    terminal.type(f"LANG=C.UTF-8 {shlex.join(COMMAND)}; echo p2pnerts exited $?", "Enter")
    terminal.wait_for(at_step(LESSONS["race"].start), "the lesson's first step")
    terminal.type("C-c")
    terminal.wait_for(lambda t: "Leave the lab? y" in t, "the question")
    terminal.type("n")
    terminal.wait_for(lambda t: "Leave the lab?" not in t, "the lab again")
    terminal.type("n")
    terminal.wait_for(at_step(LESSONS["race"].start + 1), "a step: the lab takes its keys again")
    terminal.type("?")
    terminal.wait_for(lambda t: "legend · ? or Esc goes back" in t, "the legend")
    terminal.type("q")
    terminal.wait_for(lambda t: "p2pnerts exited 0" in t, "the shell again")
