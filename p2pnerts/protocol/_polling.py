"""When a seat polls on a play: the waits of version 3's commit at one seat.

Theory of operation
-------------------
`PollTimes` keeps, for each play held here that has no outcome yet, when this seat polls
on it next, and learns from the outcomes how long a play usually takes here. The seat's
commit (`_commits.Commits`) tells it what happens to a play (`hold`, `waited_on`,
`missing`, `learnt`, `timed`, `forget`) and asks it which plays are due (`due`): it polls
on those.

- Another seat's play is due `POLL_AFTER` after it was held here. The members wait so one
  after another, counting back from the play's sender (`turn`): the first that polls
  decides the play and tells every seat, so that the others need not poll.
- Where a play decided in waits on it here, or a play of this seat names it below, it is
  due `POLL_BLOCKING` after it was held here, out of turn: this seat's own plays wait on
  it. It is due at once where a Poll carried it here: its poller has waited on it already.
- A play a play decided in waits on and this seat's link has not brought
  (`_order.Order.missing`) is due `POLL_BLOCKING` after it is found so: another seat's
  poll cannot bring it the play.
- This seat's own play is due `POLL_MOST` after it was made: a Ballot lost on a link that
  broke is asked for again.
- Each wait is at least `LATE` times what a play usually takes here (`usual`). While a
  play waits it is due again and again, each wait twice the last, up to `POLL_MOST`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence

from p2pnerts.protocol._order import Order
from p2pnerts.protocol._spots import PlayId
from p2pnerts.protocol._status import NEVER

POLL_AFTER = 0.1
"""Seconds a seat holds another seat's play without an outcome before it polls the members
(the study's recovery wait, SPEC's notes: "Since the study")."""
POLL_BLOCKING = 0.010
"""Seconds a seat holds another seat's play without an outcome before it polls the members,
where a play of any seat decided in waits on it here (`_order.Order.blocking`), or a play
of this seat names it below (`_order.Order.waits_for`: it will wait on it once decided in,
so it is polled on as the play goes out, not a round trip later): a slow sender's outcome
holds up every play its voters named it below."""
POLL_MOST = 1.0
"""The longest wait between two polls on one play: each wait is twice the last."""
LATE = 2.0
"""How many times the time a play usually takes here to get its outcome (`PollTimes.usual`)
a play has waited before this seat polls on it, if that is longer than `POLL_AFTER` or
`POLL_BLOCKING`: on a loaded machine every outcome comes later, and a poll that fires on
plays that are not late adds a frame for each member, its answers and Tallies handed on,
to the load that made them later (SPEC's notes: "Polls that follow the table")."""
USUAL_OF = 33
"""How many of the last outcomes learnt here `PollTimes.usual` is the median of."""


class PollTimes:
    """When this seat polls next on each play held here without an outcome."""

    def __init__(self, seat: int, players: int) -> None:
        self.seat = seat
        self.players = players
        self._due: dict[PlayId, float] = {}
        """Plays held without an outcome, and when to poll on each next."""
        self._wait: dict[PlayId, float] = {}
        """How long the last wait before a poll on each play was: those polled on."""
        self._held_at: dict[PlayId, float] = {}
        """When this seat first held each play of another seat (`open_since`)."""
        self._took: deque[float] = deque(maxlen=USUAL_OF)
        """How long each of the last `USUAL_OF` outcomes learnt here took, from when this
        seat held the play (`usual`)."""
        self._carried_in: set[PlayId] = set()
        """Plays held here first as a Poll carried them: another seat has waited on each."""

    # --- what happens to a play -------------------------------------------------------------

    def hold(self, play: PlayId, now: float, members: Sequence[int], *, carried: bool) -> None:
        """This seat holds ``play`` from ``now`` (its own, as it makes it). ``carried``: a
        Poll carried it here."""
        sender = play[0]
        wait = POLL_MOST if sender == self.seat else self._after(sender, members)
        self._due.setdefault(play, now + wait)
        if sender != self.seat:
            self._held_at.setdefault(play, now)
            if carried:
                self._carried_in.add(play)

    def waited_on(self, plays: Iterable[PlayId]) -> None:
        """A play decided in waits here on each of ``plays``, other seats' plays held here,
        or a play of this seat names it below: each not polled on yet is due
        `POLL_BLOCKING` after it was held here, or at once where a Poll carried it here."""
        for play in plays:
            held = self._held_at.get(play)
            if held is not None and play not in self._wait and play in self._due:
                wait = 0.0 if play in self._carried_in else self.late(POLL_BLOCKING)
                self._due[play] = min(self._due[play], held + wait)

    def missing(self, plays: Iterable[PlayId], now: float) -> None:
        """A play decided in waits here on each of ``plays``, which this seat's link has not
        brought: each is due `POLL_BLOCKING` on, if it was not due already."""
        for play in plays:
            self._due.setdefault(play, now + self.late(POLL_BLOCKING))

    def learnt(self, play: PlayId) -> None:
        """This seat learnt the outcome of ``play``: it is not polled on again."""
        self._due.pop(play, None)

    def timed(self, play: PlayId, now: float) -> None:
        """A frame that came at ``now``, or this seat's own Ballot, decided ``play`` here:
        note how long it took from when this seat held it, if it is another seat's
        (`usual`)."""
        held = self._held_at.get(play)
        if held is not None:
            self._took.append(now - held)

    def forget(self, plays: Iterable[PlayId]) -> None:
        """Let go of ``plays``, passed by every member."""
        for play in plays:
            for kept in (self._due, self._wait, self._held_at):
                kept.pop(play, None)
            self._carried_in.discard(play)

    def clear(self) -> None:
        """The members changed: every play held is settled, and none is polled on again."""
        for kept in (self._due, self._wait, self._held_at):
            kept.clear()
        self._carried_in.clear()

    # --- when -------------------------------------------------------------------------------

    def due(self, now: float, order: Order, members: Sequence[int]) -> list[PlayId]:
        """The plays to poll on at ``now``, each due again after a wait twice the last, up
        to `POLL_MOST`; those whose outcome ``order`` knows, or that it lacks and nothing
        waits on any more, are dropped."""
        polls = []
        for play, due in list(self._due.items()):
            if play in order.outcomes:
                del self._due[play]
            elif play[1] > order.have[play[0]] and play not in order.missing:
                del self._due[play]  # (missing, and nothing here waits on it any more)
            elif now >= due:
                if play in order.missing or play in order.blocking:
                    first = self.late(POLL_BLOCKING)  # (not in turn: see `_after`)
                else:
                    first = self._after(play[0], members)
                wait = self._wait[play] = min(2 * self._wait.get(play, first / 2), POLL_MOST)
                self._due[play] = now + wait
                polls.append(play)
        return polls

    def polled(self, play: PlayId) -> bool:
        """Whether this seat has polled on ``play``."""
        return play in self._wait

    def deadline(self) -> float:
        """When the next play is due (`NEVER`: none)."""
        return min(self._due.values(), default=NEVER)

    def open_since(self, open_plays: Iterable[PlayId]) -> float:
        """Since when this seat holds the oldest of ``open_plays`` that is another seat's
        (`NEVER`: none)."""
        held = self._held_at
        return min((held[p] for p in open_plays if p in held), default=NEVER)

    def usual(self) -> float:
        """How long a play of another seat usually takes here, from when this seat holds
        it to when it learns its outcome: the median of the last `USUAL_OF` (0 before
        any)."""
        took = sorted(self._took)
        return took[len(took) // 2] if took else 0.0

    def late(self, least: float) -> float:
        """How long a play waits here without an outcome before this seat polls on it:
        ``least``, or `LATE` times what a play usually takes (`usual`), if longer."""
        return max(least, LATE * self.usual())

    def _after(self, sender: int, members: Sequence[int]) -> float:
        """`late` on `POLL_AFTER`, for a play of ``sender`` held here that no play decided
        in waits on here: the members that wait on it poll on it one after another, each a
        wait after the one before it (`turn`). The first that polls decides it and sends its
        Tally to every seat, and the others need not poll: where every seat that waited
        polled on its own, a table of 14 with one core to share polled each play some 13
        times, 39 frames a poll, and the polls fed the load that made the plays late (SPEC's
        notes: "Polls one after another"). A seat where a play decided in waits on it polls
        `POLL_BLOCKING` on, out of turn: its own plays wait too, and in turn a slow member
        first held up the table's tail (SPEC's notes: "The turn on the waits that block")."""
        return self.late(POLL_AFTER) * (1 + self.turn(sender, members))

    def turn(self, sender: int, members: Sequence[int]) -> int:
        """This seat's place among the ``members`` that may poll on a play of ``sender``,
        counting back from the sender's seat (0: the seat before it)."""
        places = sorted((sender - m) % self.players for m in members if m != sender)
        mine = (sender - self.seat) % self.players
        return places.index(mine) if mine in places else len(places)
