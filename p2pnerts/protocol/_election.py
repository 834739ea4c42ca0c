"""The view change: votes, and the StartView its coordinator builds from them.

See `_membership.py` for the theory: who votes, why a majority of each view behind
the current one is needed, and what a StartView carries. `Election` holds the votes of
the view change under way at one seat and decides, at the coordinator, when to start the
new view; it reads and changes the rest of the membership through the `Membership` it states.
"""

from __future__ import annotations

from typing import Protocol

from p2pnerts.protocol import _host
from p2pnerts.protocol._base import Base
from p2pnerts.protocol._codec import encode_payload
from p2pnerts.protocol._handover import pooled
from p2pnerts.protocol._lineage import Lineage, apart
from p2pnerts.protocol._liveness import Liveness
from p2pnerts.protocol._messages import StartView, ViewChange, bare
from p2pnerts.protocol._rejoining import Rejoining
from p2pnerts.protocol._spots import quorum
from p2pnerts.protocol._status import NEVER, Status


class Membership(_host.Membership, Protocol):
    """What the view change reads and drives of the membership (`_membership.Membership`)."""

    players: int
    installed_at: float
    view_members: frozenset[int]
    rejoining: Rejoining
    liveness: Liveness
    lineage: Lineage
    base: Base

    @property
    def status(self) -> Status: ...
    def enter(self, status: Status) -> None: ...
    def install(self, start: StartView, now: float) -> None: ...
    def leave_if_gone(self, now: float) -> None: ...


class Election:
    """The view change under way at one seat, if any."""

    def __init__(self, membership: Membership) -> None:
        self._m = membership
        self.changing_to = 0
        """The view this seat votes for, while the status is changing."""
        self.changing_since = membership.installed_at
        """Since when this seat has been changing views, with no view installed since."""
        self._change_started = membership.installed_at
        self._votes: dict[int, dict[int, ViewChange]] = {}

    def clear(self) -> None:
        """Drop every vote (this seat rejoins from nothing)."""
        self._votes = {}

    def forget_up_to(self, view: int) -> None:
        """Drop the votes for views up to ``view`` (installed, or left behind)."""
        self._votes = {v: b for v, b in self._votes.items() if v > view}

    def tick(self, now: float) -> None:
        if self._m.status in (Status.NORMAL, Status.CHANGING):
            # Barred in a view change too: one under way when the stall has lasted long
            # enough leaves the seat out all the same (`_maybe_start_view`), and it must
            # not come back in the next.
            for seat in sorted(self._m.liveness.stalling()):
                self._m.rejoining.bar(seat, now)
        if self._m.status is Status.NORMAL and not self._m.host.by_majority:
            # Silence counts within this view: a member every voter could not hear (one
            # link down) would otherwise start the next view change at once, and views
            # would follow each other as fast as they can be installed.
            since = self._m.installed_at
            silent = [
                s
                for s in self._m.members
                if s != self._m.seat
                and now - max(self._m.liveness.live_since(s), since) >= self._m.timing.exclude_after
            ]
            fresh = self._m.rejoining.fresh(now)
            if silent or fresh:
                # A seat comes back only into a view above every view it was in (its
                # earlier life's messages are then all older than its new life).
                above = self._m.rejoining.above(fresh)
                self._start_view_change(self._next_view(above, now), now)
        elif self._m.status is Status.NORMAL and (
            self._departed(now) or self._m.rejoining.fresh(now) or self._settle_due() <= now
        ):
            above = self._m.rejoining.above(self._m.rejoining.fresh(now))
            self._start_view_change(self._next_view(above, now), now)
        elif self._m.status is Status.CHANGING:
            if now - self._change_started >= self._m.timing.view_change_timeout:
                self.vote_next(now)
            else:
                self._maybe_start_view(now)

    def past(self, now: float) -> int:
        """The view the next vote of a changing seat goes past: this view, the one it
        voted for last, and the last view each seat asking to rejoin installs nothing at or
        below (moving on one view at a time, a change that needed such seats took a
        timeout a view)."""
        return max(self.changing_to, self._m.rejoining.above(self._m.rejoining.fresh(now)))

    def vote_next(self, now: float) -> None:
        """Move a view change on: vote for the first view `past` the ones above whose
        coordinator is a member not suspected (`_next_view`)."""
        self._start_view_change(self._next_view(self.past(now), now), now)

    def _departed(self, now: float) -> bool:
        """At a table that commits by a majority (`tick` asks nowhere else): whether a
        member has gone, so that the members must change: its Leave committed here (the
        quorum counts it until they change), or it has held the table up for
        `Timing.depart_after` (a quorum plays on meanwhile: a hiccup is not a departure),
        or for `Timing.exclude_after` where those silent leave the others no quorum
        (`_blocked_at`), or for less while what each seat would bring to the change grows
        too large for it (`Replica.overfull`): silent for `Timing.suspect_after`, or
        stalling long enough to be left out though it votes (`Liveness.holding_up`)."""
        m = self._m
        others = [s for s in m.members if s != m.seat]
        silent = [now - max(m.liveness.live_since(s), m.installed_at) for s in others]
        if bool(m.view_members - m.members) or max(silent, default=0) >= m.timing.depart_after:
            return True
        if self._blocked_at() <= now:
            return True
        if max(silent, default=0) < m.timing.suspect_after:
            return False  # (neither silent nor stalling long enough: no sizing needed)
        unheard = max(now - max(m.liveness.heard[s], m.installed_at) for s in others)
        held_up = unheard >= m.timing.suspect_after or m.liveness.holding_up(now)
        return bool(held_up) and m.host.overfull(now)

    def _blocked_at(self) -> float:
        """At a table that commits by a majority: from when the members silent for
        `Timing.exclude_after` are too many for the others to decide a play (`quorum`),
        yet few enough for them to change the members (`NEVER`: no count of silent
        members is both). Nothing commits while the table waits for those, so they are
        left out then, as at a table that commits by acknowledgement: one silent seat of
        three members, two of five, the third of seven."""
        m = self._m
        members = len(m.members)
        blocking = members - quorum(members) + 1
        if members - blocking <= members // 2:
            return NEVER  # (the others are no majority to change the members either)
        others = (s for s in m.members if s != m.seat)
        silent = sorted(max(m.liveness.live_since(s), m.installed_at) for s in others)
        if len(silent) < blocking:
            return NEVER
        return silent[blocking - 1] + m.timing.exclude_after

    def _settle_due(self) -> float:
        """At a table that commits by a majority: when the members must change, all of
        them staying, to settle a play of another seat held open here (`NEVER`: none
        must): `Timing.settle_after` from when this seat held it, or from when a member
        was last heard again after a silence, whichever is later, and only while no
        member is silent. A sender that keeps the outcome of its own play to itself, once
        the votes on it split, holds that play and every play after it on its spots no
        longer than that; a play whose votes wait on a silent member (a hiccup) is waited
        for, as the member is, and decided by its vote when it is back."""
        m = self._m
        if m.liveness.suspected & m.members:
            return NEVER
        opened = m.host.open_since()
        if opened == NEVER:
            return NEVER  # (nothing open, as at most steps: no member need be looked at)
        back = max(m.liveness.back_at[s] for s in m.members)
        return max(opened, back) + m.timing.settle_after

    def deadline(self) -> float:
        """When `tick` next has something to do (`NEVER`: nothing it waits for)."""
        m = self._m
        if m.status is Status.NORMAL and m.host.by_majority:
            if m.view_members - m.members:
                return m.installed_at  # (at once)
            earliest = m.liveness.earliest_live_since()
            departs = max(earliest, m.installed_at) + m.timing.depart_after
            return min(departs, self._settle_due(), self._blocked_at())
        if m.status is Status.NORMAL:
            # The earliest of every other member's max(live_since, installed_at) + wait:
            # both steps keep the order, so it follows from the earliest live_since.
            earliest = m.liveness.earliest_live_since()
            return max(earliest, m.installed_at) + m.timing.exclude_after
        if m.status is Status.CHANGING:
            return self._change_started + m.timing.view_change_timeout
        return NEVER

    def coordinator(self, view: int) -> int:
        """The one seat that may start view ``view``: the same at every peer, whatever
        membership each believes in, so that no view number is ever started twice."""
        return view % self._m.players

    def _next_view(self, after: int, now: float) -> int:
        """The first view after ``after`` whose coordinator is a member not suspected, nor
        holding the table up."""
        view, able = (
            after + 1,
            self._m.members - self._m.liveness.suspected - self._m.liveness.holding_up(now),
        )
        while self.coordinator(view) not in able:
            view += 1
        return view

    def _start_view_change(self, new_view: int, now: float) -> None:
        if self._m.status is not Status.CHANGING:
            self.changing_since = now
        self._m.enter(Status.CHANGING)
        self.changing_to = new_view
        self._change_started = now
        suspects = tuple(sorted(self._m.liveness.suspected & self._m.members))
        have, committed = tuple(self._m.host.acks.have), self._m.host.log.committed
        holding, pool = self._m.host.holding()  # (changing now: it decides nothing more)
        vote = self._m.host.send(
            now,
            lambda c, s: ViewChange(
                self._m.seat,
                self._m.view,
                c,
                s,
                new_view=new_view,
                suspects=suspects,
                have=have,
                committed=committed,
                holding=holding,
                pool=tuple(pool),
            ),
        )
        assert isinstance(vote, ViewChange)
        self._votes.setdefault(new_view, {})[self._m.seat] = vote
        self._maybe_start_view(now)

    def take(self, vote: ViewChange, now: float) -> None:
        if self._m.lineage.take_vote(vote):
            # A voter of this view voted past it from where it voted it in: should the
            # others be too few to go on without it, this seat leaves, to be let back in
            # from that view (a seat alone in a view its voters left went on voting from
            # it, and they from theirs, for the same views, for good).
            self._m.leave_if_gone(now)
            if self._m.status is Status.OUT:
                return
        self._votes.setdefault(vote.new_view, {})[vote.sender] = vote
        target = self.changing_to if self._m.status is Status.CHANGING else self._m.view
        if vote.new_view > target:
            self._start_view_change(vote.new_view, now)
        else:
            self._maybe_start_view(now)

    def _parted(self, votes: dict[int, ViewChange], voters: set[int]) -> set[int]:
        """The voters to leave out because they cannot hear each other: of two voters that
        each suspect the other, and did so too when this view began (the connection between
        them down, or refused, for a whole view), one goes — the one more voters suspect;
        if as many, the higher seat; never this coordinator. Kept both, the two would hold
        each view up again as soon as it began, for as long as that connection stays down.
        (A connection down for a moment costs one view change that keeps everyone.)"""
        suspects = {s: set(votes[s].suspects) for s in voters}
        parted: set[int] = set()
        for a, b in sorted(apart({s: votes[s] for s in voters}) & self._m.lineage.apart):
            if a in parted or b in parted:
                continue
            left = voters - parted
            named = {s: sum(s in suspects[v] for v in left) for s in (a, b)}
            loser = b if named[b] >= named[a] else a
            if loser == self._m.seat:
                loser = a if loser == b else b
            parted.add(loser)
        return parted

    def _maybe_start_view(self, now: float) -> None:
        new_view = self.changing_to
        if self._m.status is not Status.CHANGING or self.coordinator(new_view) != self._m.seat:
            return
        votes = self._votes.get(new_view, {})
        # A member that holds the table up (acknowledging nothing new) is left out even
        # if it votes: as if it had not.
        held_up = self._m.liveness.holding_up(now)
        voters = {
            s for s, vote in votes.items() if s in self._m.members and vote.view == self._m.view
        } - held_up
        needed = self._m.members - self._m.liveness.suspected - held_up
        if not needed <= voters:
            return
        voters -= self._parted(votes, voters)
        asking = self._m.rejoining.asking
        rejoining = {s for s in self._m.rejoining.fresh(now) - voters if asking[s].above < new_view}
        quorums = self._m.quorums_now()
        # A seat asking to rejoin from one of their views backs it as a voter does
        # (`Rejoining.counted`).
        backing = voters | (rejoining & self._m.rejoining.counted(now))
        if not self._m.majorities(backing):
            return
        joined = tuple(sorted(rejoining))
        joined_from = tuple(asking[s].view for s in joined)
        members = tuple(sorted(voters | set(joined)))
        lives = tuple(new_view if s in joined else v for s, v in enumerate(self._m.host.acks.lives))
        earlier = tuple((number, tuple(sorted(q))) for number, q in quorums)
        base = self._m.base
        voting = [votes[s] for s in sorted(voters)]
        handover = self._m.host.handover(voting, members, joined, now)
        if handover is None:
            carried = base.to_carry(self._m.host.log.pending, self._m.members - voters, joined)
            committed = base.committed
        else:
            # A majority's table: the holdings settle what the departed seats sent; a seat
            # coming back replays the round as applied here, with what was kept here
            # while the members changed; every seat's digest starts again at `committed`.
            committed, kept = handover
            carried = base.to_carry([], frozenset(), joined)  # (nothing, with none joined)
            carried += tuple(encode_payload(bare(m)) for m in kept)
        requests = self._m.rejoining.requests
        carried += tuple(encode_payload(requests[s]) for s in joined)  # they asked: signed
        cuts, seated = tuple(self._m.host.acks.have), tuple(sorted(base.seated))
        number = max(base.round, 1)
        voted_in = self._m.view
        signed = tuple(encode_payload(bare(votes[s])) for s in sorted(voters))
        pool = tuple(pooled(votes[s].pool for s in sorted(voters)))
        start = self._m.host.send(
            now,
            lambda c, s: StartView(
                self._m.seat,
                new_view,
                c,
                s,
                voted_in=voted_in,
                members=members,
                quorums=earlier,
                cuts=cuts,
                joined=joined,
                joined_from=joined_from,
                lives=lives,
                seated=seated,
                round=number,
                base_committed=committed,
                base_digest=base.digest,
                carried=carried,
                scores=base.scores,
                votes=signed,
                pool=pool,
            ),
        )
        assert isinstance(start, StartView)
        self._m.install(start, now)
