"""The replay screen: a recorded match on the table screen, read-only, one commit at a time.

`ReplayModel` holds the replay (`p2pnerts.logs`), the step shown and the seat whose view
it is; `render_replay` draws the table as that seat saw it after that step (the table
screen's own `render`, its last row giving way to the replay's lines: the step, its
message and ordering key, and whether its digest matches the log); `replay_bindings` are
its keys. Nothing here decides anything: every table and digest comes from the replay.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from prompt_toolkit.application import Application
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyBindingsBase, KeyPressEvent
from prompt_toolkit.layout import Layout, Window
from prompt_toolkit.layout.controls import UIContent, UIControl
from prompt_toolkit.output import Output

from p2pnerts.logs import Replay
from p2pnerts.protocol import RoundOver
from p2pnerts.system import on_signals
from p2pnerts.ui._app import frame_content, run_screen
from p2pnerts.ui._frame import Frame, Row, fit, rule
from p2pnerts.ui._keymap import unknown_key
from p2pnerts.ui._leave import Leave, with_leave
from p2pnerts.ui._model import TICKER, TableModel
from p2pnerts.ui._panes import too_small
from p2pnerts.ui._render import SMALLEST, render
from p2pnerts.ui._snapshot import Line, Look, Snapshot
from p2pnerts.ui._style import STYLE
from p2pnerts.ui._terminal import need_terminal

REPLAY_KEYS: tuple[tuple[str, str], ...] = (
    ("→  n", "the next commit"),
    ("←  b", "the commit before"),
    ("PgDn PgUp", "ten commits on, or back"),
    ("]  [", "the next round's first commit, or this round's (then the round before)"),
    ("Home End", "the first commit, or the last"),
    ("s", "the table as the next seat saw it"),
    ("?  Esc", "show or hide this help"),
    ("q", "quit (from the help too)"),
    ("Ctrl-C", "asks first: Ctrl-C again or y quits, n or Esc stays"),
)
"""(keys, what they do), as the replay's help lists them."""
EXPLAINED = (
    "Each step is one commit of the agreed order, as this log's seat committed it: the",
    "message, its ordering key (Lamport clock, tie class, tie rank) and the running",
    "digest after it, computed again from the log by the protocol's own code and",
    "compared with the digest the seat recorded. A seat's face-down cards show once",
    "the log holds the secret it revealed after the round.",
)


@dataclass(slots=True)
class ReplayModel:
    """A replay being stepped through: the step shown and whose view of the table."""

    replay: Replay
    seat: int
    look: Look = field(default_factory=Look)
    at: int = 0
    """The step shown (an index into the replay's steps)."""
    help: bool = False
    said: str = ""
    """What the last key did not do, until the next key that does something."""
    leave: Leave = field(default_factory=lambda: Leave("Leave the replay?"))
    _table: tuple[tuple[int, int], TableModel] | None = None

    def __post_init__(self) -> None:
        self.go(self.at)

    @property
    def count(self) -> int:
        return len(self.replay.steps)

    def go(self, index: int) -> None:
        """Show step ``index`` (kept within the replay)."""
        self.at, self.help, self.said = max(0, min(index, self.count - 1)), False, ""

    def unknown(self, key: str) -> None:
        """A key the replay has no use for: say so, and where the keys are listed."""
        self.said = unknown_key(key)

    def forward(self, steps: int = 1) -> None:
        self.go(self.at + steps)

    def back(self, steps: int = 1) -> None:
        self.go(self.at - steps)

    def next_round(self) -> None:
        starts = [i for i in self.replay.round_starts() if i > self.at]
        self.go(starts[0] if starts else self.count - 1)

    def previous_round(self) -> None:
        """This round's first commit; from there, the round before's."""
        starts = [i for i in self.replay.round_starts() if i < self.at]
        self.go(starts[-1] if starts else 0)

    def next_seat(self) -> None:
        self.seat, self.said = (self.seat + 1) % len(self.replay.names), ""

    def table(self) -> TableModel:
        """The table screen's model after the step shown, as the seat saw it."""
        if self._table is not None and self._table[0] == (self.at, self.seat):
            return self._table[1]
        replay = self.replay
        names, options = replay.names, replay.options
        model = TableModel(self.seat, names, options, look=self.look, read_only=True)
        if self.count:
            self._fill(model)
        self._table = ((self.at, self.seat), model)
        return model

    def _fill(self, model: TableModel) -> None:
        replay, step = self.replay, self.replay.steps[self.at]
        display = replay.table(self.at, self.seat)
        totals = replay.totals(self.at)
        over = replay.options.rounds is not None and len(step.scores) >= replay.options.rounds
        best = max(totals, default=0)
        model.snap = Snapshot(
            display=display,
            committed=step.number,
            totals=totals,
            over=over,
            winners=tuple(d for d, t in enumerate(totals) if t == best) if over else (),
        )
        model.round_number = step.round if display is not None else 0
        ended = display is not None and display.ended is not None
        model.round_end = replay.round_over(self.at) if ended else None
        model.history = [
            e for s in replay.steps[: self.at + 1] for e in s.events if isinstance(e, RoundOver)
        ]
        model.ticker.extend(Line(0.0, text) for text in self._told(model))

    def _told(self, model: TableModel) -> list[str]:
        """The ticker's lines: the events of the last steps up to the one shown, in words."""
        narrator, lines = model.narrator, []
        for step in reversed(self.replay.steps[: self.at + 1]):
            for event in reversed(step.events):
                told = narrator.tell(event)
                if told is not None:
                    lines.append(told.text)
            if len(lines) >= TICKER:
                break
        return lines[::-1]


# --- the screen -------------------------------------------------------------------------------


def render_replay(model: ReplayModel, width: int, height: int) -> Frame:
    """The replay's whole screen: the table after the step shown, then the replay's lines."""
    width, height = max(width, 1), max(height, 1)
    table = model.table()
    lines = _replay_rows(model, width)
    if width < SMALLEST[0] or height < SMALLEST[1]:
        rows = too_small(table, (width, height), SMALLEST)
        rows += [model.leave.row(width)] if model.leave.asking else []
    elif model.help and not model.leave.asking:  # (the question shows below the table)
        rows = _help_rows(width)
    else:  # the table's own status row (what the player may do next) gives way
        drawn = render(table, width, max(height - len(lines) + 1, SMALLEST[1])).rows[:-1]
        rows = _squeezed(drawn, height - len(lines)) + lines
    rows = [row.clip(width) for row in rows[:height]]
    rows += [Row() for _ in range(height - len(rows))]
    return Frame(rows).to_ascii() if model.look.ascii else Frame(rows)


def _squeezed(rows: list[Row], room: int) -> list[Row]:
    """The table's rows in ``room`` rows: its empty rows go first, then its ticker (the
    last row), then what is lowest."""
    rows = list(rows)
    while len(rows) > room:
        empty = [
            k for k, row in enumerate(rows[:-1]) if not "".join(t for _, t in row.frags).strip()
        ]
        del rows[empty[-1] if empty else -1]
    return rows


def _replay_rows(model: ReplayModel, width: int) -> list[Row]:
    """The step and its message and key; its digest against the log's; what is missing."""
    replay = model.replay
    if not replay.steps:
        return [Row().add(" this log holds no commit to replay · q quits", "class:alert")]
    step, at = replay.steps[model.at], model.at
    clock, calls, rank = replay.key(at)
    key = f" · key (L={clock}, {calls}, {rank})"
    first = Row().add(f" step {at + 1} of {model.count} ", "class:title")
    before = " (before the first deal)" if step.round == 0 else ""
    first.add(f"· round {step.round}{before} · ", "class:dim")
    first.add(fit(replay.summary(at, model.look.card), max(width - first.width - len(key), 10)))
    first.add(key, "class:dim")
    second = Row().add(f" digest {step.digest.hex()[:16]} ", "class:dim")
    match step.matches:
        case True:
            second.add("matches the log", "class:good")
        case False:
            assert step.recorded is not None
            second.add("DIFFERS from the log", "class:alert")
            second.add(f" (recorded {step.recorded.hex()[:16]})", "class:bad")
        case None:
            second.add("not in the log to compare (it recorded none for this commit)", "class:dim")
    second.add(f" · seat {model.seat + 1}'s view", "class:dim")
    keys = " ← → step · [ ] round · ? keys · q quit "
    if second.width + len(keys) <= width:
        second.pad(width - len(keys)).add(keys, "class:dim")
    rows = [first, second]
    news = _news(model)
    if news:
        rows.append(Row().add(fit(f" {news}", width), "class:notice"))
    if model.leave.asking:
        rows.append(model.leave.row(width))
    elif model.said:
        rows.append(Row().add(fit(f" {model.said}", width), "class:alert"))
    return rows


def _news(model: ReplayModel) -> str:
    """What the replay could not show or check, in one line ('' if nothing)."""
    replay, said = model.replay, []
    hidden = replay.hidden(model.at, model.seat)
    if hidden:
        said.append(f"seat {model.seat + 1} ({replay.names[model.seat]}): {hidden}")
    if replay.differing:
        said.append(f"{replay.differing_words()} from the log")
    if replay.torn:
        said.append(f"the log's tail was torn ({replay.torn} bytes dropped)")
    return " · ".join(said)


def _help_rows(width: int) -> list[Row]:
    rows = [rule("replaying a game log · ? or Esc closes this help", width)]
    rows += [Row().add(f"  {line}") for line in EXPLAINED]
    rows.append(rule("keys", width))
    for keys, what in REPLAY_KEYS:
        rows.append(Row().add(f"  {keys:<11}", "class:key").add(what))
    return rows


def replay_bindings(model: ReplayModel) -> KeyBindingsBase:
    """The replay's keys (`REPLAY_KEYS`), each a call on ``model``; any other is told that
    it does nothing. Ctrl-C asks first, as everywhere (`with_leave`)."""
    kb = KeyBindings()
    moves = {
        ("right",): model.forward,
        ("n",): model.forward,
        ("left",): model.back,
        ("b",): model.back,
        ("pagedown",): lambda: model.forward(10),
        ("pageup",): lambda: model.back(10),
        ("]",): model.next_round,
        ("[",): model.previous_round,
        ("home",): lambda: model.go(0),
        ("end",): lambda: model.go(model.count - 1),
        ("s",): model.next_seat,
    }
    for keys, action in moves.items():
        kb.add(*keys)(lambda _, action=action: action())

    @kb.add("?")
    def _help(event: KeyPressEvent) -> None:
        model.help, model.said = not model.help, ""

    @kb.add("escape")
    def _unhelp(event: KeyPressEvent) -> None:
        model.help = False

    @kb.add("<any>")
    def _other(event: KeyPressEvent) -> None:
        model.unknown(event.key_sequence[0].key)

    @kb.add("q")
    def _quit(event: KeyPressEvent) -> None:
        event.app.exit()

    return with_leave(kb, model.leave)


class ReplayControl(UIControl):
    """Draws the replay with `render_replay`."""

    def __init__(self, model: ReplayModel) -> None:
        self.model = model

    def create_content(self, width: int, height: int) -> UIContent:
        return frame_content(render_replay(self.model, width, height))

    def is_focusable(self) -> bool:
        return True


def replay_application(
    model: ReplayModel, *, input: Input | None = None, output: Output | None = None
) -> Application[None]:
    """The replay screen over ``model``; ``input`` and ``output`` default to the terminal."""
    return Application(
        layout=Layout(Window(ReplayControl(model))),
        key_bindings=replay_bindings(model),
        style=STYLE,
        full_screen=True,
        input=input,
        output=output,
    )


def replay_in_terminal(model: ReplayModel) -> None:
    """Show the replay on this terminal until the person quits (`NoTerminal` if standard
    input or output is not one); SIGINT and SIGTERM quit too, the terminal restored."""
    need_terminal("the replay screen needs a terminal (--json prints the digests)")
    app = replay_application(model)
    run_screen(app, _show(app))


async def _show(app: Application[None]) -> None:
    def leave() -> None:
        if app.is_running and not app.is_done:
            app.exit()

    forget_signals = on_signals(asyncio.get_running_loop(), leave)
    try:
        await app.run_async(handle_sigint=False)
    finally:
        forget_signals()
