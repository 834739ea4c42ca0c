"""What a peer counts of seats coming and going: events with times, time away, waits."""

from __future__ import annotations

from p2pnerts.net._comings import Comings
from p2pnerts.net._result import PeerStats
from p2pnerts.protocol import (
    PeerExcluded,
    PeerRejoined,
    PeerSuspected,
    RejoinedTable,
    Returned,
    ShutOut,
    ViewInstalled,
)


def test_the_others_count_a_seat_silent_left_out_and_back_with_times() -> None:
    comings = Comings(0, started=100.0)
    comings.hear(PeerSuspected(2), 101.0)
    comings.hear(ViewInstalled(1, (0, 1)), 102.0)
    comings.hear(PeerExcluded(2), 102.0)
    comings.hear(ViewInstalled(2, (0, 1, 2)), 106.0)
    comings.hear(PeerRejoined(2, 5.2), 106.0)
    assert [(r["at"], r["event"], r.get("seat")) for r in comings.records] == [
        (1.0, "silent", 2),
        (2.0, "view", None),
        (2.0, "left out", 2),
        (6.0, "view", None),
        (6.0, "back", 2),
    ]
    assert comings.records[-1]["seconds"] == 5.2
    assert comings.summary() == "membership: 1 silent, 1 left out, 1 back, 2 views"


def test_a_seat_counts_its_own_time_away() -> None:
    comings = Comings(2)
    comings.hear(ShutOut(0, 5.2), 10.0)
    comings.hear(ViewInstalled(2, (0, 1, 2)), 10.1)
    comings.hear(RejoinedTable(2), 10.1)
    comings.hear(Returned(1.5), 30.0)
    assert comings.away == [5.2, 1.5]
    assert comings.summary() == "membership: 1 left out, 1 back, 1 view; away 6.7 s"
    assert Comings(1).summary() is None


def test_a_play_counts_the_time_it_waited_on_a_silent_seat() -> None:
    stats = PeerStats.at(0, 0.0)
    stats.landed(0.0, 0.1)  # nobody silent
    stats.count(PeerSuspected(2), 1.0)
    stats.landed(0.5, 2.0)  # silent from 1.0 on
    stats.count(PeerExcluded(2), 3.0)
    stats.landed(2.5, 3.5)  # silent until 3.0
    stats.landed(4.0, 4.1)
    assert stats.silent_waits == [0.0, 1.0, 0.5, 0.0]
    assert len(stats.commit_latencies) == 4
