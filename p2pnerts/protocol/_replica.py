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

Ready, Play, Leave and StartView messages are *ordered*: all of them, from every seat,
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

from p2pnerts.protocol._acks import Acks
from p2pnerts.protocol._arbiter import Outcome
from p2pnerts.protocol._checks import Gate, Line, Seating
from p2pnerts.protocol._dealing import Dealing
from p2pnerts.protocol._errors import LocalProtocolError
from p2pnerts.protocol._events import (
    Event,
    PeerLeft,
)
from p2pnerts.protocol._inplay import Disk, InPlay, Round
from p2pnerts.protocol._log import Log, Pending
from p2pnerts.protocol._membership import Membership
from p2pnerts.protocol._messages import (
    Ack,
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
from p2pnerts.protocol._status import Status, Timing
from p2pnerts.rules import (
    BadOptions,
    Card,
    Move,
    State,
    TableOptions,
)

_Builder = Callable[[int, int], Message]
"""Builds a message from the clock and sequence number it is sent with."""


class Replica:
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
    ) -> None:
        if not 0 <= seat < players:
            raise LocalProtocolError(f"seat {seat} is not at a table of {players}")
        try:
            seats = options.seating(players)
        except BadOptions as exc:
            raise LocalProtocolError(str(exc)) from None
        timing = timing or Timing()
        self.seat = seat
        self.players = players
        self.timing = timing
        self.options = options
        self.inplay = InPlay(self)
        """The round on the table at this seat, and this seat's plays in the air."""
        self.outbox = Outbox(now)
        """What this seat sends, and keeps until every member holds it."""
        self.events: list[Event] = []
        self.match_scores: list[tuple[int, ...]] = []
        self.membership = Membership(self, seat, players, timing, now)
        """Views, votes and rejoining."""
        self.log = Log(players, options.tie_rule)
        """The agreed order: what waits to commit, and the running digest."""
        self.acks = Acks(seat, players)
        """The clock, and who holds which messages."""
        self.seats = seats
        """The deck each seat plays: teammates share one."""
        self.deck = seats[seat]
        self.team = self.team_of(seat)
        """This seat and its teammates, if any."""
        self.auto_stuck = auto_stuck
        self.gate = Gate(Seating(seat, seats, options))
        """The checks a message passes first, and the seats refused for breaking the protocol."""
        self.dealing = Dealing(self)
        """The rounds dealt, the team's deck, the start of play and the audit."""

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
    ) -> Replica:
        """A replica coming back after a crash with only what it persisted: it asks to
        rejoin, and rebuilds the table from what the others send it."""
        replica = cls(seat, options, players, timing=timing, now=now, auto_stuck=auto_stuck)
        replica.dealing.saved = disk
        replica.membership.restart_out(disk.view, now)
        return replica

    # --- inputs ---------------------------------------------------------------------------

    def team_of(self, seat: int) -> tuple[int, ...]:
        """The seats playing ``seat``'s deck, itself included."""
        return tuple(s for s, deck in enumerate(self.seats) if deck == self.seats[seat])

    def intend(self, move: Move, now: float) -> Move:
        """Make a move for this seat: sent at once, shown in the air until it commits.

        Returns the move as sent (with the cards it turns face up). Raises `IllegalMove`
        if the rules forbid it on the table this player sees, `LocalProtocolError` if the
        protocol does (no round, another seat, one hand busy, the table regrouping).
        """
        return self.inplay.intend(move, now)

    def sitting_out(self) -> list[int]:
        """The seats sitting the round in play out (`InPlay.sitting_out`)."""
        return self.inplay.sitting_out()

    def leave(self, now: float) -> None:
        """Leave the table cleanly: the others go on without this seat from here."""
        self.send(now, lambda c, s: Leave(self.seat, self.view, c, s))

    def receive(self, message: Message, now: float) -> None:
        """Take one message from another seat, in the order its link delivered it.

        Raises `RemoteProtocolError`, changing nothing, if the message breaks the protocol;
        from then on every message of that seat is refused the same way.
        """
        self.gate.check(message)
        match message:
            case Rejoin():
                self.membership.take_rejoin(message, now)
            case TeamDeal():
                self.dealing.take_team_deal(message, now)
            case _ if self.membership.admit(message, now):
                self._take_in_line(message, now)

    def _take_in_line(self, message: Message, now: float) -> None:
        """Take a message that comes next from its sender (`Gate.in_line`)."""
        match self.gate.in_line(message, self.acks.have[message.sender], self.membership.view):
            case Line.NEXT:
                self._take(message, now)
                self.commit_ready(now)
            case Line.AHEAD:
                self.membership.shut_out(now)  # it asks to be let back in

    def _take(self, message: Message, now: float) -> None:
        """Take a message that comes next from its sender."""
        # A message sent in this view shows its sender installed it, and vouches for
        # commits in it.
        self.acks.hold(message, in_view=message.view == self.membership.view)
        self.membership.hear_from(message, now)
        match message:
            case Ack():
                self._take_ack(message)
            case Ready() | Play() | Leave():
                self.log.add(message, None)
                self.outbox.ack_soon(now, self.timing.ack_delay)
            case Reveal():
                self.dealing.take_reveal(message)
            case ViewChange():
                self.membership.election.take(message, now)
            case StartView():
                self.membership.take_start_view(message, now)

    def tick(self, now: float) -> None:
        """Let time pass: send due acknowledgements and heartbeats, suspect silent seats,
        and start or push on a view change."""
        if self.membership.status is Status.LEFT:
            return
        if self.membership.status is Status.OUT:
            self.membership.rejoining.tick_out(now)
            return
        ack_due = self.outbox.ack_due is not None and now >= self.outbox.ack_due
        if ack_due or self.outbox.quiet_for(now) >= self.timing.heartbeat:
            self.send_ack(now)
        self.membership.suspect_silent(now)
        self.membership.tick_views(now)
        self.inplay.maybe_stuck(now)

    # --- outputs --------------------------------------------------------------------------

    def take_outgoing(self) -> list[Message]:
        """The messages to broadcast to every other seat, in order; clears the queue."""
        return self.outbox.take()

    def take_events(self) -> list[Event]:
        """What happened since the last call; clears the queue."""
        events, self.events = self.events, []
        return events

    def resend_to(self, seat: int) -> list[Message]:
        """What to send again to ``seat`` on a new connection: everything it may lack
        (a teammate gets the team's deck first, as it may have restarted without it)."""
        deals: list[Message] = list(self.dealing.team_deals_for(seat))
        held = self.acks.acked[seat][self.seat]
        return deals + self.outbox.again(held, member=seat in self.members)

    def next_deadline(self) -> float:
        """When `tick` next has something to do."""
        status = self.membership.status
        if status is Status.LEFT:
            return float("inf")
        beat = self.outbox.last_sent + self.timing.heartbeat
        if status is Status.OUT:
            return beat
        due = self.outbox.ack_due
        if due is not None and due < beat:
            beat = due
        return min(beat, self.membership.deadline())

    # --- what the other layers read ----------------------------------------------------------

    @property
    def disk(self) -> Disk:
        """What this peer must keep on disk to come back after a crash (save it whenever it
        changes: a new round or a new view)."""
        return replace(self.dealing.saved, view=self.view)

    def start_round(self, order: Sequence[Card], salt: bytes, now: float) -> None:
        """Deal this seat's deck from ``order`` (kept secret) and say Ready."""
        self.dealing.start_round(order, salt, now)

    def should_deal(self) -> bool:
        """Whether this seat should deal the next round now (`Dealing.should_deal`)."""
        return self.dealing.should_deal()

    def round_data(self, number: int) -> Round:
        """What this replica keeps of round ``number`` (kept from now on)."""
        return self.dealing.round_data(number)

    def dealt_by(self, number: int) -> dict[int, int]:
        """Per deck dealt in round ``number``, the seat whose Ready dealt it."""
        return self.dealing.dealt_by(number)

    @property
    def round(self) -> int:
        """The dealt round: the last round this seat dealt a deck for."""
        return self.dealing.round

    @property
    def blind(self) -> bool:
        """Whether this seat is dealt in but does not know its deck's face-down order."""
        return self.dealing.blind

    @property
    def display(self) -> State | None:
        """The table this seat's player sees: committed, plus their own plays in the air."""
        return self.inplay.display

    @property
    def public(self) -> State | None:
        """The public table of the round in play: the same at every replica."""
        return self.inplay.public

    @property
    def playing(self) -> int:
        """The round on the table (0 before the first is dealt in)."""
        return self.inplay.number

    @property
    def in_the_air(self) -> Move | None:
        """This seat's play that holds its one hand, if any."""
        hand = self.inplay.hand
        return None if hand is None else hand.move

    @property
    def status(self) -> Status:
        """Where this replica stands: playing, regrouping, rejoining or gone."""
        return self.membership.status

    @property
    def view(self) -> int:
        """The number of the view this replica is in."""
        return self.membership.view

    @property
    def members(self) -> frozenset[int]:
        """The seats of this replica's view."""
        return self.membership.members

    @property
    def seated(self) -> frozenset[int]:
        """The seats at the table as the committed order says."""
        return self.membership.seated

    @property
    def suspected(self) -> set[int]:
        """The members silent for a while (still members)."""
        return self.membership.suspected

    @property
    def heard(self) -> list[float]:
        """Per seat, when this replica last heard from it."""
        return self.membership.heard

    @property
    def clock(self) -> int:
        """This replica's Lamport clock."""
        return self.acks.clock

    @property
    def have(self) -> Sequence[int]:
        """Per seat, the highest sequence number held of its current life."""
        return self.acks.have

    @property
    def committed(self) -> int:
        """How many messages this replica has committed."""
        return self.log.committed

    @property
    def pending(self) -> Sequence[Pending]:
        """The ordered messages held, waiting to commit, in their order."""
        return self.log.pending

    @property
    def digest(self) -> bytes:
        """The running digest of everything committed so far."""
        return self.log.digest

    def digest_at(self, committed: int) -> bytes:
        """The running digest after the first ``committed`` messages (recent ones only)."""
        return self.log.digests[committed]

    # --- sending ----------------------------------------------------------------------------

    def send(self, now: float, build: _Builder) -> Message:
        """Number, queue and keep a message of this seat's (holding it if it is ordered)."""
        seq = self.acks.next_seq()
        message = build(self.acks.clock, seq)
        self.outbox.push(message, now)
        if isinstance(message, Ready | Play | Leave):
            self.log.add(message, None)
            self.commit_ready(now)
        return message

    def send_ack(self, now: float) -> None:
        """Say what this seat holds, how many messages it committed and its digest."""
        self.outbox.ack_due = None
        have, committed, digest = tuple(self.acks.have), self.log.committed, self.log.digest
        self.send(now, lambda c, s: Ack(self.seat, self.view, c, s, have, committed, digest))

    # --- receiving --------------------------------------------------------------------------

    def _take_ack(self, ack: Ack) -> None:
        # Only a seat known to be in this view vouches for a commit in it: an Ack from
        # another view may come from a seat that never installs this one (it installed a
        # sibling view, built from the same old view), whose order drops other messages
        # than this view's (see `Membership.install_acks`).
        self.acks.take(ack, in_view=ack.view == self.membership.view)
        diverged = self.log.compare(ack)
        if diverged is not None:
            self.events.append(diverged)
        self.outbox.trim(self.acks.lowest_vouched(self.members))

    # --- committing -------------------------------------------------------------------------

    def commit_ready(self, now: float) -> None:
        """Commit, in order, every message at the head of the order that all members hold."""
        if self.membership.status is not Status.NORMAL:
            return
        log = self.log
        while log.pending and self.membership.status is Status.NORMAL:
            head = log.pending[0]
            if not self.membership.held_by_all(head):
                return
            del log.pending[0]
            outcome = self._commit(head.message, now)
            self.events += log.fold(head.message, outcome)
        if len(self.team) > 1:
            self.dealing.deal_for_team(now)  # the teammate that was to deal may have gone

    def _commit(self, message: Ordered | StartView, now: float) -> int:
        """Apply one committed message; returns its outcome for the digest."""
        self.membership.note_committed(message)
        match message:
            case Ready():
                self.dealing.round_data(message.round).readies[message.sender] = message
            case Play():
                return self.inplay.commit_play(message, now)
            case Leave():
                self.membership.commit_leave(message.sender)
                self.events.append(PeerLeft(message.sender))
            case StartView():
                self.membership.commit_start_view(message)
        self.dealing.maybe_start_play()
        self.inplay.settle(now)
        return Outcome.LANDED

    def rebuild(self, start: StartView) -> None:
        """Come back with fresh parts from a StartView that lets this seat rejoin: the
        carried messages replay the table from the first Ready of round ``start.round``."""
        self.acks = Acks.for_rejoiner(self.seat, start, self.acks.clock)
        self.log = Log(self.players, self.options.tie_rule, start.base_committed, start.base_digest)
        self.outbox.kept.clear()
        self.match_scores = list(start.scores)
        self.inplay = InPlay(self, start.round - 1)
        self.dealing.restart(self.inplay.number, start.round)
