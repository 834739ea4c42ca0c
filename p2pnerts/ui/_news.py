"""The news of the player's own seat coming back: kept a while for the status line, where
the ticker's plays would push it off at once."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from p2pnerts.protocol import Event, RejoinedTable, Returned, ShutOut, SitOut

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
            case RejoinedTable():
                after = "" if self.away is None else f" after {self.away:.1f} s away"
                told = f"You are back in{after}"
            case Returned() | SitOut():
                pass
            case _:
                return
        self.text, self.until = told, self.clock() + NEWS_FOR

    def now(self) -> str:
        """The news, while it is fresh ('' else)."""
        return self.text if self.clock() < self.until else ""
