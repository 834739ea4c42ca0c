"""Windows and macOS, checked from Linux: no POSIX-only import, a table screen whose loop
cannot install signal handlers, output to a cp1252 pipe, a file another program holds."""

from __future__ import annotations

import asyncio
import io
import os
import pkgutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing
from _sockets import NO_TWIN, tcp_pair
from prompt_toolkit.application import Application
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

import p2pnerts
from p2pnerts.rules import TableOptions
from p2pnerts.system import _platform
from p2pnerts.ui import TableModel, create_application, run_with_trio

POSIX_ONLY = ("resource", "fcntl", "termios", "tty", "pty", "pwd", "grp", "syslog")
"""Standard modules Windows does not have."""
COMMAND = [sys.executable, "-m", "p2pnerts"]
LIMIT = 120.0


BLOCKER = """
import importlib.abc, pkgutil, sys
class Windows(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {blocked!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None
for name in {blocked!r}:
    sys.modules.pop(name, None)
sys.meta_path.insert(0, Windows())
import p2pnerts
for module in {modules!r}:
    __import__(module)
print("imported", len({modules!r}))
"""


def test_every_module_imports_without_the_posix_only_modules() -> None:
    found = pkgutil.walk_packages(p2pnerts.__path__, prefix="p2pnerts.")
    modules = sorted(m.name for m in found if m.name != "p2pnerts.__main__")  # it runs main
    script = BLOCKER.format(blocked=POSIX_ONLY, modules=modules)
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=LIMIT
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"imported {len(modules)}"


class NoSignalsLoop(asyncio.SelectorEventLoop):
    """A loop like Windows' own: it cannot install handlers for SIGINT and SIGTERM. (The
    terminal's SIGWINCH, which Windows does not have, is left to prompt_toolkit.)"""

    def add_signal_handler(self, sig: int, callback: Any, *args: Any) -> None:  # type: ignore[override]
        if sig in (signal.SIGINT, signal.SIGTERM):
            raise NotImplementedError
        super().add_signal_handler(sig, callback, *args)

    def remove_signal_handler(self, sig: int) -> bool:
        if sig in (signal.SIGINT, signal.SIGTERM):
            raise NotImplementedError
        return super().remove_signal_handler(sig)


@pytest.fixture
def no_signal_loops() -> Iterator[PipeInput]:
    """Loops without signal handlers for `asyncio.run`, and a pipe for the keys."""

    class Policy(asyncio.DefaultEventLoopPolicy):
        def new_event_loop(self) -> asyncio.AbstractEventLoop:
            return NoSignalsLoop()

    old = asyncio.get_event_loop_policy()
    asyncio.set_event_loop_policy(Policy())
    try:
        with create_pipe_input() as pipe:
            yield pipe
    finally:
        asyncio.set_event_loop_policy(old)


def _table(pipe: PipeInput) -> tuple[TableModel, Application[None]]:
    model = TableModel(0, ("You", "Bea"), TableOptions(), send=lambda _move: None)
    return model, create_application(model, input=pipe, output=DummyOutput())


def test_the_table_screen_runs_where_the_loop_has_no_signal_handlers(
    no_signal_loops: PipeInput,
) -> None:
    _, app = _table(no_signal_loops)

    async def main() -> str:
        await trio.sleep(0.05)
        no_signal_loops.send_text("qy")  # quit, yes: the screen ends, trio is cancelled
        await trio.sleep_forever()
        return "never"

    assert run_with_trio(app, main) is None
    assert not app.is_running


@pytest.mark.skipif(not hasattr(signal, "raise_signal"), reason="needs signal.raise_signal")
def test_ctrl_c_still_ends_the_table_screen_where_the_loop_has_no_signal_handlers(
    no_signal_loops: PipeInput,
) -> None:
    _, app = _table(no_signal_loops)
    before = signal.getsignal(signal.SIGINT)

    async def main() -> str:
        await trio.sleep(0.05)
        signal.raise_signal(signal.SIGINT)
        await trio.sleep_forever()
        return "never"

    assert run_with_trio(app, main) is None
    assert signal.getsignal(signal.SIGINT) is before, "the handler is put back"


COMMANDS = [
    ["--help"],
    *([name, "--help"] for name in ("play", "host", "join", "bot", "tables", "sim", "arena")),
    ["play", "--headless", "--rounds", "1", "--seed", "3", "--bots", "1", "--level", "10"],
    ["sim", "--peers", "3", "--rounds", "1", "--seed", "1"],
    ["arena", "--policies", "baseline,strong", "--rounds", "2", "--seed", "1", "--players", "2"],
]


PIPES = [("cp1252", args) for args in COMMANDS] + [("cp437", COMMANDS[-2])]
"""Windows' encoding of a pipe or a file, and the legacy console's (no dash, no suits)."""


@pytest.mark.parametrize(("encoding", "args"), PIPES, ids=[f"{e} {' '.join(a)}" for e, a in PIPES])
def test_every_command_writes_to_a_windows_pipe(encoding: str, args: list[str]) -> None:
    env = {**os.environ, "PYTHONIOENCODING": encoding}
    done = subprocess.run(
        [*COMMAND, *args], capture_output=True, env=env, timeout=LIMIT, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 0, done.stderr.decode(encoding, errors="replace")
    assert done.stdout, "it said something"
    assert b"Traceback" not in done.stderr
    assert b"?" not in done.stdout.replace(b"?)", b"").replace(b"? ", b""), (
        "every symbol it wrote has a plain spelling"
    )


def test_a_file_held_by_another_program_is_replaced_once_it_lets_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source, target = tmp_path / "new", tmp_path / "kept"
    source.write_text("new")
    target.write_text("old")
    real, refusals = os.replace, [PermissionError("in use")] * 3

    def held_for_a_moment(src: Path, dst: Path) -> None:
        if refusals:
            raise refusals.pop()
        real(src, dst)

    monkeypatch.setattr(os, "replace", held_for_a_moment)
    _platform.replace_file(source, target)
    assert target.read_text() == "new" and not source.exists()


def test_a_file_held_for_good_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def always_held(src: Path, dst: Path) -> None:
        raise PermissionError(f"{dst} is in use")

    monkeypatch.setattr(os, "replace", always_held)
    with pytest.raises(PermissionError, match="is in use"):
        _platform.replace_file(tmp_path / "a", tmp_path / "b")


def test_a_stream_that_cannot_show_suits_is_told_apart() -> None:
    class Stream:
        def __init__(self, encoding: str) -> None:
            self.encoding = encoding

    assert _platform.shows_suits(Stream("utf-8"))  # type: ignore[arg-type]
    assert not _platform.shows_suits(Stream("cp1252"))  # type: ignore[arg-type]
    assert not _platform.shows_suits(Stream("no-such-codec"))  # type: ignore[arg-type]


def test_cards_and_symbols_are_written_plainly_where_the_encoding_lacks_them() -> None:
    stream = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    _platform.never_die_of_encoding(stream)
    stream.write("Bot 1 plays A♠ — 10♥ · 2♦ · K♣ ± 1 ✓")
    stream.flush()
    assert stream.buffer.getvalue() == b"Bot 1 plays AS - 10H . 2D . KC +/- 1 ?"


async def test_no_socket_twin_for_a_stream_that_is_no_socket_nor_on_windows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert _platform.socket_twin(trio.testing.memory_stream_pair()[0]) is None
    near, far = await tcp_pair()
    async with near, far:
        monkeypatch.setattr(sys, "platform", "win32")
        assert _platform.socket_twin(near) is None  # there every frame waits for the writer


@NO_TWIN
async def test_a_socket_twin_writes_to_the_stream_and_closing_it_leaves_the_stream_open() -> None:
    near, far = await tcp_pair()
    async with near, far:
        twin = _platform.socket_twin(near)
        assert twin is not None
        twin.send(b"first")
        twin.close()
        await near.send_all(b" then the stream's own")
        got = b""
        with trio.fail_after(10):
            while len(got) < len(b"first then the stream's own"):
                got += await far.receive_some()
        assert got == b"first then the stream's own"
