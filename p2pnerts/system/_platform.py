"""What differs between Linux, macOS and Windows, in one place.

Everything else in the package is written once for all three: it asks this module for
CPU time, for signal handlers on an asyncio loop, for holding Ctrl-C back while the main
thread waits on a process pool, for reading standard input to its end from trio, for
dropping what was typed ahead on a terminal, for replacing a file another program may
hold open, for whether an output stream can show the suits, and for a second handle on a
socket. Nothing here imports a POSIX-only module at import time.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import functools
import getpass
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import TextIO

import platformdirs
import trio

WINDOWS = sys.platform == "win32"

REPLACE_TRIES = 10
"""How many times a file is replaced before giving up: Windows refuses to replace a file
that another program (a virus scanner, an editor, a backup tool) has open for a moment."""
REPLACE_PAUSE = 0.05
"""Seconds between two tries."""
SUITS = "♠♥♦♣"
DATA_DIR_ENV = "P2PNERTS_DATA_DIR"
"""An environment variable naming another data directory than the system's usual one."""


def cpu_seconds() -> float:
    """CPU time this process has used, in seconds, user and system together."""
    return time.process_time()


def on_signals(loop: asyncio.AbstractEventLoop, callback: Callable[[], None]) -> Callable[[], None]:
    """Call ``callback`` on the loop when SIGINT or SIGTERM arrives; return what undoes it.

    Windows' loops have no ``add_signal_handler``: there SIGINT (Ctrl-C) is caught with
    ``signal.signal`` and handed to the loop, and SIGTERM, which Windows never delivers to
    a console program, is left alone.
    """
    signums = (signal.SIGINT, signal.SIGTERM)
    try:
        for signum in signums:
            loop.add_signal_handler(signum, callback)
    except NotImplementedError:  # the first call raises: nothing to undo
        return _on_sigint_by_hand(loop, callback)

    def undo() -> None:
        for signum in signums:
            loop.remove_signal_handler(signum)

    return undo


_TERMINATED: list[int] = []
"""The SIGTERMs this process was sent (`terminate_as_interrupt` tells whether one came)."""


def terminate_as_interrupt() -> Callable[[], bool]:
    """Make SIGTERM end this process as Ctrl-C does: trio, the process pools and the table
    screen unwind the one way they know, nothing is left half-done. Returns what tells
    whether a SIGTERM came (Windows never sends one to a console program)."""
    came = _TERMINATED

    def handler(signum: int, frame: FrameType | None) -> None:
        came.append(signum)
        interrupt = signal.getsignal(signal.SIGINT)
        if not callable(interrupt):  # Ctrl-C ignored, or not Python's to handle
            raise KeyboardInterrupt
        interrupt(signal.SIGINT, frame)  # trio's own, where it runs: raises at a safe point

    signal.signal(signal.SIGTERM, handler)
    return lambda: bool(came)


async def interrupt_on_terminate(first: Callable[[], Awaitable[object]] | None = None) -> None:
    """Run in a trio nursery beside the work: a SIGTERM raises KeyboardInterrupt in this
    task, which ends the run as Ctrl-C does, and `terminate_as_interrupt`'s answer says it
    came; ``first`` is awaited before (a seat says it leaves: the work itself is only
    cancelled, where Ctrl-C's interrupt reaches it). `terminate_as_interrupt` alone hands
    SIGTERM to Ctrl-C's handler, but a process started in the background by a script has
    Ctrl-C ignored, so trio had installed none: the interrupt was raised wherever Python
    stood, inside trio's own loop, which was left half-run and spilt tracebacks after
    'Terminated.'."""
    with trio.open_signal_receiver(signal.SIGTERM) as received:
        async for signum in received:
            _TERMINATED.append(signum)
            if first is not None:
                await first()
            raise KeyboardInterrupt


@contextlib.contextmanager
def interrupts_held() -> Iterator[Callable[[], None]]:
    """Hold Ctrl-C and SIGTERM back while the main thread waits on threads of its own (a
    process pool's): yields ``check``, which ends the block as the signal would have (its
    handler raises KeyboardInterrupt) if one came meanwhile. Call it where raising is safe.

    Python raises a handler's KeyboardInterrupt between any two steps of the main thread,
    even one inside ``with lock:``, whose lock is then never released: a Ctrl-C that came
    as the arena's fan-out took a future's lock left the pool's own thread waiting on it,
    and the process at exit waiting on that thread, for ever. On POSIX, Ctrl-C is also
    blocked in the main thread meanwhile, so that a worker process started in the block
    begins with it blocked too (until it ignores it: `leave_interrupts`): one that is
    still importing when Ctrl-C reaches the whole group spills no traceback. Elsewhere,
    and in any thread but the main one, it changes nothing and ``check`` does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield lambda: None
        return
    came: list[int] = []

    def record(signum: int, _frame: FrameType | None) -> None:
        came.append(signum)

    before = {int(n): signal.getsignal(n) for n in (signal.SIGINT, signal.SIGTERM)}
    held = [n for n, h in before.items() if callable(h)]  # (not ignored, nor the default)
    for signum in held:
        signal.signal(signum, record)
    blocked = signal.SIGINT in held and _block_interrupts(True)

    def replay() -> None:
        if came:
            handler = before[came[0]]
            assert callable(handler)
            handler(came[0], None)  # Python's own raises KeyboardInterrupt, as does ours
            raise KeyboardInterrupt  # (a handler that did not)

    def check() -> None:
        if blocked and _interrupt_pending():
            _block_interrupts(False)  # (delivered to `record` now)
            _block_interrupts(True)
        replay()

    try:
        yield check
    finally:
        for signum in held:
            signal.signal(signum, before[signum])
        if blocked:
            _block_interrupts(False)  # (one still pending reaches its own handler now)
    replay()  # (one that came after the last check)


def _block_interrupts(block: bool) -> bool:
    """Block Ctrl-C in this thread, or unblock it; False where signals have no mask."""
    if sys.platform == "win32":
        return False
    signal.pthread_sigmask(signal.SIG_BLOCK if block else signal.SIG_UNBLOCK, {signal.SIGINT})
    return True


def _interrupt_pending() -> bool:
    """Whether a Ctrl-C waits, blocked, to reach this process."""
    return sys.platform != "win32" and signal.SIGINT in signal.sigpending()


def leave_interrupts() -> None:
    """In a worker process: leave Ctrl-C to the process that started it, which stops its
    workers itself (in a terminal, Ctrl-C reaches every process of the group)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _on_sigint_by_hand(
    loop: asyncio.AbstractEventLoop, callback: Callable[[], None]
) -> Callable[[], None]:
    def handler(_signum: int, _frame: object) -> None:
        loop.call_soon_threadsafe(callback)

    previous = signal.signal(signal.SIGINT, handler)

    def undo() -> None:
        signal.signal(signal.SIGINT, previous)

    return undo


async def wait_for_eof(stdin: TextIO) -> None:
    """Return once ``stdin`` reaches its end, reading and dropping what comes before."""
    if sys.platform == "win32":  # spelled out, so that mypy checks each branch per platform
        # trio has no FdStream on Windows: a thread reads, and is abandoned on cancel.
        read = functools.partial(os.read, stdin.fileno(), 4096)
        while await trio.to_thread.run_sync(read, abandon_on_cancel=True):
            pass
    else:
        async with trio.lowlevel.FdStream(os.dup(stdin.fileno())) as stream:
            while await stream.receive_some():
                pass


def discard_typed_ahead(fd: int) -> None:
    """Drop what was typed on the terminal ``fd`` and not read yet: keys pressed as a
    screen closes would otherwise run as the shell's next command line. Nothing if ``fd``
    is not a terminal."""
    if not os.isatty(fd):
        return
    if sys.platform == "win32":  # spelled out, so that mypy checks each branch per platform
        import ctypes
        import msvcrt

        ctypes.windll.kernel32.FlushConsoleInputBuffer(msvcrt.get_osfhandle(fd))
    else:
        import termios

        with contextlib.suppress(termios.error):  # (a terminal gone: nothing to drop)
            termios.tcflush(fd, termios.TCIFLUSH)


def login_name() -> str:
    """The person's login name ("Player" where the system tells none): on POSIX from the
    environment or the password database, on Windows from the environment."""
    try:
        name = getpass.getuser()
    except (OSError, KeyError, ImportError):  # no variable set, and no pwd (or no entry)
        return "Player"
    return name.strip() or "Player"


def data_dir() -> Path:
    """Where p2pnerts keeps what it remembers between runs (the host keys it has seen):
    `DATA_DIR_ENV` if set, else the system's place for a user's application data
    (``~/.local/share/p2pnerts``, ``~/Library/Application Support/p2pnerts``,
    ``%LOCALAPPDATA%\\p2pnerts``)."""
    given = os.environ.get(DATA_DIR_ENV)
    if given:
        return Path(given)
    return Path(platformdirs.user_data_dir("p2pnerts", appauthor=False))


def replace_file(source: Path, target: Path) -> None:
    """Move ``source`` over ``target`` at once, trying again for a moment while another
    program holds ``target`` open (Windows refuses the replace then)."""
    for _ in range(REPLACE_TRIES - 1):
        try:
            os.replace(source, target)
            return
        except PermissionError:
            time.sleep(REPLACE_PAUSE)
    os.replace(source, target)


def shows_suits(stream: TextIO) -> bool:
    """Whether ``stream`` can write the suit symbols (a Windows pipe is cp1252: it cannot)."""
    encoding = getattr(stream, "encoding", None) or "ascii"
    try:
        SUITS.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


PLAIN = {
    **dict(zip(SUITS, "SHDC", strict=True)),
    **{"—": "-", "–": "-", "−": "-", "·": ".", "…": "...", "±": "+/-", "×": "x"},
    **{"→": "->", "←": "<-", "↑": "^", "↓": "v"},
}
"""What a symbol is written as where a stream's encoding lacks it: a card ``A♠`` becomes
``AS``, as the screen's ``--ascii`` writes it."""


def _plainly(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    lacking = error.object[error.start : error.end]
    return "".join(PLAIN.get(char, "?") for char in lacking), error.end


codecs.register_error("p2pnerts-plain", _plainly)


def never_die_of_encoding(*streams: TextIO) -> None:
    """Let ``streams`` write what their encoding lacks in plain letters (`PLAIN`, else
    ``?``) rather than raise: text sent to a file or a pipe on Windows is cp1252, and a
    legacy console's code page has no room for a dash."""
    for stream in streams:
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and not shows_suits(stream):
            reconfigure(errors="p2pnerts-plain")


def socket_twin(stream: trio.abc.Stream) -> socket.socket | None:
    """A second handle on ``stream``'s TCP socket, to write to it without waiting for a
    task's turn (`Connection.send_encoded`); the caller closes it (closing it leaves the
    stream open). None where there is none: not a socket, or Windows, where a socket's
    handle cannot be duplicated as a file descriptor (there every frame waits for the
    connection's writer task), or when the process is out of file descriptors."""
    if sys.platform == "win32" or not isinstance(stream, trio.SocketStream):
        return None
    try:
        fd = os.dup(stream.socket.fileno())
    except OSError:
        return None
    try:
        twin = socket.socket(fileno=fd)
    except OSError:
        os.close(fd)
        return None
    twin.setblocking(False)  # (shared with the stream's own: it is already)
    return twin
