"""Which side of a fault must go on by itself: a majority of every view a seat is in."""

from __future__ import annotations

from p2pnerts.sim._quorum import without_majority


def test_half_a_view_is_no_majority_and_more_than_half_is() -> None:
    four = [frozenset({0, 1, 2, 3})]
    assert without_majority((0, 1), four)
    assert not without_majority((0, 1, 2), four)


def test_a_side_needs_a_majority_of_every_view_a_seat_is_in() -> None:
    views = [frozenset({0, 1, 2}), frozenset({0, 1, 2, 3, 4})]
    assert not without_majority((0, 1, 3), views)
    assert without_majority((0, 3, 4), views[:1])
    assert not without_majority((0, 1, 2), views)  # 3 of 5 and 3 of 3
