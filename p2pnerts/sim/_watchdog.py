"""The run's liveness checks: every round ends in bounded time and, after the last, every
peer up catches up; a majority cut off from the rest by a fault goes on without them.

The watchdog looks every `WATCH_EVERY` simulated seconds. A fault that cuts the table
asks it for a `Watch` of the majority side as it strikes, and has it checked as it ends.
"""

from __future__ import annotations

from collections.abc import Callable

from p2pnerts.protocol import CommitFrame, Message, Replica
from p2pnerts.sim._invariants import Violation, check_round_time
from p2pnerts.sim._ledger import Ledger
from p2pnerts.sim._network import Link, Network, Scheduler, link
from p2pnerts.sim._quorum import (
    Watch,
    check_watch,
    highest_view,
    lost_to_a_view_under_way,
    views_now,
    watch_majority,
)
from p2pnerts.sim._workload import SimConfig

WATCH_EVERY = 5.0
"""Simulated seconds between two looks of the liveness watchdog."""


class Watchdog:
    """The liveness checks of one run, over its ledger, network and replicas.

    ``replicas`` and ``up`` give the seats' replicas now (a restart replaces one) and
    whether each seat is up.
    """

    def __init__(
        self,
        config: SimConfig,
        ledger: Ledger,
        network: Network[Message | CommitFrame],
        scheduler: Scheduler,
        replicas: Callable[[], list[Replica]],
        up: Callable[[], list[bool]],
    ) -> None:
        self.config, self.ledger, self.network = config, ledger, network
        self.scheduler = scheduler
        self._replicas, self._up = replicas, up
        self._up_again: dict[Link, float] = {}
        """When each link that went down came back up, last."""

    def start(self) -> None:
        self.scheduler.at(WATCH_EVERY, self._look)

    def link_up(self, a: int, b: int) -> None:
        """The link a-b came back up now."""
        self._up_again[link(a, b)] = self.scheduler.now

    def watch(self, seats: tuple[int, ...], what: str) -> Watch | None:
        """A watch of ``seats`` cut off from the rest by ``what``, if they are a majority
        that must go on without the others."""
        finished = all(self.ledger.seats[s].finished for s in seats)
        replicas = self._replicas()
        up = self._up()
        views, now = views_now(replicas, up), self.scheduler.now
        return watch_majority(
            seats, what, replicas, views, finished, now, highest_view(replicas, up)
        )

    def check_progress(self, watch: Watch | None) -> None:
        """A majority cut off from the rest long enough must have gone on without them.

        A seat whose own connection to another seat of that majority is down as the
        fault ends, or came back only lately, is let off: a commit needs every member's
        messages, heard directly, so it waits for that link, and may meanwhile have been
        left out, which takes as long again to undo (finding itself out, then a view
        change to let it back in). Its catching up afterwards the watchdog checks.

        Nor is a side that holds no majority, as the fault ends, of a view a seat is in
        that was under way as it struck (`lost_to_a_view_under_way`).
        """
        if watch is not None and lost_to_a_view_under_way(watch, self._replicas(), self._up()):
            return
        records = self.ledger.seats
        side = () if watch is None else tuple(watch.counts)

        def going(s: int) -> bool:
            steady = all(self._steady(s, o) for o in side if o != s)
            return records[s].up and not records[s].finished and steady

        now, after = self.scheduler.now, self.config.progress_after
        if self.config.majority:
            # A quorum plays on through a silence, but what needs every seat (the rotation,
            # the next deal) waits until the silent seat is left out.
            t = self.config.timing
            after = max(after, t.depart_after + 2 * t.view_change_timeout)
        check_watch(watch, now, after, self._replicas(), going)

    def _steady(self, a: int, b: int) -> bool:
        """Whether the link a-b is up, and has been for as long as a seat left out while
        it was down may take to come back."""
        t = self.config.timing
        settling = t.exclude_after + 2 * t.view_change_timeout
        since = self._up_again.get(link(a, b))
        now = self.scheduler.now
        return self.network.is_up(a, b) and (since is None or now - since >= settling)

    def _look(self) -> None:
        """Every round ends in bounded time; after the last, every peer up catches up."""
        now = self.scheduler.now
        ended, limit = self.ledger.round_ended, self.config.round_limit
        if len(ended) <= self.config.rounds:
            check_round_time(len(ended), ended[-1], now, limit)
        elif now - ended[-1] > limit:
            behind = next(s for s, r in enumerate(self.ledger.seats) if r.up and not r.finished)
            raise Violation(f"seat {behind} has not seen the last round end, {limit:.0f} s on")
        self.scheduler.at(now + WATCH_EVERY, self._look)
