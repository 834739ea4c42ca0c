"""Finds the lab's lessons' steps again, after a protocol change: python tools/lab_lessons.py.

A change of the protocol moves the steps the lessons point at.

    python tools/lab_lessons.py                      # each lesson: where its point shows now
    python tools/lab_lessons.py --search race --peers 4 --seeds 1-20
    python tools/lab_lessons.py --search tie --tie-rule rotate --peers 2 --seeds 1-30
    python tools/lab_lessons.py --search race --majority --slow 4 --seeds 1-10
    python tools/lab_lessons.py --search hiccup --majority --silent 4 --at 1000 --for 2.5

The first form runs every lesson's table and script and prints the step its point shows
at and the step the lab should open at (a few steps before the first play it is about is
sent); the second looks, in each seed, at the first note of a kind (a lesson's point is
the first note of its kind) and lists the seeds where it shows what the lesson claims,
soonest first. A race or a tie counts only when its run's messages show it
(`p2pnerts.lab.race_of`, from every seat's game log): the two plays concurrent (neither
sender had heard of the other's play) and, for a race, the seats having them in different
orders. At a majority's table (``--majority``) a race counts only when both plays were
decided in by their Tallies (the keys, not a late vote, put one first) and, given a slow
seat (``--slow``, slowed from the first step), neither Tally waited for its vote. A hiccup
(``--silent``) is the seat partitioned from the rest at step ``--at`` and joined again
``--for`` seconds later: it counts when the seat is heard again and no view left it out.
Write what it finds into ``p2pnerts/lab/_lessons.py``.
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


Script = tuple[tuple[int, Action], ...]


def where(table: Table, script: Script, kind: Kind, slow: int | None = None) -> Note | None:
    """The first note of ``kind`` in the run, if it shows what a lesson claims of it (at a
    majority's table, a race both of whose plays a quorum voted in without ``slow``): a
    lesson's point is the first note of its kind, so a later one that would show it does
    not make a lesson."""
    lab = Lab(table, script)
    note = lab.first(kind)
    while note is None and lab.step < LIMIT and lab.forward():
        note = lab.first(kind)
    if note is None or not _voted_in(lab, note, slow):
        return None
    if kind not in (Kind.RACE, Kind.TIE):
        return _nobody_left_out(lab, note)
    with tempfile.TemporaryDirectory() as directory:
        _, history = exported(table, lab.script, note.step, Path(directory))
    race = race_of(note, history)
    return note if race.concurrent and (kind is Kind.TIE or len(race.orders) == 2) else None


def _voted_in(lab: Lab, note: Note, slow: int | None) -> bool:
    """Whether a race's or tie's plays were both decided in, the first (the one that
    stays) by a Tally that did not wait for ``slow`` (always so at a table that commits by
    acknowledgement)."""
    if not lab.table.majority or note.kind not in (Kind.RACE, Kind.TIE):
        return True
    plays = zip(note.seats, note.keys, strict=True)
    counts = [lab.chronicle.counts.get((seat, key[0])) for seat, key in plays]
    if any(c is None or not c.ok for c in counts):
        return False
    return counts[0] is not None and slow not in counts[0].voters


def _nobody_left_out(lab: Lab, note: Note) -> Note | None:
    """A hiccup's note, if no view left a seat out by then."""
    if note.kind is not Kind.HICCUP:
        return note
    out = [n for n in lab.notes if n.kind is Kind.VIEW and n.step <= note.step]
    return None if out else note


def hiccup(table: Table, seat: int, at: int, seconds: float) -> Script:
    """A script partitioning ``seat`` from the rest at step ``at`` and joining it again
    the first step ``seconds`` later."""
    cut = (at, Action("partition", (seat,), lesson=True))
    lab = Lab(table, (cut,))
    lab.goto(at)
    struck = lab.now
    lab.forward_to(lambda lab: lab.now >= struck + seconds)
    return (cut, (lab.step, Action("join", (), lesson=True)))


def opening(table: Table, script: Script, note: Note) -> int:
    """The step a lesson about ``note`` opens at: a little before its first play is sent,
    or before the first fault its script strikes after the first step."""
    struck = [step for step, _ in script if step > 0]
    if struck:
        return min(struck) - BEFORE
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
    parser.add_argument("--majority", action="store_true", help="commit by a majority")
    parser.add_argument("--slow", type=int, metavar="SEAT", help="slow from the first step")
    parser.add_argument("--silent", type=int, metavar="SEAT", help="a hiccup: partitioned")
    parser.add_argument("--at", type=int, default=1000, metavar="STEP", help="when it falls silent")
    parser.add_argument("--for", type=float, default=2.5, dest="lasts", metavar="S")
    args = parser.parse_args()
    if args.search is None:
        for name, lesson in LESSONS.items():
            slowed = next((a.seats[0] for _, a in lesson.script if a.verb == "slow"), None)
            note = where(lesson.table, lesson.script, lesson.point, slowed)
            found = (
                None if note is None else (note.step, opening(lesson.table, lesson.script, note))
            )
            print(f"{name:<14} stated by={lesson.by} start={lesson.start}; found {found}")
        return 0
    first, last = map(int, args.seeds.split("-"))
    kind, rule = Kind(args.search), TieRule(args.tie_rule)
    results = []
    slow = None if args.slow is None else args.slow - 1
    for seed in range(first, last + 1):
        table = Table(seed, args.peers, rule, majority=args.majority)
        script: Script = () if slow is None else ((0, Action("slow", (slow,), lesson=True)),)
        if args.silent is not None:
            script += hiccup(table, args.silent - 1, args.at, args.lasts)
        note = where(table, script, kind, slow)
        if note is not None:
            results.append((note.step, opening(table, script, note), seed, note, script))
    for by, start, seed, note, struck in sorted(results, key=lambda found: found[:3]):
        print(f"seed {seed}: {kind.value} by step {by}, open at {start}: {note.text}")
        print(f"    why: {note.reason}")
        if struck:
            print(f"    script: {[(step, action.verb, action.seats) for step, action in struck]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
