"""The spectator's screen: the table read-only, every seat's clock and health, the committed
order with its keys, races and ties with their reasons, and a time-space diagram.

Left: the seats, the table, the committed order. Right: races and ties, then the diagram,
one lane per seat, every seat's messages to every other in the lab's marks (``●`` sends,
``▶`` or ``◀`` at each seat that receives, ``✓`` the watched seat commits). Fits 100×32; a
wider or taller screen shows more.
"""

from __future__ import annotations

import textwrap
from typing import cast

from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyBindingsBase, KeyPressEvent
from prompt_toolkit.layout import Layout, Window
from prompt_toolkit.layout.controls import UIContent, UIControl
from prompt_toolkit.output import Output

from p2pnerts.protocol import Scene, TableauSight
from p2pnerts.rules import card_from_code
from p2pnerts.ui._frame import Frame, Row, cells, cut, filled, fit, rule
from p2pnerts.ui._leave import with_leave
from p2pnerts.ui._style import STYLE, card_style, seat_tag
from p2pnerts.ui._watchmodel import Arrow, Commit, WatchModel
from p2pnerts.words import OUTCOMES

MIN_SIZE = (100, 32)
STATES = ("alive", "silent", "out")
LEGEND = (
    ("L=12", "a Lamport clock: every message carries its sender's, one more than any it saw"),
    ("(12,0,3)", "a commit's key: clock, then Nerts call (1 sorts after plays), then rank"),
    ("rank", "the tie rule's order among equal clocks: seat number, or rotating with L"),
    ("#7", "the 7th message the watched seat committed: every seat commits the same order"),
    ("landed", "the play stayed; returned: it went back; tied: equal clocks, both stay"),
    ("race lost", "an earlier key took the spot: the reason compares the two keys"),
    (
        "Ballot",
        "at a table that commits by a majority: a seat's vote on seat s's play #n, to its"
        " sender (for, after the plays named, or late); a Tally, the votes that decide it,"
        " to every seat; a play a quorum voted late came back late",
    ),
    ("heard", "seconds since the watched seat last heard that seat (every 0.25 s at rest)"),
    ("silent/out", "suspected after a silence / left out of the view (or left)"),
    (
        "lanes",
        "one per seat, every seat's messages to every other (each seat streams its own to"
        " the spectator): ● sends, ▶ or ◀ at each seat that receives, ✓ the watched seat"
        " commits; the time is the sender's, from its start",
    ),
    (
        "N12 9♠",
        "12 cards in the Nerts pile, the 9 of spades face up on it; then each work"
        " pile's exposed card",
    ),
    ("S30 W5 4♣", "cards in the stock and the waste, the waste's top card"),
    ("keys", "a shows/hides Acks (the heartbeat); ? this legend; q quits; Ctrl-C asks first"),
)


def render_watch(model: WatchModel, width: int, height: int) -> Frame:
    """The spectator's screen for a terminal of ``width``×``height``."""
    if width < MIN_SIZE[0] or height < MIN_SIZE[1]:
        rows = [
            Row().add(f" The spectator's screen needs {MIN_SIZE[0]}×{MIN_SIZE[1]}", "class:alert")
        ]
        rows.append(Row().add(f" or more; this one is {width}×{height}. q quits."))
        rows += [model.leave.row(width)] if model.leave.asking else []
    elif model.help:
        rows = [_title(model, width), *_legend(width)]
    else:
        rows = [_title(model, width), *_columns(model, width, height - 1)]
    rows = [row.clip(width) for row in rows[:height]]
    return Frame(rows + [Row() for _ in range(height - len(rows))])


def _title(model: WatchModel, width: int) -> Row:
    if model.leave.asking:
        return model.leave.row(width)
    scene = model.scene
    text = f" {'closed:' if model.ended else 'watching'} {model.where}"
    if scene is not None:
        text += f" · seen by {model.name(scene.seat)}"
        text += f" · hears {len(model.hearing - {scene.seat}) + 1} of {len(scene.names)} seats"
        text += f" · round {scene.round}"
        text += f" · committed {scene.committed}"
        if scene.dropped:
            text += f" · {scene.dropped} missed (slow screen)"
    keys = " · ? legend  a acks  q quit"  # (kept whole: the left side gives way)
    return Row().add(fit(text, max(width - len(keys), 0)) + keys, "class:title")


def _legend(width: int) -> list[Row]:
    rows = [rule("legend · ? or Esc closes it", width)]
    for word, meaning in LEGEND:
        for k, line in enumerate(textwrap.wrap(meaning, width - 14)):
            rows.append(Row().add(f" {word if k == 0 else '':<12} ", "class:key").add(line))
    return rows


def _columns(model: WatchModel, width: int, height: int) -> list[Row]:
    half = width // 2
    left = _seats(model, half) + _table(model, half)
    left += _order(model, half, height - len(left))
    right = _races(model, width - half, max(5, height // 3))
    right += _diagram(model, width - half, height - len(right))
    rows = []
    for k in range(height):
        a = left[k] if k < len(left) else Row()
        b = right[k] if k < len(right) else Row()
        rows.append(a.beside(b, half))
    return rows


def _seats(model: WatchModel, width: int) -> list[Row]:
    scene = model.scene
    rows = [rule("seats · clock · heard · points", width)]
    if scene is None:
        rows.append(Row().add(f" {model.ended or 'waiting for the table to start…'}", "class:dim"))
        return rows
    wide = min(max(10, width - 40), max(cells(name) for name in scene.names))
    for seat, name in enumerate(scene.names):
        clock = model.clocks[seat] if seat < len(model.clocks) else 0
        heard = scene.heard[seat] / 1000 if seat < len(scene.heard) else 0.0
        state = STATES[scene.states[seat]] if seat < len(scene.states) else "?"
        deck = scene.options.seating(len(scene.names))[seat]
        total = scene.totals[deck] if deck < len(scene.totals) else 0
        row = Row().add(f" {seat_tag(seat)} {filled(fit(name, wide), wide)}")
        if model.ended:  # the last clock and points seen stand; nobody is heard any more
            row.add(f" L={clock:<6}     –   ").add(f"{'–':<6}", "class:dim")
        else:
            row.add(f" L={clock:<6} {heard:5.2f} s ")
            row.add(f"{state:<6}", "class:good" if state == "alive" else "class:bad")
        rows.append(row.add(f" {total:>4}"))
    if model.ended:
        rows.append(Row().add(f" {model.ended}", "class:alert"))
    return rows


def _table(model: WatchModel, width: int) -> list[Row]:
    scene = model.scene
    if scene is None:
        return []
    rows = [rule("the table (read-only)", width)]
    tops = Row().add(" middle:")
    rows.append(tops)
    for code in scene.foundations:
        if tops.width + 4 > width:  # a card and its space: the next row
            rows.append(tops := Row().add(" " * 8))
        _card(tops.add(" "), code, model)
    if not scene.foundations:
        tops.add(" nothing yet" if scene.tableaux else " between rounds", "class:dim")
    for deck, sight in enumerate(scene.tableaux):
        rows.append(_tableau(deck, sight, scene, model))
    return rows


def _tableau(deck: int, sight: TableauSight, scene: Scene, model: WatchModel) -> Row:
    seats = [s for s, d in enumerate(scene.options.seating(len(scene.names))) if d == deck]
    tags = "+".join(seat_tag(s) for s in seats)  # as the seats' list numbers them
    name = cut(model.name(seats[0]), 4).rstrip() if seats else ""
    row = Row().add(f" {tags:<3} {filled(name, 4)} N{sight.nerts:<2}")
    for code in sight.nerts_top:
        _card(row.add(" "), code, model)
    row.pad(17).add(" │")
    for pile in sight.work:
        if pile:
            _card(row.add(" "), pile[-1], model)
        else:
            row.add(" -")
    row.add(f" │ S{sight.stock} W{sight.waste}")
    for code in sight.waste_top:
        _card(row.add(" "), code, model)
    return row


def _card(row: Row, code: int, model: WatchModel) -> None:
    card = card_from_code(code)
    row.add(model.look.card(card), card_style(card, model.look))


def _order(model: WatchModel, width: int, room: int) -> list[Row]:
    rows = [rule("committed order · key (clock, call, rank)", width)]
    for commit in list(model.commits)[-max(room - 1, 0) :]:
        rows.append(_commit_row(commit, model, width))
    return rows[: max(room, 0)]


def _commit_row(commit: Commit, model: WatchModel, width: int) -> Row:
    clock, call, rank = commit.key
    style = "class:bad" if commit.race else ""
    row = Row().add(f" #{commit.index:<4}", "class:dim").add(f"({clock},{call},{rank}) ", style)
    what = commit.what if commit.kind == "Play" else f"{commit.kind} {commit.what}".strip()
    name, outcome = model.name(commit.seat), OUTCOMES[commit.outcome]
    if row.width + len(name) + len(what) + len(outcome) + 3 > width:
        name = name[:7]  # the name gives way first: the seat's tag is on its lane
    row.add(f"{name}: {what} ")
    return row.add(fit(outcome, max(width - row.width, 0)), style or "class:dim")


def _races(model: WatchModel, width: int, room: int) -> list[Row]:
    """The latest races and ties, two rows each: the play, then what became of it and why."""
    rows = [rule("races and ties, as decided", width)]
    races = list(model.races)[-max((room - 1) // 2, 0) :]
    if not races:
        rows.append(Row().add(" none yet", "class:dim"))
    for race in races:
        rows.append(_commit_row(race, model, width))
        rows.append(Row().add("   " + fit(race.race, width - 3), "class:alert"))
    return rows


def _diagram(model: WatchModel, width: int, room: int) -> list[Row]:
    seats = len(model.scene.names) if model.scene is not None else 0
    shown = "a hides Acks" if model.acks else "Acks hidden: a shows them"
    rows = [rule(f"time-space diagram ({shown})", width)]
    if not seats:
        return rows
    longest = max(len(model.name(seat)) for seat in range(seats))
    lane = max(2, min(max(6, longest + 2), (width - 30) // seats))
    head = Row().add(" " * 8)
    labels = [model.name(seat)[: lane - 1] for seat in range(seats)]
    if lane < 5 or len(set(labels)) < seats:  # too narrow, or names alike ("Bot 2", "Bot 3")
        labels = [seat_tag(seat) for seat in range(seats)]
    for label in labels:
        head.add(f"{label:<{lane}}", "class:dim")
    rows.append(head)
    for arrow in model.arrows_shown()[-max(room - 2, 0) :]:
        rows.append(_arrow_row(arrow, seats, lane, width))
    return rows[: max(room, 0)]


def _arrow_row(arrow: Arrow, seats: int, lane: int, width: int) -> Row:
    marks = [" "] * (seats * lane)
    ends = [arrow.sender] if arrow.commit else [arrow.sender, *_receivers(arrow, seats)]
    low, high = min(ends) * lane, max(ends) * lane
    for x in range(low, high):
        marks[x] = "─"
    for seat in range(seats):
        marks[seat * lane] = (
            "│" if low < seat * lane < high or seat not in ends else marks[seat * lane]
        )
    if arrow.commit:
        marks[arrow.sender * lane] = "✓"
    else:
        for seat in _receivers(arrow, seats):
            marks[seat * lane] = "▶" if seat > arrow.sender else "◀"
        marks[arrow.sender * lane] = "●"
    row = Row().add(f"{arrow.at / 1000:7.2f} ", "class:dim")
    row.add("".join(marks), "class:good" if arrow.commit else "")
    return row.add(" " + fit(arrow.label, max(width - row.width - 1, 0)))


def _receivers(arrow: Arrow, seats: int) -> list[int]:
    return [s for s in range(seats) if s != arrow.sender] if arrow.to < 0 else [arrow.to]


# --- the application ----------------------------------------------------------------------------


class WatchControl(UIControl):
    """Draws the spectator's model."""

    def __init__(self, model: WatchModel) -> None:
        self.model = model

    def create_content(self, width: int, height: int) -> UIContent:
        frame = render_watch(self.model, width, height)
        if self.model.look.ascii:
            frame = frame.to_ascii()
        rows = frame.rows
        return UIContent(
            get_line=lambda y: cast(StyleAndTextTuples, rows[y].frags),
            line_count=len(rows),
            show_cursor=False,
        )


def watch_bindings(model: WatchModel) -> KeyBindingsBase:
    """The spectator's keys, each a call on ``model``; Ctrl-C asks first, as everywhere
    (`with_leave`)."""
    keys = KeyBindings()

    @keys.add("?")
    def _help(event: KeyPressEvent) -> None:
        model.help = not model.help

    @keys.add("escape")
    def _close(event: KeyPressEvent) -> None:
        model.help = False

    @keys.add("a")
    def _acks(event: KeyPressEvent) -> None:
        model.acks = not model.acks

    @keys.add("q")
    def _quit(event: KeyPressEvent) -> None:
        event.app.exit()

    return with_leave(keys, model.leave)


def create_watch_application(
    model: WatchModel, *, input: Input | None = None, output: Output | None = None
) -> Application[None]:
    """The spectator's screen over ``model``; ``input`` and ``output`` default to the terminal."""
    return Application(
        layout=Layout(Window(WatchControl(model))),
        key_bindings=watch_bindings(model),
        style=STYLE,
        full_screen=True,
        input=input,
        output=output,
    )
