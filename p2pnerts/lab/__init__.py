"""The classroom lab: one seed's simulated table, stepped forward and back by a teacher.

`Lab` is the model (the run, its steps and the teacher's faults: no IO); `Desk` the
teacher's controls over it; `render` draws a desk; `run_lab` runs it on the terminal.
"""

from p2pnerts.lab._app import create_application, run_lab
from p2pnerts.lab._chronicle import Chronicle, Kind, Line, Mark, Note
from p2pnerts.lab._desk import DEFAULT_SPEED, SPEEDS, Desk
from p2pnerts.lab._lessons import LESSONS, Lesson, lesson_named, lesson_names
from p2pnerts.lab._model import MAX_PEERS, Action, Lab, SeatView, Table
from p2pnerts.lab._render import render

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
    "SeatView",
    "Table",
    "create_application",
    "lesson_named",
    "lesson_names",
    "render",
    "run_lab",
]
