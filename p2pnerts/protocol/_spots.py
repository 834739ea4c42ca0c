"""A majority's order per spot: the commit rule issue 45's study chose for version 3.

This module is the rule alone, one seat's part of it, with no frames, clocks or views:
where plays act, the votes, and what the votes decide and prove. What one seat commits, and
in which order, is `_order` (`Order`, and `settle` for a view change). The study's model
(``tools/commit_rules.py``) runs both over simulated links, and the replica is to run them
next. SPEC's notes on the study ("Since the study") give the argument that these
docstrings sum up, and the figures.

Theory of operation
-------------------
Plays conflict when their order can change a verdict. Each play acts on one or more
*spots* (`spots_of`), paths in a tree: the whole table (``ALL``, the root: a Nerts call, a
stuck, a rotation), the start of a foundation (``STARTS``: an ace, whose foundation's
number depends on the aces before it), one foundation, and a deck's tableau (which a
team's seats share). Two plays conflict when a spot of one lies on the path of a spot of
the other (`conflict`): two plays onto one foundation, two aces, teammates' moves on their
tableau, a Nerts call and anything. A move on a seat's own tableau conflicts with nothing
of another seat's. A play onto a foundation comes after the ace that started it, and its
sender saw that ace land, so the ace sorts before it: a seat that holds the play before
the ace has landed there waits for the ace (`_applying`), which is not a conflict, so an
ace and a play onto another foundation are not ordered at all.

Every member *votes* on every play once, when it first holds it (`Voter.hold`, the
sender's plays taken in the sender's order): *for* it, naming what it holds that must come
before it (`Vote.below`: of each seat, the last play that conflicts with it and sorts
before it; of its sender, the play before it), unless it already voted for a conflicting
play that sorts after it; then the play is *late* there. Asked about a play it never held,
a member votes late and keeps that vote (`Voter.unseen`). A vote never changes. The
sender's own vote goes with the play (`Spotted.below`, made by `Voter.make`): its play
sorts above all it has seen, so it is for, and what it named counts as any voter's does.

A play's *outcome* is a function of the votes (`decide`): in once a quorum of the members
(a majority, or one more: see below) voted for it, returned once so many voted otherwise
that no quorum can; never both, since that takes more votes than there are members. So
whoever counts enough votes (the sender, or any seat that asks the members while the sender
is silent) decides the same way, with no round of voting; only a change of the members can
change what the votes decide, and the view change settles every open play first
(`_order.settle`).

Two plays decided in are ordered the same at every seat, and each seat commits a play only
once what must come before it is resolved: `_order` tells how.

A decision goes out with the votes it rests on (`grounds`), and a seat takes another's
decision only if those votes decide it so (`proven`): one that claims a quorum it never
had, counts a late vote as for, or names less below than its votes did, is refused.

A seat may cheat: send two plays under one number to two halves of the table, name less
than it holds, vote for what it should vote late. A play is decided in only by `quorum`
votes for that very play (`Spotted.witness`): a majority at an even table, one vote more at
an odd one, so that every two such sets share two members, one of them honest, which
votes once for one play under a number and names truly. So one cheat can neither get two
plays in under one number nor part the order, whatever it votes. A seat that holds one
play and learns another decided under that number holds the proof (`_order.Order.disputed`).
A vote made up by a decider is stopped on the wire, where votes are signed (`_ballots`: a
Ballot, and a Tally that carries them), so that the grounds a decision carries are the
voters' own. A voter that tells one asker one thing and the next another (the sender
*for*, a seat that polled *late*) could part two outcomes if every seat counted alike: a
sender decides a play returned on as few as ``n - quorum + 1`` votes against it, a set that
may share only the cheat with a poller's quorum for it. So a seat other than the sender
decides in only on one vote more than a quorum, and returned only on a quorum of late votes
(`decide`'s ``polled``): any set a sender decides on and any set a poller decides on then
share two members, one of them honest, which voted once. The cost: at 2 and 3 seats a poll
never decides, and elsewhere a play whose votes split close to even waits for its sender
(or a change of the members) instead of a poll. Two genuine Ballots of one voter on one
play that differ are the proof.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from p2pnerts.rules import NEW_FOUNDATION, CallNerts, DeclareStuck, Move, Rotate, ToFoundation

PlayId = tuple[int, int]
"""A play's sender and number (the sender numbers its plays 1, 2, 3, ...)."""
Spot = tuple[Hashable, ...]
"""Where a play acts: a path in the tree of spots (see the theory above)."""
ALL: Spot = ()
"""The whole table: the spot of a play that conflicts with every other."""
STARTS: Spot = ("starts",)
"""Where aces start foundations: which foundation an ace's becomes depends on the aces
before it, so aces are ordered among themselves (and with nothing else of the foundations)."""
Key = tuple[int, ...]
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Spotted:
    """A play as the rule sees it: who sent it, its number, its key in the order, its spots."""

    seat: int
    seq: int
    key: Key
    spots: tuple[Spot, ...]
    below: tuple[int, ...]
    """The sender's own vote, which every seat holding the play knows: per seat, the
    number of the last play the sender held that must come before this one (this one, of
    the sender). See `Vote.below`."""
    witness: bytes = b""
    """What tells two plays a seat sent under one number apart (the replica's witness:
    a hash of the message as signed)."""
    id: PlayId = field(init=False, repr=False, compare=False)
    """Its sender and number, which every part keys the play by (set once, as it is made:
    read at almost every step of a commit, it is data, not a computation)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "id", (self.seat, self.seq))


def spots_of(move: Move, deck: int) -> tuple[Spot, ...]:
    """Where ``move``, made at a seat that plays ``deck``, acts."""
    home: Spot = ("deck", deck)
    match move:
        case CallNerts() | DeclareStuck() | Rotate():
            return (ALL,)
        case ToFoundation(foundation=foundation):
            return (home, foundation_spot(foundation))
    return (home,)


def foundation_spot(foundation: int) -> Spot:
    """Where a card goes up: onto ``foundation``, or starting one (`NEW_FOUNDATION`)."""
    return STARTS if foundation == NEW_FOUNDATION else ("foundation", foundation)


def conflict(a: Iterable[Spot], b: Iterable[Spot]) -> bool:
    """Whether plays acting on spots ``a`` and on spots ``b`` must be ordered: a spot of
    one lies on the path of a spot of the other."""
    return any(x[: len(y)] == y[: len(x)] for x in a for y in b)


def _paths(spots: Iterable[Spot]) -> set[Spot]:
    """Every spot on the way to ``spots``, theirs included."""
    return {spot[:n] for spot in spots for n in range(len(spot) + 1)}


@dataclass(frozen=True, slots=True)
class Vote:
    """A member's vote on a play: for it (with what the member held), or late."""

    play: PlayId
    voter: int
    ok: bool
    below: tuple[int, ...] = ()
    """For a vote for: per seat, the number of the last of its plays the voter held that
    conflicts with the play and sorts before it (of the play's sender: the play itself)."""
    witness: bytes = b""
    """The witness of the play the voter held under that number (none: it never held one)."""


@dataclass(frozen=True, slots=True)
class Decision:
    """A play's outcome: in (to commit once what sorts before it is resolved) or returned."""

    play: PlayId
    ok: bool
    below: tuple[int, ...] = ()
    """Decided in: per seat, the last play any of its deciding voters named (`Vote.below`).
    Every play that conflicts, sorts before and is decided in is among those up to it."""
    witness: bytes = b""
    """Decided in: the witness of the play decided, of those its sender may have sent."""


def quorum(members: int) -> int:
    """The votes for one play that decide it in: a majority at an even table, one more at an
    odd one (every two such sets share two members, so an honest one, were one a cheat)."""
    return members if members < 3 else (members + 3) // 2


LEAST_FOR_MAJORITY = next(n for n in itertools.count(1) if quorum(n) < n)
"""The fewest seats whose quorum is not every seat (4): at fewer a majority would wait for
the slowest seat as acknowledgement does, and gain nothing."""


def decide(
    play: Spotted,
    votes: Mapping[int, Vote],
    members: Iterable[int],
    seats: int,
    *,
    polled: bool = False,
) -> Decision | None:
    """The outcome the members' ``votes`` on ``play`` decide, or None while they do not.

    Counted by the play's sender: in on `quorum` votes for this very play (its witness);
    returned once no play its sender may have sent under that number can gather a quorum
    any more, whatever the members not yet heard vote. ``polled``: counted by another seat,
    one that polled the members: in on one vote more than a quorum, returned on a quorum of
    late votes (see the theory above: so a voter that tells two askers two things cannot
    part a sender's outcome from a poller's). The sender's own vote is the play's `below`,
    for it (it holds its play before any other seat does, and numbers it above all it has
    seen), and counts for any play it sent under that number. Votes of seats that are not
    members do not count."""
    members = set(members)
    need = quorum(len(members)) + polled
    sender = play.seat
    own = 1 if sender in members else 0
    ballots = {v: vote for v, vote in votes.items() if v in members and v != sender}
    fors: dict[bytes, list[int]] = {play.witness: []}
    for voter, vote in sorted(ballots.items()):
        if vote.ok:
            fors.setdefault(vote.witness, []).append(voter)
    if len(fors[play.witness]) + own >= need:
        below: Iterable[int] = play.below if own else (0,) * seats
        for voter in fors[play.witness][: need - own]:  # (a vote for names every seat)
            below = map(max, below, ballots[voter].below)
        return Decision(play.id, True, tuple(below), play.witness)
    if polled:
        late = sum(not vote.ok for vote in ballots.values())
        return Decision(play.id, False) if late >= quorum(len(members)) else None
    unheard = len(members) - own - len(ballots)
    if max(map(len, fors.values())) + own + unheard < need:
        return Decision(play.id, False)
    return None


def grounds(
    play: Spotted,
    votes: Mapping[int, Vote],
    members: Iterable[int],
    seats: int,
    *,
    polled: bool = False,
) -> tuple[Vote, ...]:
    """The votes the outcome ``votes`` decide rests on, for a decision to carry (`proven`):
    decided in, the votes for the play that `decide` counted (the sender's own is the play);
    returned, every member's vote counted (``polled``: the quorum of late votes). Empty
    while nothing is decided."""
    outcome = decide(play, votes, members, seats, polled=polled)
    if outcome is None:
        return ()
    members = set(members)
    ballots = [vote for v, vote in sorted(votes.items()) if v in members and v != play.seat]
    if not outcome.ok:
        if polled:
            return tuple(v for v in ballots if not v.ok)[: quorum(len(members))]
        return tuple(ballots)
    need = quorum(len(members)) + polled - (play.seat in members)
    return tuple(v for v in ballots if v.ok and v.witness == play.witness)[:need]


def proven(
    play: Spotted,
    outcome: Decision,
    votes: Iterable[Vote],
    members: Iterable[int],
    seats: int,
    *,
    polled: bool = False,
) -> bool:
    """Whether ``votes``, which a decision carries, decide ``play`` as ``outcome`` says,
    its `below` and witness included (``polled``: the decision of a seat other than the
    play's sender, `decide`): a seat takes another's decision only so, each vote's
    signature checked first by the caller. One vote a member, each on this very play (by its
    number), from a member other than the sender; a decision in on fewer than a quorum, on a
    vote that was late, or naming less below than its votes did, is not proven."""
    members = set(members)
    by_voter: dict[int, Vote] = {}
    for vote in votes:
        if (
            vote.play != play.id
            or vote.voter not in members
            or vote.voter == play.seat
            or vote.voter in by_voter
        ):
            return False
        by_voter[vote.voter] = vote
    decided = decide(play, by_voter, members, seats, polled=polled)
    return outcome.play == play.id and decided == outcome


_Held = tuple[list[Key], list[int]]
"""A seat's plays held that act on a spot: their keys and numbers, in its order."""
_NONE_HELD: dict[int, _Held] = {}


class Voter:
    """One seat's votes: cast once per play, kept, the same whoever asks."""

    def __init__(self, seat: int, seats: int) -> None:
        self.seat = seat
        self.seats = seats
        self.have = [0] * seats
        """Per seat, the number of its last play this seat holds."""
        self.votes: dict[PlayId, Vote] = {}
        self._at: dict[Spot, dict[int, _Held]] = {}
        """Per spot and seat, the keys and numbers of the seat's plays held that act there,
        in its order (and so in key order)."""
        self._under: dict[Spot, dict[int, _Held]] = {}
        """Per spot and seat, the same of its plays that act there or further down."""
        self._voted_at: dict[Spot, Key] = {}
        """Per spot, the highest key this seat voted for among plays acting there."""
        self._voted_under: dict[Spot, Key] = {}
        """Per spot, the same among plays acting there or further down."""

    def make(self, seq: int, key: Key, spots: tuple[Spot, ...], witness: bytes = b"") -> Spotted:
        """This seat's next play, its vote with it (`hold` it next)."""
        play = Spotted(self.seat, seq, key, spots, ())
        return Spotted(self.seat, seq, key, spots, self._before(play), witness)

    def hold(self, play: Spotted) -> Vote:
        """This seat's vote on ``play``, which it now holds (a sender's plays in order)."""
        if not next_in_line(self.have, play):
            return self.votes[play.id]
        below = play.below if play.seat == self.seat else self._before(play)
        self.have[play.seat] = play.seq
        for index, spots in ((self._at, play.spots), (self._under, _paths(play.spots))):
            for spot in spots:
                keys, seqs = index.setdefault(spot, {}).setdefault(play.seat, ([], []))
                keys.append(play.key)
                seqs.append(play.seq)
        vote = self.votes.get(play.id)
        if vote is not None:  # asked about it before it came (`unseen`): late, as said
            return vote
        own = play.seat == self.seat  # numbered above all it has seen: never late
        above = None if own else self._highest_conflicting(play.spots)
        if above is not None and above > play.key:
            vote = Vote(play.id, self.seat, False, witness=play.witness)
        else:
            vote = Vote(play.id, self.seat, True, below, play.witness)
            for highest, spots in (
                (self._voted_at, play.spots),
                (self._voted_under, _paths(play.spots)),
            ):
                for spot in spots:
                    highest[spot] = max(highest.get(spot, play.key), play.key)
        self.votes[play.id] = vote
        return vote

    def _before(self, play: Spotted) -> tuple[int, ...]:
        """Per seat, the number of the last play held here that must come before ``play``
        (conflicts with it and sorts before it; of its sender, ``play`` itself)."""
        below = [0] * self.seats
        for index, spot in self._conflicting(play.spots, self._at, self._under):
            for seat, held in index.get(spot, _NONE_HELD).items():
                below[seat] = max(below[seat], _last_before(held, play.key))
        below[play.seat] = play.seq
        return tuple(below)

    def _highest_conflicting(self, spots: tuple[Spot, ...]) -> Key | None:
        """The highest key this seat voted for among plays that conflict with ``spots``."""
        keys = [
            index[spot]
            for index, spot in self._conflicting(spots, self._voted_at, self._voted_under)
            if spot in index
        ]
        return max(keys, default=None)

    @staticmethod
    def _conflicting(spots: tuple[Spot, ...], at: T, under: T) -> list[tuple[T, Spot]]:
        """Where to look for what conflicts with plays acting on ``spots``: what acts
        further down from each (``under``), and what acts on the way to it (``at``)."""
        return [(under, spot) for spot in spots] + [
            (at, spot[:n]) for spot in spots for n in range(len(spot))
        ]

    def skip(self, seat: int, number: int) -> None:
        """Take ``seat``'s plays up to ``number`` as held, never voted on: a view change
        returned them, as no seat of the new view held them (`_order.settle`)."""
        self.have[seat] = max(self.have[seat], number)

    def forget(self, plays: Iterable[Spotted], upto: Key) -> None:
        """Let go of the votes on ``plays`` and of where they act: every member has passed
        them, and every play still to come sorts above ``upto`` (`_order.Order.forget`).
        What a vote names below a play to come then leaves them out (0 where nothing else
        of that seat is held), which waits for nothing: every seat holds them."""
        for play in plays:
            self.votes.pop(play.id, None)
            for index, spots in ((self._at, play.spots), (self._under, _paths(play.spots))):
                for spot in spots:
                    held = index.get(spot, _NONE_HELD).get(play.seat)
                    if held is not None:
                        cut = bisect.bisect_right(held[0], upto)
                        del held[0][:cut], held[1][:cut]

    def unseen(self, play: PlayId) -> Vote:
        """This seat's vote on a play it is asked about: late if it never held it."""
        vote = self.votes.get(play)
        if vote is None:
            vote = self.votes[play] = Vote(play, self.seat, False)
        return vote


def next_in_line(have: list[int], play: Spotted) -> bool:
    """Whether ``play`` is its sender's next after ``have`` (False: held already); a play
    that leaves a gap is refused."""
    if play.seq <= have[play.seat]:
        return False
    if play.seq != have[play.seat] + 1:
        raise ValueError(f"play {play.id} held out of its sender's order")
    return True


def _last_before(held: _Held, key: Key) -> int:
    """The number of the last of ``held`` (keys and numbers) that sorts before ``key``."""
    keys, seqs = held
    at = bisect.bisect_left(keys, key)
    return seqs[at - 1] if at else 0
