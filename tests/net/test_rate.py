"""A seat's connection may carry `FRAME_RATE` frames a second for long and `FRAME_BURST`
at once (the token bucket that measures it), and one numbered message at most
`COPIES_IN_A_ROW` times in a row."""

from __future__ import annotations

from p2pnerts.net._links import COPIES_IN_A_ROW, FRAME_BURST, FRAME_RATE, Bucket, Copies
from p2pnerts.protocol import Ack, Rejoin


def test_a_full_bucket_takes_a_burst_then_refuses() -> None:
    bucket = Bucket(10.0, 5.0, now=0.0)
    assert [bucket.take(0.0) for _ in range(6)] == [True] * 5 + [False]


def test_the_bucket_refills_at_its_rate_up_to_its_burst() -> None:
    bucket = Bucket(10.0, 5.0, now=0.0)
    while bucket.take(0.0):
        pass
    assert bucket.take(0.1)  # one token a tenth of a second
    assert not bucket.take(0.1)
    taken = sum(bucket.take(100.0) for _ in range(10))
    assert taken == 5  # never more than the burst, however long it waited


def test_an_honest_seats_pace_never_empties_it() -> None:
    # An Ack every 2 ms and a play every 5 ms, for a minute: well under the rate.
    bucket = Bucket(FRAME_RATE, FRAME_BURST, now=0.0)
    times = sorted([n * 0.002 for n in range(30_000)] + [n * 0.005 for n in range(12_000)])
    assert all(bucket.take(t) for t in times)


def test_copies_of_a_numbered_message_in_a_row_are_a_flood_past_the_limit() -> None:
    copies = Copies()
    ack = Ack(1, 0, 9, 3, (4, 5, 6), 12, bytes(16))
    said = [copies.flood(Ack(1, 0, 9, 3, (4, 5, 6), 12, bytes(16))) for _ in range(20)]
    assert said[:COPIES_IN_A_ROW] == [None] * COPIES_IN_A_ROW
    assert said[COPIES_IN_A_ROW:] == [3] * (20 - COPIES_IN_A_ROW)
    assert copies.flood(ack) == 3


def test_twice_in_a_row_then_the_next_message_is_no_flood() -> None:
    # An honest seat resends what a new connection may lack, then sends its queue: one
    # message may come twice; the next one starts the count again.
    copies = Copies()
    first, second = (Ack(1, 0, c, c - 6, (4, 5, 6), 12, bytes(16)) for c in (9, 10))
    for message in [first, first, second, second, first] * 10:
        assert copies.flood(message) is None


def test_a_message_outside_the_sequence_may_come_again_and_again() -> None:
    # A seat asking to rejoin says so again and again on one connection (its seq is 1).
    copies = Copies()
    assert all(copies.flood(Rejoin(4, 2, 7, 1, 3)) is None for _ in range(100))
