"""The round in play at one seat: the public and private tables, and its one hand.

The *public* table is what every replica agrees on, every face-down card hidden; the
*private* table is the same with this seat's own deck known. What the player sees, the
*display*, is the private table with their own plays still in the air applied on top; it
is worked out again only after one of those two changes (a cache with one owner).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from p2pnerts.protocol._messages import Play, Ready
from p2pnerts.rules import Card, IllegalMove, Move, State, apply


@dataclass(frozen=True, slots=True)
class Disk:
    """What a peer keeps on disk to come back after a crash: its current deck."""

    round: int = 0
    order: tuple[Card, ...] = ()
    salt: bytes = b""
    view: int = 0
    """The last view it was in: Rejoin messages older than the view it joined are stale."""


@dataclass(slots=True)
class Round:
    """What a replica keeps about one round until its audit is done."""

    number: int
    order: tuple[Card, ...] = ()
    salt: bytes = b""
    readies: dict[int, Ready] = field(default_factory=dict)
    shown: dict[int, tuple[Card, ...]] = field(default_factory=dict)
    """The cards each deck dealt face up, by deck."""
    log: list[tuple[Move, bool]] = field(default_factory=list)
    reveals: dict[int, tuple[bytes, tuple[Card, ...]]] = field(default_factory=dict)
    ended: bool = False
    audited: bool = False
    dealers: dict[int, int] = field(default_factory=dict)
    """Per deck dealt in, the seat whose Ready deals it: the first of the deck's seats to
    have its Ready committed (a team deals one deck; `shown` and the audit go by deck)."""
    spare: tuple[tuple[Card, ...], bytes] | None = None
    """A team member's own shuffle, kept in case the teammate who deals drops out first."""
    participants: frozenset[int] = frozenset()
    """The seats at the table when the round's first Ready committed: play starts once
    each of them still seated has its Ready committed."""


class InPlay:
    """The round on the table at this seat, with the plays this seat has in the air."""

    def __init__(self, number: int = 0) -> None:
        self.number = number
        """The round on the table (0 before the first is dealt in)."""
        self.public: State | None = None
        self._private: State | None = None
        self._mine: list[Play] = []
        self._hand: Play | None = None
        self.placed: dict[int, tuple[int, int]] = {}
        """Per foundation, the seat and clock of the play that last put a card there."""
        self._display: State | None = None

    def begin(self, number: int, public: State, private: State) -> None:
        """Deal round ``number`` in: every foundation empty."""
        self.number, self.placed = number, {}
        self.public, self.private = public, private

    @property
    def private(self) -> State | None:
        return self._private

    @private.setter
    def private(self, state: State | None) -> None:
        self._private, self._display = state, None

    @property
    def mine(self) -> Sequence[Play]:
        """This seat's plays sent and not yet committed, in the order sent."""
        return self._mine

    @property
    def hand(self) -> Play | None:
        """This seat's play that holds its one hand: its next move waits for it."""
        return self._hand

    def throw(self, play: Play, *, holds_hand: bool) -> None:
        """A play of this seat's goes into the air (holding its one hand, if it must)."""
        self._mine.append(play)
        if holds_hand:
            self._hand = play
        self._display = None

    def come_down(self, play: Play) -> None:
        """A play of this seat's has committed: it is in the air no more."""
        if play in self._mine:
            self._mine.remove(play)
            self._display = None
        if self._hand == play:
            self._hand = None

    @property
    def display(self) -> State | None:
        """The table this seat's player sees: committed, plus their own plays in the air."""
        if self._display is None and self._private is not None:
            state = self._private
            for play in self._mine:
                try:
                    state, _ = apply(state, play.move)
                except IllegalMove:
                    continue  # it will be returned when it commits
            self._display = state
        return self._display
