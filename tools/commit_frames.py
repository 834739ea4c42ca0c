"""The frames of the study's commit rules (`commit_rules`): what each is, what it costs in
bytes, and what a rule's run counts of them (`Result`)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import msgpack

from p2pnerts.protocol._spots import PlayId, Vote

SIGNATURE = 2 + 64
"""An Ed25519 signature as the codec packs it (a bin of 64 bytes)."""


@dataclass(frozen=True, slots=True)
class Sizes:
    """Bytes of each kind of frame at a table (from the codec; see `commit_study.sizes`)."""

    play: int
    ack: int
    heartbeat: int
    small: int
    """A frame that names one play (a vote, a request): a header and a witness."""

    def of(self, frame: Frame) -> int:
        """A frame's bytes: a heartbeat's carries a `have` already, as a stability's and an
        outcome's do; a vote for a play adds its voter's `have`; and what it carries."""
        match frame.kind:
            case "play":
                size = self.play
            case "ack":
                size = self.ack
            case "heartbeat" | "stable" | "outcome":
                size = self.heartbeat
            case _:
                size = self.small + (len(msgpack.packb(frame.have)) if frame.have else 0)
        return size + frame.carried


def carried(vote: Vote) -> int:
    """A signed vote's bytes as an outcome carries it (its play and witness said once, by
    the outcome): its voter, for or late, what it names and its signature."""
    return len(msgpack.packb([vote.voter, vote.ok, list(vote.below)])) + SIGNATURE


@dataclass(frozen=True, slots=True)
class Frame:
    kind: str
    src: int
    clock: int
    plays_sent: int
    """How many plays the sender had sent with this frame (the FIFO prerequisite)."""
    play: PlayId | None = None
    have: tuple[int, ...] = ()
    """An Ack's or a stability's `have`, a vote's, or an outcome's `below`."""
    ok: bool = True
    carried: int = 0
    """Bytes it carries besides: a signature, or the signed votes an outcome rests on."""


@dataclass
class Result:
    """One rule's run: commit latency of each seat's own plays, and frames sent."""

    latencies: dict[int, list[float]] = field(default_factory=dict)
    returned: Counter[int] = field(default_factory=Counter)
    sent: Counter[int] = field(default_factory=Counter)
    frames: Counter[str] = field(default_factory=Counter)
    bytes: Counter[str] = field(default_factory=Counter)
    handled: int = 0
    plays: int = 0
    conflicts: int = 0
    misordered: int = 0

    def unfinished(self, seat: int) -> int:
        """``seat``'s plays that neither committed nor returned there by the end."""
        return self.sent[seat] - len(self.latencies.get(seat, ()))
