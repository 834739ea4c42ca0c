"""Which side of a fault must go on by itself: a majority of every view a seat is in."""

from __future__ import annotations

from typing import cast

from p2pnerts.protocol import Replica, Status
from p2pnerts.sim._quorum import Watch, lost_to_a_view_under_way, without_majority


def test_half_a_view_is_no_majority_and_more_than_half_is() -> None:
    four = [frozenset({0, 1, 2, 3})]
    assert without_majority((0, 1), four)
    assert not without_majority((0, 1, 2), four)


def test_a_side_needs_a_majority_of_every_view_a_seat_is_in() -> None:
    views = [frozenset({0, 1, 2}), frozenset({0, 1, 2, 3, 4})]
    assert not without_majority((0, 1, 3), views)
    assert without_majority((0, 3, 4), views[:1])
    assert not without_majority((0, 1, 2), views)  # 3 of 5 and 3 of 3


class _Membership:
    def __init__(self, views: tuple[tuple[int, frozenset[int]], ...]) -> None:
        self._views = views

    def quorums_now(self) -> tuple[tuple[int, frozenset[int]], ...]:
        return self._views


class _Replica:
    """What the watchdog reads of a replica: its status and the views it needs."""

    status = Status.CHANGING

    def __init__(self, *views: tuple[int, frozenset[int]]) -> None:
        self.membership = _Membership(views)


def _lost(under_way: int, *replicas: _Replica) -> bool:
    watch = Watch({1: 5, 3: 5}, 2.0, "partition", under_way)
    seats = cast(list[Replica], list(replicas))
    return lost_to_a_view_under_way(watch, seats, [True] * len(seats))


def test_a_side_is_let_off_only_for_a_view_that_was_under_way_as_the_fault_struck() -> None:
    three, four = frozenset({0, 1, 3}), frozenset({0, 1, 2, 3})
    behind = _Replica((1, three))
    # Seats 1 and 3 installed view 3, which let seat 2 back in: 2 of its 4 seats.
    ahead = _Replica((3, four), (1, three))
    assert _lost(3, behind, ahead)
    assert not _lost(2, behind, ahead)  # view 3 came after the fault struck
    assert not _lost(3, behind, _Replica((3, frozenset({0, 1, 3}))))  # 2 of 3: a majority
