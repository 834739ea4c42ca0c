"""The lab's screen and desk: every lesson fits 100x32 and 160x50 and shows its point
with its reason; playing moves the run on at the chosen speed, through quiet stretches."""

from __future__ import annotations

import re

import pytest

from p2pnerts.lab import LESSONS, Action, Desk, Lab, Mark, Table, render
from p2pnerts.lab._legend import AT_A_MAJORITY, KEYS_IN_FULL, MARKS, WORDS
from p2pnerts.lab._records import Count
from p2pnerts.lab._render import GLYPH, budget
from p2pnerts.protocol._spots import quorum


def desk_at_point(name: str) -> Desk:
    lesson = LESSONS[name]
    lab = Lab(lesson.table, lesson.script)
    lab.goto(lesson.by)
    return Desk(lab, lesson)


@pytest.mark.parametrize("size", [(100, 32), (160, 50), (80, 24)])
@pytest.mark.parametrize("name", list(LESSONS))
def test_every_lesson_fits_the_screen_and_shows_its_point(name: str, size: tuple[int, int]) -> None:
    desk = desk_at_point(name)
    width, height = size
    frame = render(desk, width, height)
    assert len(frame.rows) == height
    assert all(row.width <= width for row in frame.rows)
    text = frame.text()
    note = desk.point_shown()
    assert note is not None
    assert note.text[: width - 20] in text
    assert f"why: {note.reason}"[: width - 20] in text
    lines = text.splitlines()
    title = lines[0]
    assert title.rstrip().endswith(f"step {desk.lab.step} · t={desk.lab.now:.4f} s · paused ×0.01")
    diagram = next(i for i, line in enumerate(lines) if "time-space diagram" in line)
    assert any(line.startswith("▸") for line in lines[diagram + 1 :])  # the step it is at
    assert "← the lesson's point" in text or (width < 100 and "← the point" in text)
    said = lines.index(f" {desk.said}".rstrip())
    lesson_rows = lines[1:said]
    assert 0 < len(lesson_rows) <= budget(height)[0]
    told = " ".join(line.strip() for line in lesson_rows)
    if desk.lesson is not None and desk.lesson.about not in told:  # cut short: say where it all is
        assert lesson_rows[-1].rstrip().endswith("… (? shows it all)"), lesson_rows
    assert "Play…" not in text and "after a …" not in text  # 80x24 too: shorter, not cut


def diagram_shown(desk: Desk, text: str) -> list[tuple[str, str]]:
    """The diagram's rows on the screen, each with the text of the line it draws."""
    rows = [row for row in text.splitlines() if re.match(r"[▸ ] *\d+ +\d+\.\d{4} ", row)]
    lines = [line for line in desk.lab.chronicle.lines if desk.acks or not line.quiet]
    return list(zip(rows, [line.text for line in lines[-len(rows) :]], strict=True))


SHOWN_AT = {"crash": (600, 868), "partition": (600, 1080), "nerts": (3395, 3414)}
"""Steps beside each lesson's start and point worth reading: the lesson's faults, the round
over, the play made after the Nerts call."""


@pytest.mark.parametrize("name", list(LESSONS))
def test_at_100x32_nothing_is_cut_from_a_lesson_its_columns_notes_or_diagram(name: str) -> None:
    lesson = LESSONS[name]
    desk = Desk(Lab(lesson.table, lesson.script), lesson)
    for step in sorted({lesson.start, lesson.by, *SHOWN_AT.get(name, ())}):
        desk.lab.goto(step)
        frame = render(desk, 100, 32)
        text = frame.text()
        assert "…" not in text and not any(row.cut for row in frame.rows), (step, text)
        assert lesson.about in " ".join(text.split()), text  # the whole text, not "Se…"
        assert "(? shows it all)" not in text
        shown = diagram_shown(desk, text)
        assert len(shown) >= 5
        for row, line in shown:
            assert line in row, (step, row, line)


def test_the_legend_scrolls_and_explains_the_words_on_screen() -> None:
    desk = desk_at_point("race")
    desk.toggle_legend()
    pages = []
    for _ in range(8):
        pages.append(render(desk, 100, 32).text())
        desk.scroll(10)
    assert pages[0] != pages[-1]
    seen = "\n".join(pages)
    for term, _ in WORDS:
        assert f"  {term} " in seen
    for keys, _ in KEYS_IN_FULL:
        assert f"  {keys} " in seen


def test_playing_moves_the_clock_on_through_a_bots_thinking_time() -> None:
    desk = Desk(Lab(Table(seed=1, peers=4)), speed=0.01)
    desk.lab.goto(1247)  # the next step is 13 ms later: a bot thinking
    desk.toggle_play()
    start = desk.lab.now
    for _ in range(40):  # two real seconds in frames of 0.05 s: 20 ms simulated
        desk.tick(0.05)
    assert desk.lab.step > 1247
    assert desk.clock == pytest.approx(start + 0.02)
    assert desk.lab.now <= desk.clock


def test_a_step_with_acks_hidden_passes_over_them() -> None:
    desk = Desk(Lab(Table(seed=1, peers=4)))
    desk.lab.goto(1245)
    desk.toggle_acks()
    desk.step()
    shown = [line for line in desk.lab.chronicle.lines if line.step == desk.lab.step]
    assert any(not line.quiet for line in shown)


def test_keys_on_no_seat_or_a_missing_seat_say_what_to_do() -> None:
    desk = Desk(Lab(Table(seed=1, peers=4)))
    desk.act("crash")
    assert desk.said.startswith("select a seat first")
    desk.select(6)
    assert desk.said == "there is no seat 7: seats 1-4"
    desk.select(1)
    desk.act("crash")
    assert desk.said == "crash 2"
    assert desk.lab.script == [(0, Action("crash", (1,)))]


def test_each_mark_has_its_own_glyph_and_the_legend_names_each_once() -> None:
    glyphs = list(GLYPH.values())
    assert len(set(glyphs)) == len(glyphs)
    assert GLYPH[Mark.TIE] != GLYPH[Mark.BACK]  # a tie keeps both cards: nothing goes back
    terms = [term for term, _ in MARKS]
    for glyph in [*glyphs, "▸"]:
        assert terms.count(glyph) == 1, glyph
        for _, text in (*WORDS, *KEYS_IN_FULL):  # ("L=59" is no mark)
            assert glyph not in [word.strip("(),;:") for word in text.split()], (glyph, text)


def test_a_tie_is_drawn_with_the_tie_mark_not_the_mark_of_a_card_sent_back() -> None:
    desk = desk_at_point("tie-both-stay")
    lines = render(desk, 100, 32).text().splitlines()
    tie = next(line for line in lines if "tie: both stay L=59" in line)
    assert f"{GLYPH[Mark.TIE]} tie: both stay" in tie and GLYPH[Mark.BACK] not in tie


def test_a_fault_the_lesson_strikes_is_labelled_as_the_lessons_and_a_key_as_the_teachers() -> None:
    lesson = LESSONS["crash"]
    desk = Desk(Lab(lesson.table, lesson.script), lesson)
    desk.lab.goto(601)
    desk.select(1)
    desk.act("crash")
    text = render(desk, 100, 32).text()
    assert f"{GLYPH[Mark.FAULT]} lesson: crash 4" in text
    assert f"{GLYPH[Mark.FAULT]} teacher: crash 2" in text
    assert "teacher: crash 4" not in text


def test_an_action_uses_up_the_selection() -> None:
    """The issue's afternoon: 3 4 p, later j, then k crashed seats 3 and 4 again."""
    desk = Desk(Lab(Table(seed=1, peers=4)))
    desk.lab.goto(100)
    desk.select(2)
    desk.select(3)
    desk.act("partition")
    assert desk.said == "partition: 3 4 apart from the rest"
    assert desk.selected == []
    assert " selected" not in render(desk, 100, 32).text()
    desk.act("join")
    desk.act("crash")
    assert desk.said.startswith("select a seat first")
    assert all(desk.lab.seat_view(seat).up for seat in range(4))


def test_a_majoritys_table_says_so_and_its_legend_tells_its_words() -> None:
    desk = Desk(Lab(Table(seed=2, peers=4, majority=True)))
    text = render(desk, 100, 32).text()
    assert "commit by a majority (protocol v3)" in text and " applied " in text
    desk.toggle_legend()
    seen = render(desk, 100, 200).text()
    for term, _ in AT_A_MAJORITY:
        assert f"  {term} " in seen
    assert "commits the head of its pending list once every member" not in seen


def test_the_quorum_the_lab_names_is_the_protocols() -> None:
    for members in range(2, 7):
        count = Count(0, 1, True, (), tuple(range(members)), 0, 0)
        assert count.quorum == quorum(members)
