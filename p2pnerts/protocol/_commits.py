"""Version 3's commit at one seat, frames in and frames out: the part a replica is to hold.

Theory of operation
-------------------
`Commits` joins the rule's three pieces for one seat: its votes (`_spots.Voter`), its
commits (`_order.Order`) and its frames (`_ballots.BallotBox`). It is fed the plays this
seat holds, each sender's in that sender's order (`hold`; this seat's own as it makes them),
the commit frames that reach it (`take`) and the time (`tick`); it answers with frames to
send (`take_outgoing`: a Ballot to the seat it names, a Tally handed on or a Poll that
brings a play back to the seat that polled, any other to every other seat) and the plays
that resolve, in the order they do (`resolved`).

- A seat that holds another seat's play votes on it at once: a Ballot to the sender.
- A seat that holds enough Ballots on a play (the sender, on its own plays; a seat that
  polled, on the play it polled for) decides it, learns the outcome itself and sends it to
  every seat as a Tally carrying those Ballots.
- A Tally is taken only once this seat holds its play, and only if its Ballots prove it
  (`BallotBox.check`); one that comes before the play waits for it. A Tally that fails is
  refused as a `RemoteProtocolError`, with nothing changed.
- A seat that has held a play of another seat too long without an outcome polls every
  member on it, and again while it waits (when: `_polling.PollTimes`; the members wait
  one after another, so that the first that polls decides the play and tells every seat,
  and the others need not poll). The Poll carries the play as this seat holds it (its
  signed message, from the replica: ``carry``), so that a member whose link from the
  sender is slower can hold it and vote at once (`_majority.Majority`). A sender polls on
  its own play so too once it has waited `POLL_MOST` (a Ballot lost on a link that broke
  is asked for again; it counts the answers as it counts every Ballot on its plays). A
  member that holds the play's Tally answers with it alone (signed by the seat that
  counted it, it is as good handed on), once a `POLL_MOST` to one poller; any other
  answers with its Ballot (one that does not hold the play yet waits for it, up to
  `POLL_MOST`, before it votes it late: on a slow link the poll may overtake the play, and
  a late vote then would send back a play that only came slowly), and hands the Tally on
  once it learns it: a sender's Tally reaches the seats one by one, a slow sender's
  far apart, and where the votes split no poll decides the play, so that the poller waits
  for the first seat that has it to hand it on.
  The poller takes such a Tally, or counts its own Ballot and the answers and decides the
  play itself when they decide it, counting as a poller does (`_spots.decide`,
  ``polled``: more votes than the sender needs, so that a voter telling the two of them
  two things parts nothing).
- A seat whose play decided in waits on plays its link from their sender has not brought
  (`_order.Order.missing`) polls on the next of them, carrying nothing;
  a member that holds it polls that seat back, to it alone, carrying it (`_bring`), and
  counts the Ballot that answers. A Ballot on a play polled on so that is not held here
  yet is dropped unread: it is asked for again once the play is held.

What a seat keeps of a play (the play, its votes and Ballots, its outcome and Tally) it
lets go of once every member has passed the play in the canonical order (`_order`): each
member tells how far it has got, with its clock, on its ordered link (`hear`: the replica's
Ack). Frames that come after that on such a play are dropped unread: whoever sent them has
it resolved already, and a vote asked again could not be given the same.

A change of members settles every play still open first, from what each seat of the new
view holds (`holding`), as every one of them works it out on its own (`_changes`), and
`install` takes what it settles. Frames of another view are dropped unread. A replica that
commits by a majority holds this part (`_majority`), whose holdings travel in the
ViewChanges (`_handover`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence

from p2pnerts.protocol._ballots import BallotBox
from p2pnerts.protocol._changes import Holding, settlement
from p2pnerts.protocol._errors import RemoteProtocolError
from p2pnerts.protocol._log import PENDING_LIMIT
from p2pnerts.protocol._messages import Ballot, CommitFrame, Poll, Tally
from p2pnerts.protocol._order import Order
from p2pnerts.protocol._polling import POLL_MOST, PollTimes
from p2pnerts.protocol._signing import Signer
from p2pnerts.protocol._spots import Decision, Key, PlayId, Spot, Spotted, Vote, Voter
from p2pnerts.protocol._status import NEVER

AHEAD = PENDING_LIMIT
"""How far past a seat's plays held here a Tally or a Poll may name one of its plays: no
further than its plays may wait to commit (SPEC §4.2)."""


class Commits:
    """One seat's share of version 3's commit: votes, outcomes and commits, as frames."""

    def __init__(
        self,
        seat: int,
        players: int,
        signer: Signer,
        members: Iterable[int],
        stamp: Callable[[], int],
        *,
        view: int = 0,
        carry: Callable[[PlayId], bytes] = lambda play: b"",
        taken_hold: Callable[[], bool] = lambda: True,
        notice: Callable[[PlayId], None] = lambda play: None,
        have: Callable[[], Sequence[int]] = tuple,
        made: Callable[[], int] = lambda: 0,
    ) -> None:
        self.seat = seat
        self.players = players
        self.members = tuple(members)
        self.view = view
        self._stamp = stamp
        """The clock a frame goes out with (the replica's Lamport clock, stepped)."""
        self._carry = carry
        """A play held here as a Poll carries it: its signed message's payload."""
        self._taken_hold = taken_hold
        """Whether this view has taken hold (`_membership.Membership.taken_hold`): until it
        has, this seat decides nothing in it (`held_back`)."""
        self._notice = notice
        """Told each play of another seat held here that a genuine Ballot or Tally names
        by another witness, as it is found (`other_copies`): the replica shows its copy to
        every seat (`_witness.Witness.show`)."""
        self._have = have
        """What this seat holds of each seat's messages (the replica's `Acks.have`), noted
        as it passes a play (`lags`)."""
        self._made_here = made
        """How many plays this seat has made (`_majority.Majority.made`): those it holds
        only once its view takes hold here (kept while the members changed) may be voted
        on first elsewhere (`_early`)."""
        self._held_back: set[PlayId] = set()
        """Plays this seat would have decided while its view had not taken hold: decided
        once it has (`release`)."""
        self.voter = Voter(seat, players)
        self.order = Order(players)
        self.box = BallotBox(seat, players, signer)
        self._outgoing: list[tuple[CommitFrame, int | None]] = []
        self._tallies: dict[PlayId, Tally] = {}
        """The Tally each outcome learnt here came in (or went out in, decided here)."""
        self._settled: dict[PlayId, Decision] = {}
        """The outcomes known here when the members last changed: they stand on that
        change, every seat of the new view knowing them alike."""
        self._early: dict[PlayId, list[Tally | Ballot]] = {}
        """Tallies on plays not held here yet, and Ballots on plays of this seat's own that
        it made and does not hold yet, kept until the play is held (`hold`): a seat where
        a change of members took hold first holds a play kept meanwhile, and votes, sooner.
        (Refused as one on a play it never asked about, such a Ballot refused an honest
        voter: on a real table of four, as a change left a seat out, the seat that took
        hold last refused the other two.)"""
        self.polls = PollTimes(seat, players)
        """When this seat polls next on each play held here without an outcome."""
        self._now = 0.0
        """The time of the last input (`hold`, `take`, `tick`)."""
        self._tally_handed: dict[PlayId, dict[int, float]] = {}
        """Per play, the pollers this seat has handed its Tally, each with when: a poller
        is handed it again only `POLL_MOST` on (its own Tally, or one handed on by any
        other seat, is on its way)."""
        self.refusals: list[tuple[int, str]] = []
        """Seats whose Tally, taken once its play came, failed its check, each with why:
        the replica refuses them as it refuses a frame that fails at once."""
        self._waiting: dict[PlayId, set[int]] = {}
        """Plays held here that seats polled on before this seat knew their outcome, with
        those seats: each is handed the Tally once this seat learns it (a sender's Tally
        reaches the seats one by one, and a seat that polled waits on it)."""
        self._brought: set[PlayId] = set()
        """Plays held here that this seat carried back to a seat whose Poll carried none
        (`_bring`): its answer, a Ballot, is counted as a poller counts one."""
        self._handed: dict[PlayId, set[int]] = {}
        """Per play of another seat polled on here, the voters whose Ballots this seat has
        handed on to its sender (`_hand_on`)."""
        self._asked: dict[PlayId, tuple[float, set[int]]] = {}
        """Plays not held here that members polled on, with when first asked and by whom:
        answered once the play comes, or late after `POLL_MOST` without it once its sender
        is known to have made it (`hear`)."""
        self._made = [0] * players
        """Per seat, how many plays it has told it made (`hear`)."""
        self.other_copies: dict[PlayId, bytes] = {}
        """Plays held here that a genuine Ballot or Tally names by another witness, each
        with the witness it names: the sender sent another play under that number. The
        replica shows its copy to every seat (``notice``), and a seat holding the other one
        then holds the two plays, each signed by their sender: the proof that refuses it
        (until a change of members settles the play, this seat waits on it:
        `_order.Order._can_commit`)."""
        self._passed: list[Key] = [()] * players
        """Per seat, how far it has told it has passed the canonical order (`hear`)."""
        self.untold = 0
        """How many plays this seat has passed in the canonical order since it last said
        how far, in an Ack (`told`) or a Tally of its own."""
        self.untold_since = NEVER
        """When this seat passed the first of those plays (`NEVER`: it has told them all)."""
        self._marks: deque[tuple[float, Key, tuple[int, ...]]] = deque()
        """When this seat passed how far in the canonical order, beyond what every member
        has said it passed, and what it held of each seat's messages then (`lags`)."""

    # --- inputs ---------------------------------------------------------------------------

    def make(
        self, seq: int, key: tuple[int, ...], spots: tuple[Spot, ...], witness: bytes, now: float
    ) -> Spotted:
        """This seat's next play, with its own vote (`Voter.make`), held at once."""
        play = self.voter.make(seq, key, spots, witness)
        self.hold(play, now)
        return play

    def hold(self, play: Spotted, now: float, *, carried: bool = False) -> None:
        """This seat now holds ``play`` (a sender's plays in that sender's order): it votes
        on it, to the sender, and takes any Tally that came before it. ``carried``: a Poll
        carried it here (its poller has waited on it, so that where a play decided in waits
        on it here, this seat polls at once)."""
        self._now = now
        if play.seq <= self.order.gone[play.seat]:
            return  # passed everywhere, and let go of
        vote = self.voter.hold(play)
        self.order.hold(play)
        if play.seat == self.seat:
            self.polls.waited_on(self.order.waits_for(play))
        # Its own too, later: a Ballot lost on a link that broke is asked for again.
        self.polls.hold(play.id, now, self.members, carried=carried)
        if play.seat != self.seat:
            self._send(self.box.cast(vote, play.seat, self.view, self._stamp()))
        _, askers = self._asked.pop(play.id, (now, set()))
        self._answer(vote, askers)  # (polled before it came: answered now it has)
        if askers:
            self._waiting.setdefault(play.id, set()).update(askers)
        for frame in self._early.pop(play.id, []):
            try:
                if isinstance(frame, Tally):
                    self._take_tally(frame)
                else:
                    self._count(frame, play.id)
            except RemoteProtocolError as exc:
                self.refusals.append((frame.sender, str(exc)))

    def take(self, frame: CommitFrame, now: float) -> None:
        """A commit frame from another seat, of this seat's view (a replica admits no other,
        SPEC §4.2). Raises `RemoteProtocolError` for one that breaks the protocol (a Ballot or
        Tally that `BallotBox` refuses), changing nothing but the proof it keeps of a voter
        that said two things. A Ballot must be on a play this seat holds and counts (its own,
        or one it polled on), or on one of its own it made and holds later (`_early`); a
        Tally or a Poll may run ahead of the plays held here, but not past `AHEAD` of a
        seat's plays (so a seat cannot fill another's memory)."""
        self._now = now
        play = (frame.seat, frame.number)
        if frame.view != self.view:
            return  # (a replica holds one of a view to come back until it gets there)
        if not 0 <= frame.seat < self.players:
            raise RemoteProtocolError(f"a {type(frame).__name__} on seat {frame.seat}'s play")
        if frame.number <= self.order.gone[frame.seat]:
            return  # passed everywhere: its sender has it resolved, this seat let it go
        known = play in self.order.outcomes
        self._take(frame, play, now)
        if not known and play in self.order.outcomes:
            self.polls.timed(play, now)

    def _take(self, frame: CommitFrame, play: PlayId, now: float) -> None:
        match frame:
            case Ballot():
                polled = self.polls.polled(play)
                if polled and frame.number > self.order.have[frame.seat]:
                    return  # (polled on as it was missing: asked again once it is held)
                own = frame.seat == self.seat
                if own and self.order.have[self.seat] < frame.number <= self._made_here():
                    self._keep(play, frame)  # (made, held once its view takes hold here)
                    return
                if play not in self.order.held or not (own or polled or play in self._brought):
                    why = f"a Ballot on play {play}, which seat {self.seat} did not ask about"
                    raise RemoteProtocolError(why)
                self._count(frame, play)
            case Tally():
                self._not_too_far(frame, play)
                if play in self.order.outcomes:
                    return
                if play in self.order.held:
                    self._take_tally(frame)
                else:
                    self._keep(play, frame)
            case Poll():
                self._not_too_far(frame, play)
                to = frame.sender
                if play not in self.voter.votes:  # not held yet: it may be on its way
                    self._asked.setdefault(play, (now, set()))[1].add(to)
                    return
                if not frame.play:  # (its poller lacks the play: a play there waits on it)
                    self._bring(play, to)
                tally = self._tallies.get(play)
                if tally is None:
                    self._answer(self.voter.votes[play], {to})
                    if play in self.order.held:  # handed on once it is
                        self._waiting.setdefault(play, set()).add(to)
                else:  # the outcome is known here: its proof answers
                    self._hand_tally(tally, to)

    def _keep(self, play: PlayId, frame: Tally | Ballot) -> None:
        """Keep a frame on ``play``, not held here yet, until it is (`_early`): one a
        member at most, for each kind."""
        early = self._early.setdefault(play, [])
        if sum(isinstance(f, type(frame)) for f in early) < len(self.members):
            early.append(frame)

    def _count(self, ballot: Ballot, play: PlayId) -> None:
        """Count a Ballot on ``play``, held here, and decide it if that decides it."""
        self.box.count(ballot)
        self._compare(ballot.witness, play)  # (late too: it names the copy it held)
        self._decide(play)
        self._hand_on(ballot, play)

    def release(self) -> None:
        """Decide the plays held back while this view had not taken hold, once it has."""
        if self._held_back and self._taken_hold():
            held_back, self._held_back = sorted(self._held_back), set()
            for play in held_back:
                self._decide(play)

    def tick(self, now: float) -> None:
        """Poll the members on each play held too long without an outcome; vote late on a
        play asked about that has not come in `POLL_MOST`."""
        self._now = now
        for play, (since, askers) in list(self._asked.items()):
            if now >= since + POLL_MOST and play[1] <= self._made[play[0]]:
                del self._asked[play]
                self._answer(self.voter.unseen(play), askers)
        for play in self.polls.due(now, self.order, self.members):
            self._poll(play, self._carry(play))
            self._decide(play)  # its own Ballot, cast when it took the play, counts too
            if play in self.order.outcomes:
                self.polls.timed(play, now)

    def hear(self, seat: int, clock: int, passed: Key, made: int = 0) -> None:
        """What ``seat`` says on its ordered link beside its plays (the replica's Ack): its
        ``clock``, which its plays still to come sort above, how far it has ``passed`` the
        canonical order, and how many plays it has ``made`` (a play asked about and not
        come is voted late only once its sender is known to have made it: a seat polled on
        a play not made yet, by a cheat, would else vote it late before it is made). Lets
        go of every play every member has passed."""
        self.order.bound(seat, (clock + 1,))
        self._made[seat] = max(self._made[seat], made)
        self.hear_passed(seat, passed)

    def hear_passed(self, seat: int, passed: Key) -> None:
        """How far ``seat`` has passed the canonical order, as its Ack or a Tally it sent
        this seat itself says; lets go of every play every member has passed."""
        if passed > self._passed[seat]:
            self._passed[seat] = passed
            self._forget()

    def hear_tally(
        self, tally: Tally, holds: Sequence[int] | None, now: float, within: float
    ) -> bool:
        """A Tally of its sender's own, on its own link, says how far it has passed
        (`hear_passed`); returns whether that is too little (`lags`)."""
        self.hear_passed(tally.sender, tally.passed)
        return self.lags(tally.sender, tally.passed, holds, now, within)

    def lags(
        self, seat: int, passed: Key, holds: Sequence[int] | None, now: float, within: float
    ) -> bool:
        """Whether ``seat``, which says at ``now`` that it has ``passed`` so far and holds
        ``holds`` of each seat's messages, has passed less of the canonical order than this
        seat had ``within`` seconds before, though it holds every message of the others
        that this seat held then (a seat that lacks one, its link from a member down, may
        lack what it needs to pass; an Ack covers every seat, `_checks`): it holds up
        letting go of every play since (`_liveness.Liveness`, where such words are stale).
        ``holds`` None: judged by how far it passed alone."""
        due: tuple[float, Key, tuple[int, ...]] | None = None
        for mark in self._marks:
            if mark[0] > now - within:
                break
            due = mark
        if due is None or passed >= due[1]:
            return False
        return holds is None or all(
            h >= d for s, (h, d) in enumerate(zip(holds, due[2], strict=True)) if s != seat
        )

    def told(self) -> Key:
        """How far this seat has passed the canonical order, as its Ack says now."""
        self._tell()
        return self.order.passed

    def _tell(self) -> None:
        """This seat says now how far it has passed the canonical order."""
        self.untold, self.untold_since = 0, NEVER

    def step(
        self, clock: int, now: float
    ) -> tuple[list[tuple[PlayId, bool]], list[tuple[PlayId, bool]]]:
        """What follows now from what this seat holds, in one pass: the plays held back
        while this view had not taken hold decided once it has (`release`), then the plays
        that resolved since the last call (as `resolved` gives them) and those whose place
        in the canonical order is fixed now, at this seat's ``clock`` (as `canonical` does).
        What applying them sends (a Ready as a round ends) is taken by the next step. A
        play that a play decided in waits on and this seat's link has not brought is polled
        on `POLL_BLOCKING` from ``now`` (`_order.Order.missing`)."""
        self.release()
        done, settled = self.order.step(self.seat, (clock + 1,), self.members)
        self.polls.waited_on(self.order.blocking)
        self.polls.missing(self.order.missing, now)
        return done, self._passing(settled, now)

    def canonical(self, clock: int, now: float) -> list[tuple[PlayId, bool]]:
        """The plays whose place in the canonical order is fixed now, in that order, each
        with whether it committed (`_order.Order.settled`). ``clock``: this seat's own,
        which its plays to come sort above; of the others, what they were last heard to say
        (`hear`) or their last play held here bounds theirs."""
        return self._passing(self.order.settled_at(self.seat, (clock + 1,), self.members), now)

    def _passing(self, done: list[tuple[PlayId, bool]], now: float) -> list[tuple[PlayId, bool]]:
        """This seat has passed ``done`` at ``now`` in the canonical order: told in its next
        Ack or Tally of its own, and what every member has passed let go of."""
        self.untold += len(done)
        if done:
            self.untold_since = min(self.untold_since, now)
            self._passed[self.seat] = self.order.passed
            self._marks.append((now, self.order.passed, tuple(self._have())))
            self._forget()
        return done

    # --- a change of members ---------------------------------------------------------------

    def holding(self) -> Holding:
        """What this seat brings to a change of members."""
        plays = sorted(self.order.held.values(), key=lambda play: play.id)
        ballots = [self.box.ballots(p.id) for p in plays if p.id not in self.order.outcomes]
        tallies = tuple(self._tallies[p.id] for p in plays if p.id in self._tallies)
        settled = tuple(self._settled[p.id] for p in plays if p.id in self._settled)
        carried = tuple(b for bs in ballots for b in bs)
        have = tuple(self.order.have)
        return Holding(
            self.seat, self.view, self.members, have, tuple(plays), carried, tallies, settled
        )

    def install(self, view: int, members: Iterable[int], holdings: Iterable[Holding]) -> None:
        """Go on in ``view`` with ``members``, every play still open settled from the
        ``holdings`` of the new view's seats, as every one of them settles it (`settlement`):
        the plays this seat lacked are held, each outcome learnt, and every seat's plays up
        to the last settled count as held, those none of them held returned. What a
        holding carries that fails its check counts for nothing (every seat leaves it out
        alike): a Ballot not signed by its voter or not of that view, a Tally that does
        not prove its outcome. A seat coming back after it was left out installs so too,
        from a fresh `Commits` (its own holding, of an earlier view, counts for nothing):
        it goes on numbering its plays after the last one settled, and what it committed
        that the change returned is the replica's to take back."""
        members = tuple(members)
        settled = settlement(self.box, members, holdings)
        for play in settled.plays:
            if play.seq > self.order.have[play.seat] + 1:
                self._skip(play.seat, play.seq - 1)
            if play.seq > self.order.have[play.seat]:
                self.voter.hold(play)
                self.order.hold(play)
            else:  # (its sender sent this seat another under that number: a cheat)
                self.order.take_instead(play)
        for outcome in settled.outcomes.values():
            if outcome.play not in self.order.outcomes:
                self.order.learn(outcome)
        # Every outcome known now stands on this change from here on (a Tally of an
        # earlier view counts among that view's members, which a later change no longer
        # knows), and no seat polls on these plays again.
        self._settled.update(self.order.outcomes)
        self._tallies.clear()
        for seat, number in enumerate(settled.last):
            self._skip(seat, number)
        self.view, self.members = view, members
        self.other_copies.clear()  # (settled: every seat of the view holds one copy now)
        self._asked.clear()
        self._waiting.clear()
        self._brought.clear()
        self._handed.clear()
        self._tally_handed.clear()
        self.polls.clear()
        self._early.clear()
        self._held_back.clear()
        self._marks.clear()  # (what each member passed is told afresh in the new view)

    def settlement(
        self, members: Iterable[int], holdings: Iterable[Holding]
    ) -> tuple[list[Spotted], dict[PlayId, Decision]]:
        """The plays the ``holdings`` of the seats among ``members`` carry and the outcome of
        each, as every seat of the new view works them out (`_changes.settlement`)."""
        settled = settlement(self.box, members, holdings)
        return settled.plays, settled.outcomes

    def _skip(self, seat: int, number: int) -> None:
        """Take ``seat``'s plays up to ``number`` as held (`_order.Order.skip`)."""
        self.voter.skip(seat, number)
        self.order.skip(seat, number)

    def _compare(self, witness: bytes, play: PlayId) -> None:
        """Note a play held here that a genuine frame names by another ``witness``."""
        held = self.order.held.get(play)
        if witness and held is not None and held.witness != witness:
            first = play not in self.other_copies
            self.other_copies.setdefault(play, witness)
            if first and play[0] != self.seat:
                self._notice(play)

    def _forget(self) -> None:
        """Let go of what is kept of the plays every member has passed."""
        upto = min(self._passed[m] for m in self.members)
        marks = self._marks
        while marks and marks[0][1] <= upto:
            marks.popleft()
        gone = self.order.forget(upto)
        if not gone:
            return
        self.voter.forget(gone, upto)
        ids = [play.id for play in gone]
        self.box.forget(ids)
        self.polls.forget(ids)
        self._brought.difference_update(ids)
        for play in ids:
            for kept in (
                self._tallies,
                self._settled,
                self._early,
                self.other_copies,
                self._asked,
                self._waiting,
                self._handed,
                self._tally_handed,
            ):
                kept.pop(play, None)

    # --- outputs --------------------------------------------------------------------------

    def deadline(self) -> float:
        """When `tick` next has something to do."""
        asked = (
            since + POLL_MOST
            for (seat, number), (since, _) in self._asked.items()
            if number <= self._made[seat]
        )
        return min(self.polls.deadline(), min(asked, default=NEVER))

    def open_since(self) -> float:
        """Since when this seat holds the oldest play of another seat that has no outcome
        here (`NEVER`: none)."""
        known = self.order.outcomes
        return self.polls.open_since(p for p in self.order.unresolved if p not in known)

    def take_outgoing(self) -> list[tuple[CommitFrame, int | None]]:
        """Frames to send, in order, each with the seat it goes to (None: every other seat):
        a Ballot to its ``to``, a Tally handed on or a Poll that brings a play back
        (`_bring`) to the seat that polled, any other to every other seat."""
        out, self._outgoing = self._outgoing, []
        return out

    def resolved(self) -> list[tuple[PlayId, bool]]:
        """The plays that resolved here since the last call, in the order they did: (play,
        committed). A play another seat sent that one decided in now waits on is polled on
        `POLL_BLOCKING` after it was held here, if it has not been yet."""
        done = self.order.ready()
        self.polls.waited_on(self.order.blocking)
        return done

    # --- inside ---------------------------------------------------------------------------

    def _send(self, frame: CommitFrame, to: int | None = None) -> None:
        """Send ``frame`` to seat ``to`` (a Ballot, unless handed on: to the seat it names),
        or to every other."""
        self._outgoing.append((frame, frame.to if isinstance(frame, Ballot) and to is None else to))

    def _hand_on(self, ballot: Ballot, play: PlayId) -> None:
        """Hand a Ballot that answers this seat's poll on to the play's sender, each voter's
        once, while the play is not decided here. The voter's link to the sender may be
        slower than its link here (on TCP a lost segment holds up everything behind it for
        200 ms or more), and a sender decides on fewer votes than a poller (`_spots.decide`):
        with that word it may decide what this seat cannot (a table of six: two seats race
        on one foundation, the votes split three to two, and the sixth vote, from a laptop
        losing one frame in twenty, reached the sender 600 ms late, the poller at once)."""
        if self.seat == play[0] or ballot.sender == play[0] or play in self.order.outcomes:
            return  # (a sender's own vote is its play)
        handed = self._handed.setdefault(play, set())
        if ballot.sender not in handed:
            handed.add(ballot.sender)
            self._send(ballot, play[0])

    def _hand_tally(self, tally: Tally, to: int) -> None:
        """Hand ``tally`` on to seat ``to``, which polled on its play, unless this seat
        handed it on to that seat less than `POLL_MOST` ago: it is on its way (a poller
        polls again while it waits, and on a loaded machine its wait may be shorter than
        the way)."""
        handed = self._tally_handed.setdefault((tally.seat, tally.number), {})
        if self._now >= handed.get(to, -NEVER) + POLL_MOST:
            handed[to] = self._now
            self._send(tally, to)

    def _bring(self, play: PlayId, to: int) -> None:
        """Poll seat ``to`` back on ``play``, carrying it: its own Poll carried none, so it
        lacks the play, and a play decided in there waits on it (`_order.Order.missing`):
        the link from the play's sender is slower than this seat's (on TCP a lost segment
        holds up everything behind it for 200 ms or more). Its answer counts here."""
        carried = self._carry(play)
        if carried:
            if play[0] != self.seat:
                self._brought.add(play)
            self._poll(play, carried, to)

    def _poll(self, play: PlayId, carried: bytes, to: int | None = None) -> None:
        """Poll seat ``to`` (None: every other) on ``play``, carrying ``carried``."""
        self._send(Poll(self.seat, self.view, self._stamp(), 1, *play, carried), to)

    def _answer(self, vote: Vote, askers: Iterable[int]) -> None:
        """Send this seat's ``vote`` to each seat that polled on its play."""
        for asker in sorted(askers):
            self._send(self.box.cast(vote, asker, self.view, self._stamp()))

    def _decide(self, play: PlayId) -> None:
        """Decide ``play`` if the Ballots held here decide it, and tell every seat; in a
        view that has not taken hold, nothing is decided yet (`release`)."""
        held = self.order.held.get(play)
        if held is None or play in self.order.outcomes:
            return
        if not self._taken_hold():
            self._held_back.add(play)
            return
        tally = self.box.tally(held, self.members, self.view, self._stamp, self.order.passed)
        if tally is not None:
            self._tell()  # (the Tally says how far)
            self._waiting.pop(play, None)  # (sent to every seat)
            self._learn(tally, held)
            self._send(tally)

    def _not_too_far(self, frame: Tally | Poll, play: PlayId) -> None:
        """Refuse a frame on a play further ahead of its sender's plays held here than an
        honest seat's plays ever run (`AHEAD`)."""
        if play[1] > self.order.have[play[0]] + AHEAD:
            name = type(frame).__name__
            raise RemoteProtocolError(f"a {name} on play {play}, {AHEAD} past what is held")

    def _take_tally(self, tally: Tally) -> None:
        play = self.order.held[(tally.seat, tally.number)]
        if play.id not in self.order.outcomes:
            self._learn(tally, play)

    def _learn(self, tally: Tally, play: Spotted) -> None:
        """Take the outcome ``tally`` proves (raising if it proves none), and keep the Tally
        to hand on to a seat that polls. Each Ballot it carries, checked, names the copy
        its voter held, whichever way the Tally went: each is compared with the copy held
        here (a play sent two ways under one number is returned at a table of three)."""
        if tally.ok and self.box.signer.genuine(tally):
            self._compare(tally.witness, play.id)
        outcome = self.box.check(tally, play, self.members)
        for vote in self.box.votes(play.id).values():
            self._compare(vote.witness, play.id)
        self.order.learn(outcome)
        self._tallies[play.id] = tally
        self.polls.learnt(play.id)
        for seat in sorted(self._waiting.pop(play.id, ())):
            if seat != tally.sender:
                self._hand_tally(tally, seat)
