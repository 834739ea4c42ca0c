"""The lobby's model: the tables seen on the network, a new table's options, the waiting room.

Like the table's model it does no IO: the tables and the roster are handed in as the
network sees them, and the player's choices go out through callables the trio side sets
(`join`, `create`, `add_bot`, `start`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from p2pnerts.net import TableInfo, TableSpec
from p2pnerts.rules import BadOptions, TableOptions, TieRule, summary_teams, teams_from_text
from p2pnerts.ui._leave import Leave

Mode = Literal["browse", "create", "waiting"]
LEVELS = range(1, 11)
NAME_LENGTH = 32
SEATS = range(2, 15)
"""A table's seats, as the form offers them."""
TEAMS_ROW = 2
"""The form's row where the teams are typed (0 is the name, 1 the seats)."""


@dataclass(frozen=True, slots=True)
class Choice:
    """One option of a new table: its label, the values it cycles through, the chosen one."""

    key: str
    label: str
    values: tuple[object, ...]
    index: int = 0

    @property
    def value(self) -> object:
        return self.values[self.index]

    def text(self, value: object) -> str:
        if value is None:
            return "to the target"
        if isinstance(value, bool):
            return "yes" if value else "no"
        return str(value)


def _choices() -> list[Choice]:
    defaults = TableOptions()

    def choice(key: str, label: str, values: tuple[object, ...]) -> Choice:
        default = getattr(defaults, key, values[0])
        return Choice(key, label, values, values.index(default))

    return [
        Choice("seats", "seats", tuple(SEATS), 2),
        choice("target", "target score", (25, 50, 75, 100, 150, 200, 300, 500)),
        choice("rounds", "or a fixed number of rounds", (None, 1, 2, 3, 5, 10, 20)),
        choice("stock_turn", "stock turned", (3, 1)),
        choice("work_piles", "work piles", (4, 5)),
        choice("nerts_pile", "Nerts pile", tuple(range(1, 27))),
        choice("nerts_bonus", "bonus for calling Nerts", (0, 10, 25)),
        choice("card_points", "points per foundation card", tuple(range(0, 11))),
        choice("nerts_penalty", "penalty per Nerts card left", tuple(range(0, 11))),
        choice("jokers", "jokers (wild)", (False, True)),
        choice("tie_rule", "tie rule", tuple(TieRule)),
    ]


@dataclass(slots=True)
class LobbyModel:
    """What the lobby shows and what its keys do."""

    mode: Mode = "browse"
    active: bool = True
    """Shown instead of the table (False once play begins)."""
    tables: list[TableInfo] = field(default_factory=list)
    cursor: int = 0
    name: str = "Table"
    choices: list[Choice] = field(default_factory=_choices)
    row: int = 0
    """The form's row: 0 is the name, `TEAMS_ROW` the teams, the others one per choice."""
    teams: str = ""
    """The teams as typed: sizes joined by '+' (empty: everyone plays solo)."""
    teams_error: str = ""
    """Why the teams as typed make no table ("" if they do)."""
    table_name: str = ""
    seats: int = 0
    table_teams: tuple[int, ...] = ()
    """The waiting room's table's teams (empty: solo, or not known)."""
    roster: tuple[str, ...] = ()
    hosting: bool = False
    bot_level: int = 5
    bots_added: int = 0
    """Bots asked for and not seated yet: the seats they will take are not open."""
    notice: str = ""
    leave: Leave = field(default_factory=lambda: Leave("Leave the lobby?"))
    """Asked by Ctrl-C: of the lobby, then (waiting) of the table."""
    lines: deque[str] = field(default_factory=lambda: deque(maxlen=8))
    join: Callable[[TableInfo], None] = lambda _: None
    create: Callable[[TableSpec], None] = lambda _: None
    add_bot: Callable[[int], None] = lambda _: None
    """Seats a bot of this level at the table being hosted."""
    start: Callable[[], None] = lambda: None
    """Fills every open seat with bots, so that play begins."""

    # --- the network's side ---------------------------------------------------------------

    def seen(self, tables: list[TableInfo]) -> None:
        """The tables on the network now."""
        chosen = self.tables[self.cursor] if self.cursor < len(self.tables) else None
        self.tables = tables
        ids = [t.table_id for t in tables]
        if chosen is not None and chosen.table_id in ids:
            self.cursor = ids.index(chosen.table_id)
        self.cursor = min(self.cursor, max(len(tables) - 1, 0))

    def waiting(
        self,
        name: str,
        seats: int,
        *,
        hosting: bool,
        roster: tuple[str, ...],
        teams: tuple[int, ...] = (),
    ) -> None:
        """This player is at a table that is filling up (in ``teams``, if it has any)."""
        self.mode, self.table_name, self.seats, self.hosting = "waiting", name, seats, hosting
        self.roster, self.table_teams = roster, teams
        self.leave.question = "Leave the table?"

    def welcomed(self, seat: int, players: int, teams: tuple[int, ...], name: str) -> None:
        """A joiner has its seat: the table's size, teams and ``name`` (one that dialled an
        address knew the table only as that address), and whom it waits for now."""
        self.seats, self.table_teams = players, teams
        self.table_name = name
        open_seats = "the host may seat bots in the open ones"
        self.notice = f"you have seat {seat + 1} of {players}; {open_seats}"

    def tell(self, line: str) -> None:
        self.lines.append(line)

    # --- the player's side ------------------------------------------------------------------

    def move(self, step: int) -> None:
        """↑ / ↓: the next table, or the next row of the form."""
        if self.mode == "browse" and self.tables:
            self.cursor = (self.cursor + step) % len(self.tables)
        elif self.mode == "create":
            self.row = (self.row + step) % (len(self.choices) + 2)

    def choice_at(self, row: int) -> int | None:
        """The index in `choices` of the form's ``row`` (None: a row typed into)."""
        if row in (0, TEAMS_ROW):
            return None
        return row - 1 if row < TEAMS_ROW else row - 2

    def change(self, step: int) -> None:
        """← / →: another value for the form's row; another level for the bots."""
        k = self.choice_at(self.row)
        if self.mode == "create" and k is not None:
            c = self.choices[k]
            if c.key == "seats" and self.teams:
                self.notice = "the teams make the number of seats"
                return
            self.choices[k] = Choice(c.key, c.label, c.values, (c.index + step) % len(c.values))
        elif self.mode == "waiting":
            self.bot_level = min(max(self.bot_level + step, LEVELS[0]), LEVELS[-1])

    def type(self, text: str) -> None:
        if self.mode == "create" and self.row == 0:
            self.name = (self.name + text)[:NAME_LENGTH]
        elif self.mode == "create" and self.row == TEAMS_ROW:
            typed = "".join(c for c in text if c.isdigit() or c == "+")
            self._type_teams((self.teams + typed)[: 2 * SEATS[-1]])

    def erase(self) -> None:
        if self.mode == "create" and self.row == 0:
            self.name = self.name[:-1]
        elif self.mode == "create" and self.row == TEAMS_ROW:
            self._type_teams(self.teams[:-1])

    def _type_teams(self, text: str) -> None:
        """The teams typed so far: checked as the table's options would check them, the
        seats set to match."""
        self.teams, self.teams_error, self.notice = text, "", ""
        try:
            sizes = teams_from_text(text)
        except BadOptions as exc:
            self.teams_error = str(exc)
            return
        if sizes:
            k, c = next((k, c) for k, c in enumerate(self.choices) if c.key == "seats")
            if sum(sizes) not in c.values:
                self.teams_error = f"{sum(sizes)} players: {SEATS[-1]} at most"
                return
            self.choices[k] = Choice(c.key, c.label, c.values, c.values.index(sum(sizes)))

    def new_table(self) -> None:
        if self.mode == "browse":
            self.mode, self.row, self.notice = "create", 0, ""

    def back(self) -> None:
        if self.mode == "create":
            self.mode, self.notice = "browse", ""

    def bot(self) -> None:
        """Add a bot of the chosen level to an open seat."""
        if self.mode == "waiting" and self.hosting:
            if len(self.roster) + self.bots_added >= self.seats:
                self.notice = "every seat is taken"
                return
            self.bots_added += 1
            self.add_bot(self.bot_level)

    def enter(self) -> None:
        """Join the chosen table, open the new one, or (hosting) start with bots."""
        if self.mode == "browse":
            self._join()
        elif self.mode == "create":
            self._create()
        elif self.hosting:
            self.start()

    def _join(self) -> None:
        if not self.tables:
            self.notice = "no table seen yet: n opens one"
            return
        table = self.tables[self.cursor]
        if table.state != "lobby" or table.seats_taken >= table.seats_total:
            self.notice = f"{table.name} is already playing"
            return
        self.notice = f"joining {table.name}…"
        self.join(table)

    def _create(self) -> None:
        values = {c.key: c.value for c in self.choices}
        seats = values.pop("seats")
        if not self.name.strip():
            self.notice = "the table needs a name"
            return
        if self.teams_error:
            self.notice, self.row = self.teams_error, TEAMS_ROW
            return
        try:
            options = TableOptions(teams=teams_from_text(self.teams), **values)  # type: ignore[arg-type]
        except BadOptions as exc:
            self.notice = str(exc)
            return
        assert isinstance(seats, int)
        self.notice = ""
        self.create(TableSpec(self.name.strip(), seats, options))


def teams_of(summary: str) -> tuple[int, ...]:
    """The teams named in a table's options summary (``teams=2+2``), if any."""
    try:
        return teams_from_text(summary_teams(summary)[0])
    except BadOptions:
        return ()  # an announcement of teams this version would not make: shown as solo
