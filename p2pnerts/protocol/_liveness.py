"""Who holds the table up, at one seat: members not heard for a while, and members that
talk on but acknowledge nothing new while the first message of the order waits for them.

A member silent for `Timing.suspect_after` is *suspected* (the screen says who is away);
one silent — or stalling — for `Timing.exclude_after` is *holding the table up*, and the
view change leaves it out (`Election`). A member *stalls* while every Ack it has sent since
some time claimed no other seat's message beyond what its Acks claimed before, and the
first pending message waits for its acknowledgement (SPEC §6.2): a seat that heartbeats
but never acknowledges can then no longer stop every commit. A member that lacks only
that message, its link to the sender down, still acknowledges the others' heartbeats.
At a table that commits by a majority no commit waits for an Ack, but every seat holds
each play until every member has said it passed it in the canonical order: there a member
stalls while every Ack and Tally of its own that it has sent since some time said it had
passed less than this seat had `Timing.passed_within` before (`Majority.lags`), and no
member was silent meanwhile (one that lacks a silent member's word may not pass it).
A stall is talk: a silence ends one, and a member is *seen* to stall only for as long as
it was heard stalling (`stalling`), so that a link that goes down, or a burst of what
waited on it, is told as silence, never as a seat that will not acknowledge.
"""

from __future__ import annotations

from p2pnerts.protocol._events import PeerRecovered, PeerSuspected
from p2pnerts.protocol._host import Membership
from p2pnerts.protocol._log import Pending
from p2pnerts.protocol._messages import Ack, CommitFrame, Message, Tally
from p2pnerts.protocol._status import NEVER


class Liveness:
    """When each seat was last heard, and whether its Acks still move."""

    def __init__(self, membership: Membership, players: int, now: float) -> None:
        self._m = membership
        self.heard = [now] * players
        """Per seat, when this replica last heard from it."""
        self.suspected: set[int] = set()
        """The members silent for a while (still members)."""
        self.since: dict[int, float] = {}
        """Per seat away (suspected, left out, or asking to rejoin having lost its state),
        when it was last heard before: how long it was away is told when it is back."""
        self.back_at = [now] * players
        """Per seat, when this replica last heard from it after a silence of at least
        `Timing.suspect_after` (or began to listen)."""
        self.stale_since: list[float | None] = [None] * players
        """Per seat, since when its Acks have claimed nothing new, if they have not."""
        self._head: Pending | None = None
        self._head_since = now
        """Since when the first message of the order has waited to commit."""
        self.withheld: dict[int, float] = {}
        """Per member whose deck's Reveal the next deal waits for, none of it held here,
        since when (`watch_reveals`)."""

    def hear(self, message: Message | CommitFrame, now: float, *, stale: bool) -> None:
        """A message (or a commit frame) came from its sender: heard now, and no longer
        suspected.
        ``stale``: it is an Ack that claims no more of the other seats' messages than its
        sender's last did (`Acks.accept`), or at a majority's table an Ack or a Tally of
        its own that says it passed too little (`Majority.lags`): the sender may be
        stalling."""
        seat = message.sender
        last, self.heard[seat] = self.heard[seat], now
        if now - last >= self._m.timing.suspect_after:
            # Silent in between: a stall is talk that acknowledges nothing, and this was
            # none (a link down, and what waited on it all arrives now): count it afresh.
            self.stale_since[seat] = None
            self.back_at[seat] = now
        if isinstance(message, Ack | Tally):
            if stale and self._m.host.by_majority and self.suspected & self._m.members:
                stale = False  # (it may wait on a silent member's word to pass a play)
            if not stale:
                self.stale_since[seat] = None
            elif self.stale_since[seat] is None:
                self.stale_since[seat] = now
        if seat in self.suspected:
            self.suspected.discard(seat)
            self.since.pop(seat, None)
            self._m.host.events.append(PeerRecovered(seat, now - last))

    def forget(self, seat: int) -> None:
        """A seat (re)joins: heard as lately as anyone, its Acks fresh, not suspected."""
        self.heard[seat] = self.back_at[seat] = max(self.heard)
        self.stale_since[seat] = None
        self.suspected.discard(seat)

    def restart(self, now: float) -> None:
        """This replica comes back into a view: every seat heard now."""
        self.heard = [now] * len(self.heard)
        self.back_at = [now] * len(self.heard)
        self.stale_since = [None] * len(self.heard)
        self.suspected.clear()
        self.since.clear()

    def excuse(self, seconds: float) -> None:
        """This replica was not run for ``seconds``: count none of that time against the
        others (their silence in it, their Acks that claimed nothing new, the first
        message's wait), as if it had not passed."""
        self.heard = [t + seconds for t in self.heard]
        self.back_at = [t + seconds for t in self.back_at]
        self.stale_since = [None if t is None else t + seconds for t in self.stale_since]
        self._head_since += seconds
        self.withheld = {s: t + seconds for s, t in self.withheld.items()}

    def away(self, seat: int) -> None:
        """``seat`` is away from now (left out, or lost its state): keep when it was last
        heard, unless it was already away."""
        self.since.setdefault(seat, self.heard[seat])

    def back(self, seat: int, now: float) -> float | None:
        """``seat`` is back: for how long it was away, if that is known."""
        since = self.since.pop(seat, None)
        return None if since is None else now - since

    def live_since(self, seat: int) -> float:
        """Since when a member has held the table up: silent, stalling, or withholding its
        deck's Reveal (counted from `Timing.reveal_within` after the round's end, so that
        it is left out that long after it)."""
        since = self.heard[seat]
        stalled = self._stalled_since(seat)
        if stalled is not None:
            since = min(since, stalled)
        withheld = self.withheld.get(seat)
        if withheld is not None:
            timing = self._m.timing
            since = min(since, withheld + timing.reveal_within - timing.exclude_after)
        return since

    def earliest_live_since(self) -> float:
        """The earliest `live_since` of the other members (`NEVER` if there are none)."""
        heard, me, members = self.heard, self._m.seat, self._m.members
        earliest = min([heard[s] for s in members if s != me], default=NEVER)
        if self._head is None and not self._m.host.by_majority:
            return earliest  # nobody stalls: no message waits
        for seat in members:  # (the others, without building their set: asked every step)
            if seat == me:
                continue
            stale = self.stale_since[seat]
            # (A stall that began no earlier cannot be the earliest: skip its check.)
            if stale is not None and stale < earliest:
                stalled = self._stalled_since(seat)
                if stalled is not None:
                    earliest = min(earliest, stalled)
        return earliest

    def _stalled_since(self, seat: int) -> float | None:
        head, stale = self._head, self.stale_since[seat]
        if stale is not None and self._m.host.by_majority:
            return stale  # (none is set while a member is suspected: `hear`, `_afresh`)
        if head is None or stale is None or self._vouches(seat, head):
            return None
        return max(stale, self._head_since)

    def _vouches(self, member: int, entry: Pending) -> bool:
        """Whether ``member`` has acknowledged holding this message."""
        return self._m.host.acks.vouched_by(entry, (member,))

    def holding_up(self, now: float) -> set[int]:
        """The members that have held the table up for too long: a view change leaves them
        out even if they vote."""
        wait = self._m.timing.exclude_after
        return {s for s in self._others() if now - self.live_since(s) >= wait}

    def heard_lately(self, seats: frozenset[int], now: float) -> list[int]:
        """Of ``seats`` (members still), those heard within `Timing.suspect_after` and not
        holding the table up, ascending."""
        fresh = self._m.timing.suspect_after
        held_up = self.holding_up(now)
        return sorted(s for s in seats - held_up if now - self.heard[s] < fresh)

    def stalling(self, wait: float | None = None) -> set[int]:
        """The members that held the table up while they talked on, for ``wait`` seconds
        (`Timing.exclude_after` unless given): not let back in soon. Talked on: heard all
        that time, the last time no earlier than ``wait`` after their Acks went stale. A
        member whose one last Ack claimed nothing new and which then fell silent here (it
        went on to a view this seat has not installed, its links went down) holds the
        table up too (`live_since`), but as the silent do: it is not said to stall."""
        wait = self._m.timing.exclude_after if wait is None else wait
        stalled = {s: self._stalled_since(s) for s in self._others()}
        return {s for s, t in stalled.items() if t is not None and self.heard[s] - t >= wait}

    def _others(self) -> frozenset[int]:
        return self._m.members - {self._m.seat}

    def watch_reveals(self, withholding: set[int], now: float) -> None:
        """Note since when each member has withheld its deck's Reveal (`live_since`)."""
        self.withheld = {s: self.withheld.get(s, now) for s in withholding}

    def watch_head(self, now: float) -> None:
        """Note when the first message of the order changed (`live_since`)."""
        pending = self._m.host.log.pending
        head = pending[0] if pending else None
        if head is not self._head:
            self._head, self._head_since = head, now

    def suspect_silent(self, now: float) -> None:
        """Suspect the members silent for too long (the screen says who is away). At a
        majority's table, no member stalls from then on: each may wait on the silent
        member's word to pass a play (`hear`)."""
        for seat in sorted(self._others() - self.suspected):
            if now - self.heard[seat] >= self._m.timing.suspect_after:
                self.suspected.add(seat)
                self.away(seat)
                self._m.host.events.append(PeerSuspected(seat))
                self._afresh()

    def new_view(self) -> None:
        """A view is installed: at a majority's table, no member stalls in it yet (each
        says afresh how far it passed the canonical order: `Commits.install`)."""
        self._afresh()

    def _afresh(self) -> None:
        """At a majority's table, count every member's words afresh: none stalls now."""
        if self._m.host.by_majority:
            self.stale_since = [None] * len(self.stale_since)

    def deadline(self) -> float:
        """When a member not suspected yet would be (`NEVER` if none is left)."""
        heard, me, suspected = self.heard, self._m.seat, self.suspected
        times = [heard[s] for s in self._m.members if s != me and s not in suspected]
        return min(times) + self._m.timing.suspect_after if times else NEVER
