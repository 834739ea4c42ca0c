"""Finds the lab's lessons' steps again, after a protocol change: python tools/lab_lessons.py.

A change of the protocol moves the steps the lessons point at.

    python tools/lab_lessons.py                      # each lesson: where its point shows now
    python tools/lab_lessons.py --search tie --tie-rule rotate --peers 2 --seeds 1-30

The first form runs every lesson's table and script and prints the step its point shows
at and the step the lab should open at (a few steps before the first play it is about is
sent); the second looks for the first note of a kind in each seed, soonest first. Write
what it finds into ``p2pnerts/lab/_lessons.py``.
"""

from __future__ import annotations

import argparse
import sys

from p2pnerts.lab import LESSONS, Kind, Lab, Mark, Table
from p2pnerts.rules import TieRule

LIMIT = 40_000
"""Steps a search runs before it gives up on a seed."""
BEFORE = 3
"""Steps before the first play a note is about that a lesson opens at."""


def where(lab: Lab, kind: Kind) -> tuple[int, int] | None:
    """The step a note of ``kind`` shows at, and a step to open at before it."""
    if not lab.forward_to(lambda run: run.first(kind) is not None, LIMIT):
        return None
    note = lab.first(kind)
    assert note is not None
    clocks = [f"L={key[0]} " for key in note.keys]
    sent = [
        line.step
        for line in lab.chronicle.lines
        if line.mark is Mark.SEND
        and line.text.startswith("Play")
        and any(clock in line.text for clock in clocks)
    ]
    return note.step, (min(sent) if sent else note.step) - BEFORE


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--search", choices=[kind.value for kind in Kind])
    parser.add_argument("--peers", type=int, default=4)
    parser.add_argument("--tie-rule", default="both-stay")
    parser.add_argument("--seeds", default="1-20", metavar="A-B")
    args = parser.parse_args()
    if args.search is None:
        for name, lesson in LESSONS.items():
            found = where(Lab(lesson.table, lesson.script), lesson.point)
            print(f"{name:<14} stated by={lesson.by} start={lesson.start}; found {found}")
        return 0
    first, last = map(int, args.seeds.split("-"))
    kind, rule = Kind(args.search), TieRule(args.tie_rule)
    results = []
    for seed in range(first, last + 1):
        found = where(Lab(Table(seed, args.peers, rule)), kind)
        if found is not None:
            results.append((found, seed))
    for (by, start), seed in sorted(results):
        print(f"seed {seed}: {kind.value} by step {by}, open at {start}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
