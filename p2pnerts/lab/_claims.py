"""What a lesson claims, checked from its run's messages alone.

A lesson's run is played again with every seat writing its game log (as ``sim --log``
does), up to a step; `p2pnerts.logs.trace` merges the logs into one causal history in
which every event carries its vector clock. A race is then read from the two plays'
messages, not from the simulator's insides: whether the plays are concurrent (neither
send happened before the other: neither sender had heard, directly or through others, of
the other's play when it played) and in which order each seat had them (its own play
when it sent it, the other's when it arrived). A race the protocol exists for is
concurrent, and the seats have the plays in different orders, yet every replica commits
them in one order: that of their keys.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from p2pnerts.lab._model import Action, Lab, Table
from p2pnerts.lab._records import Kind, Note
from p2pnerts.logs import Trace, TraceEvent, trace

PlayId = tuple[int, int]
"""A play by its sender's seat (from 0) and its Lamport clock."""


@dataclass(frozen=True, slots=True)
class Race:
    """Two plays for one spot, as their messages show them."""

    first: PlayId
    """The play the agreed order put first (its card stays)."""
    second: PlayId
    concurrent: bool
    """Neither play's send happened before the other's (by their vector clocks)."""
    known: bool
    """The first play's send happened before the second's: the second's sender had heard
    of it, directly or through others, when it sent its own."""
    seen: dict[int, tuple[int, int]]
    """Per seat that had both plays, their senders in the order the seat had them."""

    @property
    def orders(self) -> set[tuple[int, int]]:
        """The different orders the seats had the two plays in."""
        return set(self.seen.values())


def exported(
    table: Table, script: Iterable[tuple[int, Action]], step: int, directory: Path
) -> tuple[Lab, Trace]:
    """The run of ``table`` and ``script`` played to ``step`` with every seat's game log
    written in ``directory``, and those logs traced together."""
    lab = Lab(replace(table, log=str(directory)), script)
    lab.goto(step)
    assert lab.sim.logs is not None
    lab.sim.logs.close()
    return lab, trace(sorted(directory.glob("*.p2plog")))


def race_of(note: Note, history: Trace) -> Race:
    """The two plays ``note`` points at, from ``history``: a race or a tie (the one the
    order put first, then the other), or a play and the Nerts call it met (the play
    first, then the call)."""
    if note.kind not in (Kind.RACE, Kind.TIE, Kind.NERTS) or len(note.keys) != 2:
        raise ValueError(f"a {note.kind.value} note is about no two plays")
    first, second = ((seat, key[0]) for seat, key in zip(note.seats, note.keys, strict=True))
    sends = ((first[0], _send(history, first)), (second[0], _send(history, second)))
    a, b = (send.clock for _, send in sends)
    seen: dict[int, tuple[int, int]] = {}
    for seat in range(len(history.hosts)):
        order = _had(history, seat, sends)
        if order is not None:
            seen[seat] = order
    return Race(first, second, not (_before(a, b) or _before(b, a)), _before(a, b), seen)


def _host(history: Trace, seat: int) -> str:
    return next(host for host in history.hosts if host.startswith(f"s{seat + 1}-"))


def _send(history: Trace, play: PlayId) -> TraceEvent:
    """The first send of ``play``'s frame."""
    host, text = _host(history, play[0]), f"send Play L={play[1]} "
    for event in history.events:
        if event.host == host and event.kind == "send" and event.text.startswith(text):
            return event
    raise ValueError(f"no log holds seat {play[0] + 1}'s Play L={play[1]}")


def _had(
    history: Trace, seat: int, sends: tuple[tuple[int, TraceEvent], tuple[int, TraceEvent]]
) -> tuple[int, int] | None:
    """The senders of ``sends`` (each a sender's seat and its send) in the order ``seat``
    had them (its own when it sent it, another's when it first arrived); None unless it
    had both."""
    host = _host(history, seat)
    had: list[int] = []
    for event in history.events:
        if event.host != host:
            continue
        for sender, send in sends:
            if sender in had:
                continue
            if event is send or (event.kind == "receive" and event.frame == send.frame):
                had.append(sender)
    return (had[0], had[1]) if len(had) == 2 else None


def _before(a: dict[str, int], b: dict[str, int]) -> bool:
    """Whether the event with vector clock ``a`` happened before the one with ``b``."""
    return a != b and all(count <= b.get(host, 0) for host, count in a.items())
