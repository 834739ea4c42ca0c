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
  (which delivers them in order, none missing), or one ahead of it, carried by a Poll
  (`_carried`: the link, slower, then brings it in line as held already); its key is
  §4.3's order key; its ``below`` is its sender's own vote, which the message carries,
  signed, its own entry the message's number (`own`: the vote is worked out before the
  message is signed), so that a copy carried to a change of members names its place
  itself.
- What resolves is applied at once, in the order it resolves here (`apply`), a play
  that came back late returned, and the plays settled in the canonical order
  (`Commits.canonical`) folded into the digest in that order: `_applying.Applying`.

Acks carry the clock, how far the seat has passed the canonical order and how many plays
it has made (`Commits.hear`); the Tally of a seat's own play says how far it has passed
too. A seat sends an Ack once it has passed `TELL_EVERY` plays since it last said how far
(`Commits.untold`), however soon, or `Timing.tell_passed` after the first of them: the
others let go of a play only once every member has said it passed it, and what each seat
holds travels in its ViewChange.

A play of another seat that a genuine Ballot or Tally names by another witness than the
copy held here (its sender signed two under one number) is shown to every seat, its
signed message in an Evidence (`_witness.Witness.show`): a seat holding the other copy then
holds the proof that refuses the sender (SPEC §4.10), found by the copy it holds of the
play a shown message names (`held_copy`).

The members change when a seat's Leave has committed, or a seat has been silent for
`Timing.depart_after` (`_election.Election`): a seat that votes for the change brings its
holding (`holding`: the plays it holds as their signed messages, its Ballots and Tallies)
and from then on decides nothing more in the old view; a message that reaches it
meanwhile is kept. Every seat of the new view settles the plays still open from the same
holdings, which the StartView carries as the votes (`install`), and once the view has
taken hold (`_begin`: a sibling that never does applies nothing) those settled in are
applied, the others returned ("the table changed members"), then the seats at the table
change, then what was kept is held in the new view (a later message of a seat with one
kept waits behind it, `_behind`, and a Ballot on this seat's own kept play until it is
held, `Commits`: a seat where the view took hold first votes on it sooner); each seat's
digest starts again from the StartView. A seat left out, or restarted, asks to come back,
and a change of members lets it in: it replays the round as the coordinator applied it,
then settles the plays still open from the same holdings as the others (`rejoin`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import replace
from typing import NamedTuple

from p2pnerts.protocol import _handover
from p2pnerts.protocol._applying import Applying, Host
from p2pnerts.protocol._changes import Holding, settlement
from p2pnerts.protocol._checks import check_header, check_message
from p2pnerts.protocol._codec import decode_payload, encode_payload
from p2pnerts.protocol._commits import Commits
from p2pnerts.protocol._errors import RemoteProtocolError
from p2pnerts.protocol._handover import pooled
from p2pnerts.protocol._log import order_key
from p2pnerts.protocol._messages import (
    Ack,
    Ballot,
    CommitFrame,
    Leave,
    Message,
    Ordered,
    Play,
    Poll,
    Ready,
    Reveal,
    StartView,
    Tally,
    ViewChange,
    bare,
)
from p2pnerts.protocol._shown import Shown
from p2pnerts.protocol._spots import ALL, PlayId, Spot, Spotted, quorum, spots_of
from p2pnerts.protocol._status import NEVER, Status
from p2pnerts.protocol._wire import MAX_FRAME
from p2pnerts.protocol._witness import play_number, witness

TELL_EVERY = 32
"""Plays a seat passes in the canonical order before an Ack is due to say so, however soon
after the last (`Replica._tell`). Told only once a second, a busy table (14 seats of fast
bots, 170 plays a second) held 200 plays from one Ack to the next, and its ViewChange
outgrew a frame; told so, its seats hold 20 to 56."""
A_PLAY = (36, 105, 250)
"""What a play held adds to a StartView, in bytes: per member, per Ballot of a quorum, and
once (`crowded`). A StartView carries every member's holding, each naming each play and
its Tally by hash, and one pool, which carries each play and each Tally once, a Tally
with its Ballots, and what it settles beside (a crashed seat's plays, decided by two
seats, have two Tallies). Held to 82 plays at 14 seats, the simulator's StartViews
carried at most 137 KB."""
SIZE_EVERY = 0.5
"""Seconds between two sizings of the holdings while a member is silent (`overfull`)."""
LATE_WHY = "late: a majority held a later play on its spot first"
CHANGED_WHY = "the table changed members before enough seats held it"


def held_on(message: Ordered, members: Collection[int], joined: Collection[int]) -> bool:
    """Whether an ordered message kept while the members changed, and not settled by the
    change, is held in the new view: its sender's if it is a member that was one before.
    Not a seat coming back's (of its earlier life), and not a seat's left out: no member
    would vote on its play, which would stay open at every seat that held it, and the
    canonical order there stuck behind it until a later change settled it in, below plays
    the others had passed (a real 14-seat table: two seats let back in held a play of a
    seat the same change left out; three views on, the table folded it at two places, and
    its digests differed for the 24 plays until the next change)."""
    return message.sender in members and message.sender not in joined


class _Starting(NamedTuple):
    """A StartView installed here whose view has not taken hold yet (`Majority._begin`)."""

    start: StartView
    resolved: list[tuple[PlayId, bool]]
    """What its change settled, as `Commits.resolved` gave it on installing."""
    back: bool = False
    """Whether this seat comes back with it (`Majority.rejoin`)."""
    applied: frozenset[PlayId] = frozenset()
    """Coming back: the plays the round's replay applied (`Majority._rejoin`)."""
    kept: tuple[Ordered, ...] = ()
    """What was kept while the members changed: here, or coming back, at its coordinator."""


class Majority:
    """The replica's ordered messages, held, resolved and applied by version 3's rule."""

    def __init__(self, host: Host) -> None:
        self._host = host
        self.commits = Commits(
            host.seat,
            host.players,
            host.signer,
            sorted(host.members),
            self._stamp,
            view=host.view,
            carry=self._carry,
            taken_hold=host.taken_hold,
            notice=self._show_copy,
            have=lambda: host.acks.have,
            made=lambda: self.made,
        )
        self.plays = Applying(host)
        """Every play held here, until it is folded into the digest."""
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
        self._applying = self._again = False
        """Within `apply`, and whether it must look again before it returns."""
        self._loose: dict[int, int] = {}
        """Back in by a change of members (`rejoin`): per seat, the last of its plays the
        change settled, where this seat cannot tell which of its messages its link will
        bring next (those after the StartView's cut, resent: settled ones among them). Its
        next message may name any number up to one past it; strictly in line after that."""
        self._copies: dict[PlayId, Ordered] = {}
        """Each play held (`Commits`' order), as its signed message: what a holding carries
        (`_handover`)."""
        self._held_off: list[Ordered] = []
        """Ordered messages of a view before the one installed here last that came before
        that view took hold here: held once it has (`_begin`)."""
        self._starting: _Starting | None = None
        """The StartView installed here last, until its view takes hold: nothing of the view
        is applied before (`_begin`)."""
        self._acked_at = [0.0] * host.players
        """Per seat, when its last Ack came (`lags`)."""
        self._shown = Shown(host.players)
        """What each member's Ballots showed it holds of this seat's messages (`lags`)."""
        self._linked: dict[int, int] = {}
        """Per seat whose plays a Poll brought here ahead of its own link (`_carried`): the
        number of the last of its plays its link has brought, which is behind `_arrived`."""

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
        its sender's (it comes next on the sender's link, in order); or that a Poll brought
        here first, another copy (the two, each signed, prove its sender a cheat)."""
        sender, named = message.sender, message.below[message.sender]
        number = self._linked.get(sender, self._arrived[sender]) + 1
        copy = self._copies.get((sender, named)) if sender in self._linked else None
        if copy is not None and witness(copy) != witness(message):
            self._host.witness.caught(copy, message)
            raise RemoteProtocolError(f"seat {sender} sent two plays as its play {named}")
        loose = self._loose.get(sender)
        if loose is not None and named <= loose + 1:
            return  # (back in, this seat cannot tell where the link stood: `rejoin`)
        if named != number:
            why = f"its {type(message).__name__} names itself {named}, not {number}"
            raise self._host.gate.refuse(sender, why)

    def hold(self, message: Ordered, now: float) -> None:
        """Another seat's ordered message, accepted in order on its link (`check`): held
        and voted on, unless a Poll brought it here first."""
        sender, named = message.sender, message.below[message.sender]
        if sender in self._linked and named <= self._arrived[sender]:
            self._linked[sender] = named
            if named == self._arrived[sender]:
                del self._linked[sender]  # (its link has caught up)
            return
        self._arrived[sender] = named
        self._loose.pop(sender, None)
        self._take(message, now)

    def _carry(self, play: PlayId) -> bytes:
        """The signed message of a play held here, as a Poll on it carries it."""
        copy = self._copies.get(play)
        return b"" if copy is None else encode_payload(copy)

    def _carried(self, poll: Poll) -> Ordered | None:
        """The play a Poll carries, to hold here ahead of its sender's link if it comes
        next among its sender's plays and is not held yet (`_hold_carried`): its link from
        its sender may be slower than the poller's. One not signed by the seat it names
        breaks the protocol (the poller's, raised, nothing changed); another copy of one
        held here proves its sender a cheat; one that does not come next, or fails a check
        its sender's link would refuse it for, is left to that link (None)."""
        host, seat, number = self._host, poll.seat, poll.number
        if not poll.play or not 0 <= seat < host.players or seat == host.seat:
            return None  # (a seat out of range: `Commits.take` refuses the Poll)
        if seat in self._loose or host.gate.refuses(seat):
            return None
        arrived = self._arrived[seat]
        copy = self._copies.get((seat, number))
        if number > arrived + 1 or (number <= arrived and copy is None):
            return None
        if copy is not None and encode_payload(copy) == poll.play:
            return None
        message = decode_payload(poll.play)
        if (
            not isinstance(message, Ready | Play | Reveal | Leave)
            or message.sender != seat
            or play_number(message) != number
            or not host.signer.genuine(message)
        ):
            why = f"its Poll carried what seat {seat} did not sign as its play {number}"
            raise RemoteProtocolError(why)
        if copy is not None:
            host.witness.caught(copy, message)
            return None
        try:
            check_message(message, host.gate.seating)
            check_header(message, host.acks.clock, host.view)
        except RemoteProtocolError:
            return None
        return message if message.view == host.view else None

    def _hold_carried(self, message: Ordered, now: float) -> None:
        """A play a Poll carried (`_carried`), held ahead of its sender's link."""
        seat = message.sender
        self._linked.setdefault(seat, self._arrived[seat])
        self._arrived[seat] = message.below[seat]
        self._host.acks.clock = max(self._host.acks.clock, message.clock)
        self._take(message, now, carried=True)

    def _take(self, message: Ordered, now: float, *, carried: bool = False) -> None:
        """Hold a play, voting on it; while the members change, keep it for the new view,
        and so one of the view before until the new view takes hold (it sorts below the
        StartView, and would be passed at once: `_begin` holds it after)."""
        starting = self._starting
        if self._host.status is not Status.NORMAL:
            self._queued.append(message)
            return
        if starting is not None and (
            message.view < starting.start.view or self._behind(starting, message.sender)
        ):
            self._held_off.append(message)
            return
        play = self._spotted(message)
        if play.seq <= self.commits.voter.have[play.seat]:
            return  # settled by a change of members, from a holding that carried it
        self.plays.hold(play.id, message, play.spots, play.key)
        self._copies[play.id] = message
        self.commits.hold(play, now, carried=carried)

    def _behind(self, starting: _Starting, sender: int) -> bool:
        """Whether a message of ``sender``'s own view, while that view has not taken hold
        here, comes after one of its messages that waits for it to (`_begin` holds those,
        kept or held off, in the order they came): it waits behind them, a sender's plays
        being held in its order. (A seat coordinating a change before its view had taken
        hold there began that view, and the round's end it applied sent a Reveal, kept;
        its next message, held at once, came before it: "play (1, 66) held out of its
        sender's order", and the seat stopped, on a real table as it dealt the next
        round.)"""
        start = starting.start
        return any(
            m.sender == sender and held_on(m, start.members, start.joined)
            for m in (*starting.kept, *self._held_off)
        )

    def _spotted(self, message: Ordered) -> Spotted:
        """``message`` as the rule sees it: its number is the one its ``below`` names."""
        sender, below = message.sender, message.below
        return Spotted(
            sender, below[sender], self._key(message), self.spots(message), below, witness(message)
        )

    def take(self, frame: CommitFrame, now: float, via: int, within: float) -> bool:
        """A Ballot, Tally or Poll that passed the Gate (`_checks.Gate.check_frame`), counted
        (`Commits.take`); a frame that breaks the rule refuses its sender, as a message does.
        ``via``: the seat whose link carried it (a Tally, or a Ballot on this seat's own
        play, handed on: `Commits._hand_on`). Returns whether it is a Tally of its sender's
        own that says it passed too little, by ``within`` (`lags`): a stale word."""
        host, sender = self._host, frame.sender
        stale = False
        try:
            carried = self._carried(frame) if isinstance(frame, Poll) else None
            self.commits.take(frame, now)
            if isinstance(frame, Ballot):
                self._voted(frame, now)
            if isinstance(frame, Tally) and via == sender and frame.view == self.commits.view:
                # (a Tally of its own, on its own link: not one handed on)
                holds = self._holds(sender, now, within)
                stale = self.commits.hear_tally(frame, holds, now, within)
            if carried is not None:  # (after the Poll: holding it answers the poller)
                self._hold_carried(carried, now)
        except RemoteProtocolError as exc:
            raise host.gate.refuse(sender, str(exc)) from None
        host.acks.clock = max(host.acks.clock, frame.clock)
        for seat, why in self.commits.refusals:
            host.gate.refuse(seat, why)
        self.commits.refusals.clear()
        return stale

    def _voted(self, ballot: Ballot, now: float) -> None:
        """A genuine Ballot, counted: on a play of this seat's that it names by the witness
        of the copy this seat sent, it shows what its voter holds of this seat's messages
        (`_shown`)."""
        copy = self._copies.get((ballot.seat, ballot.number))
        if ballot.seat != self._host.seat or copy is None or ballot.witness != witness(copy):
            return
        self._shown.voted(ballot.sender, ballot.view, ballot.clock, copy.seq, now)

    def _show_copy(self, play: PlayId) -> None:
        """Show every seat this seat's copy of ``play``, of another seat, that a genuine
        Ballot or Tally named by another witness (`Commits`' ``notice``): its sender signed
        two plays under one number, and a seat that holds the other copy holds the proof
        that refuses it (`_witness.Witness.take_evidence`, by `held_copy`)."""
        message = self._copies.get(play)
        if message is not None:
            self._host.witness.show(message)

    def held_copy(self, message: Ordered) -> Ordered | None:
        """The copy held here of the play ``message`` names (`_witness.play_number`)."""
        return self._copies.get((message.sender, play_number(message)))

    def said(self) -> tuple[tuple[int, ...], int]:
        """What this seat's Ack says beside what it holds: how far it has passed the
        canonical order, and how many plays it has made."""
        return self.commits.told(), self.made

    def lags(self, ack: Ack, now: float, within: float, *, moved: bool) -> bool:
        """Whether an Ack of this view says its sender has passed less of the canonical
        order than this seat had ``within`` seconds before, though it holds what this seat
        held then (`Commits.lags`): a stale word, which holds up letting go of every play
        since. ``moved``: it claims more of some other seat's messages than its sender's
        last Ack did. What it says it holds excuses nothing where it claims nothing new
        (its sender hears from nobody, and a seat that cannot hear holds the table up
        whatever the cause) or says less than its Ballots showed (`_shown`): then it is
        judged by how far it passed alone."""
        self._acked_at[ack.sender] = now
        if ack.view != self.commits.view:
            return False
        seat = self._host.seat
        shown = self._shown.understates(
            ack.sender, ack.view, ack.clock, ack.have[seat], now, within
        )
        holds = ack.have if moved and not shown else None
        return self.commits.lags(ack.sender, ack.passed, holds, now, within)

    def _holds(self, seat: int, now: float, within: float) -> list[int] | None:
        """What a Tally of ``seat``'s own is judged by (`lags`): what its last Ack said it
        held of each seat's messages. A seat that plays without a half second's pause
        sends no Ack, and its Tallies alone say how far it passed; while this seat is
        `crowded` (and so, mostly, every honest seat: none plays, and each sends Acks),
        one whose last Ack is older than ``within`` is judged by how far it passed alone
        (None), as is one whose last Ack said less than its Ballots showed (`lags`)."""
        if now - self._acked_at[seat] >= within and self.crowded():
            return None
        acked = self._host.acks.acked[seat]
        if acked[self._host.seat] < self._shown.most(seat, self.commits.view):
            return None
        return acked

    def hear(self, ack: Ack) -> None:
        """What an Ack says of its sender's clock, its canonical order and its plays."""
        self.commits.hear(ack.sender, ack.clock, ack.passed, ack.made)

    # --- resolving ----------------------------------------------------------------------

    def apply(self, now: float, *, why: str = LATE_WHY) -> None:
        """Apply what resolved, in order, and fold what the canonical order settled; a play
        that came back is returned saying ``why``. Applying a play may send a message
        (a Ready as a round ends, say), which may resolve more: called so from within,
        it leaves them to the call under way, which takes them before it returns."""
        if self._applying:
            self._again = True
            return
        self._applying = self._again = True
        try:
            if self._starting is not None:
                if not self._host.taken_hold():
                    return
                self._begin(now)
            while self._again:
                self._again = False
                resolved, settled = self.commits.step(self._host.acks.clock, now)
                self.plays.take(resolved, settled, now, why)
                self._let_go()
        finally:
            self._applying = False

    def _fold(self) -> None:
        """Fold what the canonical order settled (`Applying.fold`), and let go of the
        copies of plays let go of."""
        self.plays.fold()
        self._let_go()

    def _let_go(self) -> None:
        """Let go of the copies of plays `Commits` has let go of."""
        held = self.commits.order.held
        if len(self._copies) > 2 * len(held) + 64:
            self._copies = {play: m for play, m in self._copies.items() if play in held}

    # --- a change of members ------------------------------------------------------------

    def holding(self) -> tuple[bytes, list[bytes]]:
        """What this seat brings to a change of members, on the wire, and the payloads it
        names (`_handover`): from here until it installs the new view it decides nothing
        more (`_take`, `take`)."""
        return _handover.write(self.commits.holding(), self._copies)

    def open_since(self) -> float:
        """Since when the oldest play of another seat held here has had no outcome
        (`Commits.open_since`)."""
        return self.commits.open_since()

    def crowded(self) -> bool:
        """Whether this seat holds as many plays as would fill half a StartView (`A_PLAY`:
        82 at 14 seats, 147 at 6, 184 at 4): it makes no more until it lets go of some.
        Plays are let go once every member has passed them, so a member silent holds up
        letting go of every play since, until the members change: 14 seats of fast bots
        held about 200 plays by then, and their StartView outgrew a frame."""
        members = len(self.commits.members)
        member, ballot, once = A_PLAY
        size = member * members + ballot * quorum(members) + once
        return len(self.commits.order.held) * size >= MAX_FRAME // 2

    def overfull(self, now: float) -> bool:
        """Whether a StartView carrying the members' holdings, each the size of this seat's,
        and a pool a quarter larger than its own (the others' hold the same plays and
        Tallies, mostly: 124 KB for 82 plays held at 14 seats, this seat's pool 83 KB),
        would fill half a frame: a silent member holds up letting go of every play since
        it fell silent, and the members must change before the change cannot be said
        (sized at most every `SIZE_EVERY` seconds: it encodes the holding), or whether
        this seat is `crowded`, which makes no play meanwhile."""
        if self.crowded():
            return True
        at, full = self._sized
        if now - at >= SIZE_EVERY:
            held, pool = self.holding()
            size = len(self.commits.members) * len(held) + 5 * sum(map(len, pool)) // 4
            full = size > MAX_FRAME // 2
            self._sized = (now, full)
        return full

    def _holdings(
        self, votes: Iterable[ViewChange], pool: Iterable[bytes]
    ) -> tuple[list[Holding], dict[tuple[PlayId, bytes], Ordered]]:
        """The holdings ``votes`` carry, their payloads looked up in ``pool``, read alike at
        every seat (`_handover.read`), and each play they carry as its signed message."""
        host, holdings = self._host, list[Holding]()
        carried: dict[tuple[PlayId, bytes], Ordered] = {}
        named = {_handover.name(payload): payload for payload in pool}
        for vote in votes:
            got = _handover.read(vote, named, host.signer, self._spotted)
            if got is not None:
                holdings.append(got[0])
                for play, message in got[1]:
                    carried.setdefault((play.id, play.witness), message)
        return holdings, carried

    def _settle(self, start: StartView) -> None:
        """Settle every play still open from the holdings ``start``'s votes carry, as every
        seat of the new view settles them (`Commits.install`), and keep the message of each
        play held now that this seat lacked (or held another copy of)."""
        votes = [decode_payload(payload) for payload in start.votes]
        assert all(isinstance(v, ViewChange) for v in votes)  # (checked: `_check_votes`)
        holdings, carried = self._holdings(votes, start.pool)  # type: ignore[arg-type]
        before = dict(self.commits.order.held)
        self.commits.install(start.view, start.members, holdings)
        for play in self.commits.order.held.values():
            was = before.get(play.id)
            if was is None or (was.witness != play.witness and play.id in self.plays.messages):
                message = carried[(play.id, play.witness)]
                self.plays.hold(play.id, message, play.spots, self._key(message))
                self._copies[play.id] = message
        have = self.commits.order.have
        for seat in start.joined:  # (numbered on after the last of theirs settled)
            self._arrived[seat] = have[seat]
            self._linked.pop(seat, None)
        for seat in self._loose:  # (what this change settled its link need not bring)
            self._loose[seat] = max(self._loose[seat], have[seat])

    def handover(
        self,
        votes: Iterable[ViewChange],
        members: Collection[int],
        joined: Collection[int],
        now: float,
    ) -> tuple[int, list[Ordered]]:
        """What a StartView that ``votes`` begin, with ``members``, says beyond them: how
        many messages every seat of the new view will have folded into its digest once it
        has folded every play of this view (`_close`), those folded here, and the plays the
        change settles not folded here yet (the StartView's ``base_committed``); and, for
        the seats coming back (``joined``), the messages kept here while the members
        changed that the change does not settle, which the members hold in the new view
        (`held_on`). A view built from this one goes on from it: begun here if it was not
        yet (`_begin`)."""
        self._begin(now)
        votes = list(votes)
        holdings, _ = self._holdings(votes, pooled(vote.pool for vote in votes))
        settled = settlement(self.commits.box, members, holdings)
        order = self.commits.order
        folded = [
            play.seq <= order.gone[play.seat]
            or (play.id in order.held and play.id not in self.plays.messages)
            for play in settled.plays
        ]
        count = self._host.log.committed + folded.count(False)
        if not joined:
            return count, []
        last = settled.last
        kept = (m for m in self._queued if held_on(m, members, joined))
        return count, [m for m in kept if m.below[m.sender] > last[m.sender]]

    def install(self, start: StartView, now: float) -> None:
        """Go on in the view ``start`` begins: every play still open settled from the
        holdings its votes carry, as every seat of the new view settles them
        (`Commits.install`); then, once the view has taken hold (`_begin`), those it
        settles in applied and the others returned, the seats at the table changed (the
        StartView applied, after the plays it settles), every play of the view left folded
        into the digest, which starts again from the StartView (`_close`), and the plays
        kept while the members changed held, in the new view, those of its members the
        change did not settle (not those of a seat coming back: of its earlier life)."""
        self._begin(now)  # (the view this one was built from took hold)
        self._settle(start)
        kept, self._queued = tuple(self._queued), []
        self._starting = _Starting(start, self.commits.resolved(), kept=kept)
        self.apply(now)

    @property
    def begun(self) -> bool:
        """Whether this seat has gone on in the view installed here last (`_begin`)."""
        return self._starting is None

    def _begin(self, now: float) -> None:
        """Go on in the view installed here last, now that it has taken hold (the StartView
        of two siblings both installed here, a seat in both majorities installed one
        only, `_membership.Membership.taken_hold`), or that a view built from it did: what
        its change settled applied, then the StartView, then the digest started again
        from it, then what was kept while the members changed held (`install`,
        `rejoin`). Until then this seat applies nothing of the view: a sibling that
        never takes hold applies nothing that the seats of the other would not."""
        starting, self._starting = self._starting, None
        if starting is None:
            return
        start, was = starting.start, self._applying
        self._applying = True  # (what applying sends is taken once the view is in)
        try:
            if starting.back:
                self._come_back(starting, now)
            else:
                self.plays.resolve(starting.resolved, now, CHANGED_WHY)
                self.plays.apply_waiting(now, view_ends=True)
                self._host.apply(start, now)
                self._close(start, now, fold=True)
            held_off, self._held_off = [*starting.kept, *self._held_off], []
            if self._host.view != start.view:  # (begun as a later view is installed)
                self._queued[:0] = held_off  # (that view's change settles them, or keeps them)
                return
            for message in held_off:
                if held_on(message, start.members, start.joined):
                    self._take(message, now)
            if starting.back:
                self._host.ready_again(now)  # (if the change dropped it)
        finally:
            self._applying = was

    def rejoin(self, start: StartView, now: float) -> None:
        """Come back into the view ``start`` begins, a fresh replica: the round replayed as
        its coordinator applied it (the messages it carries, in that order, each applied
        as it was there), then every play still open settled from the votes' holdings as
        every seat of the view settles them, and the digest started again from the
        StartView (what the view left folded into it this seat never held, and folds
        nothing of it). Once the view has taken hold (`_begin`, `_come_back`): those
        settled in that its coordinator had not applied applied here, this seat's own that
        came back returned; then the StartView applied; then the messages of the members
        its coordinator kept while the members changed held, as the members hold theirs."""
        self._applying = True  # (what applying sends is taken once the view is in)
        try:
            self._starting = self._rejoin(start, now)
        finally:
            self._applying = False
        self._restart_digest(start)  # (it folds nothing before: not the base it was given)
        self._loose = {s: self.commits.order.have[s] for s in start.members if s != self._host.seat}
        for message in self._starting.kept:
            self._arrived[message.sender] = message.below[message.sender]
            self._loose.pop(message.sender, None)
        self.apply(now)

    def _rejoin(self, start: StartView, now: float) -> _Starting:
        """`rejoin` up to what waits for the view to take hold (`_come_back`)."""
        host, applied, kept = self._host, set[PlayId](), list[Ordered]()
        self._settle(start)
        have = self.commits.order.have
        self.made = self._arrived[host.seat] = have[host.seat]
        carried = [decode_payload(payload) for payload in start.carried]
        for message in carried:
            match message:
                case StartView():
                    host.apply(message, now)
                case Ready() | Play() | Leave() | Reveal() if (
                    message.below[message.sender] <= have[message.sender]
                ):
                    host.apply(message, now)
                    applied.add((message.sender, message.below[message.sender]))
                case Ready() | Play() | Leave() | Reveal() if held_on(
                    message, start.members, start.joined
                ):
                    kept.append(message)  # (kept by the coordinator while members changed)
        resolved, base = self.commits.resolved(), self._base_key(start, carried)
        for play, _ in resolved:
            message = self.plays.message(play)
            if base is not None and self._key(message) < base:
                applied.add(play)  # (in the base: applied before the round carried)
            elif play not in applied and message.sender == host.seat and isinstance(message, Play):
                host.inplay.in_the_air(message)  # (its own, made before it was left out)
        return _Starting(start, resolved, True, frozenset(applied), tuple(kept))

    def _base_key(self, start: StartView, carried: list[Message]) -> tuple[int, ...] | None:
        """The order key of the Ready a StartView's base stands just before (the first of
        round ``start.round`` among what it carries, ``carried``, decoded; None at the
        match's start, or where it carries none). Every message sorting below it was applied
        or returned before it, as a Ready acts on the whole table: a play the change settles
        in below it is in the base, not to be applied again. (Its voters still held round
        0's Readies and Reveals, not all passed, when two seats of six came back at round 1:
        applied again after the base, they made round 0 end again without a Ready the base
        had, and round 1's seed from one share fewer.)"""
        if not start.base_committed:
            return None
        for message in carried:
            if isinstance(message, Ready) and message.round == start.round:
                return self._key(message)
        return None

    def _come_back(self, starting: _Starting, now: float) -> None:
        """`rejoin`, once the view has taken hold: the plays still open that its change
        settles applied (those settled in that the coordinator had not), or returned,
        then the StartView applied and the digest started again from it."""
        host = self._host
        for play, ok in starting.resolved:
            if play in starting.applied:
                continue  # (and folds nothing of the view left: `_close`)
            if ok:
                self.plays.wait(play)
            elif self.plays.message(play).sender == host.seat:
                self.plays.late(play, now, CHANGED_WHY)
            else:
                self.plays.passed_over(play)
        self.plays.apply_waiting(now, view_ends=True)
        host.apply(starting.start, now)
        self._close(starting.start, now, fold=False)

    def _close(self, start: StartView, now: float, *, fold: bool) -> None:
        """Pass every play of the view ``start`` ends in the canonical order (every play of
        it sorts below the StartView's clock, every play of the new view above), folding
        each into the digest (``fold``; a seat coming back folds none: it never held the
        view's order), then start the digest again from ``start``: every seat of the new
        view, the one coming back too, goes on from the same count and digest: the count
        of the plays the view ended folded (the StartView's ``base_committed``), and the
        hash of the StartView's payload."""
        order = self.commits.order
        for seat in range(self._host.players):
            order.bound(seat, (start.clock,))
        self.plays.settle(self.commits.canonical(self._host.acks.clock, now))
        if fold:
            self._fold()
        self.plays.forget_settled()
        self._restart_digest(start)

    def _restart_digest(self, start: StartView) -> None:
        """Start the digest again from ``start``: the count of the plays the view it ends
        folded (its ``base_committed``), and the hash of its payload."""
        digest = _handover.name(encode_payload(bare(start)))
        self._host.log.rebase(start.base_committed, digest)

    # --- time ------------------------------------------------------------------------------

    def tick(self, now: float) -> None:
        if self._host.status is Status.NORMAL:
            self.commits.tick(now)

    def deadline(self) -> float:
        """When `tick` next has something to do: nothing while the members change."""
        if self._host.status is not Status.NORMAL:
            return NEVER
        return self.commits.deadline()
