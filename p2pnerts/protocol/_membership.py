"""Membership: views, the exclusion of a silent seat, rejoining, and what a replica keeps.

Theory of operation
-------------------
A *view* is a numbered set of members; commits wait for every member, so a member that
falls silent would hold the table up forever. After `Timing.exclude_after` of silence, a
member starts a *view change*: it broadcasts ViewChange(v'), stops committing and stops
sending plays; every member that hears it does the same. The coordinator of view v' is
seat ``v' mod seats`` — fixed by the number alone, so two peers that disagree on the
membership still never start the same view twice — and v' is the first view number whose
coordinator is a member the peer does not suspect. Once the coordinator holds votes for
v' from every member it does not suspect, cast in its own view, and they (with the seats
asking to rejoin from one of the views it counts) are a majority of that view's members —
and, until every member is known to have installed that view, of the earlier views'
members its own StartView named (`quorums_now`) — it broadcasts StartView: the voters
(less one of each two that cannot hear each other, `Election._parted`; plus any seat asking
to rejoin) as the new members, its own ``have`` vector as the *cut*
of every seat's messages, and every ordered message of the current round it has
committed or holds, *carried*.

Why that is safe: a message commits anywhere only once every member acknowledged holding
it *in that view* (`vouched`), so the coordinator — a member — holds every message
committed anywhere in its view; anything of a departed seat beyond its cut was committed
nowhere and is dropped. A member that installs the StartView holds every carried message,
so a carried message commits once every new member has acknowledged the StartView
itself. The StartView is ordered too (its clock exceeds every carried message's), and at
its commit the departed seats' tableaux are declared stuck so that the round can still
end. A minority never gathers a majority of votes: it waits, and commits nothing on its
own. A view change that does not finish within `Timing.view_change_timeout` moves on to
the next view number, and so to the next coordinator.

Two StartViews may still be built from one view (a voter votes for v', then for a later
v''): such *siblings* never both take hold. A seat that voted for both installs at most
one (after voting for a view it installs no earlier one), and a view commits only once
every member acknowledged in it, so at most one sibling commits anything (at a table that
commits by a majority, a quorum of members: there a seat decides nothing in a view until
a majority of each membership behind it installed it, `taken_hold`); and because a
view not known to be installed by all its members needs majorities of the earlier views'
members to be left, the siblings cannot both go on to views of their own. A member that
shows it installed another view (it talks from one between where it came from and this
view) is *gone*; if the rest can no longer make the majorities, the replica leaves. Shut
out of a view that one of its voters will never install (*stillborn*, `Lineage`), a
replica asks to rejoin from where it came from, so that the other sibling can count it.

A replica that learns it was left out — a StartView without it, the others talking in a
view it never installed, or a view that can never go on — is *out*: it broadcasts Rejoin
until a StartView for a view above its own lists it in ``joined`` as asking from the view
it asks from. A restarted replica starts out. A rejoining seat starts its sequence numbers
again at 1 in the view it joins; messages from its earlier life, sent in an older view,
are dropped by everyone, and the StartView's ``lives`` tells a rejoining replica where
each seat's life began.

Every seat may end out, each on a true sign, none a member to let the others in. At a
table that commits by acknowledgement a seat out that still holds its view whole, and
hears enough of the others ask from it for a majority, takes its turn to be a member of
that view again and let them in (`regroup`).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Protocol

from p2pnerts.protocol import _host
from p2pnerts.protocol._away import Away, Record
from p2pnerts.protocol._base import Base, take_carried
from p2pnerts.protocol._election import Election
from p2pnerts.protocol._events import (
    PeerExcluded,
    PeerRejoined,
    RejoinedTable,
    ShutOut,
    ViewInstalled,
)
from p2pnerts.protocol._inplay import Holder
from p2pnerts.protocol._lineage import Lineage
from p2pnerts.protocol._liveness import Liveness
from p2pnerts.protocol._messages import (
    Ack,
    CommitFrame,
    Leave,
    Message,
    Ordered,
    Ready,
    Rejoin,
    StartView,
)
from p2pnerts.protocol._rejoining import Rejoining
from p2pnerts.protocol._rounds import Round
from p2pnerts.protocol._status import Status, Timing
from p2pnerts.protocol._witness import Witness


class Rejoins(Protocol):
    """Version 3's commit, as a seat coming back drives it (`_majority.Majority`)."""

    def rejoin(self, start: StartView, now: float) -> None: ...


class Host(_host.Host, Holder, Protocol):
    """What membership reads and drives of the replica that holds it."""

    away: Away
    record: Record
    witness: Witness

    @property
    def majority(self) -> Rejoins | None: ...

    def send_ack(self, now: float) -> None: ...
    def commit_ready(self, now: float) -> None: ...
    def round_data(self, number: int) -> Round: ...
    def check_kept(self, start: StartView) -> None: ...
    def rebuild(self, start: StartView) -> None: ...
    def take_view(self, start: StartView, changed: set[int], now: float) -> None: ...


class Membership:
    """Views, votes and rejoining at one seat: the membership part of a `Replica`."""

    def __init__(self, host: Host, seat: int, players: int, timing: Timing, now: float) -> None:
        self._host = host
        self.seat = seat
        self.players = players
        self.timing = timing
        self.status = Status.NORMAL
        """Where this replica stands: playing, regrouping, rejoining or gone. Read it;
        `enter` is the one place it changes."""
        self.view = 0
        self.members: frozenset[int] = frozenset(range(players))
        """The seats of this view: every commit waits for each of them."""
        self.view_members = self.members
        """The members this view was installed with: at a table that commits by a
        majority, a seat whose Leave has committed stays among them, counted by the
        quorum, until the members change."""
        self.installed: set[int] = set(range(players))
        """The members known to have installed this view: each sent something in it."""
        self.seated: frozenset[int] = frozenset(range(players))
        """The seats at the table as the committed order says (a view's departures and
        arrivals reach the game at the StartView's place in the order)."""
        self.liveness = Liveness(self, players, now)
        """Who has been heard lately, and whose Acks still move."""
        self.base = Base(0, bytes(16), self.seated)
        """What a StartView would rebuild the round in play from."""
        self.installed_at = now
        """When this replica installed its view: silence is counted from then at most."""
        self.rejoining = Rejoining(self)
        """Requests to rejoin, and the messages held back from a view not installed here."""
        self._quorums: tuple[tuple[int, frozenset[int]], ...] = ()
        """Earlier views (number, members) a view change also needs a majority of until
        every member is known to have installed this view (`quorums_now`)."""
        self.lineage = Lineage(seat)
        """Where each member came into this view from, and whether it is stillborn."""
        self.asks_from = 0
        """The view this seat asks to rejoin from while it is out: its view, or the one it
        came from into a view that never takes hold (`Lineage`)."""
        self.election = Election(self)
        """The view change under way, if any: votes, and the StartView to build."""
        self.from_disk = False
        """Started from its disk (`restart_out`), and not back in yet."""
        self._out_since = now
        """When this replica last went out (`shut_out`)."""
        self._elsewhere: dict[int, tuple[int, int]] = {}
        """Per seat outside this view, the view and commit count of its last Ack from
        another view."""
        self._committing_elsewhere: dict[int, float] = {}
        """When each seat outside this view was last seen committing in another view."""
        self._regrouped = False
        """Out, it went back to changing in its view (`regroup`): back in at the next
        view it installs."""
        self._welcome: int | None = None
        """Back from its disk into this view: told once its StartView commits here, after
        the round it carries is replayed (`commit_start_view`)."""

    @property
    def host(self) -> Host:
        """The replica this membership belongs to."""
        return self._host

    def enter(self, status: Status) -> None:
        """The one place the status changes."""
        self.status = status

    # --- the commit rule --------------------------------------------------------------------

    def note_committed(self, message: Ordered | StartView) -> None:
        """Keep what a StartView would carry: every ordered message of the current round."""
        this = self._host.round_data(message.round) if isinstance(message, Ready) else None
        if this is not None and this.number > self._host.inplay.number and not this.participants:
            # The first Ready of the next round. (Not "of a round above the base's": a
            # replica that rejoined has the StartView's base and round before it has
            # replayed that round's first Ready, and must rebuild its base there too.)
            log, scores = self._host.log, tuple(self._host.match_scores)
            self.base = Base(log.committed, log.digest, self.seated, scores, this.number)
            this.participants = self.seated
        self.base.since.append(message)

    # --- filtering what arrives -----------------------------------------------------------

    def admit(self, message: Message, now: float) -> bool:
        """Whether a message is for this view; holds back those from a view not yet here."""
        sender = message.sender
        if self.status is Status.LEFT:
            return False
        if self.status is Status.OUT:
            if isinstance(message, StartView) and self._answers_my_rejoin(message):
                self._install_as_rejoiner(message, now)
            else:
                self.rejoining.hold_back(message, now)
                # A seat out sends nothing but Rejoins: one that talks after asking is
                # back in, or votes (its request, come late over a stalled link, once
                # had this seat regroup with a seat a view had let it in, `regroup`).
                self.rejoining.asking.pop(sender, None)
            return False
        if self.lineage.went_elsewhere(message):
            # That member went on from where it voted (or asked to rejoin) to another view
            # than this one: it will never vouch for anything here.
            self.leave_if_gone(now)
            return False
        if message.view < self._host.acks.lives[sender]:
            return False  # from the sender's earlier life (`Acks.this_life`)
        if message.view > self.view:
            self.lineage.from_later(message)
            starts = isinstance(message, StartView) and sender in self.members
            if not starts or self.rejoining.holds_from(sender):
                coordinator = self.election.coordinator(message.view)
                missed = not starts and self.rejoining.missed_start(message, coordinator)
                self.rejoining.hold_back(message, now)  # FIFO: after what came before it
                if missed:
                    self.shut_out(now)
                return False
        if sender not in self.members and isinstance(message, Ack) and message.view != self.view:
            self._note_elsewhere(message, now)
        return sender in self.members

    def _note_elsewhere(self, ack: Ack, now: float) -> None:
        """A seat outside this view acknowledges from another view: committing there, if
        its commit count rose since its last Ack from that view."""
        last = self._elsewhere.get(ack.sender)
        if last is not None and last[0] == ack.view and ack.committed > last[1]:
            self._committing_elsewhere[ack.sender] = now
        self._elsewhere[ack.sender] = (ack.view, ack.committed)

    def leave_if_gone(self, now: float) -> None:
        """Leave this view, to be let back in where the others went, should the members
        shown gone (`Lineage.gone`: each will never install it) leave the others too few
        to go on without them."""
        if not self.majorities(set(range(self.players)).difference(self.lineage.gone)):
            self.shut_out(now)

    def _answers_my_rejoin(self, start: StartView) -> bool:
        """Whether a StartView lets this seat back in as it asks now, from the view it asks
        from, into a view above its own: not one built for an earlier request of this seat
        (its own earlier life, say, resent on a new connection), which it may meanwhile have
        answered by installing another, nor one at or below a view it installed (or, asking
        from further back, voted for: `Lineage`)."""
        if self.seat not in start.joined or start.view <= self.floor:
            return False
        return start.joined_from[start.joined.index(self.seat)] == self.asks_from

    @property
    def floor(self) -> int:
        """While out, the last view this seat installs nothing at or below: its own view,
        or, asking from further back, the last it voted for if that is higher. Its Rejoin
        says it (`Rejoin.above`), so that the others let it in above it at once."""
        if self.asks_from == self.view:
            return self.view
        return max(self.view, self.election.changing_to)

    def hear_from(self, message: Message | CommitFrame, now: float, *, stale: bool) -> None:
        """A message came next from its sender (or a commit frame, on its sender's own
        link): one sent in this view shows the sender installed it; and the sender is no
        longer suspected, if it was. ``stale``: it is an Ack that claims nothing new
        (`Acks.accept`)."""
        seat = message.sender
        if message.view == self.view:
            self.installed.add(seat)
        self.liveness.hear(message, now, stale=stale)

    # --- view changes -----------------------------------------------------------------------

    def tick_views(self, now: float) -> None:
        """Start or push on a view change when one is due, and leave a view the others
        went on from."""
        self.election.tick(now)
        if self.status not in (Status.NORMAL, Status.CHANGING):
            return
        if self._left_elsewhere(now):
            self.shut_out(now)
            return
        if not self.rejoining.waited(now):
            return
        if self.rejoining.left_behind(now):
            self.shut_out(now)  # the others went on in a view this replica never got
        else:
            self.rejoining.wait_again(now)

    def _left_elsewhere(self, now: float) -> bool:
        """At a table that commits by a majority, changing views for `Timing.depart_after`
        in vain: whether the members shown gone and the seats outside this view seen
        committing lately in another view leave too few of some membership `quorums_now`
        counts for this view ever to change. The others play on in a view that took hold
        without this one: this seat asks to be let back in there. (Waiting, two seats of
        six changed views for good in a view that never took hold, while the four others
        played on in another.)"""
        if not self._host.by_majority or self.status is not Status.CHANGING:
            return False
        if now - self.election.changing_since < self.timing.depart_after:
            return False
        lately = self.timing.depart_after
        away = {
            s
            for s, t in self._committing_elsewhere.items()
            if now - t <= lately and s not in self.members
        }
        away = (away | set(self.lineage.gone)) - self.rejoining.counted(now)
        return not self.majorities(set(range(self.players)) - away)

    def deadline(self) -> float:
        """When membership next has something to do: suspect a silent member, or push on
        with views (`tick_views`); `NEVER` if nothing."""
        return min(self.liveness.deadline(), self.election.deadline(), self.rejoining.deadline())

    def quorums_now(self) -> tuple[tuple[int, frozenset[int]], ...]:
        """The memberships a view change out of this view needs a majority of, each: this
        view's, and until every member is known to have installed it, those its own view
        change needed (`StartView.quorums`).

        Two StartViews can be built from one view (a voter may vote for two views, and
        installs only one of them, `take_start_view`); each is then installed by some of
        its members only, and commits nothing (`Replica._take_ack`). But one of them
        could still go on to a view of its own with a majority of its own members — and
        the other too, with a majority of its own — and both commit. So a view not known
        to be installed everywhere counts majorities of the memberships behind it as
        well, down to a view known to be installed: of the seats of that view, only one
        side can hold a majority, since a seat that installed one of two sibling views
        installs the other only once the first is stillborn (`Lineage`), or comes back in
        through a later view of the side that lets it rejoin, which that side forms first).
        """
        if self.members <= self.installed:
            return ((self.view, self.members),)
        return ((self.view, self.members), *self._quorums)

    def majorities(self, seats: Collection[int]) -> bool:
        """Whether ``seats`` hold a majority of each membership `quorums_now` counts: what
        a change of this view needs behind it, and what this view needs installed to take
        hold."""
        return all(2 * len(q.intersection(seats)) > len(q) for _, q in self.quorums_now())

    def taken_hold(self) -> bool:
        """Whether a majority of each membership `quorums_now` counts is known to have
        installed this view. Only then does a majority's table decide a play in it
        (`_commits.Commits.release`): a play decided in needs a quorum of this view's
        members only, and two sibling views built from one view (a voter that voted for
        both, or a seat asking to rejoin counted by both) could each gather a quorum of its
        own members. A seat installs at most one of two siblings, and two majorities of
        the view they were built from share a seat, so only one of them takes hold. (At a
        table that commits by acknowledgement every member holds what commits, and so has
        installed the view.)"""
        return self.majorities(self.installed)

    def take_start_view(self, start: StartView, now: float) -> None:
        self.rejoining.starts_heard.add(start.view)
        if start.view <= self.view or start.voted_in != self.view:
            return  # stale, or built from votes of a view this replica has left
        if self.seat not in start.members:
            # The others went on without this seat: out now, even if it has voted for a
            # later view since (as if it had crashed after that vote), so that it asks to
            # rejoin at once instead of waiting out the votes of a view it cannot form.
            self.shut_out(now)
            return
        if self.seat in start.joined and self._host.by_majority:
            # Let back in by a request of its own it has since gone on from (a Rejoin that
            # came late): the others take its plays as of an earlier life and number its
            # next after the last the change settled, which this seat, going on as it was,
            # cannot do. It asks again, and comes back as a seat coming back does.
            self.shut_out(now)
            return
        if self.status is Status.CHANGING and start.view < self.election.changing_to:
            # This replica has since voted for a later view, which may form from those
            # votes: it installs at most one of the two (see `install_acks`).
            return
        self.install(start, now)

    def install(self, start: StartView, now: float) -> None:
        """Move to the view a StartView begins, as a member that was already in."""
        departed = self.members - set(start.members)
        # Left out though heard here, and a voter suspected it: that member could not hear
        # it (`hold_off`).
        unheard_elsewhere = self.liveness.heard_lately(departed - set(start.joined), now)
        # Left out while seen stalling here too, if not yet for as long as the coordinator
        # saw it: barred all the same, so that this seat, coordinating a later view, does
        # not let back in at once a seat that another barred. (Asked while they are
        # members still.)
        for seat in sorted(departed & self.liveness.stalling(self.timing.suspect_after)):
            self.rejoining.bar(seat, now)
        self.view, self.members = start.view, frozenset(start.members)
        self.view_members = self.members
        self.rejoining.forget_starts(self.view)
        self.enter(Status.NORMAL)
        self.installed_at = now
        self.liveness.new_view()
        self.install_acks(start)
        self._quorums = tuple((number, frozenset(q)) for number, q in start.quorums)
        self.lineage.begin(start, start.voted_in)
        self.election.forget_up_to(self.view)
        for seat in sorted(self.lineage.suspected.intersection(unheard_elsewhere)):
            self.rejoining.hold_off(seat, now)
        for seat in sorted(departed | set(start.joined)):
            self._host.witness.forget(seat)  # what is kept of it, the StartView says
            self.liveness.away(seat)
            self._host.acks.have[seat] = min(self._host.acks.have[seat], start.cuts[seat])
        self._host.take_view(start, set(departed) | set(start.joined), now)
        back = [PeerRejoined(s, self.liveness.back(s, now)) for s in start.joined]
        for seat in start.joined:
            self._reset_seat(seat, start.view)
        self._host.events.append(ViewInstalled(start.view, start.members))
        if self._regrouped:  # (told it was out, its player is told it is back)
            self._host.events.append(RejoinedTable(start.view))
            self._regrouped = False
        self._host.events += [PeerExcluded(s) for s in sorted(departed - set(start.joined))]
        self._host.events += back
        if start.joined:
            # A rejoining seat may lack what this replica sent since the cut: send it again.
            for message in self._host.outbox.after(start.cuts[self.seat]):
                self._host.outbox.pass_on(message)
        self._host.send_ack(now)
        self.rejoining.replay(now)

    def install_acks(self, start: StartView) -> None:
        """Forget every other seat's acknowledgements for the commit rule on moving to a
        new view: from here on only those sent in this view count (``vouched``; ``acked``
        keeps them all, for what to resend).

        Several StartViews may be built from one view — a coordinator that timed out and
        another with votes for a later view — each installed by some replicas, each
        dropping other messages of the seats it leaves out. A commit in view v must never
        rest on a seat that installs a sibling of v instead: that seat goes on in an order
        v does not share. Two majorities of the old view meet in a voter; its votes rise,
        and after voting for a view it installs no earlier one (`take_start_view`), so it
        installs at most one of the two (or the second once the first is stillborn) — and
        a view commits only once every member has acknowledged in that view, i.e.
        installed it. So of sibling views at most one ever commits anything (and
        `quorums_now` keeps the others from going on).
        """
        self._host.acks.install(start)
        self.installed = {self.seat, start.sender}

    def _reset_seat(self, seat: int, view: int) -> None:
        """A seat (re)joins in ``view``: its sequence numbers start again."""
        self._host.acks.reset_seat(seat, view)
        self._host.witness.forget(seat)
        self.liveness.forget(seat)
        self.rejoining.asking.pop(seat, None)

    def commit_start_view(self, start: StartView) -> None:
        """At its place in the order, a view's departures and arrivals reach the game (and
        a replica back from its disk is told it is back, with its points so far)."""
        self.seated = frozenset(start.members)
        if start.view == self._welcome:
            self._welcome, deck = None, self._host.deck
            points = sum(row[deck] for row in self._host.match_scores)
            self._host.events.append(RejoinedTable(start.view, points))

    def commit_leave(self, leave: Leave) -> bool:
        """At its place in the order, a seat leaves the table, and what it sent after its
        Leave in that life never commits (held here, it is dropped; arriving, refused).
        Returns whether it leaves the view too: not if the Leave is of an earlier life of
        a seat that has come back since (a StartView later in the order seats it again; a
        replica let back in replays the Leave of its own earlier life so)."""
        seat, acks = leave.sender, self._host.acks
        self.seated = self.seated - {seat}
        current = acks.this_life(leave)
        log = self._host.log
        log.keep(
            [
                entry
                for entry in log.pending
                if entry.message.sender != seat or acks.this_life(entry.message) != current
            ]
        )
        if not current:
            return False
        self.members = self.members - {seat}
        if seat == self.seat:
            self.enter(Status.LEFT)
        return True

    # --- being out, and coming back ----------------------------------------------------------

    def restart_out(self, view: int, now: float) -> None:
        """Start as a replica back from a crash: out, asking to rejoin from ``view``."""
        self.view = self.asks_from = view
        self.from_disk = True
        self.enter(Status.OUT)
        self.rejoining.ask(now)

    def shut_out(self, now: float) -> None:
        # Out of a view that never takes hold, this seat asks from where it came from, as
        # if that view's StartView had never reached it (`Lineage`).
        self.asks_from = self.lineage.origin if self.lineage.stillborn else self.view
        self.enter(Status.OUT)
        self._out_since, self._regrouped = now, False
        self._host.events.append(ShutOut(self.view, self._host.away.take()))
        self.rejoining.ask(now)

    def take_rejoin(self, rejoin: Rejoin, now: float) -> None:
        late = not self._host.acks.this_life(rejoin) and not self.lineage.asks_again(rejoin)
        if late and rejoin.sender in self.members and not self._refused_its_start(rejoin, now):
            return  # sent before that seat rejoined, arriving late
        # (One that is no member any more may never have got the StartView that let it
        # back in, and still be asking: a StartView built for an older request of its own
        # it ignores, `_answers_my_rejoin`.)
        if self.status in (Status.NORMAL, Status.CHANGING):
            self.rejoining.note(rejoin, now)
            if rejoin.sender in self.members:
                # It lost its state: let it go, then back.
                self.liveness.away(rejoin.sender)
                self.liveness.heard[rejoin.sender] = 0.0
        elif self.status is Status.OUT and self._whole():
            self.rejoining.note(rejoin, now)  # (every seat may be out: `regroup`)

    def _whole(self) -> bool:
        """Whether this seat, out, still holds its view as a member does: it asks from it
        (it installed no view since that never took hold) and did not lose its memory
        (`restart_out`), at a table that commits by acknowledgement, where every commit
        of the view waited for this seat's own acknowledgement."""
        return self.asks_from == self.view and not self.from_disk and not self._host.by_majority

    def regroup(self, now: float) -> bool:
        """Every seat out (each left on a true sign: a view it never got, a view that never
        took hold), none a member to let the others in, each asking for good: a seat out,
        whole (`_whole`), that has asked in vain until its turn (below) and holds
        requests to rejoin that a view change of its view would count (SPEC §6.4: from
        its view or one its quorums count), enough with it for a majority of each, is a
        member of its view again, changing, the others suspected: it votes, and, the
        coordinator of the view it votes for, lets them in (`Election._maybe_start_view`).
        Returns whether it did.

        Safe as staying would have been: going out is a choice to wait for a member to let
        it in, and a member may go on voting instead. What the view committed, every member held,
        this seat too; a seat that asks from a later view than this one's went on in it,
        and is not counted. Should a member elsewhere let them in meanwhile, the two
        views are siblings built from this one: a seat asking installs the first that
        answers it, and the other commits nothing (`install_acks`)."""
        if not self._whole():
            return False
        backing = {self.seat} | self.rejoining.counted(now)
        if not self.majorities(backing):
            return False
        # The seats that can regroup take turns, as coordinators do, a view change's
        # timeout each: the first after every view those asking are above goes first.
        # (All at once, each let the others into a view of its own, which none took.)
        turn = (self.seat - self.election.past(now) - 1) % self.players
        if now - self._out_since < self.timing.view_change_timeout * (1 + turn):
            return False
        self.enter(Status.CHANGING)
        self._regrouped = True
        for seat in sorted(self.members - {self.seat}):
            self.liveness.away(seat)
            self.liveness.heard[seat] = 0.0
        self.liveness.suspect_silent(now)
        self.election.vote_next(now)
        return True

    def _refused_its_start(self, rejoin: Rejoin, now: float) -> bool:
        """Whether a member that this view let back in still asks as it did before, long
        after the view was installed here, without a word in it: it never installed it.
        (It voted for a later view meanwhile, say, and installs no earlier one after that,
        `_answers_my_rejoin`.) It asks afresh, and a view above its vote must answer it:
        else this view, which cannot commit without it, waits for it for ever, and it
        for a view that lets it in."""
        if rejoin.sender in self.installed:
            return False
        return now - self.installed_at >= self.timing.view_change_timeout

    def _answered(self, start: StartView) -> None:
        """Forget the requests to rejoin that ``start`` shows answered, coming back with
        it: of each seat whose life began in a view after the one it asked from (let in
        with this seat, or by a view this seat, out, never installed). (Kept, a request
        answered while this seat was out was fresh to it alone: back in, it began a change
        of members at once after each it installed, 17 in a second, until the request
        grew old.)"""
        asking = self.rejoining.asking
        for seat in [s for s, asked in asking.items() if start.lives[s] > asked.view]:
            del asking[seat]

    def _install_as_rejoiner(self, start: StartView, now: float) -> None:
        """Come back into a view from nothing but the StartView and this seat's disk
        (`KeptStateError`, changing nothing, if the disk is not what the table dealt it)."""
        host = self._host
        host.check_kept(start)
        before = self.members
        self.view, self.members = start.view, frozenset(start.members)
        self.view_members = self.members
        self.enter(Status.NORMAL)
        self.installed_at = now
        self.election.clear()
        self.installed = {self.seat, start.sender}
        self._quorums = tuple((number, frozenset(q)) for number, q in start.quorums)
        self._answered(start)
        self.lineage.begin(start, self.asks_from)
        # Until it replays the round's first Ready, its base is the StartView's: were it to
        # coordinate a view before then, its StartView must rebuild the same table.
        self.base = Base.of(start)
        self._host.rebuild(start)
        self.seated = self.base.seated
        # Who else the table went on without while this seat was out, of the seats at the
        # table as the StartView has them (at a majority's table the round's replay below
        # commits the StartView, and the seats at the table become its members).
        gone = (before - self.members) & self.seated - {self.seat}
        majority = self._host.majority
        if majority is None:
            take_carried(start, self._host.acks, self._host.log, None)
        for seat in range(self.players):
            # Joined seats (this one too) number their messages afresh from 1.
            self._host.acks.have[seat] = 0 if seat in start.joined else start.cuts[seat]
        self._host.acks.have[start.sender] = start.seq
        if majority is None:
            self._host.log.add(start, (start.sender, start.seq))
        else:
            majority.rejoin(start, now)
        self.liveness.restart(now)
        self._host.events.append(ViewInstalled(start.view, start.members))
        if self.from_disk:
            self._welcome, self.from_disk = start.view, False
        else:
            self._host.events.append(RejoinedTable(start.view))
            # Those gone, told as if seen (a replica from its disk knew no view to compare).
            self._host.events += [PeerExcluded(s) for s in sorted(gone)]
        self._host.events += self._host.record.rejoined(start.scores)
        self._host.send_ack(now)
        self.rejoining.replay(now)
