"""Every command of the teachers' guide (docs/classroom.md) runs as the guide says: each
lab lesson opens and shows its point, the table without a lesson splits on the keys the
guide gives, and the export of a simulated run writes both diagrams."""

from __future__ import annotations

import glob
import itertools
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from _tmux import Terminal, needs_tmux, terminal_fixture

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "classroom.md"
PROGRAM = ".venv/bin/p2pnerts"


def commands() -> list[list[str]]:
    """The guide's p2pnerts commands, in order, each as its words."""
    blocks = re.findall(r"```sh\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)
    lines = [line for block in blocks for line in block.splitlines()]
    return [shlex.split(line)[1:] for line in lines if line.startswith(PROGRAM + " ")]


COMMANDS = commands()
LAB = [c for c in COMMANDS if c[0] == "lab"]
OTHERS = [c for c in COMMANDS if c[0] != "lab"]


def test_the_guide_gives_three_lessons_and_an_export() -> None:
    lessons = [c[c.index("--lesson") + 1] for c in LAB if "--lesson" in c]
    assert {"race", "crash", "partition"} <= set(lessons)
    assert [c[0] for c in OTHERS] == ["sim", "trace", "trace"]


def test_the_guide_plans_a_50_minute_class_part_by_part() -> None:
    """The guide gave three lessons of 20 minutes each for a class of 50."""
    text = GUIDE.read_text(encoding="utf-8")
    for spans in (
        re.findall(r"^\| (\d+)–(\d+) \|", text, re.M),  # the plan's table
        re.findall(r"^## .*\(minutes (\d+)–(\d+)\)", text, re.M),  # the parts
    ):
        times = [(int(start), int(end)) for start, end in spans]
        assert times[0][0] == 0 and times[-1][1] == 50, times
        assert all(end == start for (_, end), (start, _) in itertools.pairwise(times)), times
    assert "20 minutes" not in text


terminal = terminal_fixture(100, 32)


@needs_tmux
@pytest.mark.parametrize("args", LAB, ids=[" ".join(c) for c in LAB])
def test_a_lab_command_of_the_guide_shows_what_the_guide_says(
    terminal: Terminal, args: list[str]
) -> None:
    command = shlex.join([sys.executable, "-m", "p2pnerts", *args])
    terminal.type(f"LANG=C.UTF-8 {command}; echo p2pnerts exited $?", "Enter")
    if "--lesson" in args:
        name = args[args.index("--lesson") + 1]
        terminal.wait_for(lambda t: f"lesson {name} " in t.splitlines()[0], "the lesson")
        terminal.type("g")
        terminal.wait_for(lambda t: "the lesson's point" in t, "the lesson's point")
    else:
        terminal.wait_for(lambda t: "No lesson" in t, "the table without a lesson")
        terminal.type("3", "4", "p")
        terminal.wait_for(lambda t: "partition: 3 4 apart from the rest" in t, "the split")
    terminal.type("q")
    terminal.wait_for(lambda t: "p2pnerts exited 0" in t, "the shell again")


def test_the_export_of_the_guide_writes_a_shiviz_file_and_a_mermaid_diagram(
    tmp_path: Path,
) -> None:
    said = []
    for args in OTHERS:
        words = [w for a in args for w in (sorted(glob.glob(a, root_dir=tmp_path)) or [a])]
        done = subprocess.run(
            [sys.executable, "-m", "p2pnerts", *words],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, f"{shlex.join(args)}:\n{done.stdout}\n{done.stderr}"
        said.append(done.stdout + done.stderr)
    assert "  faults injected    crash 1\n" in said[0], "the guide's run has its crash"
    diagram = (tmp_path / "class.md").read_text(encoding="utf-8")
    assert diagram.startswith("```mermaid\nsequenceDiagram\n") and diagram.endswith("```\n")
    assert "StartView" in diagram, "the window the guide gives shows the view without seat 1"
    shiviz = (tmp_path / "class.shiviz").read_text(encoding="utf-8")
    assert len(shiviz.splitlines()) > 100 and "(?<host>" in shiviz.splitlines()[0]
    assert len(shiviz.encode()) < 100_000 and " Ack L=" not in shiviz
    assert "Acks received (--acks keeps them)" in said[1]
