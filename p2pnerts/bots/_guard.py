"""A policy that fails does not take its seat down: the first exception, or the first move
the rules refuse, is told once (an exception with its traceback), and from then on the seat
plays on as stuck.

A bot author's program is a stranger's code running inside the peer. Were its exception
to end the peer, the table would lose a seat at once and silently; stuck, the seat still
answers, takes part in the all-stuck rotation and scores what it has, and its player sees
why.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType

from p2pnerts.bots._policy import Policy
from p2pnerts.rules import DeclareStuck, IllegalMove, Move, State, apply


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
                move = self.policy.choose(view, seat)
            except Exception as exc:  # the author's bug, whatever it is
                self.failed = True
                self.warn(self._told(exc))
            else:
                why = None if move is None else refused(view, seat, move)
                if why is None:
                    return move
                # Else the peer would drop it, and the next like it, and nobody would know.
                self.failed = True
                self.warn(f"{refusal(self.name, self.policy, move, why)}; {PLAYS_ON}")
        stuck = view.ended is not None or view.tableau_of(seat).stuck
        return None if stuck else DeclareStuck(seat)

    def _told(self, exc: Exception) -> str:
        trace = "".join(traceback.format_exception(exc)).rstrip()
        why = f"{self.name} raised {type(exc).__name__}"
        return f"{trace}\n{why}: {PLAYS_ON}"


PLAYS_ON = "it plays no more, and the seat plays on as stuck"


def refusal(name: str, policy: Policy, move: object, why: str) -> str:
    """What to tell the author of ``policy`` (called ``name``) that chose ``move``, which
    the rules refuse for ``why``: where its ``choose`` is written, too (their file, not
    the code that found the move refused)."""
    told = f"{name} chose {move!r}, which the rules refuse: {why}"
    code = getattr(getattr(type(policy), "choose", None), "__code__", None)
    return told if code is None else f"{told} (its choose() is at {written_at(code)})"


def written_at(code: CodeType) -> str:
    """Where ``code`` starts, as FILE:LINE (a path from the working directory when it is
    below it, as an author names their file)."""
    path = Path(code.co_filename)
    with suppress(ValueError):
        path = path.resolve().relative_to(Path.cwd())
    return f"{path}:{code.co_firstlineno}"


def refused(view: State, seat: int, move: Move) -> str | None:
    """Why ``seat`` cannot make ``move`` on ``view``, the table it sees (None if it can):
    a policy's move, checked before it is made."""
    mover = getattr(move, "seat", seat)
    if mover != seat:
        return f"it is a move for seat {mover}, and the policy plays seat {seat}"
    try:
        apply(view, move)
    except IllegalMove as exc:
        return str(exc)
    except Exception as exc:  # not a move at all (a bot author's slip: wrong fields, say)
        return f"it is no move the rules can read ({type(exc).__name__}: {exc})"
    return None
