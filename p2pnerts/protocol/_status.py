"""Where a replica stands, and the time it allows for each thing: shared by its parts."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Status(StrEnum):
    NORMAL = "playing"
    CHANGING = "regrouping after a silent seat"
    OUT = "rejoining"
    LEFT = "left"


@dataclass(frozen=True, slots=True)
class Timing:
    """The replica's tunables, in seconds."""

    ack_delay: float = 0.005
    heartbeat: float = 0.25
    suspect_after: float = 1.0
    exclude_after: float = 2.0
    view_change_timeout: float = 2.0
