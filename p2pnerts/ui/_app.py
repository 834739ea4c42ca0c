"""The application: prompt_toolkit on asyncio, with trio running inside it as a guest.

prompt_toolkit owns the terminal and the asyncio loop; the network (trio) runs on that
same loop through `trio.lowlevel.start_guest_run`. The screen reads the model; trio
changes the model and calls ``app.invalidate()``; keys reach trio through its token (see
`Session`). SIGINT and SIGTERM end the application, which cancels the trio run; whatever
ends the application — a key, a signal, a crash on either side — prompt_toolkit restores
the terminal on the way out, and a crash is raised again only after that. Every screen
runs through `run_screen`, which drops the keys typed as it closed.
"""

from __future__ import annotations

import asyncio
import functools
import gc
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar, cast

import outcome
import trio
from prompt_toolkit.application import Application
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import ConditionalKeyBindings, KeyBindingsBase, merge_key_bindings
from prompt_toolkit.layout import Layout, Window
from prompt_toolkit.layout.controls import UIContent, UIControl
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType
from prompt_toolkit.output import Output

from p2pnerts.system import discard_typed_ahead, on_signals
from p2pnerts.ui._frame import Frame
from p2pnerts.ui._keys import create_key_bindings
from p2pnerts.ui._lobby import LobbyModel
from p2pnerts.ui._lobbyview import create_lobby_bindings, render_lobby
from p2pnerts.ui._model import TableModel
from p2pnerts.ui._render import render
from p2pnerts.ui._style import STYLE

T = TypeVar("T")
FAREWELL = 1.0
"""Seconds the table gets to hear that a player who quits mid-match has left."""


class BoardControl(UIControl):
    """Draws the model with `render`, and turns clicks into `TableModel.click`."""

    def __init__(self, model: TableModel, lobby: LobbyModel | None = None) -> None:
        self.model = model
        self.lobby = lobby
        self.frame: Frame | None = None

    def create_content(self, width: int, height: int) -> UIContent:
        if self.lobby is not None and self.lobby.active:
            frame = render_lobby(self.lobby, width, height)
            if self.model.look.ascii:
                frame = frame.to_ascii()
            self.frame = None
        else:
            self.frame = frame = render(self.model, width, height)
        return frame_content(frame)

    def is_focusable(self) -> bool:
        return True

    def mouse_handler(self, mouse_event: MouseEvent) -> None:
        if mouse_event.event_type is not MouseEventType.MOUSE_UP or self.frame is None:
            return
        hit = self.frame.hit(mouse_event.position.x, mouse_event.position.y)
        if hit is not None:
            self.model.click(hit)


def frame_content(frame: Frame) -> UIContent:
    """A drawn screen as prompt_toolkit's content of a window."""
    return UIContent(
        get_line=lambda y: cast(StyleAndTextTuples, frame.rows[y].frags),
        line_count=len(frame.rows),
        show_cursor=False,
    )


def create_application(
    model: TableModel,
    lobby: LobbyModel | None = None,
    *,
    input: Input | None = None,
    output: Output | None = None,
) -> Application[None]:
    """The table screen over ``model``, after the ``lobby`` if there is one; ``input`` and
    ``output`` default to the terminal."""
    keys: KeyBindingsBase = create_key_bindings(model)
    if lobby is not None:
        in_lobby = Condition(lambda: lobby.active)
        keys = merge_key_bindings(
            [
                ConditionalKeyBindings(create_lobby_bindings(lobby), in_lobby),
                ConditionalKeyBindings(keys, ~in_lobby),
            ]
        )
    return Application(
        layout=Layout(Window(BoardControl(model, lobby))),
        key_bindings=keys,
        style=STYLE,
        full_screen=True,
        mouse_support=True,
        input=input,
        output=output,
    )


def run_with_trio(
    app: Application[None],
    main: Callable[[], Awaitable[T]],
    farewell: Callable[[], Awaitable[None]] | None = None,
) -> T | None:
    """Run ``app`` in this terminal with ``main`` running in trio beside it.

    Returns what ``main`` returned, or None if the application ended first (``main`` is
    then cancelled, after ``farewell`` has had up to `FAREWELL` seconds); raises what
    ``main`` raised, once the terminal is restored.
    """
    # Everything made so far (modules, the application) lives as long as the program: out
    # of the collector's way, a full collection takes ~4 ms instead of ~25 ms — a frame.
    gc.freeze()
    return run_screen(app, _host(app, main, farewell))


def run_screen(app: Application[Any], main: Coroutine[Any, Any, T]) -> T:
    """Run ``main``, which shows ``app``, on a new asyncio loop; then drop what was typed on
    the application's terminal and not read, so that no key pressed as the screen closed
    reaches the shell."""
    try:
        return asyncio.run(main)
    finally:
        try:
            fd = app.input.fileno()
        except NotImplementedError:  # (an input that is no file: a test's, on Windows)
            pass
        else:
            discard_typed_ahead(fd)


async def _host(
    app: Application[None],
    main: Callable[[], Awaitable[T]],
    farewell: Callable[[], Awaitable[None]] | None,
) -> T | None:
    loop = asyncio.get_running_loop()
    done: asyncio.Future[outcome.Outcome[T | None]] = loop.create_future()
    handle: list[tuple[trio.lowlevel.TrioToken, trio.CancelScope]] = []
    started = asyncio.Event()

    async def guest() -> T | None:
        with trio.CancelScope() as scope:
            handle.append((trio.lowlevel.current_trio_token(), scope))
            started.set()
            result = await main()
            scope.cancel()  # (done: a goodbye that comes as the run ends has nothing to end)
            return result
        return None

    def finished(result: outcome.Outcome[T | None]) -> None:
        done.set_result(result)
        if isinstance(result, outcome.Error):
            _leave(app)
        app.invalidate()

    # Installed before trio starts, so trio leaves SIGINT to this loop (no KeyboardInterrupt
    # thrown into a task): either signal ends the application, which restores the terminal.
    forget_signals = on_signals(loop, functools.partial(_leave, app))
    trio.lowlevel.start_guest_run(
        guest,
        run_sync_soon_threadsafe=loop.call_soon_threadsafe,
        run_sync_soon_not_threadsafe=loop.call_soon,
        done_callback=finished,
        host_uses_signal_set_wakeup_fd=True,
    )
    try:
        if not done.done():
            await app.run_async(handle_sigint=False)  # SIGINT is ours (above)
    finally:
        if not done.done():
            await started.wait()
            token, scope = handle[0]
            token.run_sync_soon(_goodbye, scope, farewell)
        result = await done
        forget_signals()
    return result.unwrap()


def _goodbye(scope: trio.CancelScope, farewell: Callable[[], Awaitable[None]] | None) -> None:
    """In trio: let ``farewell`` run a moment (the table hears that this seat left), then
    cancel ``main``; nothing if ``main`` has returned already (the screen closed as the
    match ended: the run is ending, and takes no new task)."""
    if scope.cancel_called:
        return
    if farewell is None:
        scope.cancel()
        return

    async def say_goodbye() -> None:
        with trio.move_on_after(FAREWELL):
            await farewell()
        scope.cancel()

    trio.lowlevel.spawn_system_task(say_goodbye)


def _leave(app: Application[None]) -> None:
    if app.is_running and not app.is_done:
        app.exit()
