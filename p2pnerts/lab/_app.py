"""The lab on the terminal: prompt_toolkit draws the desk and turns keys into its calls;
a task beside it tells the desk how much real time passed, while it plays."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import cast

from prompt_toolkit.application import Application
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyBindingsBase, KeyPressEvent
from prompt_toolkit.layout import Layout, Window
from prompt_toolkit.layout.controls import UIContent, UIControl
from prompt_toolkit.output import Output

from p2pnerts.lab._desk import Desk
from p2pnerts.lab._render import render
from p2pnerts.system import on_signals
from p2pnerts.ui import STYLE, need_terminal, run_screen, with_leave

FRAME = 0.05
"""Seconds between two refreshes of the screen while the lab plays."""
MIN_SIZE = (80, 24)


class DeskControl(UIControl):
    """Draws the desk with `render`."""

    def __init__(self, desk: Desk, ascii: bool) -> None:
        self.desk, self.ascii = desk, ascii

    def create_content(self, width: int, height: int) -> UIContent:
        if width < MIN_SIZE[0] or height < MIN_SIZE[1]:
            text = f" The lab needs {MIN_SIZE[0]}x{MIN_SIZE[1]} or more; this is {width}x{height}."
            lines: list[StyleAndTextTuples] = [[("class:alert", text)], [("", " q quits.")]]
            if self.desk.leave.asking:
                lines.append([("class:alert", f" {self.desk.leave.words}")])
        else:
            frame = render(self.desk, width, height)
            if self.ascii:
                frame = frame.to_ascii()
            lines = [cast(StyleAndTextTuples, row.frags) for row in frame.rows]
        return UIContent(get_line=lambda y: lines[y], line_count=len(lines), show_cursor=False)

    def is_focusable(self) -> bool:
        return True


def create_key_bindings(desk: Desk) -> KeyBindingsBase:
    """Every key of the legend, each a call on ``desk``; any other key says what keys do.
    ``q`` quits from the legend too; Ctrl-C asks first, as on every screen (`with_leave`)."""
    kb = KeyBindings()
    legend = Condition(lambda: desk.legend)

    def call(action: Callable[[], None], *keys: str, in_legend: bool = False) -> None:
        kb.add(*keys, filter=legend if in_legend else ~legend)(lambda _: action())

    call(desk.toggle_play, " ")
    for key in ("n", "right"):
        call(desk.step, key)
    for key in ("b", "left"):
        call(desk.back, key)
    call(desk.to_point, "g")
    for seat in range(9):
        call(lambda seat=seat: desk.select(seat), str(seat + 1))  # type: ignore[misc]
    verbs = {"k": "crash", "r": "restart", "c": "cut", "h": "heal", "p": "partition"}
    verbs |= {"j": "join", "s": "slow", "f": "fast"}
    for key, verb in verbs.items():
        call(lambda verb=verb: desk.act(verb), key)  # type: ignore[misc]
    for key in ("+", "="):
        call(lambda: desk.faster(1), key)
    call(lambda: desk.faster(-1), "-")
    call(desk.toggle_acks, "a")
    call(desk.toggle_legend, "?")
    for key in ("?", "escape"):
        call(desk.toggle_legend, key, in_legend=True)
    for key, lines in (("down", 1), ("up", -1), ("pagedown", 10), ("pageup", -10)):
        call(lambda lines=lines: desk.scroll(lines), key, in_legend=True)  # type: ignore[misc]

    @kb.add("<any>", filter=~legend)
    def _other(event: KeyPressEvent) -> None:
        desk.unknown(event.key_sequence[0].key)

    @kb.add("q")
    def _quit(event: KeyPressEvent) -> None:
        event.app.exit()

    return with_leave(kb, desk.leave)


def create_application(
    desk: Desk, *, ascii: bool = False, input: Input | None = None, output: Output | None = None
) -> Application[None]:
    """The lab's screen over ``desk``; ``input`` and ``output`` default to the terminal."""
    return Application(
        layout=Layout(Window(DeskControl(desk, ascii))),
        key_bindings=create_key_bindings(desk),
        style=STYLE,
        full_screen=True,
        input=input,
        output=output,
    )


def run_lab(desk: Desk, *, ascii: bool = False) -> None:
    """Run the lab in this terminal until the teacher quits."""
    need_terminal("the lab needs a terminal to draw on")
    app = create_application(desk, ascii=ascii)
    run_screen(app, _run(app, desk))


async def _run(app: Application[None], desk: Desk) -> None:
    loop = asyncio.get_running_loop()
    forget = on_signals(loop, lambda: app.exit() if app.is_running else None)
    clock = asyncio.create_task(_play(app, desk))
    try:
        await app.run_async(handle_sigint=False)
    finally:
        clock.cancel()
        forget()


async def _play(app: Application[None], desk: Desk) -> None:
    """Tell the desk the real time passing; redraw while it plays."""
    last = time.monotonic()
    while True:
        await asyncio.sleep(FRAME)
        now = time.monotonic()
        if desk.playing:
            desk.tick(now - last)
            app.invalidate()
        last = now
