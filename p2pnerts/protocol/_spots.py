"""A majority's order per spot: the commit rule issue 45's study chose for version 3.

This module is the rule alone, one seat's part of it, with no frames, clocks or views: the
study's model (``tools/commit_rules.py``) runs it over simulated links, and the replica is
to run it next. SPEC's notes on the study ("Recovery needs no ballots") give the argument
that this docstring sums up.

Theory of operation
-------------------
Plays conflict when their order can change a verdict: two plays onto one spot (a
foundation, or the start of one), or any play and one that concerns the whole table (a
Nerts call, a stuck, a rotation: spot ``ALL``). A play onto a seat's own tableau has a
spot of its own and conflicts with nothing of another seat's.

Every member *votes* on every play once, when it first holds it (`Voter.hold`, the
sender's plays taken in the sender's order): *for* it, naming what it holds that must come
before it (`Vote.below`: of each seat, the last play that conflicts with it and sorts
before it; of its sender, the play before it), unless it already voted for a conflicting
play that sorts after it; then the play is *late* there. Asked about a play it never held,
a member votes late and keeps that vote (`Voter.unseen`). A vote never changes. The
sender's own vote goes with the play (`Spotted.below`, made by `Voter.make`): its play
sorts above all it has seen, so it is for, and what it named counts as any voter's does.

A play's *outcome* is a function of the votes (`decide`): in once a majority of the members
voted for it, returned once so many voted late that no majority can; never both, since
that takes more votes than there are members. So whoever counts enough votes (the sender,
or any seat that asks the members while the sender is silent) decides the same way, with
no ballots; only a change of the members can change what the votes decide, and the view
change settles every open play first (`settle`).

Two plays decided in are ordered the same at every seat: their majorities share a member,
which voted for the one that sorts first before the other (else that one was late there),
and so held it, and named it, when it voted for the other. The outcome of a play carries
the union of what its deciding voters named (`Decision.below`), and a seat commits a play
decided in only once it holds every play up to that and has resolved each one among them
that conflicts and sorts before (`Order.ready`); a conflicting play that sorts before and
is held by none of those voters can no longer gather a majority (they will vote it late).
What a vote names is what matters, no more: a seat whose links to one laptop lose frames
does not wait for that laptop's moves on its own tableau. So every seat applies the plays
of a spot in one order, their key order, and plays of different spots commute. A seat's
own plays commit in the order it made them, whatever their spots (each may build on the
one before: a card laid on a work pile, then played up from there).
"""

from __future__ import annotations

import bisect
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass

PlayId = tuple[int, int]
"""A play's sender and number (the sender numbers its plays 1, 2, 3, ...)."""
ALL = "*"
"""The spot of a play that conflicts with every other (a Nerts call, a stuck, a rotation)."""


@dataclass(frozen=True, slots=True)
class Spotted:
    """A play as the rule sees it: who sent it, its number, its key in the order, its spot."""

    seat: int
    seq: int
    key: tuple[int, ...]
    spot: Hashable
    below: tuple[int, ...]
    """The sender's own vote, which every seat holding the play knows: per seat, the
    number of the last play the sender held that must come before this one (this one, of
    the sender). See `Vote.below`."""

    @property
    def id(self) -> PlayId:
        return (self.seat, self.seq)


def conflict(a: Hashable, b: Hashable) -> bool:
    """Whether plays onto spots ``a`` and ``b`` must be ordered."""
    return a in (b, ALL) or b == ALL


@dataclass(frozen=True, slots=True)
class Vote:
    """A member's vote on a play: for it (with what the member held), or late."""

    play: PlayId
    voter: int
    ok: bool
    below: tuple[int, ...] = ()
    """For a vote for: per seat, the number of the last of its plays the voter held that
    conflicts with the play and sorts before it (of the play's sender: the play itself)."""


@dataclass(frozen=True, slots=True)
class Decision:
    """A play's outcome: in (to commit once what sorts before it is resolved) or returned."""

    play: PlayId
    ok: bool
    below: tuple[int, ...] = ()
    """Decided in: per seat, the plays any of its deciding voters held. Every play that
    conflicts, sorts before and is decided in is among them."""


def majority(members: int) -> int:
    return members // 2 + 1


def decide(
    play: Spotted, votes: Mapping[int, Vote], members: Iterable[int], seats: int
) -> Decision | None:
    """The outcome the members' ``votes`` on ``play`` decide, or None while they do not.

    The sender's own vote is the play's `below`, for it: it holds its play before any other
    seat does, and numbers it above all it has seen. Votes of seats that are not members do
    not count."""
    members = set(members)
    need = majority(len(members))
    sender = play.seat
    ballots = {v: vote for v, vote in votes.items() if v in members and v != sender}
    if sender in members:
        ballots[sender] = Vote(play.id, sender, True, play.below)
    oks = sorted(v for v, vote in ballots.items() if vote.ok)
    if len(oks) >= need:
        below = [0] * seats
        for voter in sorted(oks, key=lambda v: v != sender)[:need]:
            for s, held in enumerate(ballots[voter].below):
                below[s] = max(below[s], held)
        return Decision(play.id, True, tuple(below))
    late = len(ballots) - len(oks)
    if late > len(members) - need:
        return Decision(play.id, False)
    return None


class Voter:
    """One seat's votes: cast once per play, kept, the same whoever asks."""

    def __init__(self, seat: int, seats: int) -> None:
        self.seat = seat
        self.have = [0] * seats
        """Per seat, the number of its last play this seat holds."""
        self.votes: dict[PlayId, Vote] = {}
        self._keys: list[list[tuple[int, ...]]] = [[] for _ in range(seats)]
        """Per seat, the keys of its plays held, in its order (so in key order)."""
        self._by_spot: dict[tuple[int, Hashable], tuple[list[tuple[int, ...]], list[int]]] = {}
        """Per seat and spot, the keys and numbers of its plays held there, in its order."""
        self._spot: dict[Hashable, tuple[int, ...]] = {}
        """Per spot, the highest key this seat voted for."""
        self._any: tuple[int, ...] | None = None
        """The highest key this seat voted for, of any spot."""

    def make(self, seq: int, key: tuple[int, ...], spot: Hashable) -> Spotted:
        """This seat's next play, its vote with it (`hold` it next)."""
        play = Spotted(self.seat, seq, key, spot, ())
        return Spotted(self.seat, seq, key, spot, self._before(play))

    def hold(self, play: Spotted) -> Vote:
        """This seat's vote on ``play``, which it now holds (a sender's plays in order)."""
        if play.seq <= self.have[play.seat]:
            return self.votes[play.id]
        if play.seq != self.have[play.seat] + 1:
            raise ValueError(f"play {play.id} held out of its sender's order")
        below = play.below if play.seat == self.seat else self._before(play)
        self.have[play.seat] = play.seq
        self._keys[play.seat].append(play.key)
        keys, seqs = self._by_spot.setdefault((play.seat, play.spot), ([], []))
        keys.append(play.key)
        seqs.append(play.seq)
        vote = self.votes.get(play.id)
        if vote is not None:  # asked about it before it came (`unseen`): late, as said
            return vote
        own = play.seat == self.seat  # numbered above all it has seen: never late
        above = None if own else self._highest_conflicting(play.spot)
        if above is not None and above > play.key:
            vote = Vote(play.id, self.seat, False)
        else:
            vote = Vote(play.id, self.seat, True, below)
            self._spot[play.spot] = max(self._spot.get(play.spot, play.key), play.key)
            self._any = play.key if self._any is None else max(self._any, play.key)
        self.votes[play.id] = vote
        return vote

    def _before(self, play: Spotted) -> tuple[int, ...]:
        """Per seat, the number of the last play held here that must come before ``play``
        (conflicts with it and sorts before it; of its sender, ``play`` itself)."""
        below = []
        for seat, keys in enumerate(self._keys):
            if seat == play.seat:
                below.append(play.seq)
            elif play.spot == ALL:
                below.append(bisect.bisect_left(keys, play.key))
            else:
                below.append(
                    max(self._last_before(seat, spot, play.key) for spot in (play.spot, ALL))
                )
        return tuple(below)

    def _last_before(self, seat: int, spot: Hashable, key: tuple[int, ...]) -> int:
        keys, seqs = self._by_spot.get((seat, spot), ((), ()))
        at = bisect.bisect_left(keys, key)
        return seqs[at - 1] if at else 0

    def _highest_conflicting(self, spot: Hashable) -> tuple[int, ...] | None:
        """The highest key this seat voted for among plays that conflict with ``spot``."""
        if spot == ALL:
            return self._any
        keys = [k for k in (self._spot.get(spot), self._spot.get(ALL)) if k is not None]
        return max(keys, default=None)

    def unseen(self, play: PlayId) -> Vote:
        """This seat's vote on a play it is asked about: late if it never held it."""
        vote = self.votes.get(play)
        if vote is None:
            vote = self.votes[play] = Vote(play, self.seat, False)
        return vote


class Order:
    """One seat's commits: plays held and outcomes learnt, resolved in an order that every
    seat agrees with spot by spot."""

    def __init__(self, seats: int) -> None:
        self.have = [0] * seats
        self.held: dict[PlayId, Spotted] = {}
        self.outcomes: dict[PlayId, Decision] = {}
        self.resolved: dict[PlayId, bool] = {}
        """Every play resolved here: True committed, False returned."""
        self._open: dict[PlayId, Decision] = {}
        """Outcomes learnt of plays not resolved here yet."""
        self._unresolved: dict[PlayId, Spotted] = {}

    def hold(self, play: Spotted) -> None:
        if play.id in self.held:
            return
        if play.seq != self.have[play.seat] + 1:
            raise ValueError(f"play {play.id} held out of its sender's order")
        self.held[play.id] = play
        self.have[play.seat] = play.seq
        if play.id not in self.resolved:
            self._unresolved[play.id] = play

    def learn(self, outcome: Decision) -> None:
        known = self.outcomes.setdefault(outcome.play, outcome)
        if known.ok != outcome.ok:
            raise ValueError(f"play {outcome.play} decided both ways")
        if outcome.play not in self.resolved:
            self._open[outcome.play] = known

    def ready(self) -> list[tuple[PlayId, bool]]:
        """The plays resolved now, in the order they resolve: (play, committed)."""
        done: list[tuple[PlayId, bool]] = []
        progress = True
        while progress:
            progress = False
            for play, outcome in list(self._open.items()):
                if outcome.ok and not self._can_commit(play, outcome):
                    continue
                del self._open[play]
                self._unresolved.pop(play, None)
                self.resolved[play] = outcome.ok
                done.append((play, outcome.ok))
                progress = True
        return done

    def _can_commit(self, play: PlayId, outcome: Decision) -> bool:
        if any(h < b for h, b in zip(self.have, outcome.below, strict=True)):
            return False
        mine = self.held[play]
        return not any(
            other.key < mine.key
            and other.seq <= outcome.below[other.seat]
            and (other.seat == mine.seat or conflict(other.spot, mine.spot))
            for other in self._unresolved.values()
            if other.id != play
        )


def settle(
    open_plays: Iterable[Spotted],
    votes: Mapping[PlayId, Mapping[int, Vote]],
    known: Mapping[PlayId, Decision],
    members: Iterable[int],
    seats: int,
) -> dict[PlayId, Decision]:
    """What a view change decides for the plays still open, from what the seats of the new
    view (a majority of the old one's ``members``) hold: an outcome one of them learnt, or
    the one their votes decide, or else returned. A seat of the new view never resolved a
    play this returns: it would have known its outcome. Only a seat left out can have
    committed one, and it takes the new view's table when it comes back."""
    members = list(members)
    settled: dict[PlayId, Decision] = {}
    for play in open_plays:
        outcome = known.get(play.id) or decide(play, votes.get(play.id, {}), members, seats)
        settled[play.id] = outcome if outcome is not None else Decision(play.id, False)
    return settled
