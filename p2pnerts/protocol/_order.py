"""One seat's commits under a majority's order per spot: which plays resolve when, and in
what order every seat agrees on.

`_spots` is the rule (spots, votes, and what the votes decide and prove); this module is
what one seat does with the plays it holds and the outcomes it learns (`Order`), and what a
view change decides for the plays still open (`settle`). No frames, clocks or views.

Theory of operation
-------------------
Two plays decided in are ordered the same at every seat: their quorums share a member,
which voted for the one that sorts first before the other (else that one was late there),
and so held it, and named it, when it voted for the other. The outcome of a play carries
the union of what its deciding voters named (`Decision.below`), and a seat commits a play
decided in only once it holds every play up to that (or what it does not hold of a seat
can no longer sort before it: `Order.bound`) and has resolved each one among them that
sorts before (`Order.ready`); a conflicting play that sorts before and is held by
none of those voters can no longer gather a quorum (they will vote it late). Each one, not
only those that conflict by the copy this seat holds: a sender that sent this seat
another play under a number than the one the voters voted on (one acting elsewhere) would
otherwise have it commit the play before the one the voters named, where every other seat
commits it after. What costs nothing: of a seat's plays named, the last conflicting one
waits for all before it, its sender's, anyway. What a vote names is what matters, no
more: a seat whose links to one laptop lose frames does not wait for that laptop's moves
on its own tableau. So every seat applies the plays
of a spot in one order, their key order, and plays of different spots commute. A seat's
own plays commit in the order it made them, whatever their spots (each may build on the
one before: a card laid on a work pile, then played up from there).

Seats commit in different sequences (plays of different spots commute), so what they
check against each other is the *canonical order*: key order, taken as far as every play
that sorts before is held and resolved and no play to come can sort before
(`Order.settled`). Every seat reaches the same sequence, a little later than it commits.

Once every member has passed a play in the canonical order, no seat will ask about it or
wait on it again: a seat lets go of what it kept of it (`Order.forget`), so that what it
keeps follows the plays in the air, not the length of the match. A sender's plays pass in
its order, so what is let go of a seat is every play up to a number (`Order.gone`).
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Iterable, Mapping

from p2pnerts.protocol._spots import (
    Decision,
    Key,
    PlayId,
    Spotted,
    Vote,
    decide,
    next_in_line,
)


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
        """The plays held not resolved yet: what a commit may wait for."""
        self._unsettled: list[tuple[Key, PlayId]] = []
        """A heap of the plays held whose place in the canonical order is not fixed yet."""
        self._passed: deque[tuple[Key, PlayId]] = deque()
        """The plays settled here in the canonical order and not let go of yet, in it."""
        self.passed: Key = ()
        """The key of the last play settled here in the canonical order (none yet: ())."""
        self.gone = [0] * seats
        """Per seat, the number of its last play let go of (`forget`)."""
        self.bounds: list[Key] = [()] * seats
        """Per seat, a key its plays still to come sort above: the key of its last play
        held here, or what it was last heard to say of its clock (`bound`)."""
        self.blocking: set[PlayId] = set()
        """The plays held here, not resolved, that a play decided in waits on (it sorts
        after them and its voters named them), as `ready` last found them."""
        self.missing: set[PlayId] = set()
        """For each seat with plays that a play decided in here waits on and that this
        seat's link from it has not brought yet, the first of them (the next its link is to
        bring), as `ready` last found them: a member that holds it can bring it sooner
        (`_commits.Commits`)."""

    def hold(self, play: Spotted) -> None:
        if not next_in_line(self.have, play):
            return
        self.held[play.id] = play
        self.have[play.seat] = play.seq
        self.bound(play.seat, play.key)
        heapq.heappush(self._unsettled, (play.key, play.id))
        if play.id not in self.resolved:
            self._unresolved[play.id] = play

    @property
    def unresolved(self) -> Mapping[PlayId, Spotted]:
        """The plays held here and not resolved yet."""
        return self._unresolved

    def bound(self, seat: int, key: Key) -> None:
        """``seat``'s plays still to come sort above ``key`` (its link, in order, brought
        every play it sent before it said so)."""
        self.bounds[seat] = max(self.bounds[seat], key)

    def skip(self, seat: int, number: int) -> None:
        """Take ``seat``'s plays up to ``number`` as held, those not held returned by a view
        change that no seat of the new view held (`settle`)."""
        self.have[seat] = max(self.have[seat], number)

    def take_instead(self, play: Spotted) -> None:
        """Hold ``play`` in place of another its sender sent under its number, not resolved
        here: the one a change of members settled (`settle`), so that every seat of the new
        view holds the same."""
        held = self.held.get(play.id)
        if held is None or held.witness == play.witness or play.id in self.resolved:
            return
        self.held[play.id] = play
        if play.id in self._unresolved:
            self._unresolved[play.id] = play

    def learn(self, outcome: Decision) -> None:
        seat, number = outcome.play
        if number <= self.gone[seat]:
            return  # passed everywhere: its outcome came late
        known = self.outcomes.setdefault(outcome.play, outcome)
        if known.ok != outcome.ok:
            raise ValueError(f"play {outcome.play} decided both ways")
        if outcome.play not in self.resolved:
            self._open[outcome.play] = known

    def ready(self) -> list[tuple[PlayId, bool]]:
        """The plays resolved now, in the order they resolve: (play, committed)."""
        done: list[tuple[PlayId, bool]] = []
        self.blocking.clear()
        self.missing.clear()
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
        self.blocking.intersection_update(self._unresolved)
        return done

    def step(
        self, seat: int, bound: Key, members: Iterable[int]
    ) -> tuple[list[tuple[PlayId, bool]], list[tuple[PlayId, bool]]]:
        """One pass: the plays resolved now (`ready`), then those whose place in the
        canonical order is fixed now (`settled_at`)."""
        done = self.ready()
        return done, self.settled_at(seat, bound, members)

    def settled_at(
        self, seat: int, bound: Key, members: Iterable[int]
    ) -> list[tuple[PlayId, bool]]:
        """`settled` among the ``members``' plays, ``seat``'s plays still to come sorting
        above ``bound`` (`bound`: this seat's own, by its clock)."""
        self.bound(seat, bound)
        return self.settled([self.bounds[m] for m in members])

    def settled(self, bounds: Iterable[Key]) -> list[tuple[PlayId, bool]]:
        """The plays whose place in the canonical order (key order, the same at every
        seat) is fixed now, in that order, each with whether it committed: every play that
        sorts before is held and resolved here, and no play still to come sorts before.
        ``bounds``: per member, a key that its plays still to come sort after (the key of
        its last play held here, or its last clock heard with its seat)."""
        frontier = min(bounds)
        done = []
        while self._unsettled and self._unsettled[0][0] <= frontier:
            play = self._unsettled[0][1]
            if play not in self.resolved:
                break
            key, _ = heapq.heappop(self._unsettled)
            self._passed.append((key, play))
            self.passed = key
            done.append((play, self.resolved[play]))
        return done

    def forget(self, upto: Key) -> list[Spotted]:
        """Let go of the plays settled here whose keys are ``upto`` or below: every member
        has passed them in the canonical order (``upto`` is the least of where each has
        got to). Returns them, for the parts that kept more of them to let go too."""
        gone = []
        while self._passed and self._passed[0][0] <= upto:
            _, play = self._passed.popleft()
            gone.append(self.held.pop(play))
            del self.resolved[play]
            self.outcomes.pop(play, None)
            self.gone[play[0]] = play[1]
        return gone

    @property
    def disputed(self) -> list[PlayId]:
        """Plays decided in whose sender sent this seat another play under that number:
        they cannot commit here, and the two plays prove the sender a cheat."""
        return [
            p
            for p, d in self._open.items()
            if d.ok and p in self.held and self.held[p].witness != d.witness
        ]

    def waits_for(self, mine: Spotted) -> list[PlayId]:
        """The other seats' plays held here and unresolved that ``mine``, a play of this
        seat, names below it (its sender's own vote): once decided in, it waits on each
        (`_can_commit`), as its deciding voters name them too."""
        return [play for play in self._open_below(mine, mine.below) if play[0] != mine.seat]

    def _open_below(self, mine: Spotted, below: tuple[int, ...]) -> list[PlayId]:
        """The plays held here and unresolved, but ``mine``, that sort before it and that
        ``below`` names (per seat, the last play that must come before it)."""
        return [
            other.id
            for other in self._unresolved.values()
            if other.key < mine.key and other.seq <= below[other.seat] and other.id != mine.id
        ]

    def _can_commit(self, play: PlayId, outcome: Decision) -> bool:
        mine = self.held.get(play)
        if mine is None:
            return False  # (its outcome came first)
        # A play named and not held here waits, unless its seat's plays still to come all
        # sort after this one: a sender that named plays nobody sent (a cheat) would else
        # hold up every play after its own for good.
        short = [
            (s, h + 1)
            for s, (h, b) in enumerate(zip(self.have, outcome.below, strict=True))
            if h < b and self.bounds[s] < mine.key
        ]
        if short:
            self.missing.update(short)
            return False
        if mine.witness != outcome.witness:
            return False
        # Every play the deciding voters named that sorts before waits, whatever its spots
        # here: its sender may have sent this seat another play under its number than the
        # one they voted on (one that acts elsewhere), and a named play that conflicts is
        # behind its sender's earlier ones anyway.
        waits = self._open_below(mine, outcome.below)
        self.blocking.update(waits)
        return not waits


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
