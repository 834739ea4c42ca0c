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
  ``below`` is its sender's own vote, which the message carries, signed, without its own
  entry (`send`: the vote is worked out before the message is signed).
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
it has made (`Commits.hear`). A change of members is not built here yet: a majority
table runs with the members it started with.
"""

from __future__ import annotations

from collections import deque
from dataclasses import replace
from typing import Protocol

from p2pnerts.protocol._checks import check_header
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
    Tally,
)
from p2pnerts.protocol._spots import ALL, PlayId, Spot, Spotted, conflict, spots_of
from p2pnerts.protocol._witness import witness
from p2pnerts.rules import CallNerts, DeclareStuck

LATE = 3
"""The outcome the digest records for a play that came back late."""


class Host(_Host, Protocol):
    inplay: InPlay

    def apply(self, message: Ordered, now: float) -> int: ...
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
        number = self.commits.voter.have[self._host.seat] + 1
        below = self.commits.voter.make(number, self._key(message), self.spots(message)).below
        seat = self._host.seat
        return replace(message, below=below[:seat] + below[seat + 1 :])

    def sent(self, message: Ordered, now: float) -> None:
        """This seat's ordered message, signed and sent: held at once."""
        number = self.commits.voter.have[self._host.seat] + 1
        spots = self.spots(message)
        play = self.commits.make(number, self._key(message), spots, witness(message), now)
        self.made = number
        self._messages[play.id] = (message, spots)

    # --- receiving -------------------------------------------------------------------------

    def hold(self, message: Ordered, now: float) -> None:
        """Another seat's ordered message, accepted in order on its link: held and voted on."""
        sender = message.sender
        number = self.commits.voter.have[sender] + 1
        below = (*message.below[:sender], number, *message.below[sender:])
        spots = self.spots(message)
        play = Spotted(sender, number, self._key(message), spots, below, witness(message))
        self._messages[play.id] = (message, spots)
        self.commits.hold(play, now)

    def take(self, frame: CommitFrame, now: float, via: int) -> None:
        """A Ballot, Tally or Poll from a seat not refused, of this view (`Commits.take`); a
        frame that breaks the rule refuses its sender, as a message does. Only a Tally,
        signed by its sender, may come on another seat's link (``via``: handed on to this
        seat, which polled); one that is not refuses the seat whose link carried it."""
        host, sender, kind = self._host, frame.sender, type(frame).__name__
        gate = host.gate
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

    def apply(self, now: float) -> None:
        """Apply what resolved, in order, and fold what the canonical order settled."""
        for play, ok in self.commits.resolved():
            if ok:
                self._waiting.append(play)
            else:
                self._late(play, now)
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

    def _late(self, play: PlayId, now: float) -> None:
        """A play that came back late: returned like a lost race; this seat's own Ready,
        Reveal, Leave, call or stuck declaration is sent again."""
        message, _ = self._messages[play]
        self._outcomes[play] = LATE
        host = self._host
        if isinstance(message, Play):
            if message.sender == host.seat:
                host.inplay.come_down(message)
            why = "late: a majority held a later play on its spot first"
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

    # --- time ------------------------------------------------------------------------------

    def tick(self, now: float) -> None:
        self.commits.tick(now)

    def deadline(self) -> float:
        return self.commits.deadline()
