"""What the parts of a replica read and drive of what holds them, each field named once:
the replica itself (`Host`), and, for the membership's own parts, the membership
(`Membership`). A part's own protocol extends one of these with what that part alone
reads, so that a field the parts share is declared here and nowhere else."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Protocol

from p2pnerts.protocol import _deal
from p2pnerts.protocol._acks import Acks
from p2pnerts.protocol._checks import Gate
from p2pnerts.protocol._events import Event
from p2pnerts.protocol._log import Log
from p2pnerts.protocol._messages import Message, Ordered, ViewChange
from p2pnerts.protocol._outbox import Outbox
from p2pnerts.protocol._rounds import Disk
from p2pnerts.protocol._signing import Signer
from p2pnerts.protocol._status import Status, Timing
from p2pnerts.rules import TableOptions


class Host(Protocol):
    """What the parts read and drive of the replica that holds them: the table's seats and
    this seat's place, the match's scores and how each deck is shuffled, the parts they
    all reach (the clock and who holds what, the log, the outbox, the gate, the signer and
    the disk), the events it tells, and how it sends and takes in a message."""

    seat: int
    players: int
    options: TableOptions
    seats: tuple[int, ...]
    deck: int
    team: tuple[int, ...]
    events: list[Event]
    match_scores: list[tuple[int, ...]]
    shuffle: _deal.Shuffle
    acks: Acks
    log: Log
    outbox: Outbox
    gate: Gate
    signer: Signer
    by_majority: bool
    """Whether this table commits by a majority (`_majority`): it changes members from
    what each seat holds (`_handover`), and starts its digest again in each view."""

    @property
    def status(self) -> Status: ...
    @property
    def view(self) -> int: ...
    @property
    def members(self) -> frozenset[int]: ...
    @property
    def seated(self) -> frozenset[int]: ...
    @property
    def disk(self) -> Disk: ...
    def send(self, now: float, build: Callable[[int, int], Message]) -> Message: ...
    def receive(self, message: Message, now: float) -> None: ...
    def holding(self) -> tuple[bytes, list[bytes]]: ...
    def overfull(self, now: float) -> bool: ...
    def open_since(self) -> float: ...
    def handover(
        self,
        votes: Sequence[ViewChange],
        members: Sequence[int],
        joined: Sequence[int],
        now: float,
    ) -> tuple[int, list[Ordered]] | None: ...


class Membership(Protocol):
    """What the membership's parts (`Election`, `Liveness`, `Rejoining`) read of the
    membership that holds them (`_membership.Membership`): this seat, the time it allows,
    the view and its members, and the replica it serves."""

    seat: int
    timing: Timing
    view: int
    members: frozenset[int]

    @property
    def host(self) -> Host: ...
    def quorums_now(self) -> tuple[tuple[int, frozenset[int]], ...]: ...
    def majorities(self, seats: Collection[int]) -> bool: ...
