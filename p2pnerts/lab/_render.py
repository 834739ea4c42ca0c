"""The lab's screen, drawn from the desk: every replica side by side, the latest verdicts
with their reasons, and a time-space diagram with a lane under each replica's column.

Rows are built as the table screen's are (`ui._frame.Row`); the screen reads the model
and decides nothing.
"""

from __future__ import annotations

import textwrap

from p2pnerts.lab._desk import Desk
from p2pnerts.lab._legend import KEYS, legend_rows
from p2pnerts.lab._model import SeatView
from p2pnerts.lab._records import Kind, Line, Mark, Note, key_words
from p2pnerts.ui import Frame, Row, fit, rule, seat_style

MARGIN = 14
"""Columns left of the first replica: the row names above, step and time below."""
REPLICA_ROWS = 8
"""Rows of the replicas' panel above their pending keys."""
DIAGRAM_ROWS = 6
"""Rows the diagram keeps before the pending keys give way: its title and five lines."""
LOUD = (Kind.RACE, Kind.TIE, Kind.NERTS, Kind.LATE)
"""Notes drawn in the alert style."""
GLYPH = {
    Mark.SEND: "●",
    Mark.COMMIT: "✓",
    Mark.BACK: "✗",
    Mark.TIE: "=",
    Mark.NEWS: "◆",
    Mark.FAULT: "↯",
}
"""Each mark's glyph on a lane: one each, as the legend's marks name them (an arrival is
an arrow, ·─▶ or ◀─·)."""


def render(desk: Desk, width: int, height: int) -> Frame:
    """The lab's screen at ``width`` x ``height``."""
    lesson, pending, notes = budget(height)
    rows = [_title(desk, width)]
    rows += _lesson(desk, width, lesson)
    if desk.leave.asking:
        rows.append(desk.leave.row(width))
    else:
        rows.append(Row().add(fit(f" {desk.said}", width), "class:notice"))
    keys = _keys(width)
    room = height - len(rows) - len(keys)
    if desk.legend:
        legend = legend_rows(desk, width)
        top = min(desk.legend_top, max(len(legend) - room, 0))
        body = legend[top : top + room]
    else:
        verdicts = _verdicts(desk, width, notes)
        # The pending keys give way to the diagram's lines, down to two rows of keys.
        panel = REPLICA_ROWS + desk.lab.table.majority  # (and a row of plays applied)
        pending = min(pending, max(2, room - len(verdicts) - panel - DIAGRAM_ROWS))
        body = _replicas(desk, width, pending) + verdicts
        body += _diagram(desk, width, room - len(body))
    rows += body
    rows += [Row()] * (height - len(rows) - len(keys)) + keys
    return Frame([row.clip(width) for row in rows[:height]])


def budget(height: int) -> tuple[int, int, int]:
    """Rows for the lesson's text, for each replica's pending keys and for notes of the
    order's reasons, at most, by the screen's height: a short text takes fewer, and the
    pending keys give way to the time-space diagram, which has the rest (at 80x24, the
    smallest, three lines of it; at 100x32 a lesson's text whole, and five or more)."""
    if height < 30:
        return 2, 2, 1
    if height < 40:
        return 8, 4, 1
    return 8, 8, 3


def _title(desk: Desk, width: int) -> Row:
    lab = desk.lab
    table = lab.table
    name = f"lesson {desk.lesson.name}" if desk.lesson else "p2pnerts"
    left = f" lab · {name} · seed {table.seed} · {table.peers} peers · "
    left += table.tie_rule.value
    state = "PLAYING" if desk.playing else "paused"
    right = f"step {lab.step} · t={lab.now:.4f} s · {state} ×{desk.speed:g} "
    # Where the run stands (playing or paused, its step and speed) is what a teacher looks
    # for: on a narrow screen the left side gives way to it.
    row = Row().add(fit(left, max(width - len(right) - 1, 0)), "class:title")
    return row.pad(max(width - len(right), row.width + 1)).add(right, "class:key")


def _lesson(desk: Desk, width: int, most: int) -> list[Row]:
    if desk.lesson is None:
        text = "No lesson: bots play every seat of a simulated table. Space plays, n steps."
    else:
        lesson = desk.lesson
        shown = desk.point_shown()
        where = f"shown at step {shown.step}" if shown else f"shows by step {lesson.by} (g)"
        text = f"{lesson.about} [point: {lesson.point.value}, {where}]"
    lines = textwrap.wrap(text, width - 2)
    if len(lines) > most:
        # The last line shown ends in the hint, cut short to make room for it.
        hint = " (? shows it all)"
        last = fit(" ".join(lines[most - 1 :]), width - 2 - len(hint))
        lines = [*lines[: most - 1], last + hint]
    return [Row().add(f" {line}", "class:dim") for line in lines]


# --- the replicas -------------------------------------------------------------------------


def _replicas(desk: Desk, width: int, pending: int) -> list[Row]:
    lab = desk.lab
    views = [lab.seat_view(s) for s in range(lab.table.peers)]
    column = (width - MARGIN) // len(views)
    loud = _loud_keys(desk)
    title = "replicas: each one's own state"
    title += " · commit by a majority (protocol v3)" if lab.table.majority else ""
    rows = [rule(title, width)]
    cells = [
        ("", [_head(desk, v) for v in views]),
        ("Lamport L", [Row().add(f"L={v.clock}") for v in views]),
        ("view:members", [_members(v) for v in views]),
        ("status", [_status(v) for v in views]),
        ("liveness", [_liveness(v) for v in views]),
        *([("applied", [_applied(v) for v in views])] if lab.table.majority else []),
        ("committed", [_committed(v) for v in views]),
        ("pending", [Row().add(f"{len(v.pending)} in key order") for v in views]),
    ]
    shown = [entry for v in views for entry in v.pending[:pending]]
    narrow = any(len(_entry(key, words)) >= column for key, words in shown)
    for index in range(pending):
        name = "key (L,c,r)" if index == 0 else ""
        cells.append((name, [_pending(v, index, loud, narrow) for v in views]))
    for name, row_cells in cells:
        row = Row().add(fit(f" {name}", MARGIN - 1), "class:dim")
        for seat, cell in enumerate(row_cells):
            row = row.beside(_cut(cell, column - 1), MARGIN + seat * column)
        rows.append(row)
    return rows


def _cut(cell: Row, width: int) -> Row:
    """A cell cut to its column, "…" saying that something was cut."""
    cut = cell.clip(width)
    if cut.cut and cut.frags:
        style, text = cut.frags[-1]
        cut.frags[-1] = (style, text[:-1] + "…")
    return cut


def _head(desk: Desk, view: SeatView) -> Row:
    row = Row().add(f" seat {view.seat + 1}", f"{seat_style(view.seat)} underline")
    if view.seat in desk.selected:
        row.add(" selected", "class:key")
    return row


def _members(view: SeatView) -> Row:
    if view.kept is not None:  # a fresh replica's members, until the table is sent to it
        return Row().add(f"v{view.view} kept on disk", "class:alert")
    return Row().add(f"v{view.view}: " + " ".join(str(m + 1) for m in view.members))


def _applied(view: SeatView) -> Row:
    return Row().add(f"{view.applied} plays")


def _committed(view: SeatView) -> Row:
    if view.kept is not None:
        return Row().add(f"{view.committed}: kept r{view.kept}'s deck", "class:alert")
    return Row().add(f"{view.committed} #{view.digest}")


def _status(view: SeatView) -> Row:
    good = view.up and view.status == "playing"
    row = Row().add(view.status, "class:good" if good else "class:alert")
    return row.add(" slow", "class:bad") if view.slow else row


def _liveness(view: SeatView) -> Row:
    if not view.up:
        return Row().add("-", "class:dim")
    row = Row()
    for seat in view.members:
        if seat == view.seat:
            continue
        suspected = seat in view.suspected
        text = f"{seat + 1}{'?' if suspected else ''} "
        row.add(text, "class:bad" if suspected else "class:good")
    return row


def _pending(view: SeatView, index: int, loud: set[tuple[int, int, int]], narrow: bool) -> Row:
    if index >= len(view.pending):
        return Row()
    key, words = view.pending[index]
    text = _entry(key, words, narrow=narrow)
    return Row().add(text, "class:alert" if key in loud else "")


def _entry(key: tuple[int, int, int], words: str, *, narrow: bool = False) -> str:
    """A pending message in its column: its key, then what it is; in narrow columns the
    key's numbers alone, and a play's seat and card ('169,0,2 3:4♦' for '(169,0,2) Play
    3:4♦')."""
    if not narrow:
        return f"{key_words(key)} {words}"
    if words.startswith("Play ") and ":" in words:
        words = words.removeprefix("Play ")
    return f"{key[0]},{key[1]},{key[2]} {words.replace('!', '')}"


def _loud_keys(desk: Desk) -> set[tuple[int, int, int]]:
    """The ordering keys of the plays in the newest race, tie or Nerts note."""
    notes = [n for n in desk.latest(1) if n.kind in LOUD]
    return {key for note in notes for key in note.keys}


# --- the verdicts ---------------------------------------------------------------------------


def _verdicts(desk: Desk, width: int, count: int) -> list[Row]:
    rows = [rule("races, ties, views: the order's reasons", width)]
    notes = desk.latest(count)
    if not notes:
        rows.append(Row().add(" nothing yet: no race, tie or view change so far", "class:dim"))
    for note in notes:
        rows += _note(note, width, point=note == desk.point_shown())
    return rows


def _note(note: Note, width: int, *, point: bool) -> list[Row]:
    style = "class:alert" if note.kind in LOUD else "class:notice"
    head = Row().add(f" step {note.step} ", "class:dim").add(note.text, style)
    lines = textwrap.wrap(note.reason, width - 8) or [""]
    why = [Row().add("   why: " if k == 0 else " " * 8, "class:dim") for k in range(len(lines))]
    for row, line in zip(why, lines, strict=True):
        row.add(line, "class:title")
    if point:
        _mark_point(head, why[-1], width)
    return [head.clip(width), *why]


def _mark_point(head: Row, why: Row, width: int) -> None:
    """Say that a note is the lesson's point: beside it, or beside its reason where the
    note leaves no room, in fewer words where neither does."""
    for marker in ("  ← the lesson's point", "  ← the point"):
        for row in (head, why):
            if row.width + len(marker) <= width:
                row.add(marker, "class:key")
                return
    head.add(marker, "class:key")


# --- the diagram ----------------------------------------------------------------------------


def _diagram(desk: Desk, width: int, room: int) -> list[Row]:
    if room < 2:
        return []
    title = "time-space diagram: a lane per seat, newest at the bottom"
    title += "" if desk.acks else " (Acks hidden: a)"
    rows = [rule(title, width)]
    peers = desk.lab.table.peers
    column = (width - MARGIN) // peers
    lanes = [MARGIN + seat * column + 1 for seat in range(peers)]
    lines = [line for line in desk.lab.chronicle.lines if desk.acks or not line.quiet]
    for line in lines[-(room - 1) :]:
        rows.append(_diagram_row(line, lanes, width, line.step == desk.lab.step))
    return rows


def _diagram_row(line: Line, lanes: list[int], width: int, current: bool) -> Row:
    cells = [" "] * width
    styles = [""] * width
    for x in lanes:
        cells[x], styles[x] = "│", "class:rule"
    style = _line_style(line)
    if line.mark is Mark.FAULT:
        _write(cells, styles, lanes[0], f"{GLYPH[Mark.FAULT]} {line.text}", "class:alert")
    elif line.mark is Mark.ARRIVE:
        _arrow(cells, styles, (lanes[line.src], lanes[line.seat]), lanes[0], line.text, style)
    else:
        x = lanes[line.seat]
        cells[x], styles[x] = GLYPH[line.mark], style or seat_style(line.seat)
        _beside(cells, styles, (x, x), lanes[0], line.text, style)
    margin = f"{'▸' if current else ' '}{line.step:>5} {line.time:7.4f}"
    row = Row().add(margin, "class:key" if current else "class:dim")
    return _joined(row, cells[len(margin) :], styles[len(margin) :])


def _line_style(line: Line) -> str:
    if line.alert:
        return "class:alert"
    if line.quiet:
        return "class:dim"
    if line.mark in (Mark.SEND, Mark.ARRIVE):
        return seat_style(line.src if line.mark is Mark.ARRIVE else line.seat)
    return "class:good" if line.mark is Mark.COMMIT else ""


def _arrow(
    cells: list[str], styles: list[str], ends: tuple[int, int], first: int, text: str, style: str
) -> None:
    """An arrow between the lanes at ``ends``, its label on it where it fits, else beside
    it (no further left than the ``first`` lane)."""
    start, end = ends
    step = 1 if end > start else -1
    for x in range(start + step, end, step):
        cells[x], styles[x] = "─", style
    cells[start], styles[start] = "·", style
    cells[end], styles[end] = ("▶" if step > 0 else "◀"), style
    low, high = sorted(ends)
    label = f" {text} "
    if high - low - 1 >= len(label):
        _write(cells, styles, low + 1 + (high - low - 1 - len(label)) // 2, label, style)
    else:
        _beside(cells, styles, (low, high), first, text, style)


def _beside(
    cells: list[str], styles: list[str], marks: tuple[int, int], first: int, text: str, style: str
) -> None:
    """``text`` after the marks from column ``marks[0]`` to ``marks[1]``, or before them
    where it would run off the screen after them and fits from the ``first`` lane on."""
    low, high = marks
    before = low - 1 - len(text)
    after_fits = high + 2 + len(text) <= len(cells)
    _write(cells, styles, high + 2 if after_fits or before < first else before, text, style)


def _write(cells: list[str], styles: list[str], x: int, text: str, style: str) -> None:
    for i, char in enumerate(text):
        if 0 <= x + i < len(cells):
            cells[x + i], styles[x + i] = char, style


def _joined(row: Row, cells: list[str], styles: list[str]) -> Row:
    """``row`` with the cells after it, one fragment per run of one style."""
    start = 0
    for i in range(1, len(cells) + 1):
        if i == len(cells) or styles[i] != styles[start]:
            row.add("".join(cells[start:i]), styles[start])
            start = i
    return row


def _keys(width: int) -> list[Row]:
    rows, row = [], Row()
    for key, what in KEYS:
        piece = f"{key} {what}  "
        if row.width + len(piece) > width and row.width:
            rows.append(row)
            row = Row()
        row.add(key, "class:key").add(f" {what}  ", "class:dim")
    return [*rows, row]
