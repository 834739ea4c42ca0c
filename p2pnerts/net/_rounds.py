"""A seat's rounds: when it deals the next one, and when the match is over, with what result.

A seat deals a round once it is between rounds (or before the first) with no deck dealt
for the next and its player is ready, a pause (``between``) after it came to want to. The
match ends with the round that ends it, or early (`Rounds.end`: the others are gone, or
the player chose not to wait for a silent seat). The replica decides all the rest; the
peer (`TablePeer`) sends what a deal makes and starts what an end needs.
"""

from __future__ import annotations

import math
import random
from dataclasses import replace
from secrets import token_bytes

import trio

from p2pnerts.net._pace import Pacing
from p2pnerts.net._result import MatchResult, PeerStats
from p2pnerts.protocol import (
    SECRET_BYTES,
    AuditFailed,
    AuditPassed,
    Event,
    Replica,
    RoundOver,
    Status,
)
from p2pnerts.rules import Match


class Rounds:
    """One seat's deals, its match so far, and the match's result once it ends."""

    def __init__(
        self,
        replica: Replica,
        pacing: Pacing,
        names: tuple[str, ...],
        stats: PeerStats,
        rng: random.Random,
        *,
        seeded: bool,
        between: float,
    ) -> None:
        self._replica, self._pacing = replica, pacing
        self._names, self._stats = names, stats
        self._rng = rng
        self._seeded = seeded
        """Deal secrets from ``rng`` (a practice table with a seed), not the system's."""
        self._between = between
        self._deal_at: float | None = None
        """When this seat deals the next round (None: not yet planned)."""
        self.result: MatchResult | None = None
        self._audited = 0
        """The last round whose audit this seat has seen close (its voids, if any)."""
        self._audit_news = trio.Event()

    @property
    def match(self) -> Match:
        """The match so far: every round's points, per deck (a team's deck scores for the
        team), and from them the totals, the end and the winners."""
        decks = max(self._replica.seats) + 1
        return Match.of_points(self._replica.options, decks, self._replica.match_scores)

    def _result(self, ended: str = "") -> MatchResult:
        seats = self._replica.seats
        return MatchResult.of(self._names, self.match, seats, self._stats, ended)

    def standing(self) -> MatchResult:
        """The match's result once it has ended; before, how it stands for a seat that
        leaves it (`MatchResult.left`)."""
        return self.result or replace(self._result(), left=True)

    # --- dealing ------------------------------------------------------------------------------

    @property
    def deadline(self) -> float:
        """When the peer's timer must look at `due` next (inf: no deal planned)."""
        return math.inf if self._deal_at is None else self._deal_at

    def wants_deal(self) -> bool:
        """Between rounds (or before the first) with no deck dealt for the next: as a
        peer that came back finds itself, having missed the end of a round."""
        return self.result is None and self._pacing.said_ready and self._replica.should_deal()

    def due(self, now: float) -> bool:
        """Whether this seat deals the next round now: it wants to, and the pause since it
        came to want to is over."""
        if self._deal_at is None and self.wants_deal():
            self._deal_at = now + self._between
        due = self._deal_at is not None and now >= self._deal_at
        if due and self.wants_deal():
            self._deal_at = None
            return True
        if due and self._replica.status is Status.NORMAL:
            # Nothing to deal: a teammate dealt this seat's deck and the round is on (or
            # the match is over).
            self._deal_at = None
        return False

    def ready(self, now: float) -> bool:
        """This seat's player is ready for the next round (or the first); whether this seat
        now deals it at once."""
        self._pacing.ready(now)
        if not self.wants_deal():
            return False
        self._deal_at = now
        return True

    def deal(self, now: float) -> None:
        """Deal the next round: this seat's deck, shuffled by a new secret."""
        secret = self._rng.randbytes(SECRET_BYTES) if self._seeded else token_bytes(SECRET_BYTES)
        self._replica.start_round(secret, now)
        self._pacing.dealt()
        self._pacing.said_ready_for(self._replica.seat, self._replica.round)

    # --- the end ------------------------------------------------------------------------------

    def heard(self, event: Event, now: float) -> bool:
        """Hear an event of this seat's replica: a round's audit closing (for `settle`), or
        a round's end; whether the match is over with it (its result is in). After a round
        that does not end it, the next is dealt after the pause."""
        if isinstance(event, AuditPassed | AuditFailed):
            self._audited = max(self._audited, event.round)
            self._audit_news.set()
        elif isinstance(event, RoundOver):
            if self.match.over:
                self.result = self._result()
                return True
            self._deal_at = now + self._between
        return False

    def end(self, why: str) -> bool:
        """End the match now, with the rounds played so far, for the reason ``why``; False
        if it has ended already."""
        if self.result is not None:
            return False
        self.result = self._result(ended=why)
        return True

    async def settle(self, linger: float | None) -> None:
        """Linger ``linger`` seconds (None: a moment), acknowledging, so that every seat
        commits the last round too; then, for a match played out, wait a while for the
        last round's audit, and count it in the result. Notes in the stats when it ends."""
        timing = self._replica.timing
        await trio.sleep(max(2.0, 4 * timing.heartbeat) if linger is None else linger)
        if self.result is not None and not self.result.ended:
            # The last round's audit closes after it ends, once every deck's secret is in
            # or its seat left out: a deck voided there counts, so wait for it a while. At
            # a majority's table a seat withholding its Reveal is left out only once it has
            # held the table up for depart_after, not exclude_after (`_liveness.live_since`):
            # a seat whose Reveal stayed open escaped the audit, 4 s after the wait ended.
            last = len(self._replica.match_scores)
            wait = timing.reveal_within + timing.view_change_timeout
            if self._replica.by_majority:
                wait += max(0.0, timing.depart_after - timing.exclude_after)
            with trio.move_on_after(wait):
                while self._audited < last:
                    self._audit_news = trio.Event()
                    await self._audit_news.wait()
            self.result = self._result()
        self._stats.finished = trio.current_time()
