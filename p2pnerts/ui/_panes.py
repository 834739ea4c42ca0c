"""What takes the place of part of the table: the help, and the classroom pane."""

from __future__ import annotations

import textwrap
from collections.abc import Iterable

from p2pnerts.ui._frame import Row, filled, fit, rule
from p2pnerts.ui._keymap import KEYMAP
from p2pnerts.ui._model import TableModel
from p2pnerts.ui._snapshot import Line
from p2pnerts.ui._style import seat_style, seat_tag

HOW_TO_PLAY = (
    "Everyone plays at once. Empty your Nerts pile first. The foundations in the",
    "middle are shared: an ace starts one, then its suit goes up, played by anyone.",
    "Work piles go down in alternating colours; an empty one takes any card. A card",
    "on a foundation scores 1; a card left in your Nerts pile costs 2.",
)


COMMITS = {
    False: "a play commits once every member has acknowledged holding it (Acks), so every"
    " peer commits the same order.",
    True: "at this table a play commits once a quorum of the members voted for it (their"
    " Ballots, counted in a Tally), and plays for one spot commit in that order at every peer.",
}
"""How a play commits, by acknowledgement or (True) by a majority: the table's own rule."""


def classroom_words(majority: bool) -> tuple[str, ...]:
    """What the words of the classroom pane mean (the help shows them), at a table that
    commits by a ``majority`` or by acknowledgement."""
    return (
        "Lamport clock L: every message carries its sender's; a peer's clock passes every one"
        " it sees. Plays are ordered by (clock, call, rank); " + COMMITS[majority],
        "view: the members the table agreed on (a view change leaves a silent seat out, or"
        " lets it back in). pending: held, not committed yet. ← from a seat, → to all.",
        "RACE and TIE: two plays for one spot, and why the order put one first.",
    )


def too_small(model: TableModel, size: tuple[int, int], needed: tuple[int, int]) -> list[Row]:
    """What a screen smaller than the table says instead, until it grows: the keys still
    work, so a person can leave from here too."""
    (width, height), (need_w, need_h) = size, needed
    told = [
        ("class:alert", f"The table needs a terminal of {need_w}×{need_h} or more;"),
        ("class:alert", f"this one is {width}×{height}."),
        ("", "Make the window bigger (or the font smaller): the table comes back at once."),
        ("class:dim", "q quits." if model.read_only else "q leaves the match."),
    ]
    if model.leave.asking:
        told.append(("class:alert", model.leave.words))
    rows = [Row()]
    for style, text in told:
        rows += [Row().add(f" {line}", style) for line in textwrap.wrap(text, max(width - 1, 1))]
    return rows


def help_rows(model: TableModel, width: int) -> list[Row]:
    rows = [rule("how to play · ? or Esc closes this help", width)]
    rows += [Row().add(f"  {line}") for line in HOW_TO_PLAY]
    whose = "team" if model.options.teams else "seat"
    owner = (
        f"The mark after a foundation card (7♥{seat_tag(1)}) is the number of the {whose} "
        f"whose card it is, as the opponents are numbered; yours is {seat_tag(model.deck)}."
    )
    measure = min(width - 3, max(len(line) for line in HOW_TO_PLAY))  # (as the lines above)
    rows += [Row().add(f"  {line}") for line in textwrap.wrap(owner, measure)]
    rows.append(rule("keys", width))
    for keys, what in KEYMAP:
        rows.append(Row().add(f"  {keys:<11}", "class:key").add(what))
    rows.append(rule("the classroom pane (c)", width))
    rows += [
        Row().add(f"  {line}", "class:dim")
        for w in classroom_words(model.snap.majority)
        for line in textwrap.wrap(w, width - 3)
    ]
    return rows


def classroom_rows(model: TableModel, width: int, room: int) -> list[Row]:
    snap = model.snap
    me = model.name(model.seat)
    rows = [rule(f"classroom · seat {seat_tag(model.seat)} ({me}) · view {snap.view}", width)]
    rows.append(Row().add(f" Lamport clock {snap.clock}", "class:title"))
    rows.append(Row().add(f" committed {snap.committed} · pending {snap.pending}"))
    rows[-1].add(f" (ours {snap.own_pending})", "class:dim")
    for seat, live in enumerate(snap.liveness):
        if seat == model.seat:
            continue
        state = model.notes.get(seat) or ("silent" if live.suspected else "")
        if not live.member:
            state = "left out"
        team = seat_style(model.seating[seat])  # coloured as the seat's deck is on the table
        row = Row().add(f" {seat_tag(seat)} {filled(model.name(seat), 10)}", team)
        row.add(f" heard {live.heard_ago:5.2f} s ago  ")
        rows.append(row.add(state or "alive", "class:bad" if state else "class:good"))
    shown = "a hides Acks" if model.acks else "Acks hidden: a shows them"
    title = f" latest messages (time since start, s; {shown})"
    rows.append(Row().add(fit(title, width), "class:dim"))
    lines = [line for line in model.messages if model.acks or not line.quiet]
    for line in _last(lines, max(room - len(rows), 0)):
        row = Row().add(f" {line.at - model.started:8.3f} ", "class:dim")
        rows.append(
            row.add(fit(line.text, width - row.width), "class:alert" if line.marked else "")
        )
    return rows[:room]


def _last(lines: Iterable[Line], count: int) -> list[Line]:
    return list(lines)[-count:] if count > 0 else []
