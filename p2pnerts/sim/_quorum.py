"""Which side of a fault the simulator expects to go on by itself, and whether it did.

A commit needs every member of a view, and a new view needs a majority of the members of
the views before it (SPEC §6). So a side of a partition, or the survivors of a crash,
holding no more than half the members of a view a seat is in can do neither; a side
holding a majority of every such view must go on without the others. The table itself
does not count: a view shrinks as seats leave or are left out.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from typing import NamedTuple

from p2pnerts.protocol import Replica, Status
from p2pnerts.sim._invariants import check_progress


class Watch(NamedTuple):
    """A majority cut off from the others: what it had committed when the fault began."""

    counts: dict[int, int]
    since: float
    what: str


def views_now(replicas: Sequence[Replica], up: Sequence[bool]) -> set[frozenset[int]]:
    """The members of every view a seat that is up is in now, and of the earlier views
    whose majorities its next view needs: those behind a view it does not know to be
    installed by all its members (`Membership.quorums_now`)."""
    views: set[frozenset[int]] = set()
    for replica, alive in zip(replicas, up, strict=True):
        if alive and replica.status in (Status.NORMAL, Status.CHANGING):
            views.update(members for _, members in replica.membership.quorums_now())
    return views


def without_majority(side: Collection[int], views: Iterable[frozenset[int]]) -> bool:
    """Whether ``side`` holds no more than half the members of every one of ``views``."""
    return all(2 * len(set(side) & members) <= len(members) for members in views)


def holders_outside(
    seats: Collection[int], replicas: Sequence[Replica], up: Sequence[bool]
) -> bool:
    """Whether a seat not in ``seats`` holds the table, as a member in a view.

    A seat that comes back after a crash has only its deck; it rebuilds the table from
    the others. A crash that would leave no seat holding the table (the one other seat of
    two still coming back, say) would lose the committed plays for good: that is a fault
    no peer-to-peer table survives without keeping its whole log on disk, so the
    simulator does not inject it.
    """
    return any(
        replica.status is Status.NORMAL
        for s, (replica, alive) in enumerate(zip(replicas, up, strict=True))
        if s not in seats and alive
    )


def watch_majority(
    seats: tuple[int, ...],
    what: str,
    replicas: Sequence[Replica],
    views: set[frozenset[int]],
    finished: bool,
    now: float,
) -> Watch | None:
    """Watch a side that holds a majority of the members of every view a seat is in: it
    must go on by itself (unless its rounds are all played: ``finished``)."""
    if finished or not views:
        return None
    if any(2 * len(set(seats) & members) <= len(members) for members in views):
        return None
    return Watch({s: replicas[s].committed for s in seats}, now, what)


def check_watch(
    watch: Watch | None,
    now: float,
    after: float,
    replicas: Sequence[Replica],
    going: Callable[[int], bool],
) -> None:
    """A majority cut off from the rest at least ``after`` seconds must have gone on
    without them: every seat of it that ``going`` lets count committed something new."""
    lasted = 0.0 if watch is None else now - watch.since
    if watch is None or lasted < after:
        return
    counts = {s: replicas[s].committed for s in watch.counts if going(s)}
    check_progress(watch.counts, counts, lasted, watch.what)
