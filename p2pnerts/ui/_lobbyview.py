"""The lobby drawn, and its keys: the tables seen, a new table's form, the waiting room."""

from __future__ import annotations

import textwrap

from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings, KeyBindingsBase, KeyPressEvent

from p2pnerts.rules import summary_teams
from p2pnerts.ui._frame import Frame, Row, filled, rule
from p2pnerts.ui._leave import with_leave
from p2pnerts.ui._lobby import TEAMS_ROW, LobbyModel, teams_of
from p2pnerts.ui._style import seat_style
from p2pnerts.words import counted

HINTS = {
    "browse": " ↑ ↓ choose · Enter joins · n opens a new table · q quits",
    "create": " ↑ ↓ choose a row · ← → change it · type name, teams · Enter opens · Esc back",
    "waiting": " a adds a bot · ← → its level · Enter: ready, bots take the open seats · q quits",
    "joined": " q quits",
}
"""The keys each part of the lobby has, as its last line says them."""


def render_lobby(lobby: LobbyModel, width: int, height: int) -> Frame:
    rows = [Row().add(" p2pnerts · lobby", "class:title")]
    if lobby.mode == "browse":
        rows += _browse(lobby, width)
    elif lobby.mode == "create":
        rows += _form(lobby, width)
    else:
        rows += _waiting(lobby, width)
    rows.append(Row())
    hint = HINTS["joined" if _joiner(lobby) else lobby.mode]
    foot = [
        Row().add(f" {lobby.notice}", "class:notice"),
        lobby.leave.row(width) if lobby.leave.asking else Row().add(hint, "class:dim"),
    ]
    # What the table said, each line whole (a warning's last words are what to do), and
    # the newest kept where they do not all fit.
    said = [
        w
        for line in lobby.lines
        for w in textwrap.wrap(line, max(width - 2, 1), subsequent_indent="  ")
    ]
    room = max(height - len(foot) - len(rows), 0)
    rows += [Row().add(f" {line}", "class:dim") for line in said[len(said) - room :]]
    body = rows[: max(height - len(foot), 0)]
    body += [Row() for _ in range(height - len(foot) - len(body))]
    return Frame([row.clip(width) for row in body + foot][:height])


def _joiner(lobby: LobbyModel) -> bool:
    return lobby.mode == "waiting" and not lobby.hosting


def _browse(lobby: LobbyModel, width: int) -> list[Row]:
    rows = [rule("tables on the network", width)]
    if not lobby.tables:
        rows.append(Row().add("  none seen yet (listening…)", "class:dim"))
    for k, t in enumerate(lobby.tables):
        style = "class:selected" if k == lobby.cursor else ""
        seats = f"{t.seats_taken}/{t.seats_total}"
        row = Row().add(f" {filled(t.name, 20)} {seats:>5}  {t.state:<8} ", style)
        options = ("private, " if t.private else "") + _options(t.options)
        rows.append(row.add(f"{options[:24]:<24} {t.host}:{t.port}", "class:dim"))
    return rows


def _options(summary: str) -> str:
    """A table's options summary, its teams first (so that they are never cut off)."""
    teams = teams_of(summary)
    if not teams:
        return summary
    rest = summary_teams(summary)[1]
    return ", ".join([f"teams {'+'.join(map(str, teams))}", *([rest] if rest else [])])


def _form(lobby: LobbyModel, width: int) -> list[Row]:
    rows = [rule("a new table", width)]
    for k in range(len(lobby.choices) + 2):
        style = "class:selected" if lobby.row == k else "class:key"
        choice = lobby.choice_at(k)
        if k == 0:
            rows.append(Row().add(f"  {'name':<30}").add(f" {lobby.name}_ ", style))
        elif choice is None:
            rows.append(_teams_field(lobby, style))
        else:
            c = lobby.choices[choice]
            row = Row().add(f"  {c.label:<30}").add(f" ‹ {c.text(c.value)} › ", style)
            if c.key == "seats" and lobby.teams and not lobby.teams_error:
                row.add("  as the teams make", "class:dim")
            rows.append(row)
    return rows


def _teams_field(lobby: LobbyModel, style: str) -> Row:
    """The teams as typed, with what is wrong with them beside."""
    row = Row().add(f"  {'teams (sizes, like 2+2)':<30}")
    if lobby.teams or lobby.row == TEAMS_ROW:
        row.add(f" {lobby.teams}_ ", style)
    else:
        row.add(" none: everyone solo ", style)
    if lobby.teams_error:
        row.add(f"  {lobby.teams_error}", "class:bad")
    return row


def _waiting(lobby: LobbyModel, width: int) -> list[Row]:
    taken = len(lobby.roster)
    seats = f"{taken} of {lobby.seats} seats" if lobby.seats else counted(taken, "seat")
    rows = [rule(f"{lobby.table_name}: {seats} taken", width)]
    decks = [d for d, size in enumerate(lobby.table_teams) for _ in range(size)]
    for seat in range(max(taken, lobby.seats)):
        row = Row()
        if seat < len(decks):  # the team's name on its first seat's row
            first = seat == 0 or decks[seat - 1] != decks[seat]
            row.add(f"  {f'team {decks[seat] + 1}' if first else '':<7}", seat_style(decks[seat]))
        if seat < taken:
            rows.append(row.add(f"  {seat + 1:>2}  {lobby.roster[seat]}"))
        else:
            rows.append(row.add(f"  {seat + 1:>2}  (open)", "class:dim"))
    if lobby.hosting:
        level = Row().add("  bots join at level ").add(f" ‹ {lobby.bot_level} › ", "class:key")
        rows += [Row(), level.add("  (1 slow … 10 as fast as the table allows)", "class:dim")]
    else:
        rows += [Row(), Row().add("  play begins once every seat is taken", "class:dim")]
    return rows


def create_lobby_bindings(lobby: LobbyModel) -> KeyBindingsBase:
    """The lobby's keys (the application shows them while the lobby is active); Ctrl-C
    asks first, as everywhere (`with_leave`)."""
    kb = KeyBindings()
    form = Condition(lambda: lobby.mode == "create")
    other = ~form

    kb.add("up")(lambda _: lobby.move(-1))
    kb.add("down")(lambda _: lobby.move(1))
    kb.add("left")(lambda _: lobby.change(-1))
    kb.add("right")(lambda _: lobby.change(1))
    kb.add("enter")(lambda _: lobby.enter())
    kb.add("escape")(lambda _: lobby.back())
    kb.add("backspace", filter=form)(lambda _: lobby.erase())
    kb.add("<any>", filter=form)(lambda event: lobby.type(event.data))
    kb.add("n", filter=other)(lambda _: lobby.new_table())
    kb.add("a", filter=other)(lambda _: lobby.bot())

    @kb.add("q", filter=other)
    def _quit(event: KeyPressEvent) -> None:
        event.app.exit()

    return with_leave(kb, lobby.leave)
