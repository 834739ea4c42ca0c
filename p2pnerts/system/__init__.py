"""What differs between Linux, macOS and Windows, in one place (`_platform`).

CPU time, signal handlers on an asyncio loop, Ctrl-C and SIGTERM, reading standard input
to its end from trio, dropping the keys typed ahead on a terminal, the login name and the
data directory, replacing a file another program may hold open, whether an output stream
can show the suits, and a second handle on a socket. Every other module is written once
for all three systems and asks this package. It imports nothing of p2pnerts but `errors`,
and no POSIX-only module at import time.
"""

from p2pnerts.system._platform import (
    DATA_DIR_ENV,
    WINDOWS,
    cpu_seconds,
    data_dir,
    discard_typed_ahead,
    interrupt_on_terminate,
    interrupts_held,
    leave_interrupts,
    login_name,
    never_die_of_encoding,
    on_signals,
    replace_file,
    shows_suits,
    socket_twin,
    terminate_as_interrupt,
    wait_for_eof,
)

__all__ = [
    "DATA_DIR_ENV",
    "WINDOWS",
    "cpu_seconds",
    "data_dir",
    "discard_typed_ahead",
    "interrupt_on_terminate",
    "interrupts_held",
    "leave_interrupts",
    "login_name",
    "never_die_of_encoding",
    "on_signals",
    "replace_file",
    "shows_suits",
    "socket_twin",
    "terminate_as_interrupt",
    "wait_for_eof",
]
