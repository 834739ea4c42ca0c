"""Being out and coming back, at one seat: this seat's own requests to rejoin while it is
out, the other seats asking to rejoin, and the messages held back from a view this
replica has not installed (yet). See `_membership.py` for the theory."""

from __future__ import annotations

from typing import Protocol

from p2pnerts.protocol._acks import Acks
from p2pnerts.protocol._checks import Gate
from p2pnerts.protocol._inplay import Disk
from p2pnerts.protocol._messages import Message, Rejoin
from p2pnerts.protocol._outbox import Outbox
from p2pnerts.protocol._status import Timing

STASH_LIMIT = 100_000
"""Messages from views not yet installed that a replica holds back, at most."""


class _Replica(Protocol):
    acks: Acks
    outbox: Outbox
    gate: Gate

    @property
    def disk(self) -> Disk: ...
    def receive(self, message: Message, now: float) -> None: ...


class Membership(Protocol):
    """What rejoining reads of the membership (`_membership.Membership`)."""

    seat: int
    timing: Timing
    view: int
    members: frozenset[int]

    @property
    def host(self) -> _Replica: ...


class Rejoining:
    """Requests to rejoin, this seat's and the others', and the messages held back."""

    def __init__(self, membership: Membership) -> None:
        self._m = membership
        self.asking: dict[int, tuple[float, int]] = {}
        """Seats asking to rejoin: when they last asked, and the view they asked from."""
        self._stash: list[Message] = []
        self.stash_since: float | None = None
        """Since when a member's message from a newer view has been held back, if one is."""

    # --- this seat, out ----------------------------------------------------------------------

    def ask(self, now: float) -> None:
        """Ask to be let back in, saying which round's deck this seat still holds."""
        host, m = self._m.host, self._m
        clock = max(host.acks.clock, 1)
        host.outbox.push(Rejoin(m.seat, m.view, clock, 1, host.disk.round), now, keep=False)

    def tick_out(self, now: float) -> None:
        """Ask again once a heartbeat's time has passed without a word from this seat."""
        if self._m.host.outbox.quiet_for(now) >= self._m.timing.heartbeat:
            self.ask(now)

    # --- the others asking -------------------------------------------------------------------

    def note(self, rejoin: Rejoin, now: float) -> None:
        """A seat asks to rejoin from its view."""
        self.asking[rejoin.sender] = (now, rejoin.view)

    def fresh(self, now: float) -> set[int]:
        """The seats that asked to rejoin lately enough to be let in."""
        recent = self._m.timing.exclude_after
        return {s for s, (t, _) in self.asking.items() if now - t <= recent}

    # --- held back ---------------------------------------------------------------------------

    def hold_back(self, message: Message, now: float) -> None:
        """Keep a message from a view not installed here, to take once it is."""
        if len(self._stash) < STASH_LIMIT:
            self._stash.append(message)
        if self.stash_since is None and message.sender in self._m.members:
            # Only a member of this view going on in a newer one shows that this replica
            # was left behind: a seat outside it may be stuck in a view that never got
            # going (a sibling of this one's, say), and is no reason to leave.
            self.stash_since = now

    def holds_from(self, sender: int) -> bool:
        """Whether a message of ``sender``'s is held back (FIFO: later ones wait behind it)."""
        return any(m.sender == sender for m in self._stash)

    def left_behind(self, now: float) -> bool:
        """Whether a member has gone on in a newer view for too long to wait for it here."""
        since = self.stash_since
        return since is not None and now - since >= self._m.timing.view_change_timeout

    def deadline(self) -> float:
        """When `left_behind` turns true, if it may."""
        if self.stash_since is None:
            return float("inf")
        return self.stash_since + self._m.timing.view_change_timeout

    def replay(self, now: float) -> None:
        """Take, now that a view is installed, what was held back for it (and hold back
        again what is for a later one)."""
        stash, self._stash, self.stash_since = self._stash, [], None
        host = self._m.host
        for message in stash:
            if host.gate.refuses(message.sender):
                continue  # its sender broke the protocol since
            if message.view <= self._m.view:
                host.receive(message, now)
            else:
                self.hold_back(message, now)
