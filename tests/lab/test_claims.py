"""Each lesson's claim, checked from its run's messages alone: every seat's game log written
as the lesson runs, merged into one history with vector clocks (as ``p2pnerts trace`` merges
a match's logs), and the claim read from the frames, not from the simulator."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2pnerts.lab import LESSONS, Kind, Lab, Lesson, Race, Table, exported, race_of
from p2pnerts.logs import Trace


def claimed(lesson: Lesson, directory: Path) -> tuple[Lab, Trace, Race]:
    lab, history = exported(lesson.table, lesson.script, lesson.by, directory)
    note = lab.first(lesson.point)
    assert note is not None, f"{lesson.name}: no {lesson.point.value} by step {lesson.by}"
    return lab, history, race_of(note, history)


def test_the_races_two_plays_are_concurrent_and_the_seats_have_them_in_different_orders(
    tmp_path: Path,
) -> None:
    lesson = LESSONS["race"]
    _, _, race = claimed(lesson, tmp_path)
    assert race.concurrent and not race.known  # neither had heard of the other's play
    assert race.first == (3, 87) and race.second == (1, 92)  # seat 4's L=87 stays
    # Seats 1 and 3 had seat 2's play first; seat 4 had its own first; seat 2 its own.
    assert race.seen == {0: (1, 3), 1: (1, 3), 2: (1, 3), 3: (3, 1)}
    for seat, clock in (race.first, race.second):  # the text tells the plays the log shows
        assert f"seat {seat + 1}" in lesson.about and f"L={clock}" in lesson.about


def test_the_majoritys_race_is_concurrent_and_the_slow_seat_had_its_own_play_first(
    tmp_path: Path,
) -> None:
    """Seat 4 played its 3♣ L=177 before seat 2's L=176 reached it, and seat 2 had its
    own first; both were voted in and their keys put seat 2's first. Seats 1 and 3 had seat
    2's play first too (seat 4's links are slow), and seat 4 its own."""
    _, _, race = claimed(LESSONS["majority-race"], tmp_path)
    assert race.concurrent and not race.known
    assert race.first == (1, 176) and race.second == (3, 177)
    assert race.seen == {0: (1, 3), 1: (1, 3), 2: (1, 3), 3: (3, 1)}


@pytest.mark.parametrize("name", ["tie-both-stay", "tie-rotate", "tie-seat"])
def test_a_ties_two_plays_carry_equal_clocks_and_neither_knew_of_the_other(
    name: str, tmp_path: Path
) -> None:
    _, _, race = claimed(LESSONS[name], tmp_path)
    assert race.first[1] == race.second[1] == 59
    assert race.concurrent
    assert len(race.orders) == 2  # each of the two seats had its own play first


def test_the_play_in_the_air_at_the_nerts_call_was_sent_before_the_call(
    tmp_path: Path,
) -> None:
    """Seat 2 had received seat 3's play L=418 when it called Nerts at L=419: the play was
    in the air (held, not committed), and its lower key puts it before the call."""
    lesson = LESSONS["nerts"]
    _, _, met = claimed(lesson, tmp_path)
    assert met.first == (2, 418) and met.second == (1, 419)
    assert met.known and not met.concurrent
    assert met.orders == {(2, 1)}


def test_a_race_one_seat_played_after_hearing_of_the_other_is_no_concurrent_race(
    tmp_path: Path,
) -> None:
    """Seed 1 at full speed: seat 3 had received seat 4's L=168 when it played L=169, so
    the order of the keys only restates what happened (the race lesson once showed it)."""
    lab, history = exported(Table(1, 4), (), 1267, tmp_path)
    note = lab.first(Kind.RACE)
    assert note is not None and note.keys[0][0] == 168
    race = race_of(note, history)
    assert race.known and not race.concurrent
    assert race.orders == {(3, 2)}


@pytest.mark.parametrize("name", ["crash", "partition"])
def test_the_fault_strikes_and_the_others_commit_without_the_seat(
    name: str, tmp_path: Path
) -> None:
    """From the logs, up to the step the lesson lifts its fault: while it holds, seat 4
    logs nothing (crashed) or hears nothing from the others and commits nothing (cut off,
    a minority); the other three commit once their view has left seat 4 out."""
    lesson = LESSONS[name]
    lifted = lesson.script[-1][0]
    lab, history = exported(lesson.table, lesson.script, lifted, tmp_path)
    struck, lift = (note.time for note in lab.notes if note.kind is Kind.FAULT)
    out = next(n.time for n in lab.notes if n.kind is Kind.VIEW and n.seats == (0, 1, 2))
    held = [e for e in history.events if struck < e.time < lift]
    fourth = [e for e in held if e.host.startswith("s4-")]
    if name == "crash":
        assert not fourth
    else:
        assert fourth and not [e for e in fourth if e.kind in ("receive", "commit")]
    committed = {e.host[:2] for e in held if e.kind == "commit" and e.time > out}
    assert committed == {"s1", "s2", "s3"}
