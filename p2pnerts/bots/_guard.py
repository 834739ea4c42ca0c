"""A policy that fails does not take its seat down: the first exception is told once, with
its traceback, and from then on the seat plays on as stuck.

A bot author's program is a stranger's code running inside the peer. Were its exception
to end the peer, the table would lose a seat at once and silently; stuck, the seat still
answers, takes part in the all-stuck rotation and scores what it has, and its player sees
why.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import dataclass, field

from p2pnerts.bots._policy import Policy
from p2pnerts.rules import DeclareStuck, Move, State


@dataclass(slots=True)
class Guarded:
    """``policy``, as long as it works; after its first exception, a seat that declares
    itself stuck (``warn`` hears what happened, once)."""

    policy: Policy
    warn: Callable[[str], None]
    name: str = "the policy"
    failed: bool = field(default=False, init=False)

    def choose(self, view: State, seat: int) -> Move | None:
        if not self.failed:
            try:
                return self.policy.choose(view, seat)
            except Exception as exc:  # the author's bug, whatever it is
                self.failed = True
                self.warn(self._told(exc))
        stuck = view.ended is not None or view.tableau_of(seat).stuck
        return None if stuck else DeclareStuck(seat)

    def _told(self, exc: Exception) -> str:
        trace = "".join(traceback.format_exception(exc)).rstrip()
        why = f"{self.name} raised {type(exc).__name__}"
        return f"{trace}\n{why}: it plays no more, and the seat plays on as stuck"
