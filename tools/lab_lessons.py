"""Finds the lab's lessons' steps again, after a protocol change: python tools/lab_lessons.py.

A change of the protocol moves the steps the lessons point at.

    python tools/lab_lessons.py                      # each lesson: where its point shows now
    python tools/lab_lessons.py --search race --peers 4 --seeds 1-20
    python tools/lab_lessons.py --search tie --tie-rule rotate --peers 2 --seeds 1-30

The first form runs every lesson's table and script and prints the step its point shows
at and the step the lab should open at (a few steps before the first play it is about is
sent); the second looks, in each seed, for the first note of a kind that shows what the
lesson claims, soonest first. A race or a tie counts only when its run's messages show it
(`p2pnerts.lab.race_of`, from every seat's game log): the two plays concurrent (neither
sender had heard of the other's play) and, for a race, the seats having them in different
orders. Write what it finds into ``p2pnerts/lab/_lessons.py``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from p2pnerts.lab import LESSONS, Action, Kind, Lab, Mark, Note, Table, exported, race_of
from p2pnerts.rules import TieRule

LIMIT = 40_000
"""Steps a search runs before it gives up on a seed."""
BEFORE = 3
"""Steps before the first play a note is about that a lesson opens at."""
TRIED = 8
"""Notes of the kind a search checks in each seed before it gives up on the seed."""


def where(table: Table, script: tuple[tuple[int, Action], ...], kind: Kind) -> Note | None:
    """The first note of ``kind`` in the run that shows what a lesson claims of it."""
    lab = Lab(table, script)
    tried: list[Note] = []
    while len(tried) < TRIED and lab.step < LIMIT and lab.forward():
        tried += [n for n in lab.notes[len(tried) :] if n.kind is kind][: TRIED - len(tried)]
        if tried and kind not in (Kind.RACE, Kind.TIE):
            return tried[0]
    if not tried or kind not in (Kind.RACE, Kind.TIE):
        return tried[0] if tried else None
    with tempfile.TemporaryDirectory() as directory:
        _, history = exported(table, lab.script, max(n.step for n in tried), Path(directory))
    for note in tried:
        race = race_of(note, history)
        if race.concurrent and (kind is Kind.TIE or len(race.orders) == 2):
            return note
    return None


def opening(table: Table, script: tuple[tuple[int, Action], ...], note: Note) -> int:
    """The step a lesson about ``note`` opens at: a little before its first play is sent."""
    lab = Lab(table, script)
    lab.goto(note.step)
    clocks = [f"L={key[0]} " for key in note.keys]
    sent = [
        line.step
        for line in lab.chronicle.lines
        if line.mark is Mark.SEND
        and line.text.startswith("Play")
        and any(clock in line.text for clock in clocks)
    ]
    return (min(sent) if sent else note.step) - BEFORE


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--search", choices=[kind.value for kind in Kind])
    parser.add_argument("--peers", type=int, default=4)
    parser.add_argument("--tie-rule", default="both-stay")
    parser.add_argument("--seeds", default="1-20", metavar="A-B")
    args = parser.parse_args()
    if args.search is None:
        for name, lesson in LESSONS.items():
            table, script = lesson.table, lesson.script
            note = where(table, script, lesson.point)
            found = None if note is None else (note.step, opening(table, script, note))
            print(f"{name:<14} stated by={lesson.by} start={lesson.start}; found {found}")
        return 0
    first, last = map(int, args.seeds.split("-"))
    kind, rule = Kind(args.search), TieRule(args.tie_rule)
    results = []
    for seed in range(first, last + 1):
        table = Table(seed, args.peers, rule)
        note = where(table, (), kind)
        if note is not None:
            results.append((note.step, opening(table, (), note), seed, note))
    for by, start, seed, note in sorted(results, key=lambda found: found[:3]):
        print(f"seed {seed}: {kind.value} by step {by}, open at {start}: {note.text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
