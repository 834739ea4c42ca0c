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
    """A majority cut off from the others: what it had committed when the fault began,
    and the highest view then installed or voted for by a seat up (`under_way`)."""

    counts: dict[int, int]
    since: float
    what: str
    under_way: int


def numbered_views(
    replicas: Sequence[Replica], up: Sequence[bool]
) -> set[tuple[int, frozenset[int]]]:
    """Every view a seat that is up is in now, and the earlier views whose majorities its
    next view needs: those behind a view it does not know to be installed by all its
    members (`Membership.quorums_now`); each as its number and members."""
    views: set[tuple[int, frozenset[int]]] = set()
    for replica, alive in zip(replicas, up, strict=True):
        if alive and replica.status in (Status.NORMAL, Status.CHANGING):
            views.update(replica.membership.quorums_now())
    return views


def views_now(replicas: Sequence[Replica], up: Sequence[bool]) -> set[frozenset[int]]:
    """The members of every view of `numbered_views`."""
    return {members for _, members in numbered_views(replicas, up)}


def highest_view(replicas: Sequence[Replica], up: Sequence[bool]) -> int:
    """The highest view a seat that is up has installed or is changing to."""
    return max(
        (
            max(r.membership.view, r.membership.election.changing_to)
            for r, alive in zip(replicas, up, strict=True)
            if alive
        ),
        default=0,
    )


def lost_to_a_view_under_way(watch: Watch, replicas: Sequence[Replica], up: Sequence[bool]) -> bool:
    """Whether the side of ``watch`` holds no majority of some view a seat is in now, and
    every such view was already under way when the fault struck: formed from votes cast
    before it, it may have let a seat of the other side back in, and needs that seat's
    vote to change again. A side that is short only of views it formed itself since is
    not let off."""
    side = set(watch.counts)
    short = [
        v for v, members in numbered_views(replicas, up) if 2 * len(side & members) <= len(members)
    ]
    return bool(short) and max(short) <= watch.under_way


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
    under_way: int = 0,
) -> Watch | None:
    """Watch a side that holds a majority of the members of every view a seat is in: it
    must go on by itself (unless its rounds are all played: ``finished``); ``under_way``
    is `highest_view` as the fault strikes."""
    if finished or not views:
        return None
    if any(2 * len(set(seats) & members) <= len(members) for members in views):
        return None
    counts = {s: replicas[s].committed for s in seats}
    return Watch(counts, now, what, under_way)


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
