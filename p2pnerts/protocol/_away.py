"""This seat's own absences, and the rounds it has told: what a seat back from a stall
needs to tell its player, and no more than once.

Theory of operation
-------------------
A replica is fed the time with every input, and the program driving it calls `tick` by
`next_deadline`, never more than a heartbeat apart. When the time between two inputs is
far longer (`Away.gap`), this replica itself was not run: its process was stopped, its
machine slept (a closed lid). The others' silence in that time is not theirs, so it is
not counted against them (`Liveness.excuse`): a seat back from a stall blames nobody.
A stall long enough for the others to notice is *pending* until the table answers it:
the others left this seat out (`ShutOut` carries the time away), or one of them
acknowledges, in this view, a message this seat sent on its return (`Returned`).

A replica that comes back in is rebuilt from the StartView: it learns the points of the
rounds that ended while it was out (`RoundMissed`), and replays the round in play from
its first Ready. `Record` marks what it told before as told ``again``, and says when the
seat sits out a round dealt while it was away (`SitOut`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from p2pnerts.protocol._events import Event, RoundMissed, RoundOver, RoundStarted, SitOut
from p2pnerts.protocol._messages import Ack
from p2pnerts.protocol._status import Timing


class Away:
    """When this replica last ran, and a stall of its own the table has not answered yet."""

    def __init__(self, timing: Timing, now: float) -> None:
        self._timing = timing
        self.last = now
        """The time of the latest input."""
        self.pending: tuple[float, int] | None = None
        """A stall the others may have noticed: how long, and the first sequence number
        this seat sent after it."""

    def gap(self, now: float) -> float:
        """The time since the last input when it is far longer than a heartbeat (this
        replica was not run); 0.0 otherwise."""
        gap, self.last = now - self.last, max(self.last, now)
        return gap if gap > 2 * self._timing.heartbeat else 0.0

    def noticed(self, gap: float, next_seq: int) -> None:
        """Keep a stall of ``gap`` seconds as pending if the others may have noticed it
        (it lasted as long as they wait to suspect a seat)."""
        if gap >= self._timing.suspect_after:
            self.pending = (gap, next_seq)

    def take(self) -> float | None:
        """The pending stall's length, if one is pending (it is answered now)."""
        pending, self.pending = self.pending, None
        return None if pending is None else pending[0]

    def kept_in(self, ack: Ack, seat: int, view: int) -> float | None:
        """The pending stall's length if ``ack`` shows the others kept this seat in: sent in
        this view, it holds a message this seat sent on its return."""
        pending = self.pending
        if pending is None or ack.view != view or ack.have[seat] < pending[1]:
            return None
        return self.take()


class Record:
    """The rounds this replica has told started and over, so that none is told twice."""

    def __init__(self, deck: int) -> None:
        self._deck = deck
        self.started = 0
        """The last round told started."""
        self.over = 0
        """The last round told over."""
        self._back = False
        """Back in, and not yet told whether it plays the round in play."""

    def rejoined(self, scores: Sequence[tuple[int, ...]]) -> list[Event]:
        """This replica came back in, the match so far being ``scores``: the rounds among
        them it never told over."""
        self._back = True
        missed: list[Event] = [RoundMissed(n, p) for n, p in enumerate(scores, 1) if n > self.over]
        self.over = max(self.over, len(scores))
        return missed

    def tell(self, events: Sequence[Event]) -> list[Event]:
        """``events`` as this replica tells them: a round's start or end told before marked
        ``again``; after a round's start that does not deal this seat in, back from a
        stall, that it sits the round out (unless the round ends at once: it learns of a
        round played while it was away)."""
        told: list[Event] = []
        for event in events:
            match event:
                case RoundStarted(round=number, dealt=dealt):
                    told.append(replace(event, again=True) if number <= self.started else event)
                    self.started = max(self.started, number)
                    if self._back and self._deck not in dealt:
                        told.append(SitOut(number))
                    self._back = False
                case RoundOver(round=number):
                    told.append(replace(event, again=True) if number <= self.over else event)
                    self.over = max(self.over, number)
                case _:
                    told.append(event)
        ended = {e.round for e in told if isinstance(e, RoundOver)}
        return [e for e in told if not (isinstance(e, SitOut) and e.round in ended)]
