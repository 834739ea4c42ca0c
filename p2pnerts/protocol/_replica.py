"""The replica: one peer's share of a table, as a state machine with no IO.

Theory of operation
-------------------
A replica is fed what arrives (`receive`), what its player wants (`intend`) and the time
(`tick`); it answers with messages to broadcast (`take_outgoing`) and events
(`take_events`). It never reads a clock or touches a socket, so a simulator can drive many
of them deterministically, and the network layer drives one for real.

Every message carries the sender's Lamport clock: a replica sets its clock to the
largest it has seen and adds one for each message it sends. Links are FIFO, so each
sender's sequence numbers arrive in order; a repeat is ignored, a gap is an error.

Ready, Play and Leave messages are *ordered*: all of them, from every seat, form one
sequence sorted by (clock, tie class, tie rank) — see `order_key`. A replica *commits*
the first message of that sequence once every member has acknowledged receiving it (the
``have`` vectors of their Acks). Any message sorting earlier was sent, on a FIFO link,
before its sender's acknowledgement, so it has already arrived: every replica commits
the same messages in the same order, each on its own, with no leader. Acks are sent a
moment after an ordered message arrives (coalescing a burst into one) and, as
heartbeats, whenever a replica has been quiet; so a commit takes about one round trip to
the slowest peer.

Committed plays are applied to the public table, where every face-down card is hidden:
the same state at every peer, whose running digest each Ack carries so that a divergence
shows at once. A replica also applies them to its private table, where its own deck is
known, and shows its player that table plus its own plays still in the air. A play that
no longer fits at its place in the order is returned, naming the seat whose play took
the spot; under the both-stay tie rule, a play with the same clock as the card that beat
it stays beside it. One hand: while a foundation play, a stuck declaration or a Nerts
call is in the air, its player's next move waits.
"""

from __future__ import annotations

import bisect
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from p2pnerts.protocol import _deal
from p2pnerts.protocol._codec import encode
from p2pnerts.protocol._errors import LocalProtocolError, RemoteProtocolError
from p2pnerts.protocol._events import (
    AuditFailed,
    AuditPassed,
    Diverged,
    Event,
    PeerRecovered,
    PeerSuspected,
    PlayCommitted,
    PlayInTheAir,
    PlayReturned,
    RoundOver,
    RoundStarted,
)
from p2pnerts.protocol._messages import Ack, Leave, Message, Play, Ready, Reveal
from p2pnerts.rules import (
    CallNerts,
    Card,
    CardPlayed,
    CardsRevealed,
    DeclareStuck,
    IllegalMove,
    Move,
    Rotate,
    SlideUnder,
    State,
    TableOptions,
    TieRule,
    ToFoundation,
    ToWork,
    TurnStock,
    apply,
    card_code,
    card_from_code,
    is_stuck,
    public_digest,
    score_round,
    solo_seats,
)

DIGESTS_KEPT = 4096
Key = tuple[int, int, int]
_Builder = Callable[[int, int], Message]
"""Builds a message from the clock and sequence number it is sent with."""


@dataclass(slots=True)
class _Round:
    """What a replica keeps about one round until its audit is done."""

    number: int
    order: tuple[Card, ...] = ()
    salt: bytes = b""
    readies: dict[int, Ready] = field(default_factory=dict)
    shown: dict[int, tuple[Card, ...]] = field(default_factory=dict)
    log: list[tuple[Move, bool]] = field(default_factory=list)
    reveals: dict[int, tuple[bytes, tuple[Card, ...]]] = field(default_factory=dict)
    ended: bool = False


@dataclass(frozen=True, slots=True)
class Timing:
    """The replica's tunables, in seconds."""

    ack_delay: float = 0.005
    heartbeat: float = 0.25
    suspect_after: float = 2.0


def order_key(message: Ready | Play | Leave, seats: int, tie_rule: TieRule) -> Key:
    """Where a message stands in the agreed order: by clock, then the tie rule.

    A Nerts call sorts after every play with the same clock: those were in the air when
    it was called, and complete their move. Under `rotate`, the seat that goes first at
    equal clocks moves round with the clock value; otherwise the lower seat goes first.
    """
    calls = isinstance(message, Play) and isinstance(message.move, CallNerts)
    rank = message.sender
    if tie_rule is TieRule.ROTATE:
        rank = (message.sender - message.clock) % seats
    return (message.clock, int(calls), rank)


class Replica:
    """One seat's replica of a table of solo players."""

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
        self.seat = seat
        self.options = options
        self.seats = solo_seats(players)
        self.timing = timing or Timing()
        self.auto_stuck = auto_stuck
        self.clock = 0
        self.committed = 0
        self.round = 0
        self.public: State | None = None
        self.private: State | None = None
        self.suspected: set[int] = set()
        self._have = [0] * players
        self._acked = [[0] * players for _ in range(players)]
        self._acked[seat] = self._have
        self._heard = [now] * players
        self._pending: list[tuple[Key, Message]] = []
        self._out: list[Message] = []
        self._events: list[Event] = []
        self._last_sent = now
        self._ack_due: float | None = None
        self._chain = bytes(16)
        self._digests: dict[int, bytes] = {0: self._chain}
        self._awaited: dict[int, list[tuple[int, bytes]]] = {}
        self._rounds: dict[int, _Round] = {}
        self._display: State | None = None
        self._mine: list[Play] = []
        self._hand: Play | None = None
        self._placed: dict[int, tuple[int, int]] = {}

    # --- inputs ---------------------------------------------------------------------------

    def start_round(self, order: Sequence[Card], salt: bytes, now: float) -> None:
        """Deal this seat's deck from ``order`` (kept secret) and say Ready."""
        if self.public is not None and self.public.ended is None:
            raise LocalProtocolError("a round is still being played")
        self.round += 1
        self.public = self.private = self._display = None
        self._placed = {}
        this = self._round_data(self.round)
        this.order, this.salt = tuple(order), salt
        shown = tuple(map(card_code, _deal.face_up(order, self.options)))
        commitment = _deal.commitment(salt, order)
        number = self.round
        self._send(now, lambda c, s: Ready(self.seat, c, s, number, commitment, shown))

    def intend(self, move: Move, now: float) -> Move:
        """Make a move for this seat: sent at once, shown in the air until it commits.

        Returns the move as sent (with the cards it turns face up). Raises `IllegalMove`
        if the rules forbid it on the table this player sees, `LocalProtocolError` if the
        protocol does (no round, another seat, one hand busy).
        """
        display = self.display
        if display is None or display.ended is not None:
            raise LocalProtocolError("no round is being played")
        if move.seat != self.seat:
            raise LocalProtocolError(f"seat {self.seat} cannot move for seat {move.seat}")
        if self._hand is not None:
            raise LocalProtocolError("one hand: wait until your last play lands or returns")
        if isinstance(move, Rotate):
            raise LocalProtocolError("the rotation happens by itself once everyone is stuck")
        if isinstance(move, TurnStock) and display.tableau_of(self.seat).stuck:
            raise LocalProtocolError("you declared stuck: play a card, or wait for the others")
        _, events = apply(display, move)
        shown = tuple(c for e in events if isinstance(e, CardsRevealed) for c in e.cards)
        if shown:
            assert isinstance(move, TurnStock | ToFoundation | ToWork | SlideUnder)
            move = replace(move, revealed=shown)
        play = self._send(now, lambda c, s: Play(self.seat, c, s, self.round, move))
        assert isinstance(play, Play)
        self._mine.append(play)
        self._display = None
        if isinstance(move, ToFoundation | CallNerts | DeclareStuck):
            self._hand = play
            self._events.append(PlayInTheAir(move))
        return move

    def receive(self, message: Message, now: float) -> None:
        """Take one message from another seat, in the order its link delivered it."""
        sender = message.sender
        if not 0 <= sender < len(self.seats) or sender == self.seat:
            raise RemoteProtocolError(f"a message from seat {sender} cannot reach seat {self.seat}")
        if message.seq <= self._have[sender]:
            return  # delivered again after a reconnect: already have it
        if message.seq != self._have[sender] + 1:
            raise RemoteProtocolError(
                f"seat {sender} skipped from message {self._have[sender]} to {message.seq}"
            )
        self._have[sender] = message.seq
        self._acked[sender][sender] = message.seq
        self.clock = max(self.clock, message.clock)
        self._hear(sender, now)
        match message:
            case Ack():
                self._take_ack(message)
            case Ready() | Play() | Leave():
                self._check_ordered(message)
                key = order_key(message, len(self.seats), self.options.tie_rule)
                bisect.insort(self._pending, (key, message), key=lambda entry: entry[0])
                if self._ack_due is None:
                    self._ack_due = now + self.timing.ack_delay
            case Reveal():
                self._take_reveal(message)
        self._commit_ready(now)

    def tick(self, now: float) -> None:
        """Let time pass: send due acknowledgements and heartbeats, suspect silent seats."""
        if (
            self._ack_due is not None and now >= self._ack_due
        ) or now - self._last_sent >= self.timing.heartbeat:
            self._send_ack(now)
        for seat in range(len(self.seats)):
            silent = now - self._heard[seat] > self.timing.suspect_after
            if seat != self.seat and silent and seat not in self.suspected:
                self.suspected.add(seat)
                self._events.append(PeerSuspected(seat))
        self._maybe_stuck(now)

    # --- outputs --------------------------------------------------------------------------

    def take_outgoing(self) -> list[Message]:
        """The messages to broadcast to every other seat, in order; clears the queue."""
        out, self._out = self._out, []
        return out

    def take_events(self) -> list[Event]:
        """What happened since the last call; clears the queue."""
        events, self._events = self._events, []
        return events

    def next_deadline(self) -> float:
        """When `tick` next has something to do."""
        times = [self._last_sent + self.timing.heartbeat]
        if self._ack_due is not None:
            times.append(self._ack_due)
        times += [
            self._heard[s] + self.timing.suspect_after
            for s in range(len(self.seats))
            if s != self.seat and s not in self.suspected
        ]
        return min(times)

    @property
    def display(self) -> State | None:
        """The table this seat's player sees: committed, plus their own plays in the air."""
        if self._display is None and self.private is not None:
            state = self.private
            for play in self._mine:
                try:
                    state, _ = apply(state, play.move)
                except IllegalMove:
                    continue  # it will be returned when it commits
            self._display = state
        return self._display

    @property
    def in_the_air(self) -> Move | None:
        """This seat's play that holds its one hand, if any."""
        return None if self._hand is None else self._hand.move

    @property
    def digest(self) -> bytes:
        """The running digest of everything committed so far."""
        return self._chain

    def digest_at(self, committed: int) -> bytes:
        """The running digest after the first ``committed`` messages (recent ones only)."""
        return self._digests[committed]

    # --- sending ----------------------------------------------------------------------------

    def _send(self, now: float, build: _Builder) -> Message:
        self.clock += 1
        self._have[self.seat] += 1
        message = build(self.clock, self._have[self.seat])
        self._out.append(message)
        self._last_sent = now
        if isinstance(message, Ready | Play | Leave):
            key = order_key(message, len(self.seats), self.options.tie_rule)
            bisect.insort(self._pending, (key, message), key=lambda entry: entry[0])
            self._commit_ready(now)
        return message

    def _send_ack(self, now: float) -> None:
        self._ack_due = None
        have, committed, digest = tuple(self._have), self.committed, self._chain
        self._send(now, lambda c, s: Ack(self.seat, c, s, have, committed, digest))

    # --- receiving --------------------------------------------------------------------------

    def _hear(self, seat: int, now: float) -> None:
        self._heard[seat] = now
        if seat in self.suspected:
            self.suspected.discard(seat)
            self._events.append(PeerRecovered(seat))

    def _check_ordered(self, message: Ready | Play | Leave) -> None:
        if isinstance(message, Play) and message.move.seat != message.sender:
            raise RemoteProtocolError(f"seat {message.sender} sent a move for another seat")
        if isinstance(message, Ready) and len(message.face_up) != 1 + self.options.work_piles:
            raise RemoteProtocolError(f"seat {message.sender}'s Ready shows the wrong deal")

    def _take_ack(self, ack: Ack) -> None:
        if len(ack.have) != len(self.seats):
            raise RemoteProtocolError(f"seat {ack.sender}'s Ack covers {len(ack.have)} seats")
        row = self._acked[ack.sender]
        for seat, seq in enumerate(ack.have):
            row[seat] = max(row[seat], seq)
        mine = self._digests.get(ack.committed)
        if mine is not None and mine != ack.digest:
            self._events.append(Diverged(ack.sender, ack.committed))
        elif ack.committed > self.committed:
            self._awaited.setdefault(ack.committed, []).append((ack.sender, ack.digest))

    # --- committing -------------------------------------------------------------------------

    def _commit_ready(self, now: float) -> None:
        members = range(len(self.seats))
        while self._pending:
            _, head = self._pending[0]
            if any(self._acked[r][head.sender] < head.seq for r in members):
                return
            del self._pending[0]
            outcome = self._commit(head, now)
            self.committed += 1
            self._chain = hashlib.blake2b(
                self._chain + encode(head) + bytes((outcome,)), digest_size=16
            ).digest()
            self._record_digest()

    def _record_digest(self) -> None:
        self._digests[self.committed] = self._chain
        self._digests.pop(self.committed - DIGESTS_KEPT, None)
        for seat, digest in self._awaited.pop(self.committed, ()):
            if digest != self._chain:
                self._events.append(Diverged(seat, self.committed))

    def _commit(self, message: Message, now: float) -> int:
        """Apply one committed message; returns its outcome for the digest."""
        match message:
            case Ready():
                readies = self._round_data(message.round).readies
                readies[message.sender] = message
                if len(readies) == len(self.seats) and message.round == self.round:
                    self._start_play()
                return 0
            case Play():
                return self._commit_play(message, now)
        return 0

    def _round_data(self, number: int) -> _Round:
        return self._rounds.setdefault(number, _Round(number))

    def _start_play(self) -> None:
        this = self._rounds[self.round]
        this.shown = {
            r.sender: tuple(map(card_from_code, r.face_up)) for r in this.readies.values()
        }
        self.public = _deal.public_deal(self.options, self.seats, this.shown)
        self.private = _deal.with_own_deck(self.public, self.seat, this.order)
        self._display = None
        self._events.append(RoundStarted(self.round))

    def _commit_play(self, play: Play, now: float) -> int:
        mine = play.sender == self.seat
        if mine:
            self._mine.remove(play)
            if self._hand is play:
                self._hand = None
        self._display = None
        public = self.public
        if play.round != self.round or public is None or public.ended is not None:
            self._returned(play, None, "the round is over")
            return 2
        tie = False
        try:
            after, events = apply(public, play.move)
        except IllegalMove as exc:
            tie, winner = self._tie_with(play), self._winner(play)
            if not tie:
                self._returned(play, winner, str(exc))
                return 2
            after, events = apply(public, play.move, tie=True)
        assert self.private is not None
        self.private, _ = apply(self.private, play.move, tie=tie)
        self.public = after
        self._rounds[self.round].log.append((play.move, tie))
        for event in events:
            if isinstance(event, CardPlayed):
                self._placed[event.foundation] = (play.sender, play.clock)
        self._events.append(PlayCommitted(play.sender, play.move, play.clock, tie))
        if isinstance(play.move, DeclareStuck) and all(t.stuck for t in after.tableaux):
            self._apply_everywhere(Rotate(play.sender))
        if self.public.ended is not None:
            self._end_round(now)
        return int(tie)

    def _tie_with(self, play: Play) -> bool:
        move = play.move
        if self.options.tie_rule is not TieRule.BOTH_STAY or not isinstance(move, ToFoundation):
            return False
        placed = self._placed.get(move.foundation)
        if placed is None or placed[1] != play.clock or placed[0] == play.sender:
            return False
        try:
            assert self.public is not None
            apply(self.public, move, tie=True)
        except IllegalMove:
            return False
        return True

    def _winner(self, play: Play) -> int | None:
        if isinstance(play.move, ToFoundation):
            placed = self._placed.get(play.move.foundation)
            return None if placed is None else placed[0]
        return None

    def _returned(self, play: Play, winner: int | None, reason: str) -> None:
        self._events.append(PlayReturned(play.sender, play.move, play.clock, winner, reason))

    def _apply_everywhere(self, move: Move) -> None:
        assert self.public is not None and self.private is not None
        self.public, _ = apply(self.public, move)
        self.private, _ = apply(self.private, move)
        self._rounds[self.round].log.append((move, False))

    def _end_round(self, now: float) -> None:
        public = self.public
        assert public is not None and public.ended is not None
        scores = score_round(public)
        digest = public_digest(public)
        self._events.append(
            RoundOver(self.round, public.ended.reason, public.ended.caller, scores, digest)
        )
        this = self._rounds[self.round]
        this.ended = True
        this.reveals[self.seat] = (this.salt, this.order)
        order = tuple(map(card_code, this.order))
        self._send(now, lambda c, s: Reveal(self.seat, c, s, this.number, this.salt, order))
        self._audit_if_complete(this)

    # --- the audit ------------------------------------------------------------------------

    def _take_reveal(self, reveal: Reveal) -> None:
        this = self._rounds.get(reveal.round)
        if this is None or reveal.sender in this.reveals or reveal.round > self.round:
            raise RemoteProtocolError(f"seat {reveal.sender} revealed out of turn")
        this.reveals[reveal.sender] = (reveal.salt, tuple(map(card_from_code, reveal.order)))
        self._audit_if_complete(this)

    def _audit_if_complete(self, this: _Round) -> None:
        if len(this.reveals) < len(self.seats) or not this.ended:
            return
        commitments = {seat: r.commitment for seat, r in this.readies.items()}
        failures = _deal.audit(
            self.options, self.seats, this.reveals, commitments, this.shown, this.log
        )
        for seat, reason in failures:
            self._events.append(AuditFailed(this.number, seat, reason))
        if not failures:
            self._events.append(AuditPassed(this.number))
        del self._rounds[this.number]

    # --- stuck ------------------------------------------------------------------------------

    def _maybe_stuck(self, now: float) -> None:
        display = self.display
        if not self.auto_stuck or display is None or display.ended is not None:
            return
        if self._mine or display.tableau_of(self.seat).stuck:
            return
        if is_stuck(display, self.seat):
            self.intend(DeclareStuck(self.seat), now)
