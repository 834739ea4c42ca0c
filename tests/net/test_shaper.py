"""The link shaper: when each frame leaves or may be taken, on its own clock (no sockets)."""

from __future__ import annotations

import argparse
import random

import pytest

from p2pnerts.commands._options import stall
from p2pnerts.net import Shape, Shaper, Stall
from p2pnerts.net._shaper import RTO, SYN_RTO


def _shaper(shape: Shape, began: float | None = 0.0, seed: int = 1) -> Shaper:
    shaper = Shaper(shape, random.Random(seed))
    if began is not None:
        shaper.begin(began)
    return shaper


def test_no_shape_shapes_nothing_and_says_what_a_shape_does() -> None:
    assert not Shape()
    shape = Shape(0.015, 0.025, 0.02, (Stall(6, 3), Stall(20, 1.5, drop=False)))
    assert shape
    assert shape.describe() == (
        "links shaped: 15 ms ± 25 ms, 2% lost, cut for 3 s at 6 s, frozen for 1.5 s at 20 s"
    )


def test_a_delay_holds_every_frame_back_by_as_much_and_keeps_their_order() -> None:
    link = _shaper(Shape(delay=0.1)).link()
    assert [link.leaves_at(t) for t in (1.0, 1.0, 1.05, 3.0)] == pytest.approx(
        [1.1, 1.1, 1.15, 3.1]
    )
    assert link.taken_at(2.0) == 2.0  # only what it sends is delayed


def test_jitter_varies_the_delay_but_no_frame_overtakes_an_earlier_one() -> None:
    link = _shaper(Shape(delay=0.015, jitter=0.025)).link()
    sent = [k * 0.001 for k in range(400)]
    leaves = [link.leaves_at(t) for t in sent]
    assert leaves == sorted(leaves)
    assert all(t <= left <= t + 0.040 + 1e-9 for t, left in zip(sent, leaves, strict=True))
    assert len({round(left - t, 6) for t, left in zip(sent, leaves, strict=True)}) > 10


def test_a_lost_frame_comes_after_tcps_doubling_retransmission_timeouts() -> None:
    shaper = _shaper(Shape(loss=0.5), seed=7)
    late = [shaper.travel() for _ in range(2000)]
    retransmitted = {round(RTO * (2**k - 1), 6) for k in range(12)}
    assert {round(seconds, 6) for seconds in late} <= retransmitted
    on_time = late.count(0.0) / len(late)
    assert 0.45 < on_time < 0.55  # lost half the time, and each retransmission again


def test_a_cut_link_delivers_what_was_sent_when_tcp_next_retransmits_after_it_is_back() -> None:
    shaper = _shaper(Shape(stalls=(Stall(1.0, 3.0),)))
    link = shaper.link()
    assert link.leaves_at(0.5) == 0.5  # before the cut (and the connection has carried)
    # Lost at 1.0: sent again at 1.2, 1.6, 2.4, 4.0: the link is back at 4.0.
    assert [link.leaves_at(t) for t in (1.0, 1.05, 3.9)] == pytest.approx([4.0, 4.0, 4.0])
    assert link.leaves_at(4.1) == 4.1
    # The other way likewise, its first loss at 2.0: sent again at 2.2, 2.6, 3.4, 5.0.
    assert link.taken_at(2.0) == pytest.approx(5.0)
    assert link.taken_at(4.2) == pytest.approx(5.0)  # behind it
    assert link.taken_at(5.5) == 5.5

    longer = _shaper(Shape(stalls=(Stall(1.0, 3.5),))).link()
    longer.leaves_at(0.5)
    # Back at 4.5, but the next retransmission after 4.0 is at 7.2: 2.7 s more.
    assert longer.leaves_at(1.0) == pytest.approx(7.2)
    assert longer.leaves_at(5.0) == pytest.approx(7.2)  # behind it, on one stream


def test_a_connection_opened_during_a_cut_waits_on_the_syn_timeout_one_opened_after_not() -> None:
    shaper = _shaper(Shape(stalls=(Stall(1.0, 3.5),)))
    during = shaper.link()
    # Its first segment at 2.0, sent again at 2.0 + 1, + 3: the first at or after 4.5.
    assert during.leaves_at(2.0) == pytest.approx(2.0 + SYN_RTO + 2 * SYN_RTO)
    after = shaper.link()
    assert after.leaves_at(4.6) == 4.6


def test_a_frozen_link_delivers_everything_the_moment_it_thaws() -> None:
    link = _shaper(Shape(stalls=(Stall(1.0, 2.0, drop=False),))).link()
    assert [link.leaves_at(t) for t in (1.0, 2.5)] == [3.0, 3.0]
    assert link.taken_at(1.5) == 3.0
    assert link.leaves_at(3.2) == 3.2


def test_stalls_count_from_when_play_begins() -> None:
    shaper = _shaper(Shape(stalls=(Stall(1.0, 2.0),)), began=None)
    link = shaper.link()
    assert link.leaves_at(1.5) == 1.5  # play has not begun: no stall yet
    shaper.begin(10.0)
    shaper.begin(50.0)  # the first time only
    assert shaper.stall_at(11.5) == (13.0, Stall(1.0, 2.0))
    assert shaper.stall_at(13.0) is None


def test_the_stall_option_reads_at_and_seconds_and_refuses_what_is_not() -> None:
    assert stall("6:3") == Stall(6.0, 3.0, drop=True)
    assert stall("0.5:1.5:hold") == Stall(0.5, 1.5, drop=False)
    assert stall("2:1:drop") == Stall(2.0, 1.0)
    for bad in ("6", "6:0", "a:b", "6:3:later", "-1:3"):
        with pytest.raises(argparse.ArgumentTypeError):
            stall(bad)
