"""The classroom lab: one seed's simulated table, stepped forward and back by a teacher.

`Lab` is the model (the run, its steps and the teacher's faults: no IO); `Desk` the
teacher's controls over it; `render` draws a desk; `run_lab` runs it on the terminal.

The desk, its drawing and the terminal application load the screen's modules
(prompt_toolkit): they are imported when first asked for, so that the command line reads
the lab's lessons and limits without them.

It imports `sim`, `bots`, `ui`, `logs` (a lesson's claims are checked from its run's game
logs: `race_of`), `protocol`, `rules` and `system`; only the commands import it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from p2pnerts.lab._chronicle import Chronicle
from p2pnerts.lab._claims import Race, exported, race_of
from p2pnerts.lab._lessons import LESSONS, Lesson, lesson_named, lesson_names
from p2pnerts.lab._model import DEFAULT_SPEED, MAX_PEERS, SPEEDS, Action, Lab, SeatView, Table
from p2pnerts.lab._records import Kind, Line, Mark, Note

if TYPE_CHECKING:
    from p2pnerts.lab._app import create_application, run_lab
    from p2pnerts.lab._desk import Desk
    from p2pnerts.lab._render import render

_ON_THE_SCREEN = {
    "create_application": "_app",
    "run_lab": "_app",
    "Desk": "_desk",
    "render": "_render",
}


def __getattr__(name: str) -> Any:
    module = _ON_THE_SCREEN.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


__all__ = [
    "DEFAULT_SPEED",
    "LESSONS",
    "MAX_PEERS",
    "SPEEDS",
    "Action",
    "Chronicle",
    "Desk",
    "Kind",
    "Lab",
    "Lesson",
    "Line",
    "Mark",
    "Note",
    "Race",
    "SeatView",
    "Table",
    "create_application",
    "exported",
    "lesson_named",
    "lesson_names",
    "race_of",
    "render",
    "run_lab",
]
