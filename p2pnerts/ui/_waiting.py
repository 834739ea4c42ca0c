"""Whom the table waits for, and why, in words for the screen's status line.

A table of people waits: for everyone to say they are ready, for a countdown, for a
silent seat to come back. The screen always says which, from the model's snapshot of the
peer (`waiting`). A stuck player waits too, for the players who are not stuck yet
(`stuck_line`), but may play on meanwhile. `seat_note` says what each opponent's row shows
of them (silent, left, idle...).
"""

from __future__ import annotations

import math

from p2pnerts.protocol import Status
from p2pnerts.ui._model import TableModel
from p2pnerts.words import together


def waiting(model: TableModel) -> str:
    """Whom the table waits for now and why, or '' when it waits for nobody."""
    snap = model.snap
    if snap.over:
        return f"The match ended: {snap.ended}. q quits" if snap.ended else ""
    if snap.forsaken:
        return _forsaken(snap.forsaken)
    if snap.stranded:
        return _stranded(model)
    if snap.status == Status.OUT:
        return "The others went on without you: asking to rejoin…"
    if snap.status != Status.NORMAL:
        silent = [s for s, live in enumerate(snap.liveness) if live.suspected]
        return f"The table is {snap.status}" + (f": {_names(model, silent)}" if silent else "")
    if snap.starts_in > 0:
        return f"Round {model.round_number} starts in {math.ceil(snap.starts_in)} s…"
    if not model.playing:
        return _unready(model)
    return ""


def seat_note(model: TableModel, seat: int) -> str:
    """What a seat's row says of it: membership news, else idle, else ''."""
    note = model.notes.get(seat)
    if note:
        return note
    idle = _idle_for(model, seat)
    return f"idle {idle:.0f}s" if idle else ""


def _idle_for(model: TableModel, seat: int) -> float:
    """For how long ``seat`` has been shown as idle (0: it is not)."""
    idle = model.snap.idle
    return idle[seat] if seat < len(idle) else 0.0


def _forsaken(quiet: float) -> str:
    since = f"{quiet / 60:.0f} min" if quiet >= 90 else f"{quiet:.0f} s"
    return f"Nobody has answered for {since}: the table ended or went on · e ends the match here"


def _stranded(model: TableModel) -> str:
    snap = model.snap
    gone = _names(model, snap.stranded)
    here = sum(1 for live in snap.liveness if live.member and not live.suspected)
    members = sum(1 for live in snap.liveness if live.member)
    # The seats still heard cannot leave a silent one out: they are no majority.
    majority = f"{here} of {members} is no majority"
    return f"Waiting for {gone} to come back ({majority}) · e ends the match here"


def _unready(model: TableModel) -> str:
    unready = model.snap.unready
    others = [s for s in unready if model.seating[s] != model.deck]  # (a team is ready as one)
    what = "the first round" if model.round_number == 0 else "the next round"
    if model.seat in unready and not model.ready:
        also = f" ({_names(model, others)} not yet)" if others else ""
        return f"Enter when you are ready for {what}{also}"
    if others:
        return f"Waiting for {_names(model, others)} to be ready for {what}"
    return ""


def stuck_line(model: TableModel) -> str:
    """While this player is stuck: whom the rotation (or the round's end) waits for.

    Not a wait of the table's (`waiting`): a stuck player may still play, so what they
    select and why a move is refused go before it on the status line."""
    state = model.snap.display
    if state is None or not model.playing or not model.stuck:
        return ""  # (a tableau stays stuck on the screen after the round's end)
    # Back from a while away, a person learns why their tableau counts as stuck.
    own = _idle_for(model, model.seat)
    if model.snap.stuck_while_away:
        stuck = "You were counted as stuck while away"
    elif own or model.snap.stuck_for_idle:  # (declared by its peer, not by the player)
        stuck = f"No move for {own:.0f} s, so stuck" if own else "Idle, so stuck"
    else:
        stuck = "Stuck, yet a play is open" if model.snap.turns_though_stuck else "You are stuck"
    if model.snap.turns_though_stuck:
        return f"{stuck}: turn your stock or play a card to go on"
    playing = [s for s in range(len(model.names)) if not state.tableau_of(s).stuck]
    if not playing:
        return ""
    idle = [seat_note(model, s) for s in playing]
    why = ", ".join(f"{model.names[s]} {n}" for s, n in zip(playing, idle, strict=True) if n)
    return f"{stuck}: play a card to go on, or wait for {_names(model, playing)}" + (
        f" ({why})" if why else ""
    )


def _names(model: TableModel, seats: tuple[int, ...] | list[int]) -> str:
    return together(["you" if s == model.seat else model.names[s] for s in seats])
