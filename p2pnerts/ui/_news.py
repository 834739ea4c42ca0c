"""The news of the player's own seat coming back: kept a while for the status line, where
the ticker's plays would push it off at once; and what the other seats' rows say of them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

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
    SitOut,
    ViewInstalled,
)

NEWS_FOR = 10.0
"""Seconds the news of the player's own seat (away, back, sitting out) stays shown."""


@dataclass(slots=True)
class News:
    """What happened to the player's own seat while it was away, and until when it shows."""

    clock: Callable[[], float]
    text: str = ""
    until: float = 0.0
    away: float | None = None
    """How long the player's own peer last stopped, when it was left out for it."""

    def hear(self, event: Event, told: str) -> None:
        """Keep an event of the player's own seat, told as ``told``."""
        match event:
            case ShutOut(away_for=away):
                self.away = away
            case RejoinedTable(points=None):
                after = "" if self.away is None else f" after {self.away:.1f} s away"
                told = f"You are back in{after}"
            case RejoinedTable() | Returned() | SitOut():  # (back from disk: welcomed as told)
                pass
            case _:
                return
        self.text, self.until = told, self.clock() + NEWS_FOR

    def now(self) -> str:
        """The news, while it is fresh ('' else)."""
        return self.text if self.clock() < self.until else ""


def note_membership(notes: dict[int, str], event: Event) -> None:
    """Keep in ``notes`` what a seat's row says of its membership: silent, left out, back,
    left (a seat that recovers says nothing)."""
    match event:
        case PeerSuspected(seat=seat):
            notes[seat] = "silent"
        case PeerRecovered(seat=seat):
            notes.pop(seat, None)
        case ViewInstalled(members=members):  # (on coming back, no seat recovers)
            for seat in members:
                if notes.get(seat) == "silent":
                    del notes[seat]
        case PeerExcluded(seat=seat):
            notes[seat] = "left out"
        case PeerRejoined(seat=seat, away_for=away):
            notes[seat] = "rejoined" if away is None else f"back {away:.0f}s"
        case PeerLeft(seat=seat):
            notes[seat] = "left"
