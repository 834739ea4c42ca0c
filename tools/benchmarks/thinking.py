"""A bot policy for ``python tools/bench.py net --thinking MS``: the expert's moves, each
after MS milliseconds of CPU (``P2PNERTS_THINK_MS``), as a search that uses its level's
budget would take. Not for play: the benchmark loads it with ``bot --policy``."""

from __future__ import annotations

import os
import time

from p2pnerts.bots import ExpertBot
from p2pnerts.rules import Move, State

THINK_MS = "P2PNERTS_THINK_MS"
"""The environment variable that says how long each choice thinks, in milliseconds."""


class Thinking:
    """The expert, thinking ``P2PNERTS_THINK_MS`` ms of CPU before each move."""

    def __init__(self) -> None:
        self._expert = ExpertBot()
        self._think = float(os.environ.get(THINK_MS, "0")) / 1000

    def choose(self, view: State, seat: int) -> Move | None:
        end = time.process_time() + self._think
        while time.process_time() < end:
            pass
        return self._expert.choose(view, seat)
