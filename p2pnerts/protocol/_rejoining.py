"""Being out and coming back, at one seat: this seat's own requests to rejoin while it is
out, the other seats asking to rejoin, and the messages held back from a view this
replica has not installed (yet). See `_membership.py` for the theory."""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple, Protocol

from p2pnerts.protocol import _host
from p2pnerts.protocol._events import PeerStalled
from p2pnerts.protocol._lineage import Lineage
from p2pnerts.protocol._messages import Message, Rejoin, StartView
from p2pnerts.protocol._status import NEVER

STASH_LIMIT = 100_000
"""Messages from views not yet installed that a replica holds back, at most."""
HOLD_OFF_FIRST = 4.0
"""Seconds a seat left out though this seat heard it, a second time soon after the first,
waits before this seat lets it back in (`Rejoining.hold_off`)."""


class Asking(NamedTuple):
    """A seat's request to rejoin, as the others hold it."""

    at: float
    """When it last asked."""
    view: int
    """The view it asks from: the view a StartView that lets it in says it came from."""
    above: int
    """The last view it installs nothing at or below (`Rejoin.above`, at least ``view``)."""


class Membership(_host.Membership, Protocol):
    """What rejoining reads of the membership (`_membership.Membership`)."""

    asks_from: int
    lineage: Lineage

    @property
    def floor(self) -> int: ...


class Rejoining:
    """Requests to rejoin, this seat's and the others', and the messages held back."""

    def __init__(self, membership: Membership) -> None:
        self._m = membership
        self.asking: dict[int, Asking] = {}
        """Seats asking to rejoin: when they last asked, from which view, and above which."""
        self.requests: dict[int, Rejoin] = {}
        """Each seat's latest Rejoin, signed: a StartView that lets it in carries it."""
        self.barred: dict[int, float] = {}
        """Seats left out for holding the table up while talking on, and since when."""
        self.held_off: dict[int, tuple[float, float]] = {}
        """Seats left out though this seat heard them (`hold_off`): since when, and for
        how long."""
        self._stash: list[Message] = []
        self.stash_since: float | None = None
        self.starts_heard: set[int] = set()
        """The newer views whose StartView reached this seat, taken or not."""
        """Since when a member's message from a newer view has been held back, if one is."""

    # --- this seat, out ----------------------------------------------------------------------

    def ask(self, now: float) -> None:
        """Ask to be let back in, from the view it asks from, saying which round's deck this
        seat still holds and above which view it installs one."""
        host, m = self._m.host, self._m
        clock = max(host.acks.clock, 1)
        rejoin = Rejoin(m.seat, m.asks_from, clock, 1, host.disk.round, above=m.floor)
        rejoin = host.signer.sign(rejoin)
        host.outbox.push(rejoin, now, keep=False)

    def tick_out(self, now: float) -> None:
        """Ask again once a heartbeat's time has passed without a word from this seat."""
        if self._m.host.outbox.quiet_for(now) >= self._m.timing.heartbeat:
            self.ask(now)

    # --- the others asking -------------------------------------------------------------------

    def note(self, rejoin: Rejoin, now: float) -> None:
        """A seat asks to rejoin from its view."""
        self.asking[rejoin.sender] = Asking(now, rejoin.view, max(rejoin.view, rejoin.above))
        self.requests[rejoin.sender] = rejoin

    def bar(self, seat: int, now: float) -> None:
        """Keep ``seat`` out for a while: it held the table up while it talked on (told
        once, as `PeerStalled`, each time it is barred anew)."""
        since = self.barred.get(seat)
        if since is None or now - since >= self._m.timing.readmit_after:
            self._m.host.events.append(PeerStalled(seat, self._m.host.by_majority))
        self.barred[seat] = now

    def hold_off(self, seat: int, now: float) -> None:
        """Keep ``seat`` out for a while: a view left it out though this seat still heard
        it, so another member could not (a connection between the two down, or refused).
        The first time it may come back at once (the connection may have been down for a
        moment); left out so again soon after, it would be let back in only to be left out
        again, view after view, for as long as that connection stays down: so it waits
        `HOLD_OFF_FIRST`, then twice as long each time, up to `Timing.readmit_after`."""
        wait, last = 0.0, self.held_off.get(seat)
        if last is not None and now - last[0] <= last[1] + self._m.timing.readmit_after:
            wait = min(max(2 * last[1], HOLD_OFF_FIRST), self._m.timing.readmit_after)
        self.held_off[seat] = (now, wait)

    def fresh(self, now: float) -> set[int]:
        """The seats that asked to rejoin lately enough to be let in (and are not barred
        for holding the table up lately, nor held off, `hold_off`)."""
        timing = self._m.timing
        barred = {s for s, t in self.barred.items() if now - t < timing.readmit_after}
        barred |= {s for s, (t, wait) in self.held_off.items() if now - t < wait}
        recent = {s for s, a in self.asking.items() if now - a.at <= timing.exclude_after}
        return recent - barred

    def counted(self, now: float) -> set[int]:
        """The seats asking to rejoin lately (`fresh`) that a change of this view counts
        like voters (SPEC §6.4): those asking from one of the views whose majorities it
        needs (`Membership.quorums_now`), each having installed no view since and
        installing one at most, the first StartView that lists it; and a member this view
        let in that asks still from where it let it in from (it installed nothing since,
        this view included). Not one asking from another view: it may have helped a view
        of another branch on, and the majorities of the two branches would no longer
        meet. (Counted as able to go on by the test of whether to leave a view, yet not by
        a change of it, seats asking from another view kept a seat in a view it could
        never leave: of six seats, three changing and three out, for good.)"""
        behind = {number for number, _ in self._m.quorums_now()}
        came_from = self._m.lineage.came_from
        return {
            s
            for s in self.fresh(now)
            if self.asking[s].view in behind or self.asking[s].view == came_from(s)
        }

    def above(self, seats: Iterable[int]) -> int:
        """The view a change that lets ``seats`` back in must be above: this one, and the
        last view each of them installs nothing at or below (`Asking.above`)."""
        return max([self._m.view, *(self.asking[s].above for s in seats)])

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

    def missed_start(self, message: Message, coordinator: int) -> bool:
        """Whether ``message``, from ``coordinator`` of its newer view, shows that this seat
        was left out of that view: the coordinator sent its StartView before anything
        stamped with that view, and sends it again on a new connection to every member that
        may lack it; this seat neither took nor holds it, so it is no member."""
        sender, view = message.sender, message.view
        if sender not in self._m.members or sender != coordinator or view in self.starts_heard:
            return False
        return not any(
            isinstance(m, StartView) and m.sender == sender and m.view == view for m in self._stash
        )

    def forget_starts(self, view: int) -> None:
        """A view is installed: the StartViews heard for it and older ones no longer count."""
        self.starts_heard = {number for number in self.starts_heard if number > view}

    def waited(self, now: float) -> bool:
        """Whether a member has gone on in a newer view for too long to wait for it here:
        this seat then leaves, if it is `left_behind`, or waits again (`wait_again`)."""
        since = self.stash_since
        return since is not None and now - since >= self._m.timing.view_change_timeout

    def left_behind(self, now: float) -> bool:
        """Whether the members gone on in a newer view are too many to wait for (`waited`):
        one is enough where every member's word commits; at a table that commits by a
        majority, so many that this view cannot go on without them
        (`Membership.quorums_now`). A member talking from a newer view may be in a sibling
        of this one that never took hold (let back in there, say, by an ask that reached
        this view's seats late): with the others enough to go on without it, they leave it
        out as they would a silent one (a table of seven, every seat of the view that had
        taken hold left it so, each asking to rejoin, with nobody left to let them in).

        Able to go on are the members not gone on, and the seats asking to rejoin now (a
        view change counts them, `Election._maybe_start_view`); a seat of an earlier view
        counted that is no member of this one helps only by asking. (Counted as able, a
        seat gone on in the other of two siblings kept the seats of this one in it for
        good, and the other's seats waited for them to ask: four seats split two and two
        between sibling views, each changing members for ever.)"""
        ahead = self._ahead()
        if not self._m.host.by_majority:
            return bool(ahead)
        able = (self._m.members - ahead) | self.counted(now)
        return not self._m.majorities(able)

    def _ahead(self) -> set[int]:
        """The members gone on in a newer view: talking from one, and not asking since to
        be let back in from this view or an earlier one, above the newer one (shut out of
        it, a view that never takes hold, `Lineage.stillborn`). (Counted as gone on, such a
        seat left the one that had not installed that view out too, at a table of three
        that commits by acknowledgement: every seat out, each asking, none a member to let
        the others in.)"""
        view, members = self._m.view, self._m.members
        newest: dict[int, int] = {}
        for m in self._stash:
            if m.view > view and m.sender in members:
                newest[m.sender] = max(m.view, newest.get(m.sender, 0))
        asking = self.asking
        return {
            seat
            for seat, newer in newest.items()
            if seat not in asking or asking[seat].view > view or asking[seat].above < newer
        }

    def wait_again(self, now: float) -> None:
        """Count the wait on members gone on in a newer view again from ``now``: too few
        of them to leave for (`left_behind`), so far."""
        self.stash_since = now

    def deadline(self) -> float:
        """When `waited` turns true (`NEVER`: it may not)."""
        if self.stash_since is None:
            return NEVER
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
