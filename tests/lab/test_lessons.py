"""Every lesson shows its point by its stated step, with the reason the order gives; the
command's options are checked as they are read."""

from __future__ import annotations

import pytest

from p2pnerts.cli import main
from p2pnerts.lab import LESSONS, Kind, Lab, Lesson, Mark, Note, lesson_named, lesson_names
from p2pnerts.rules import TieRule


def shown(lesson: Lesson) -> tuple[Lab, Note]:
    lab = Lab(lesson.table, lesson.script)
    lab.goto(lesson.start)
    assert lab.first(lesson.point) is None, "the lesson opens before its point"
    lab.goto(lesson.by)
    note = lab.first(lesson.point)
    assert note is not None, f"{lesson.name}: no {lesson.point.value} by step {lesson.by}"
    assert lab.stopped is None
    return lab, note


@pytest.mark.parametrize("name", list(LESSONS))
def test_each_lesson_shows_its_point_by_its_step(name: str) -> None:
    lesson = LESSONS[name]
    _, note = shown(lesson)
    assert lesson.start < note.step <= lesson.by


def test_the_race_is_won_by_the_lower_clock() -> None:
    _, note = shown(LESSONS["race"])
    assert note.text == "RACE: seat 4's 3♣ beat seat 2's 3♣ to foundation 1"
    assert note.reason.startswith("L=87 < L=92")
    assert note.keys == ((87, 0, 3), (92, 0, 1))


def test_a_tie_under_both_stay_keeps_both_cards() -> None:
    _, note = shown(LESSONS["tie-both-stay"])
    assert note.text.startswith("TIE:")
    assert note.reason == "equal clocks L=59: both stay (tie rule both-stay)"


@pytest.mark.parametrize(
    ("name", "winner", "why"),
    [
        ("tie-seat", 1, "seat rule: seat 1 before seat 2"),
        ("tie-rotate", 2, "rotate: rank = (seat - clock) mod 2, seat 2 has 0, seat 1 1"),
    ],
)
def test_a_tie_under_a_ranking_rule_is_decided_by_rank(name: str, winner: int, why: str) -> None:
    _, note = shown(LESSONS[name])
    assert note.text.startswith(f"RACE: seat {winner}'s 2♦ beat")
    assert note.reason.startswith("equal clocks L=59: rank decides")
    assert note.reason.endswith(why)


def test_a_play_in_the_air_at_a_nerts_call_counts_when_ordered_before_it() -> None:
    _, note = shown(LESSONS["nerts"])
    assert note.text == "seat 3's play L=418 was in the air at seat 2's Nerts call L=419"
    assert note.reason.endswith("ordered before the call, it counts")


def test_a_crashed_seat_is_suspected_then_left_out_by_a_view_change() -> None:
    lab, note = shown(LESSONS["crash"])
    suspected = [n for n in lab.notes if n.kind is Kind.SUSPECT]
    assert suspected and suspected[0].seats[1] == 3 and suspected[0].step < note.step
    assert note.seats == (0, 1, 2)
    assert any(lab.seat_view(s).members == (0, 1, 2) for s in range(3))


def test_the_minority_of_a_partition_waits_then_rejoins() -> None:
    lesson = LESSONS["partition"]
    lab = Lab(lesson.table, lesson.script)
    lab.goto(800)
    minority, majority = lab.seat_view(3).committed, lab.seat_view(0).committed
    lab.goto(1078)
    assert lab.seat_view(3).committed == minority  # it waits: nothing commits there
    assert lab.seat_view(0).committed > majority  # the majority goes on
    _, note = shown(lesson)
    assert note.seats == (3,)


def test_tie_names_the_tie_lesson_under_the_tie_rule() -> None:
    assert lesson_named("tie").name == "tie-both-stay"
    assert lesson_named("tie", TieRule.ROTATE).name == "tie-rotate"
    assert "tie" in lesson_names()


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--lesson", "nope"], "'nope' is not one of race, tie-both-stay, tie-rotate"),
        (["--peers", "9"], "must be 2 to 6, not 9"),
        (["--speed", "0"], "must be 0.0005 to 1, not 0"),
        (["--speed", "fast"], "not a number of seconds: 'fast'"),
        (["--tie-rule", "coin"], "'coin' is not one of both-stay, rotate, seat"),
    ],
)
def test_bad_options_give_a_clear_error(
    args: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["lab", *args])
    assert exit_.value.code == 2
    assert said in capsys.readouterr().err


def test_the_lab_needs_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lab", "--lesson", "race"]) == 2
    assert "the lab needs a terminal" in capsys.readouterr().err


def test_a_play_made_after_the_nerts_call_goes_back_with_its_reason() -> None:
    lesson = LESSONS["nerts"]
    lab = Lab(lesson.table, lesson.script)
    lab.goto(3414)
    notes = [n for n in lab.notes if n.kind is Kind.NERTS]
    assert [n.step for n in notes] == [3381, 3414]
    assert notes[1].text == "seat 1's play L=421 was made after seat 2's Nerts call L=419"
    assert notes[1].reason == "key (421,0,0) after the call's (419,1,1): it goes back"
    back = [line for line in lab.chronicle.lines if line.mark is Mark.BACK]
    assert back[-1].step == 3414 and back[-1].text == "1's L=421 back" and back[-1].alert


def test_the_faults_a_lesson_strikes_are_the_lessons() -> None:
    for name in ("race", "crash", "partition", "majority-race", "majority-hiccup"):
        lesson = LESSONS[name]
        assert lesson.script and all(action.lesson for _, action in lesson.script)
        lab = Lab(lesson.table, lesson.script)
        lab.goto(lesson.script[-1][0])
        faults = [line.text for line in lab.chronicle.lines if line.mark is Mark.FAULT]
        assert faults and all(text.startswith("lesson: ") for text in faults), faults


def test_at_a_majoritys_table_a_quorum_decides_the_race_and_the_clocks_order_it() -> None:
    lab, note = shown(LESSONS["majority-race"])
    assert note.text == "RACE: seat 2's 3♣ beat seat 4's 3♣ to foundation 5"
    assert note.keys == ((176, 0, 1), (177, 0, 3))
    assert note.reason.startswith("L=176 < L=177")
    assert note.reason.endswith(
        "both voted in by a quorum, 3 of 4: seat 2's by 1 2 3, seat 4's by 1 2 3 4"
    )
    first, second = (lab.chronicle.counts[seat, clock] for seat, clock in ((1, 176), (3, 177)))
    assert first.ok and first.voters == (0, 1, 2) and first.step == 690  # not waiting for 4
    assert second.ok and second.voters == (0, 1, 2, 3) and second.step == 835  # a poller's
    sent = [(line.step, line.seat, line.text) for line in lab.chronicle.lines]
    assert (690, 1, "Tally L=178 2's L=176 in: for 1 2 3") in sent
    assert (831, 2, "Poll L=208 on 4's L=177, carrying it") in sent
    assert (834, 2, "hands on 1's Ballot L=208 for 4's L=177") in sent
    assert (835, 2, "Tally L=209 4's L=177 in: for 1 2 3 4") in sent


def test_at_a_majoritys_table_a_hiccup_leaves_nobody_out() -> None:
    lesson = LESSONS["majority-hiccup"]
    lab, note = shown(lesson)
    assert note.text == "seat 1 hears seat 4 again after 2.5 s: still a member"
    assert note.reason == (
        "the others played on, 100 plays applied at seat 1; a seat is left out only after 10 s"
    )
    lab.goto(3129)
    assert not [n for n in lab.notes if n.kind is Kind.VIEW]
    # Made into the silence, on its own tableau alone: nothing to race, voted in once heard.
    move = lab.chronicle.counts[3, 540]
    assert move.ok and move.voters == (0, 1, 3) and move.step == 3129
    # Every play counted while seat 4 was cut off was voted in by the three, without it.
    cut = [count for count in lab.chronicle.counts.values() if 2000 < count.step < 2716]
    assert len(cut) == 98 and all(count.voters == (0, 1, 2) for count in cut)
