"""What a run tells whoever watches it, besides its own checks: the game logs, the lab."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from p2pnerts.protocol import CommitFrame, Event, Message, Replica


class Watcher(Protocol):
    """Told every message a replica sends and receives, every commit frame of a majority's
    table (a Ballot, Tally or Poll: ``to`` one seat, or None for every other seat) and
    each replica after each step it takes (with the events it told in that step), on the
    simulated clock. Each does nothing here: a watcher that subclasses this one takes only
    what it needs."""

    def sent(self, seat: int, message: Message, now: float) -> None:
        return None

    def arrived(self, src: int, dst: int, message: Message, now: float) -> None:
        return None

    def framed(self, seat: int, frame: CommitFrame, to: int | None, now: float) -> None:
        return None

    def frame_arrived(self, src: int, dst: int, frame: CommitFrame, now: float) -> None:
        return None

    def stepped(self, seat: int, replica: Replica, events: Sequence[Event], now: float) -> None:
        return None
