"""The replica: one peer's share of a table, as a state machine with no IO.

Theory of operation
-------------------
A replica is fed what arrives (`receive`), what its player wants (`intend`) and the time
(`tick`); it answers with messages to broadcast (`take_outgoing`) and events
(`take_events`). It never reads a clock or touches a socket, so a simulator can drive many
of them deterministically, and the network layer drives one for real.

Every message carries the sender's Lamport clock: a replica sets its clock to the
largest it has seen and adds one for each message it sends. Links are FIFO, so each
sender's sequence numbers arrive in order; a repeat is ignored, a gap is an error. A
sender keeps what it sent until every member has acknowledged it, to resend on a new
connection (`resend_to`).

Ready, Play, Reveal, Leave and StartView messages are *ordered*: all of them, from every seat,
form one sequence sorted by (clock, tie class, tie rank) — see `order_key`. A replica
*commits* the first message of that sequence once every member of its view has
acknowledged receiving it (the ``have`` vectors of their Acks, counted only when sent in
that view: `Membership.install_acks`). Any message sorting
earlier was sent, on a FIFO link, before its sender's acknowledgement, so it has already
arrived: every replica commits the same messages in the same order, each on its own,
with no leader. Acks go out a moment after an ordered message arrives (coalescing a
burst into one) and, as heartbeats, whenever a replica has been quiet; so a commit takes
about one round trip to the slowest peer.

The replica is a facade over parts, each the one owner of its state: the package's
docstring lists them.

A message is checked completely (`_checks.py`) before any part changes for it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial

from p2pnerts.protocol import _deal
from p2pnerts.protocol._acks import Acks
from p2pnerts.protocol._arbiter import Outcome
from p2pnerts.protocol._away import Away, Record
from p2pnerts.protocol._base import check_kept, take_view
from p2pnerts.protocol._checks import Gate, Line, Seating
from p2pnerts.protocol._codec import decode_payload
from p2pnerts.protocol._deal import Shuffle
from p2pnerts.protocol._dealing import Dealing
from p2pnerts.protocol._errors import LocalProtocolError, RemoteProtocolError
from p2pnerts.protocol._events import Event, PeerLeft, Returned, SitOut
from p2pnerts.protocol._inplay import InPlay
from p2pnerts.protocol._log import Log, Pending
from p2pnerts.protocol._majority import TELL_EVERY, Majority
from p2pnerts.protocol._membership import Membership
from p2pnerts.protocol._messages import (
    Ack,
    CommitFrame,
    Evidence,
    Leave,
    Message,
    Ordered,
    Play,
    Ready,
    Rejoin,
    Reveal,
    StartView,
    TeamDeal,
    ViewChange,
)
from p2pnerts.protocol._outbox import Outbox
from p2pnerts.protocol._readings import Readings
from p2pnerts.protocol._rounds import Disk
from p2pnerts.protocol._signing import Signer
from p2pnerts.protocol._status import NEVER, Status, Timing
from p2pnerts.protocol._witness import Witness
from p2pnerts.rules import BadOptions, Move, TableOptions

_Builder = Callable[[int, int], Message]
"""Builds a message from the clock and sequence number it is sent with."""


class Replica(Readings):
    """One seat's replica of a table: of solo players, or of teams sharing a deck."""

    def __init__(
        self,
        seat: int,
        options: TableOptions,
        players: int,
        *,
        timing: Timing | None = None,
        now: float = 0.0,
        auto_stuck: bool = True,
        shuffle: Shuffle | None = None,
        signer: Signer | None = None,
        majority: bool = False,
    ) -> None:
        if not 0 <= seat < players:
            raise LocalProtocolError(f"seat {seat} is not at a table of {players}")
        try:
            seats = options.seating(players)
        except BadOptions as exc:
            raise LocalProtocolError(str(exc)) from None
        timing = timing or Timing()
        if majority:
            timing = timing.for_majority()
        self.seat = seat
        self.players = players
        self.timing = timing
        self.options = options
        self.by_majority = majority
        """This table commits by a majority (`_majority`): any play may come back late, so
        each holds its one hand for the moves built on it (`InPlay.in_the_air`); a seat
        leaves out a member that left or fell silent for long (`Election.tick`), and lets
        one back in that asks (`Majority.rejoin`)."""
        self.inplay = InPlay(self)
        self.outbox = Outbox(now)
        """What this seat sends, and keeps until every member holds it."""
        self.events: list[Event] = []
        self.on_commit: list[Callable[[Pending, int], None]] = []
        """Hear each message as it commits, with its place in the order and its outcome."""
        self.leaving = False
        """This seat has sent its Leave: it makes no move after it."""
        self.away = Away(timing, now)
        """This seat's own stalls: time it was not run is counted against nobody."""
        self.match_scores: list[tuple[int, ...]] = []
        self.membership = Membership(self, seat, players, timing, now)
        self.log = Log(players, options.tie_rule)
        self.acks = Acks(seat, players)
        self.seats = seats
        """The deck each seat plays: teammates share one."""
        self.deck = seats[seat]
        self.team = self.team_of(seat)
        """This seat and its teammates, if any."""
        self.auto_stuck = auto_stuck
        self.shuffle: Shuffle = shuffle or partial(_deal.shuffle, options=options)
        """How a deck's order follows from its secret and the round's common seed."""
        self._committing = False
        self.signer = signer or Signer.computed(seat, players)
        """Signs this seat's messages and checks the others' (`_signing`)."""
        self.gate = Gate(Seating(seat, seats, options, majority), self.signer)
        """The checks a message passes first, and the seats refused for breaking the protocol."""
        self.witness = Witness(self, players)
        """What other seats witnessed of the messages held, and proofs of equivocation."""
        self.dealing = Dealing(self)
        self.record = Record(self.deck)
        """The rounds told so far: a replica rebuilt on coming back tells none twice."""
        self.majority = Majority(self) if majority else None
        """Version 3's commit (`_majority`), at a table that commits by a majority; else
        every member's acknowledgement commits (`_log`)."""

    @classmethod
    def restart(
        cls,
        seat: int,
        options: TableOptions,
        players: int,
        *,
        disk: Disk,
        now: float,
        timing: Timing | None = None,
        auto_stuck: bool = True,
        shuffle: Shuffle | None = None,
        signer: Signer | None = None,
        majority: bool = False,
    ) -> Replica:
        """A replica coming back after a crash with only what it persisted: it asks to
        rejoin, and rebuilds the table from what the others send it (``majority``: the
        table commits by a majority)."""
        replica = cls(
            seat,
            options,
            players,
            timing=timing,
            now=now,
            auto_stuck=auto_stuck,
            shuffle=shuffle,
            signer=signer,
            majority=majority,
        )
        replica.dealing.saved = disk
        replica.membership.restart_out(disk.view, now)
        return replica

    # --- inputs ---------------------------------------------------------------------------

    def team_of(self, seat: int) -> tuple[int, ...]:
        """The seats playing ``seat``'s deck, itself included."""
        return tuple(s for s, deck in enumerate(self.seats) if deck == self.seats[seat])

    def intend(self, move: Move, now: float, *, idle: bool = False) -> Move:
        """Make a move for this seat: sent at once, shown in the air until it commits.

        Returns the move as sent (with the cards it turns face up). Raises `IllegalMove`
        if the rules forbid it on the table this player sees, `LocalProtocolError` if the
        protocol does (no round, another seat, one hand busy, the table regrouping).
        ``idle``: a DeclareStuck made for an idle player, who may turn the stock once back.
        """
        return self.inplay.intend(move, now, idle=idle)

    def leave(self, now: float) -> None:
        """Leave the table cleanly: the others go on without this seat from here (and
        this seat makes no move after it). The deck's secret for the round in play goes
        first, so that the round is audited and scored as played (`reveal_on_leaving`).
        Once said, it is not said again."""
        if self.leaving:
            return
        self.leaving = True
        self.dealing.reveal_on_leaving(now)
        self.send(now, lambda c, s: Leave(self.seat, self.view, c, s))

    def refuse(self, seat: int, why: str) -> None:
        """Refuse ``seat`` from now on for what its connection did (`Gate.refuse`)."""
        self.gate.refuse(seat, why)
        self.events += self.gate.news()

    def receive(
        self, message: Message | CommitFrame, now: float, *, via: int | None = None
    ) -> None:
        """Take one message from another seat, in the order its link delivered it.

        Raises `RemoteProtocolError`, changing nothing, if the message breaks the protocol;
        from then on every message of that seat is refused the same way (told once, as a
        `PeerRefused` event). ``via``: the seat whose link carried it, where that may not
        be its sender (a Tally handed on to a seat that polled); None: its sender's.
        """
        self._wake(now)
        try:
            if isinstance(message, CommitFrame):
                self._take_frame(message, now, message.sender if via is None else via)
            else:
                self._receive(message, now)
        except RemoteProtocolError:
            self.events += self.gate.news()
            raise

    def _receive(self, message: Message, now: float) -> None:
        """SPEC §4.2's steps, in order, each taken by the one part that owns it."""
        view = self.membership.view
        # 1. Checked completely, before anything changes (a refusal raises).
        self.gate.check(message, self.acks.clock, view)
        # 2. Outside the sequence.
        match message:
            case Rejoin():
                self.membership.take_rejoin(message, now)
                return
            case TeamDeal():
                self.dealing.take_team_deal(message, now)
                return
            case Evidence():
                self.witness.take_evidence(message)
                return
        # 3-7. For this view: not from a left table, another view, an earlier life.
        if not self.membership.admit(message, now):
            return
        # 8. Next on its sender's link.
        sender = message.sender
        match self.gate.in_line(message, self.acks, self.log.waiting[sender], view):
            case Line.AHEAD:
                self.membership.shut_out(now)  # it asks to be let back in
                return
            case Line.DROP:
                return
        if self.majority is not None and isinstance(message, Ready | Play | Leave | Reveal):
            self.majority.check(message)  # (its number, which only its place here tells)
        # 9. Accepted: held, the clock caught up, what an Ack says its sender holds noted;
        # the sender is heard (one that sent in this view installed it, and vouches for
        # commits in it).
        stale = self.acks.accept(message, in_view=message.view == view)
        if self.majority is not None and isinstance(message, Ack):
            within = self.timing.passed_within
            stale = self.majority.lags(message, now, within, moved=not stale)
        self.membership.hear_from(message, now, stale=stale)
        # 10. By kind.
        match message:
            case Ack():
                self._take_ack(message)
            case Ready() | Play() | Leave() | Reveal() if self.majority is not None:
                self.majority.hold(message, now)
            case Ready() | Play() | Leave() | Reveal():
                self.log.add(message, None)
                self.witness.took(message)
                self.outbox.ack_soon(now, self.timing.ack_delay, at_once=self.timing.ack_at_once)
            case ViewChange():
                self.membership.election.take(message, now)
            case StartView():
                self.membership.take_start_view(message, now)
        # 11. Commit what now can.
        self.commit_ready(now)

    def tick(self, now: float) -> None:
        """Let time pass: send due acknowledgements and heartbeats, suspect silent seats,
        and start or push on a view change."""
        if self.membership.status is Status.LEFT:
            return
        self._wake(now)
        if self.membership.status is Status.OUT:
            self.membership.rejoining.tick_out(now)
            if not self.membership.regroup(now):
                return
        ack_due = self.outbox.ack_due is not None and now >= self.outbox.ack_due
        if ack_due or self.outbox.quiet_for(now) >= self.timing.heartbeat or now >= self._tell():
            self.send_ack(now)
        self.membership.liveness.suspect_silent(now)
        self.membership.liveness.watch_head(now)
        self.membership.liveness.watch_reveals(self.dealing.closing.withholding(), now)
        self.membership.tick_views(now)
        self.inplay.maybe_stuck(now)
        if self.majority is not None:
            self.majority.tick(now)
            self.commit_ready(now)

    def _wake(self, now: float) -> None:
        """Count no time this replica was not run against the others (`_away.py`)."""
        gap, status = self.away.gap(now), self.membership.status
        if gap and status in (Status.NORMAL, Status.CHANGING):
            self.membership.liveness.excuse(gap - self.timing.heartbeat)
            self.away.noticed(gap, self.acks.have[self.seat] + 1)

    # --- outputs --------------------------------------------------------------------------

    def take_outgoing(self) -> list[Message]:
        """The messages to broadcast to every other seat, in order; clears the queue."""
        return self.outbox.take()

    def take_frames(self) -> list[tuple[CommitFrame, int | None]]:
        """Version 3's commit frames to send, in order, each with the seat it goes to (None:
        every other seat); clears the queue."""
        return [] if self.majority is None else self.majority.commits.take_outgoing()

    def take_events(self) -> list[Event]:
        """What happened since the last call; clears the queue."""
        if not self.events:
            return []  # (the usual answer: most steps tell nothing)
        events, self.events = self.events, []
        told = self.record.tell(events)
        return [self._sitting_out(e) if isinstance(e, SitOut) else e for e in told]

    def _sitting_out(self, event: SitOut) -> SitOut:
        """Whether this seat, sitting a round out, deals in the next: its deck pledged for
        it in a Ready of this round (`Round.pledges`)."""
        pledged = self.deck in self.dealing.round_data(event.round).pledges
        return replace(event, deals_next=pledged)

    def resend_to(self, seat: int) -> list[Message]:
        """What to send again to ``seat`` on a new connection: everything it may lack
        (a teammate gets the team's deck first, as it may have restarted without it), and
        the proofs of equivocation kept."""
        deals: list[Message] = list(self.dealing.team_deals_for(seat))
        held = self.acks.acked[seat][self.seat]
        kept = self.outbox.again(held, member=seat in self.members)
        return deals + kept + self.witness.again()

    def next_deadline(self) -> float:
        """When `tick` next has something to do."""
        status = self.membership.status
        if status is Status.LEFT:
            return NEVER
        heartbeat = self.outbox.last_sent + self.timing.heartbeat
        if status is Status.OUT:
            return heartbeat
        ack_due = self.outbox.ack_due
        soonest = min(heartbeat, self.membership.deadline(), self._tell())
        if self.majority is not None:
            soonest = min(soonest, self.majority.deadline())
        return soonest if ack_due is None else min(soonest, ack_due)

    # --- dealing ---------------------------------------------------------------------------

    def start_round(self, secret: bytes, now: float) -> None:
        """Say Ready for the next round (`Dealing.start_round`): ``secret`` is 32 fresh
        random bytes, which the Ready pledges for the round after."""
        self.dealing.start_round(secret, now)

    # --- sending ----------------------------------------------------------------------------

    def send(self, now: float, build: _Builder) -> Message:
        """Number, queue and keep a message of this seat's (holding it if it is ordered)."""
        seq = self.acks.next_seq()
        message = build(self.acks.clock, seq)
        if self.majority is not None and isinstance(message, Ready | Play | Leave | Reveal):
            message = self.majority.own(message)
        message = self.signer.sign(message)
        self.outbox.push(message, now)
        if isinstance(message, Ready | Play | Leave | Reveal):
            if self.majority is not None:
                self.majority.sent(message, now)
            else:
                self.log.add(message, None)
            self.commit_ready(now)
        return message

    def _tell(self) -> float:
        """At a table that commits by a majority, when an Ack is due however busy this seat
        is: it tells how far the seat has passed the canonical order, and the others let
        go of the plays every member has passed only so. A seat that plays more often than
        a heartbeat is never quiet, and held every play of a round until its end (a
        cheat's table, its plays returned and made again, held 4,363, and its change of
        members failed: the ViewChange outgrew a frame). Due `Timing.tell_passed` after it
        passed the first play it has not told of (in an Ack, or in a Tally of its own play:
        `Commits.untold_since`), and at once where it has passed `_majority.TELL_EVERY`
        such plays. A seat that tallies its own plays tells it in each, and sends no Ack
        for it (it sent one a second, one frame a play more at 14 seats)."""
        if self.majority is None:
            return NEVER
        commits = self.majority.commits
        if commits.untold >= TELL_EVERY:  # (a busy table: at once)
            return self.outbox.last_ack
        return commits.untold_since + self.timing.tell_passed

    def send_ack(self, now: float) -> None:
        """Say what this seat holds, how many messages it committed and its digest."""
        self.outbox.ack_due, self.outbox.last_ack = None, now
        have, committed, digest = tuple(self.acks.have), self.log.committed, self.log.digest
        heard = self.witness.take_heard()
        passed, made = ((), 0) if self.majority is None else self.majority.said()
        self.send(
            now,
            lambda c, s: Ack(
                self.seat, self.view, c, s, have, committed, digest, heard, passed, made
            ),
        )
        if self.witness.heard:
            self.outbox.ack_soon(now, self.timing.ack_delay)

    # --- receiving --------------------------------------------------------------------------

    def _take_ack(self, ack: Ack) -> None:
        """What an Ack says beside what its sender holds (noted on accepting it,
        `Acks.accept`; only an Ack sent in this view vouches for commits in it, as a seat
        that acknowledged in another may never install this one: it may have installed a
        sibling view, built from the same old view, whose order drops other messages than
        this view's, `Membership.install_acks`): the witnesses it carries, whether it shows
        the others kept this seat in through its own stall, and its digest. What every
        member now holds of this seat's need not be kept to send again."""
        self.witness.take_ack(ack, self.acks.lives, self.acks.have)
        if self.majority is not None and ack.view == self.membership.view:
            self.majority.hear(ack)
        back = self.away.kept_in(ack, self.seat, self.membership.view)
        if back is not None:
            self.events.append(Returned(back))
        # (At a majority's table the digest starts again in each view, once it has taken
        # hold: `Majority._begin`.)
        majority = self.majority
        same = majority is None or (ack.view == self.membership.view and majority.begun)
        diverged = self.log.compare(ack) if same else None
        if diverged is not None:
            self.events.append(diverged)
        self.outbox.trim(self.acks.lowest_vouched(self.membership.members))

    # --- committing -------------------------------------------------------------------------

    def commit_ready(self, now: float) -> None:
        """Commit, in order, every message at the head of the order that all members hold."""
        if self.membership.status is not Status.NORMAL or self._committing:
            return  # (a message sent while committing waits for the loop below)
        self._committing = True
        try:
            if self.majority is not None:
                self.majority.apply(now)
            else:
                self._commit_held(now)
        finally:
            self._committing = False
        if len(self.team) > 1:
            self.dealing.try_deal(now)  # the teammate that was to deal may have gone

    def _commit_held(self, now: float) -> None:
        log = self.log
        while log.pending and self.membership.status is Status.NORMAL:
            head = log.pending[0]
            message = head.message
            # §4.4: every member vouched for holding it (or for the StartView that carried
            # it), and no member witnessed it otherwise (§4.10).
            if not self.acks.vouched_by(head, self.membership.members):
                return
            if not isinstance(message, StartView) and not self.witness.release(message):
                return
            log.pop_head()
            self.tell_commit(head, self.apply(message, now))

    def holding(self) -> tuple[bytes, list[bytes]]:
        """What this seat brings to a change of members in its ViewChange: at a table that
        commits by a majority, the plays it holds and what it knows of them (`_handover`);
        nothing where every member's acknowledgement commits (the StartView carries the
        round instead)."""
        return (b"", []) if self.majority is None else self.majority.holding()

    def overfull(self, now: float) -> bool:
        """Whether the table must change members before what each seat would bring to the
        change fills a StartView (`Majority.overfull`); never where every member's
        acknowledgement commits."""
        return self.majority is not None and self.majority.overfull(now)

    def crowded(self) -> bool:
        """Whether this seat makes no play for now: it holds as many plays as a change of
        members may carry (`Majority.crowded`); never where every member's
        acknowledgement commits."""
        return self.majority is not None and self.majority.crowded()

    def ready_again(self, now: float) -> None:
        """Say again a Ready a change of members dropped (`Dealing.ready_again`)."""
        self.dealing.ready_again(now)

    def taken_hold(self) -> bool:
        """Whether this view has taken hold, at a table that commits by a majority
        (`Membership.taken_hold`)."""
        return self.membership.taken_hold()

    def open_since(self) -> float:
        """Since when the oldest play of another seat held here has had no outcome
        (`Majority.open_since`); `NEVER` where every member's acknowledgement commits."""
        return NEVER if self.majority is None else self.majority.open_since()

    def handover(
        self,
        votes: Sequence[ViewChange],
        members: Sequence[int],
        joined: Sequence[int],
        now: float,
    ) -> tuple[int, list[Ordered]] | None:
        """What a StartView built here from ``votes``, for ``members``, says beyond them at
        a table that commits by a majority: the count every seat of the new view starts its
        digest from (`Majority.handover`), and, for the seats coming back (``joined``), the
        messages kept here while the members change; None where every member's
        acknowledgement commits."""
        if self.majority is None:
            return None
        return self.majority.handover(votes, members, joined, now)

    def take_view(self, start: StartView, changed: set[int], now: float) -> None:
        """Take what a StartView hands over on installing it (SPEC §6.5): where every
        member's acknowledgement commits, the log's messages of the seats that left or
        come back (``changed``) cut, and what it carries held; at a table that commits by
        a majority, the plays still open settled from the votes' holdings
        (`Majority.install`)."""
        if self.majority is None:
            take_view(start, self.acks, self.log, changed)
        else:
            self.majority.install(start, now)

    def tell_commit(self, entry: Pending, outcome: int, *, content: bytes | None = None) -> None:
        """Fold a committed message into the running digest, at its place in the order (as
        ``content``, if given: `Log.fold`), and tell those who listen for commits."""
        self.events += self.log.fold(entry.message, outcome, content=content)
        for hear in self.on_commit:
            hear(entry, outcome)

    def held_copy(self, message: Ordered) -> Ordered | None:
        """At a table that commits by a majority, the copy held here of the play that
        ``message`` names (`Majority.held_copy`): what an Evidence is compared with."""
        return None if self.majority is None else self.majority.held_copy(message)

    def _take_frame(self, frame: CommitFrame, now: float, via: int) -> None:
        """A commit frame of version 3 (refused at a table that commits by acknowledgement):
        dropped unread while the members change (a seat that voted for a change decides
        nothing more); else checked (`Gate.check_frame`), then counted (`Majority.take`)."""
        if self.majority is None:
            why = f"a {type(frame).__name__} at a table that commits by acknowledgement"
            raise RemoteProtocolError(why)
        membership, stale = self.membership, False
        if membership.status is Status.NORMAL and self.gate.check_frame(
            frame, via, self.acks.clock, membership.view
        ):
            stale = self.majority.take(frame, now, via, self.timing.passed_within)
        if frame.view == membership.view and via == frame.sender in membership.members:
            membership.hear_from(frame, now, stale=stale)  # (installed, and not silent)
        self.commit_ready(now)

    def apply(self, message: Ordered | StartView, now: float) -> int:
        """Apply one committed message; returns its outcome for the digest."""
        self.membership.note_committed(message)
        match message:
            case Ready():
                self.dealing.commit_ready(message)
            case Reveal():
                self.dealing.commit_reveal(message)
            case Play():
                return self.inplay.commit_play(message, now)
            case Leave():
                if self.membership.commit_leave(message):  # (else: the seat is back since)
                    self.events.append(PeerLeft(message.sender))
                    if message.sender == self.seat:
                        # Its last word: the others may still wait on this seat's word that
                        # it holds what they sent before its Leave.
                        self.send_ack(now)
            case StartView():
                self.membership.commit_start_view(message)
        self.dealing.maybe_start_play()
        self.inplay.settle(now)
        self.dealing.settle(now)
        return Outcome.LANDED

    def check_kept(self, start: StartView) -> None:
        """Raise `KeptStateError` unless what this seat kept to come back (its disk) fits
        the StartView that lets it back in (`_base.check_kept`)."""
        check_kept(self.disk, start, self.seat, self.seats[self.seat], self.options)

    def rebuild(self, start: StartView) -> None:
        """Come back with fresh parts from a StartView that lets this seat rejoin: the
        carried messages replay the table from the first Ready of round ``start.round``."""
        self.acks = Acks.for_rejoiner(self.seat, start, self.acks.clock)
        self.log = Log(self.players, self.options.tie_rule, start.base_committed, start.base_digest)
        self.outbox.kept.clear()
        for seat in range(self.players):
            self.witness.forget(seat)
        self.match_scores = list(start.scores)
        self.inplay = InPlay(self, start.round - 1)
        if self.majority is not None:
            self.majority = Majority(self)  # (of the view it comes back into)
        # This seat's own plays of its earlier life that the view carries back are in the
        # air again until they commit: else its player, not seeing them, makes them again
        # (a stock turned twice shows the same cards twice).
        for payload in start.carried:
            message = decode_payload(payload)
            if isinstance(message, Play) and message.sender == self.seat:
                self.inplay.in_the_air(message)
        # A base at the match's start (no Ready had committed: "round 1") replays round 0's
        # Readies too, and with them the pledges of round 1.
        self.dealing.restart(self.inplay.number, start.round if start.base_committed else 0)
