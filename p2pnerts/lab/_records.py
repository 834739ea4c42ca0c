"""What the lab's chronicle records (`_chronicle.Chronicle`): the lines of the time-space
diagram (`Line`, each with its `Mark`), the notes a teacher points at (`Note`, of a
`Kind`), and, at a majority's table, each play's first Tally (`Count`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from p2pnerts.protocol import quorum

Key = tuple[int, int, int]
"""An ordering key (§4.3): clock, call, rank."""


class Mark(Enum):
    """What a line of the time-space diagram shows, on one lane or between two: each has
    its own glyph on the screen, and one meaning (the legend names each once)."""

    SEND = "send"
    ARRIVE = "arrive"
    COMMIT = "commit"
    BACK = "back"
    """A play's card sent back where it came from."""
    TIE = "tie"
    """Two plays with equal clocks for one spot, both cards staying (both-stay)."""
    NEWS = "news"
    FAULT = "fault"
    """A fault struck or lifted, by the lesson's script or by the teacher's key."""


@dataclass(frozen=True, slots=True)
class Line:
    """One line of the diagram: at ``seat``'s lane (from ``src``'s for an arrival)."""

    step: int
    time: float
    mark: Mark
    seat: int
    text: str
    src: int = -1
    quiet: bool = False
    """An Ack (a heartbeat, too): shown dim, and hidden when Acks are."""
    alert: bool = False


class Kind(Enum):
    """What a note is about: the points the lessons make."""

    RACE = "race"
    TIE = "tie"
    NERTS = "nerts"
    SUSPECT = "suspect"
    VIEW = "view"
    REJOIN = "rejoin"
    ROUND = "round"
    FAULT = "fault"
    LATE = "late"
    """A play a quorum voted late at a majority's table: it comes back."""
    HICCUP = "hiccup"
    """A silent member heard again before it was left out."""


@dataclass(frozen=True, slots=True)
class Note:
    """Something worth pointing at, with the reason the order gives."""

    step: int
    time: float
    kind: Kind
    text: str
    reason: str = ""
    seats: tuple[int, ...] = ()
    keys: tuple[Key, ...] = ()
    """The ordering keys of the plays it is about."""


@dataclass(frozen=True, slots=True)
class Count:
    """A play's first Tally at a majority's table: its counter's word on the play."""

    seat: int
    """The play's sender."""
    clock: int
    ok: bool
    """Decided in; else returned (voted late)."""
    votes: tuple[tuple[int, bool], ...]
    """The votes it rests on, each a voter and for (True) or late; in, the sender's own
    (the play itself) among them."""
    members: tuple[int, ...]
    """The members of the view it was counted in."""
    counter: int
    step: int

    @property
    def voters(self) -> tuple[int, ...]:
        return tuple(sorted(voter for voter, _ in self.votes))

    @property
    def quorum(self) -> int:
        """The votes for a play that decide it in (`SPEC.md`, "The commit frames"): more
        than half the members, one more at an odd table; all of them below three."""
        return quorum(len(self.members))

    def words(self) -> str:
        """The Tally in a few words: 'seat 2's L=503 in: for 1 2 3 (quorum 3 of 4),
        without seat 4'."""
        what = f"seat {self.seat + 1}'s L={self.clock}"
        backed = sorted(v for v, ok in self.votes if ok)
        late = sorted(v for v, ok in self.votes if not ok)
        quorum = f"quorum {self.quorum} of {len(self.members)}"
        if self.ok:
            told = f"{what} in: for {seat_list(backed)} ({quorum})"
        else:
            told = f"{what} back: late {seat_list(late)}" + (
                f", for {seat_list(backed)}" if backed else ""
            )
            told += f" (no quorum of {self.quorum} can vote for it now)"
        without = [m for m in self.members if m not in self.voters and m != self.seat]
        return told + (f", without seat {seat_list(without)}" if without else "")


def key_words(key: Key) -> str:
    """An ordering key as the screen writes it: (421,0,0)."""
    return f"({key[0]},{key[1]},{key[2]})"


def seat_list(seats: Sequence[int]) -> str:
    """Seats as the notes list them, numbered from 1: '1 2 4'."""
    return " ".join(str(s + 1) for s in seats)
