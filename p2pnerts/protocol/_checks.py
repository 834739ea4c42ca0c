"""What a message must be, checked before a replica changes any state for it.

The codec has already checked every field's type and bounds; these are the checks that
need the table: how many seats there are, which deck each plays, which seat receives.
`Replica.receive` runs them first, and refuses every later message of a seat that failed
one, as h11 refuses all input once a peer broke the protocol: a bad message is never
half taken (acknowledged, then dropped).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum, auto

from p2pnerts.protocol._acks import Acks
from p2pnerts.protocol._codec import decode_payload
from p2pnerts.protocol._errors import RemoteProtocolError
from p2pnerts.protocol._events import PeerRefused
from p2pnerts.protocol._log import PENDING_LIMIT
from p2pnerts.protocol._messages import (
    Ack,
    Ballot,
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
    Tally,
    TeamDeal,
    ViewChange,
    digest_votes,
)
from p2pnerts.protocol._signing import Signer
from p2pnerts.rules import TableOptions

CLOCK_LIMIT = 2**53 - 1
"""The largest clock a message may carry: far below the codec's bound, so that no clock
ever nears an overflow."""
CLOCK_JUMP = 2**24
"""How far a message's clock may lie above the receiver's: an honest seat's clock never
runs ahead of the table's by more than the messages of a match."""
VIEW_LIMIT = 2**31 - 1
"""The largest view number a message may carry."""
VIEW_JUMP = 2**16
"""How far a message's view may lie above the receiver's: views move on one view change
at a time, each taking a timeout at least."""


@dataclass(frozen=True, slots=True)
class Seating:
    """Who sits where: what the checks read of the table, fixed for its whole life."""

    seat: int
    """The seat that receives."""
    seats: tuple[int, ...]
    """The deck each seat plays: teammates share one."""
    options: TableOptions
    by_majority: bool = False
    """The table commits by a majority (`_majority`): an ordered message carries its
    sender's vote, one number per seat; else none."""

    players: int = field(init=False)
    """How many seats there are (read on every message: computed once)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "players", len(self.seats))


class Line(Enum):
    """Where a message stands on its sender's FIFO link."""

    NEXT = auto()
    """Next from its sender: take it."""
    DROP = auto()
    """Held already (delivered again after a reconnect), or sent after a view's cut by a
    member still in the view this one was built from (it sends again all that a link lost
    when it installs this view): drop it."""
    AHEAD = auto()
    """Past a gap, from a newer view: a member went on without this seat, and so sent
    nothing again of what a lost connection dropped; this seat is out of that view."""


class Gate:
    """The checks at a replica's door, and the seats refused for breaking the protocol."""

    def __init__(self, seating: Seating, signer: Signer) -> None:
        self.seating = seating
        self._signer = signer
        self._refused: dict[int, str] = {}
        """The seats that broke the protocol, each with the first reason: every later
        message of theirs is refused."""
        self._told: set[int] = set()

    def check(self, message: Message, clock: int, view: int) -> None:
        """Raise `RemoteProtocolError` for a message that breaks the protocol, and refuse
        its sender from then on; a refused seat's every message raises the same way.
        ``clock`` and ``view`` are the receiver's, which the header may not run far ahead of."""
        sender = message.sender
        if sender in self._refused:
            raise RemoteProtocolError(f"seat {sender} broke the protocol: refused from then on")
        try:
            check_message(message, self.seating)
            check_header(message, clock, view)
            self._check_signed(message)
        except RemoteProtocolError as exc:
            if 0 <= sender < self.seating.players:
                self._refused.setdefault(sender, str(exc))
            raise

    def check_frame(self, frame: CommitFrame, via: int, clock: int, view: int) -> bool:
        """Raise `RemoteProtocolError` for a commit frame that breaks the protocol before it
        counts, refusing the seat at fault from then on, as `check` does for a message: one
        on the link of a seat refused, or from no seat; one carried on another seat's link
        (``via``) unless it is a Tally, or a Ballot on this seat's own play, signed by its
        sender (handed on: `_commits.Commits._hand_on`), or one of this seat's own (both
        refuse the carrier); a header out of bounds (its sender). False for one to drop
        unread: a refused seat's frame, handed on by a seat not told so yet."""
        sender, kind, seating = frame.sender, type(frame).__name__, self.seating
        if via in self._refused:
            raise RemoteProtocolError(f"seat {via} broke the protocol: refused from then on")
        if not 0 <= sender < seating.players:
            raise self.refuse(via, f"a {kind} from seat {sender}")
        if via != sender:
            handed = isinstance(frame, Tally) or (
                isinstance(frame, Ballot) and frame.seat == seating.seat != sender
            )
            if not handed or not self._signer.genuine(frame):
                why = f"seat {via}'s link carried a {kind} of seat {sender} it did not sign"
                raise self.refuse(via, why)
            if sender in self._refused:
                return False
        elif sender == seating.seat:
            raise self.refuse(via, f"seat {via}'s link carried a {kind} of this seat")
        try:
            check_header(frame, clock, view)
        except RemoteProtocolError as exc:
            raise self.refuse(sender, str(exc)) from None
        return True

    def _check_signed(self, message: Message) -> None:
        """Refuse a message not signed by the seat it names, or a StartView carrying one."""
        kind = type(message).__name__
        if not self._signer.genuine(message):
            raise RemoteProtocolError(f"seat {message.sender}'s {kind} is not signed by its key")
        if isinstance(message, Evidence):
            for payload in message.messages:
                if not self._signer.genuine(decode_payload(payload)):
                    raise RemoteProtocolError(
                        f"seat {message.sender}'s Evidence shows a message not signed by its seat"
                    )
        if isinstance(message, StartView):
            for payload in message.carried:
                carried = decode_payload(payload)
                if not self._signer.genuine(carried):
                    raise RemoteProtocolError(
                        f"seat {message.sender}'s StartView carries a {type(carried).__name__}"
                        f" not signed by seat {carried.sender}"
                    )
            self._check_votes(message)

    def _check_votes(self, start: StartView) -> None:
        """Refuse a StartView without a signed vote, cast in ``voted_in`` for this view,
        from each of its members but the seats it lets (back) in."""
        voters: set[int] = set()
        for payload in start.votes:
            vote = decode_payload(payload)
            cast = isinstance(vote, ViewChange) and vote.new_view == start.view
            if (
                not cast
                or vote.view != start.voted_in
                or vote.sender in voters
                or not self._signer.genuine(vote)
            ):
                raise RemoteProtocolError(
                    f"seat {start.sender}'s StartView holds a vote for another view, a vote"
                    " twice, or one not signed by its seat"
                )
            voters.add(vote.sender)
        if start.votes_digest != digest_votes(start.votes):
            raise RemoteProtocolError(
                f"seat {start.sender}'s StartView holds other votes than the ones it signed"
            )
        if voters | set(start.joined) != set(start.members):
            raise RemoteProtocolError(
                f"seat {start.sender} started view {start.view} without the signed votes of"
                f" its members (votes from {sorted(voters)}, members {list(start.members)})"
            )

    def in_line(self, message: Message, acks: Acks, waiting: int, view: int) -> Line:
        """SPEC §4.2 step 8: where a message stands on its sender's link, ``acks`` telling
        what this replica holds of every seat, ``waiting`` how many of the sender's ordered
        messages wait to commit here, ``view`` this replica's. A gap within this view
        breaks the protocol; so does a message that comes next but could sort before one
        already committed somewhere (`_check_next`)."""
        have = acks.have[message.sender]
        if message.seq <= have:
            return Line.DROP
        if message.seq == have + 1:
            self._check_next(message, acks, waiting)
            return Line.NEXT
        if message.view != view:
            return Line.DROP if message.view < view else Line.AHEAD
        sender = message.sender
        raise self.refuse(sender, f"seat {sender} skipped from message {have} to {message.seq}")

    def _check_next(self, message: Message, acks: Acks, waiting: int) -> None:
        """Refuse a message that comes next from its sender but whose clock does not rise
        above everything its sender has sent or said it holds: such a message could sort
        before one already committed somewhere (SPEC §4.4's argument needs it). Refuse an
        ordered message past the `PENDING_LIMIT` of its sender's (``waiting`` now)."""
        sender, last = message.sender, acks.last_clock[message.sender]
        if message.clock <= last:
            why = f"seat {sender}'s clock went back from {last} to {message.clock}"
            raise self.refuse(sender, why)
        if waiting >= PENDING_LIMIT and isinstance(message, Ready | Play | Leave):
            why = f"seat {sender} has more than {PENDING_LIMIT} messages waiting to commit"
            raise self.refuse(sender, why)
        if isinstance(message, Ack):
            self._check_claims(message, acks)

    def _check_claims(self, ack: Ack, acks: Acks) -> None:
        """An Ack may claim only messages that were sent, each stamped below its own clock."""
        me, sender = self.seating.seat, ack.sender
        if ack.view >= acks.lives[me] and ack.have[me] > acks.have[me]:
            why = f"seat {sender} claims message {ack.have[me]} of seat {me}, never sent"
            raise self.refuse(sender, why)
        late = late_claim(ack, acks.lives, acks.clocks)
        if late is not None:
            seat, seq, clock = late
            why = (
                f"seat {sender}'s Ack at clock {ack.clock} claims message {seq} of seat"
                f" {seat}, stamped {clock}"
            )
            raise self.refuse(sender, why)

    def refuse(self, seat: int, why: str) -> RemoteProtocolError:
        """Refuse ``seat`` from now on, for the reason given; returns the error to raise."""
        self._refused.setdefault(seat, why)
        return RemoteProtocolError(why)

    def refuses(self, seat: int) -> bool:
        """Whether ``seat`` broke the protocol."""
        return seat in self._refused

    def news(self) -> list[PeerRefused]:
        """The seats refused since the last call, each with its reason: told once."""
        new = [PeerRefused(s, why) for s, why in self._refused.items() if s not in self._told]
        self._told.update(self._refused)
        return new


def late_claim(
    ack: Ack, lives: Sequence[int], clocks: Sequence[dict[int, int]]
) -> tuple[int, int, int] | None:
    """The first message ``ack`` claims (seat, sequence number, clock) that was stamped at
    or above the Ack's own clock, among those held lately (``clocks``, per seat, of each
    seat's life since the view in ``lives``); None if there is none."""
    view, limit = ack.view, ack.clock
    if view >= max(lives):
        # The usual case, at C speed: no claim stamped that late (clocks start at 1).
        stamps = map(dict.get, clocks, ack.have)
        if max(filter(None, stamps), default=0) < limit:
            return None
    claims = zip(ack.have, lives, clocks, strict=True)
    for seat, (seq, life, stamped) in enumerate(claims):
        if view >= life:
            clock = stamped.get(seq)
            if clock is not None and clock >= limit:
                return seat, seq, clock
    return None


def _check_vote(message: Ordered, seating: Seating) -> None:
    """Refuse an ordered message whose own vote (`below`) does not fit the table's rule:
    one number per seat where a majority commits, none where every member's
    acknowledgement does (a seat of the one kind at a table of the other)."""
    seats = seating.players if seating.by_majority else 0
    if len(message.below) != seats:
        rule = "by a majority" if seating.by_majority else "by acknowledgement"
        why = f"{type(message).__name__}.below: expected {seats} numbers"
        raise RemoteProtocolError(f"{why} at a table that commits {rule}, got {len(message.below)}")


def check_message(message: Message, seating: Seating) -> None:
    """Raise `RemoteProtocolError` if ``message`` cannot come from its sender to this seat."""
    sender = message.sender
    if not 0 <= sender < seating.players or sender == seating.seat:
        raise RemoteProtocolError(f"a message from seat {sender} cannot reach seat {seating.seat}")
    if isinstance(message, Ready | Play | Leave | Reveal):
        _check_vote(message, seating)
    match message:
        case Play() if message.move.seat != sender:
            raise RemoteProtocolError(f"seat {sender} sent a move for another seat")
        case Ready():
            _check_ready(message, seating)
        case Ack() if len(message.have) != seating.players:
            raise RemoteProtocolError(f"seat {sender}'s Ack covers {len(message.have)} seats")
        case Ack() if message.heard and max([s for s, _, _ in message.heard]) >= seating.players:
            raise RemoteProtocolError(f"seat {sender}'s Ack witnesses a seat not at the table")
        case Evidence():
            _check_evidence(message, seating.players)
        case StartView():
            check_start_view(message, seating.players)
        case TeamDeal():
            _check_team_deal(message, seating)


def check_header(message: Message | CommitFrame, clock: int, view: int) -> None:
    """Refuse a clock or view beyond the stated bounds (SPEC §4.2 step 1)."""
    sender = message.sender
    if message.clock > min(CLOCK_LIMIT, clock + CLOCK_JUMP):
        raise RemoteProtocolError(f"seat {sender}'s clock {message.clock} is out of bounds")
    highest = min(VIEW_LIMIT, view + VIEW_JUMP)
    if message.view > highest:
        raise RemoteProtocolError(f"seat {sender}'s view {message.view} is out of bounds")
    match message:  # (a vote's view, or the view a Rejoin asks to come in above)
        case ViewChange(new_view=named) | Rejoin(above=named) if named > highest:
            raise RemoteProtocolError(f"seat {sender} names view {named}, out of bounds")
    if isinstance(message, StartView) and message.view % len(message.lives) != sender:
        raise RemoteProtocolError(f"seat {sender} started view {message.view}, not its own")


def check_start_view(start: StartView, players: int) -> None:
    """Refuse a StartView whose per-seat vectors do not cover every seat, that carries
    anything but ordered messages and Rejoins, or whose Rejoins are not one from each seat
    it lets in, asking from the view it says (each signed: `Gate._check_signed`)."""
    per_seat = len(start.cuts) == len(start.lives) == players
    if not per_seat or len(start.joined_from) != len(start.joined):
        raise RemoteProtocolError(f"seat {start.sender}'s StartView does not cover {players} seats")
    asked: list[tuple[int, int]] = []
    for payload in start.carried:
        carried = decode_payload(payload)
        if isinstance(carried, Rejoin):
            asked.append((carried.sender, carried.view))
        elif not isinstance(carried, Ready | Play | Leave | Reveal | StartView):
            raise RemoteProtocolError("a StartView carried a message that is not ordered")
    if sorted(asked) != sorted(zip(start.joined, start.joined_from, strict=True)):
        raise RemoteProtocolError(
            f"seat {start.sender}'s StartView lets in seats {list(start.joined)} without the"
            " signed Rejoin of each, from the view it says"
        )


def _check_evidence(evidence: Evidence, players: int) -> None:
    """Refuse an Evidence showing anything but ordered messages of seats of the table."""
    for payload in evidence.messages:
        shown = decode_payload(payload)
        if not isinstance(shown, Ready | Play | Leave | Reveal) or shown.sender >= players:
            raise RemoteProtocolError(
                f"seat {evidence.sender}'s Evidence shows what is no ordered message of the table"
            )


def _check_ready(ready: Ready, seating: Seating) -> None:
    deck = seating.seats[ready.sender]
    if not ready.face_up:
        return  # it pledges only: round 0, or a deck it holds no secret for
    if (
        ready.round == 0
        or len(ready.face_up) != 1 + seating.options.work_piles
        or any(c >> 6 != deck for c in ready.face_up)
    ):
        raise RemoteProtocolError(f"seat {ready.sender}'s Ready shows the wrong deal")


def _check_team_deal(deal: TeamDeal, seating: Seating) -> None:
    deck = seating.seats[seating.seat]
    if deal.to != seating.seat or seating.seats[deal.sender] != deck:
        raise RemoteProtocolError(
            f"seat {deal.sender} sent seat {deal.to}'s team deck to seat {seating.seat}"
        )
