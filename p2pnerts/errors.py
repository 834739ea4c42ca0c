"""The one base class of the errors p2pnerts reports to a person.

Each package's errors derive from `Error`; the command line (`p2pnerts.cli.main`) prints
any of them as one line, ``p2pnerts: <context>: <message>``, and exits with its status:
2 for what was asked wrongly (options, a file, a policy, no terminal), 1 for what went
wrong on the way (a table that cannot be reached, a failed task). Nothing here does IO,
so the pure layers may raise them too.
"""

from __future__ import annotations

import traceback
from pathlib import PurePath
from typing import ClassVar


class Error(Exception):
    """Base of every error p2pnerts reports in one line; ``status`` is the exit status."""

    status: ClassVar[int] = 1
    context: ClassVar[str] = "error"


class UsageError(Error):
    """What was asked cannot be done as asked: an option, a file or a name is wrong."""

    status: ClassVar[int] = 2


def in_one_line(exc: BaseException) -> str:
    """An exception that was not written for a person, in one line: its type, its words and
    where it was raised (the file and line of the deepest frame)."""
    frame = traceback.extract_tb(exc.__traceback__)[-1]
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text} (at {PurePath(frame.filename).name}:{frame.lineno})"
