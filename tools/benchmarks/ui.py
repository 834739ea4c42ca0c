"""The table screen's speed, run by python tools/bench.py ui [--frames N] [--presses N] [--json].

Time per frame drawn by prompt_toolkit at 2, 4 and 14 players on two screen sizes, and
the time from a key pressed to the frame showing its move, at a loopback table with bots.
"""

from __future__ import annotations

import argparse
import gc
import io
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from p2pnerts import ui
from p2pnerts.rules import TableOptions, apply, private_view

from .common import p99, record_playout

UI_PLAYERS = (2, 4, 14)
UI_SIZES = ((80, 24), (160, 50))


class _Screen(io.StringIO):
    """A terminal's output stream that notes when each frame is flushed."""

    def __init__(self) -> None:
        super().__init__()
        self.flushed: Callable[[], None] = lambda: None

    def flush(self) -> None:
        self.flushed()


def _ui_app(model: ui.TableModel, size: tuple[int, int], input: Any = None) -> Any:
    from prompt_toolkit.data_structures import Size
    from prompt_toolkit.input import DummyInput
    from prompt_toolkit.output.vt100 import Vt100_Output

    screen = _Screen()
    width, height = size
    output = Vt100_Output(screen, lambda: Size(rows=height, columns=width), term="xterm-256color")
    app = ui.create_application(model, input=input or DummyInput(), output=output)
    return app, screen


def ui_frames(players: int, size: tuple[int, int], frames: int, seed: int) -> dict[str, Any]:
    """Milliseconds per frame: the table changed by one move, then drawn and written out
    by prompt_toolkit as in the terminal (layout, rendering, diff, escape codes)."""
    from prompt_toolkit.application.current import set_app

    playout = record_playout(players, seed, frames)
    state, moves = playout.initial, playout.moves
    del playout  # its thousands of recorded states would weigh on every garbage collection
    gc.collect()
    names = tuple(["You"] + [f"Bot {k}" for k in range(1, players)])
    model = ui.TableModel(0, names, TableOptions())
    app, _ = _ui_app(model, size)
    gc.freeze()  # as `ui.run_with_trio` does before the screen opens
    times, ours = [], []
    with set_app(app):
        for move in moves:
            state, _ = apply(state, move)
            model.refresh(ui.Snapshot(display=private_view(state, 0), totals=(0,) * players))
            start = time.perf_counter()
            app.renderer.render(app, app.layout)
            times.append(time.perf_counter() - start)
            start = time.perf_counter()
            ui.render(model, *size)
            ours.append(time.perf_counter() - start)
    times.sort()
    return {
        "players": players,
        "size": f"{size[0]}x{size[1]}",
        "frames": len(times),
        "frame_p50_ms": 1000 * statistics.median(times),
        "frame_p99_ms": 1000 * p99(times),
        "frame_max_ms": 1000 * times[-1],
        "layout_p50_ms": 1000 * statistics.median(ours),
    }


REFUSED_AFTER = 1.0
"""Seconds after which a key whose move never showed counts as refused, not as slow."""


def ui_key_latency(presses: int, players: int) -> dict[str, Any]:
    """Milliseconds from a key written to the terminal's input to the frame showing its move
    flushed to the output: the stock turned (a move of one's own, shown at once), at a
    real table on loopback with bots, trio running as the guest of prompt_toolkit's loop."""
    from prompt_toolkit.input import create_pipe_input

    from p2pnerts.commands import _seats
    from p2pnerts.commands._config import HostConfig, SeatConfig
    from p2pnerts.net import TableSpec

    latencies: list[float] = []
    model = ui.TableModel(0, ("You",), TableOptions())
    with create_pipe_input() as pipe:
        app, screen = _ui_app(model, (80, 24), pipe)
        me = ui.Session(model, app.invalidate, "You", random.Random(1)).player
        waiting: list[tuple[float, int]] = []

        def flushed() -> None:
            tableau = model.tableau
            if waiting and tableau is not None and len(tableau.stock) != waiting[0][1]:
                latencies.append(time.perf_counter() - waiting.pop()[0])

        screen.flushed = flushed
        spec = TableSpec("bench", players, TableOptions(rounds=1))
        seat = SeatConfig("You", level=1, seed=1)
        table = HostConfig(seat, spec, bots=players - 1, advertise=False, bind="127.0.0.1")

        async def press_keys() -> None:
            import trio

            async with trio.open_nursery() as nursery:
                nursery.start_soon(lambda: _seats.run_host(table, me=me, report=lambda _: None))
                pipe.send_text("\r")  # the person is ready for the first round
                while len(latencies) < presses and not model.snap.over:
                    tableau = model.tableau
                    if waiting and time.perf_counter() - waiting[0][0] > REFUSED_AFTER:
                        waiting.clear()  # refused (the countdown, stuck): no sample, again
                    if tableau is not None and model.playing and not waiting:
                        waiting.append((time.perf_counter(), len(tableau.stock)))
                        pipe.send_text(" ")
                    await trio.sleep(0.02)
                nursery.cancel_scope.cancel()
            app.exit()

        ui.run_with_trio(app, press_keys)
    latencies.sort()
    return {
        "presses": len(latencies),
        "key_p50_ms": 1000 * statistics.median(latencies),
        "key_p99_ms": 1000 * p99(latencies),
        "key_max_ms": 1000 * latencies[-1],
    }


def bench_ui(args: argparse.Namespace) -> dict[str, Any]:
    frames = [ui_frames(p, size, args.frames, args.seed) for p in UI_PLAYERS for size in UI_SIZES]
    key = ui_key_latency(args.presses, 4)
    if not args.json:
        print(
            f"frames: the table changed by one move, then drawn by prompt_toolkit ({args.frames})"
        )
        print("players  screen   frame p50 / p99 / max ms   of which the layout p50 ms")
        for f in frames:
            print(
                f"{f['players']:>7}  {f['size']:>7} {f['frame_p50_ms']:9.2f} / "
                f"{f['frame_p99_ms']:5.2f} / {f['frame_max_ms']:5.2f} {f['layout_p50_ms']:14.2f}"
            )
        print(
            f"key to screen, turning the stock at a 4-player loopback table "
            f"({key['presses']} presses): p50 {key['key_p50_ms']:.2f} ms, "
            f"p99 {key['key_p99_ms']:.2f} ms, max {key['key_max_ms']:.2f} ms"
        )
    return {"frames": frames, "key": key}
