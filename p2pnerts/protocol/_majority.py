"""Version 3's commit in the replica: ordered messages held by a majority's order, applied
as they resolve, folded into the digest in the canonical order.

Theory of operation
-------------------
At a table that commits by a majority (``Replica(majority=True)``) the replica's ordered
messages (Ready, Play, Reveal, Leave) go through `_commits.Commits` instead of the
all-members log (`_log`):

- Each is a play on its spots (`spots`): a Play's by its move (`_spots.spots_of`), a
  Ready's and a Reveal's its deck's, a Leave's the whole table. Its number is its place
  among its sender's ordered messages, counted as they come in on the sender's link
  (which delivers them in order, none missing); its key is §4.3's order key; its
  ``below`` is its sender's own vote, which the message carries, signed, its own entry
  the message's number (`own`: the vote is worked out before the message is signed), so
  that a copy carried to a change of members names its place itself.
- What resolves is applied at once, in the order it resolves here (`apply`), by the
  replica's own step (`Replica.apply`: the rules' verdict, the deal, the round's end). A
  Play of a round that has not started here waits for the start, and so does every play
  after it on its spots; the plays of other spots go on.
- A play that comes back *late* (a majority held a play that sorts after it first) is
  returned like a lost race; a seat's own Ready, Reveal, Leave, Nerts call or stuck
  declaration that comes back is sent again at once, with a new clock (each stays legal,
  and the table waits on it).
- The plays settled in the canonical order (`Commits.canonical`, the same at every seat a
  little later) are folded into the running digest in that order, each with its outcome,
  and told to those who listen for commits (`Replica.on_commit`): the digest Acks carry
  and compare is over one order everywhere, though seats apply plays of different spots
  in different sequences.

Acks carry the clock, how far the seat has passed the canonical order and how many plays
it has made (`Commits.hear`).

The members change when a seat's Leave has committed, or a seat has been silent for
`Timing.depart_after` (`_election.Election`): a seat that votes for the change brings its
holding (`holding`: the plays it holds as their signed messages, its Ballots and Tallies)
and from then on decides nothing more in the old view; a message that reaches it
meanwhile is kept. Every seat of the new view settles the plays still open from the same
holdings, which the StartView carries as the votes (`install`): those settled in are
applied, the others returned ("the table changed members"), then the seats at the table
change, then what was kept is held in the new view. A seat left out cannot come back yet.
"""

from __future__ import annotations

from collections import deque
from dataclasses import replace
from typing import Protocol

from p2pnerts.protocol import _handover
from p2pnerts.protocol._checks import check_header
from p2pnerts.protocol._codec import decode_payload
from p2pnerts.protocol._commits import Commits
from p2pnerts.protocol._errors import RemoteProtocolError
from p2pnerts.protocol._events import PlayReturned
from p2pnerts.protocol._host import Host as _Host
from p2pnerts.protocol._inplay import InPlay
from p2pnerts.protocol._log import Pending, order_key
from p2pnerts.protocol._messages import (
    Ack,
    CommitFrame,
    Ordered,
    Play,
    Ready,
    Reveal,
    StartView,
    Tally,
    ViewChange,
)
from p2pnerts.protocol._spots import ALL, PlayId, Spot, Spotted, conflict, spots_of
from p2pnerts.protocol._status import NEVER, Status
from p2pnerts.protocol._wire import MAX_FRAME
from p2pnerts.protocol._witness import witness
from p2pnerts.rules import CallNerts, DeclareStuck

LATE = 3
"""The outcome the digest records for a play that came back late."""
SIZE_EVERY = 0.5
"""Seconds between two sizings of the holdings while a member is silent (`overfull`)."""
LATE_WHY = "late: a majority held a later play on its spot first"
CHANGED_WHY = "the table changed members before enough seats held it"


class Host(_Host, Protocol):
    inplay: InPlay

    def apply(self, message: Ordered | StartView, now: float) -> int: ...
    def tell_commit(self, entry: Pending, outcome: int) -> None: ...


class Majority:
    """The replica's ordered messages, held, resolved and applied by version 3's rule."""

    def __init__(self, host: Host) -> None:
        self._host = host
        self.commits = Commits(
            host.seat, host.players, host.signer, sorted(host.members), self._stamp, view=host.view
        )
        self._messages: dict[PlayId, tuple[Ordered, tuple[Spot, ...]]] = {}
        """Every play held here and not folded into the digest yet: its message, spots."""
        self._waiting: list[PlayId] = []
        """Plays resolved in, not applied yet: each waits for its round's start, or for a
        play before it on its spots that waits."""
        self._outcomes: dict[PlayId, int] = {}
        """The outcome of each play applied or returned here, until it is folded."""
        self._settled: deque[tuple[PlayId, bool]] = deque()
        """Plays settled in the canonical order, not folded yet (an outcome not known)."""
        self.made = 0
        """How many ordered messages this seat has made."""
        self._arrived = [0] * host.players
        """Per seat, how many of its ordered messages were accepted here (this seat's own:
        made): the next one's number, which its ``below`` must name."""
        self._queued: list[Ordered] = []
        """Ordered messages accepted (or made) while the members change: held once the new
        view is installed, unless the change settled them."""
        self._sized = (-NEVER, False)
        """When the holdings were last sized (`overfull`), and what that found."""
        self._copies: dict[PlayId, Ordered] = {}
        """Each play held (`Commits`' order), as its signed message: what a holding carries
        (`_handover`)."""

    def _stamp(self) -> int:
        """The clock a commit frame goes out with: the replica's, stepped."""
        self._host.acks.clock += 1
        return self._host.acks.clock

    # --- what a message is to the rule ----------------------------------------------------

    def spots(self, message: Ordered) -> tuple[Spot, ...]:
        """Where ``message`` acts (its sender's deck: a team's shared deck)."""
        deck = self._host.seats[message.sender]
        match message:
            case Play():
                return spots_of(message.move, deck)
            case Ready() | Reveal():
                return (("deck", deck),)
        return (ALL,)

    def _key(self, message: Ordered) -> tuple[int, ...]:
        return order_key(message, self._host.players, self._host.options.tie_rule)

    # --- sending ---------------------------------------------------------------------------

    def own(self, message: Ordered) -> Ordered:
        """This seat's next ordered message with its own vote in ``below``, to be signed."""
        number = self.made + 1
        below = self.commits.voter.make(number, self._key(message), self.spots(message)).below
        return replace(message, below=below)

    def sent(self, message: Ordered, now: float) -> None:
        """This seat's ordered message, signed and sent: held at once."""
        self.made = self._arrived[self._host.seat] = message.below[self._host.seat]
        self._take(message, now)

    # --- receiving -------------------------------------------------------------------------

    def check(self, message: Ordered) -> None:
        """Refuse an ordered message that does not name, in its ``below``, its place among
        its sender's (it comes next on the sender's link, in order)."""
        sender = message.sender
        number = self._arrived[sender] + 1
        if message.below[sender] != number:
            why = f"its {type(message).__name__} names itself {message.below[sender]}, not {number}"
            raise self._host.gate.refuse(sender, why)

    def hold(self, message: Ordered, now: float) -> None:
        """Another seat's ordered message, accepted in order on its link (`check`): held
        and voted on."""
        self._arrived[message.sender] = message.below[message.sender]
        self._take(message, now)

    def _take(self, message: Ordered, now: float) -> None:
        """Hold a play, voting on it; while the members change, keep it for the new view."""
        if self._host.status is not Status.NORMAL:
            self._queued.append(message)
            return
        play = self._spotted(message)
        if play.seq <= self.commits.voter.have[play.seat]:
            return  # settled by a change of members, from a holding that carried it
        self._messages[play.id] = (message, play.spots)
        self._copies[play.id] = message
        self.commits.hold(play, now)

    def _spotted(self, message: Ordered) -> Spotted:
        """``message`` as the rule sees it: its number is the one its ``below`` names."""
        sender, below = message.sender, message.below
        return Spotted(
            sender, below[sender], self._key(message), self.spots(message), below, witness(message)
        )

    def take(self, frame: CommitFrame, now: float, via: int) -> None:
        """A Ballot, Tally or Poll from a seat not refused, of this view (`Commits.take`); a
        frame that breaks the rule refuses its sender, as a message does. Only a Tally,
        signed by its sender, may come on another seat's link (``via``: handed on to this
        seat, which polled); one that is not refuses the seat whose link carried it."""
        host, sender, kind = self._host, frame.sender, type(frame).__name__
        gate = host.gate
        if host.status is not Status.NORMAL:
            return  # (a seat that voted for a change of members decides nothing more)
        for seat in {sender, via}:
            if gate.refuses(seat):
                raise RemoteProtocolError(f"seat {seat} broke the protocol: refused from then on")
        if not 0 <= sender < host.players:
            raise gate.refuse(via, f"a {kind} from seat {sender}")
        if via != sender:
            if not isinstance(frame, Tally) or not host.signer.genuine(frame):
                why = f"seat {via}'s link carried a {kind} of seat {sender} it did not sign"
                raise gate.refuse(via, why)
        elif sender == host.seat:
            raise gate.refuse(via, f"seat {via}'s link carried a {kind} of this seat")
        try:
            check_header(frame, host.acks.clock, host.view)
            self.commits.take(frame, now)
        except RemoteProtocolError as exc:
            raise gate.refuse(sender, str(exc)) from None
        host.acks.clock = max(host.acks.clock, frame.clock)
        for seat, why in self.commits.refusals:
            gate.refuse(seat, why)
        self.commits.refusals.clear()

    def said(self) -> tuple[tuple[int, ...], int]:
        """What this seat's Ack says beside what it holds: how far it has passed the
        canonical order, and how many plays it has made."""
        return self.commits.order.passed, self.made

    def hear(self, ack: Ack) -> None:
        """What an Ack says of its sender's clock, its canonical order and its plays."""
        self.commits.hear(ack.sender, ack.clock, ack.passed, ack.made)

    # --- resolving ----------------------------------------------------------------------

    def apply(self, now: float, *, why: str = LATE_WHY) -> None:
        """Apply what resolved, in order, and fold what the canonical order settled; a play
        that came back is returned saying ``why``."""
        for play, ok in self.commits.resolved():
            if ok:
                self._waiting.append(play)
            else:
                self._late(play, now, why)
        self._apply_waiting(now)
        self._settled.extend(self.commits.canonical(self._host.acks.clock))
        self._fold()

    def _apply_waiting(self, now: float) -> None:
        """Apply every waiting play that waits no more, again until none does."""
        progress = True
        while progress and self._waiting:
            progress, still = False, list[PlayId]()
            for play in self._waiting:
                message, spots = self._messages[play]
                blocked = any(conflict(spots, self._messages[w][1]) for w in still)
                if blocked or self._before_its_round(message):
                    still.append(play)
                    continue
                self._outcomes[play] = self._host.apply(message, now)
                progress = True
            self._waiting = still

    def _before_its_round(self, message: Ordered) -> bool:
        """A Play of a round not started here yet waits for the start."""
        return isinstance(message, Play) and message.round > self._host.inplay.number

    def _late(self, play: PlayId, now: float, why: str) -> None:
        """A play that came back late: returned like a lost race; this seat's own Ready,
        Reveal, Leave, call or stuck declaration is sent again."""
        message, _ = self._messages[play]
        self._outcomes[play] = LATE
        host = self._host
        if isinstance(message, Play):
            if message.sender == host.seat:
                host.inplay.come_down(message)
            host.events.append(PlayReturned(message.sender, message.move, message.clock, None, why))
            if not isinstance(message.move, CallNerts | DeclareStuck):
                return
        if message.sender != host.seat:
            return
        again = host.send(now, lambda c, s: replace(message, clock=c, seq=s, below=(), sig=b""))
        if isinstance(again, Play):
            host.inplay.throw(again, holds_hand=True)

    def _fold(self) -> None:
        """Fold the plays settled in the canonical order whose outcome is known here."""
        while self._settled:
            play, _ = self._settled[0]
            outcome = self._outcomes.pop(play, None)
            if outcome is None:
                return
            self._settled.popleft()
            message, _ = self._messages.pop(play)
            key = self._key(message)
            self._host.tell_commit(Pending((key[0], key[1], key[2]), message, None), outcome)
        held = self.commits.order.held
        if len(self._copies) > 2 * len(held) + 64:  # let go of the copies of plays let go of
            self._copies = {play: m for play, m in self._copies.items() if play in held}

    # --- a change of members ------------------------------------------------------------

    def holding(self) -> tuple[bytes, list[bytes]]:
        """What this seat brings to a change of members, on the wire, and the payloads it
        names (`_handover`): from here until it installs the new view it decides nothing
        more (`_take`, `take`)."""
        return _handover.write(self.commits.holding(), self._copies)

    def overfull(self, now: float) -> bool:
        """Whether a StartView carrying the members' holdings, each the size of this seat's,
        and a pool a quarter larger than its own (the others' hold the same plays and
        Tallies, mostly: 124 KB for 82 plays held at 14 seats, this seat's pool 83 KB),
        would fill half a frame: a silent member holds up letting go of every play since
        it fell silent, and the members must change before the change cannot be said
        (sized at most every `SIZE_EVERY` seconds: it encodes the holding)."""
        at, full = self._sized
        if now - at >= SIZE_EVERY:
            held, pool = self.holding()
            size = len(self.commits.members) * len(held) + 5 * sum(map(len, pool)) // 4
            full = size > MAX_FRAME // 2
            self._sized = (now, full)
        return full

    def install(self, start: StartView, now: float) -> None:
        """Go on in the view ``start`` begins: every play still open settled from the
        holdings its votes carry, as every seat of the new view settles them
        (`Commits.install`), those it settles in applied and the others returned; then the
        seats at the table change (the StartView applied, after the plays it settles);
        then the plays kept while the members changed are held, in the new view, those of
        its members the change did not settle."""
        host, before = self._host, dict(self.commits.order.held)
        holdings, carried = [], dict[tuple[PlayId, bytes], Ordered]()
        pool = {_handover.name(payload): payload for payload in start.pool}
        for payload in start.votes:
            vote = decode_payload(payload)
            assert isinstance(vote, ViewChange)  # (checked at the gate: `_check_votes`)
            got = _handover.read(vote, pool, host.signer, self._spotted)
            if got is not None:
                holdings.append(got[0])
                for play, message in got[1]:
                    carried.setdefault((play.id, play.witness), message)
        self.commits.install(start.view, start.members, holdings)
        for play in self.commits.order.held.values():
            was = before.get(play.id)
            if was is None or (was.witness != play.witness and play.id in self._messages):
                message = carried[(play.id, play.witness)]
                self._messages[play.id] = (message, play.spots)
                self._copies[play.id] = message
        self.apply(now, why=CHANGED_WHY)
        host.apply(start, now)
        queued, self._queued = self._queued, []
        for message in queued:
            if message.sender in start.members:
                self._take(message, now)
        self.apply(now)

    # --- time ------------------------------------------------------------------------------

    def tick(self, now: float) -> None:
        if self._host.status is Status.NORMAL:
            self.commits.tick(now)

    def deadline(self) -> float:
        return self.commits.deadline()
