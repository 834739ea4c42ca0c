"""What a peer counts of the seats coming and going: each membership event with its time,
this seat's own time away, and how long a play of its own waited on a silent seat.

For a teacher or a tester to see what a stall cost without reading every line:
``--stats`` writes `Comings.records`, and the headless summary ends with `Comings.summary`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from p2pnerts.protocol import (
    Event,
    PeerExcluded,
    PeerLeft,
    PeerRecovered,
    PeerRejoined,
    PeerSuspected,
    RejoinedTable,
    Returned,
    ShutOut,
    ViewInstalled,
)
from p2pnerts.words import counted

Entry = dict[str, float | int | str | list[int] | None]
"""One membership event as ``--stats`` writes it."""


@dataclass(slots=True)
class Comings:
    """Seat ``seat``'s membership events since ``started``, and the seats silent now."""

    seat: int
    started: float = 0.0
    records: list[Entry] = field(default_factory=list)
    """Each event: ``at`` (seconds into the match), ``event``, ``seat``, and ``seconds``
    (how long the seat was silent or away, where known) or the view's ``members``."""
    away: list[float] = field(default_factory=list)
    """Each span this seat itself was away (not run), in seconds."""
    _silent: dict[int, float] = field(default_factory=dict)
    """The seats silent now (suspected, still members), and since when."""
    _spans: list[tuple[float, float | None]] = field(default_factory=list)
    """When some seat was silent: from, to (None: still)."""

    def hear(self, event: Event, now: float) -> None:
        """Count ``event`` if it is a seat coming or going, heard at ``now``."""
        match event:
            case PeerSuspected(seat=seat):
                self._note(now, "silent", seat)
                self._silence(seat, now)
            case PeerRecovered(seat=seat, silent_for=silent):
                self._note(now, "heard again", seat, silent)
                self._end_silence(seat, now)
            case PeerExcluded(seat=seat):
                self._note(now, "left out", seat)
                self._end_silence(seat, now)
            case PeerLeft(seat=seat):
                self._note(now, "left", seat)
                self._end_silence(seat, now)
            case PeerRejoined(seat=seat, away_for=away):
                self._note(now, "back", seat, away)
            case ViewInstalled(view=view, members=members):
                entry: Entry = {"at": now - self.started, "event": "view", "view": view}
                self.records.append(entry | {"members": [*members]})
            case ShutOut(away_for=away):
                self._note(now, "left out", self.seat, away)
                self.away += [] if away is None else [away]
                for seat in list(self._silent):  # out, this seat waits on nobody
                    self._end_silence(seat, now)
            case Returned(away_for=away):
                self._note(now, "away", self.seat, away)
                self.away.append(away)
            case RejoinedTable():
                self._note(now, "back", self.seat)

    def _note(self, now: float, what: str, seat: int, seconds: float | None = None) -> None:
        record: Entry = {"at": now - self.started, "event": what, "seat": seat}
        if seconds is not None:
            record["seconds"] = seconds
        self.records.append(record)

    def _silence(self, seat: int, now: float) -> None:
        if not self._silent:
            self._spans.append((now, None))
        self._silent.setdefault(seat, now)

    def _end_silence(self, seat: int, now: float) -> None:
        if self._silent.pop(seat, None) is not None and not self._silent:
            self._spans[-1] = (self._spans[-1][0], now)

    def waited(self, sent: float, landed: float) -> float:
        """How long, between ``sent`` and ``landed``, some seat was silent: the time a play
        sent then waited on a silent seat."""
        spans = ((start, landed if end is None else end) for start, end in self._spans)
        return sum(max(0.0, min(end, landed) - max(start, sent)) for start, end in spans)

    def count(self, what: str) -> int:
        """How many events of one kind (``silent``, ``left out``, ``back``, ``view``...)."""
        return sum(1 for r in self.records if r["event"] == what)

    def summary(self) -> str | None:
        """The counts in one line (``membership: 1 silent, 1 left out, 1 back, 2 views;
        away 5.2 s``), or None if no seat came or went."""
        kinds = ("silent", "heard again", "left out", "back")
        told = [f"{n} {what}" for what in kinds if (n := self.count(what))]
        if self.count("view"):
            told.append(counted(self.count("view"), "view"))
        line = ", ".join(told)
        if self.away:
            line += ("; " if line else "") + f"away {sum(self.away):.1f} s"
        return f"membership: {line}" if line else None
