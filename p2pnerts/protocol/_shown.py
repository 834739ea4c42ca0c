"""What each member has shown it holds of this seat's messages, whatever its Acks say.

At a table that commits by a majority, a member whose Acks say it has passed less of the
canonical order than this seat had a while ago stalls (`_liveness.Liveness`), unless they
say too that it lacks a message this seat held then: its link from some seat may be down
(`_commits.Commits.lags`). That word is the member's own. A member that votes on this
seat's plays and says in every Ack that it holds what its first Ack held would be excused
for good, and hold every play since until every seat, crowded, made no more.

A genuine Ballot on one of this seat's plays, naming the play's witness, shows that its
voter held that play, and so every message of this seat's before it (a seat holds a
sender's messages in the sender's order, SPEC §4.2). An Ack its voter sent after it
(a later clock) that says it holds fewer of this seat's messages, once ``within`` seconds
have passed since the Ballot came (time for any message lost on the way before it to be
sent again), says less than its sender holds: it excuses nothing (SPEC §6.2).
"""

from __future__ import annotations

from collections import deque
from typing import NamedTuple

KEPT = 256
"""How many Ballots of one voter are kept waiting for its next Ack: a seat that plays
without a pause sends no Ack, and the oldest are let go (what they showed, a later one
shows once an Ack comes)."""


class _Shown(NamedTuple):
    at: float
    """When the Ballot came."""
    view: int
    clock: int
    """The Ballot's clock: an Ack with a later one was sent after it."""
    seq: int
    """The number of this seat's message that the Ballot showed its voter held."""


class Shown:
    """Per member, the Ballots on this seat's plays that show how much of its messages the
    member holds, and the most an Ack of it may be held to (`understates`)."""

    def __init__(self, players: int) -> None:
        self._come: list[deque[_Shown]] = [deque(maxlen=KEPT) for _ in range(players)]
        """Per voter, the Ballots not yet ``within`` old, or not yet before one of its Acks."""
        self._held: list[tuple[int, int]] = [(-1, 0)] * players
        """Per voter, the view and the most of this seat's messages it has shown it holds
        by a Ballot ``within`` old before one of its Acks."""

    def voted(self, voter: int, view: int, clock: int, seq: int, now: float) -> None:
        """``voter`` sent a genuine Ballot of ``view`` at ``clock`` on this seat's message
        ``seq``, naming the witness of the copy this seat sent."""
        self._come[voter].append(_Shown(now, view, clock, seq))

    def understates(
        self, voter: int, view: int, clock: int, holds: int, now: float, within: float
    ) -> bool:
        """Whether ``voter``'s Ack of ``view`` at ``clock``, saying it holds ``holds`` of
        this seat's messages, says less than a Ballot of its own showed it holds, one come
        ``within`` seconds before ``now`` and sent before the Ack."""
        come = self._come[voter]
        while come and (
            come[0].view < view or (come[0].at <= now - within and come[0].clock < clock)
        ):
            shown = come.popleft()
            if shown.view == view:
                self._held[voter] = (view, max(self.most(voter, view), shown.seq))
        return holds < self.most(voter, view)

    def most(self, voter: int, view: int) -> int:
        """The most of this seat's messages ``voter`` has shown it holds in ``view``, by a
        Ballot before one of its Acks (`understates`)."""
        held_view, most = self._held[voter]
        return most if held_view == view else 0
