"""The receive path's measure (tools/receive_path.py): each received message followed
through the parts of protocol/, its stops and its returns counted."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

import receive_path

from p2pnerts.protocol import Replica


def test_a_stop_at_a_part_already_left_counts_as_a_return() -> None:
    route = receive_path.Route("Play", ["_replica", "_acks", "_log", "_acks", "_replica", "_acks"])
    assert (route.parts, len(route.stops), route.returns) == (3, 6, 3)
    assert route.returned_to() == {"_acks": 2, "_replica": 1}


def test_every_message_a_replica_receives_is_followed_from_receive_through_the_protocol() -> None:
    routes = receive_path.follow(peers=2, rounds=1, seed=1)
    kinds = {route.kind for route in routes}
    assert {"Ack", "Play", "Ready"} <= kinds
    assert all(route.stops[0] == "_replica" for route in routes)
    play = next(route for route in routes if route.kind == "Play")
    # A Play is checked, admitted by the view, held and logged: each a part of its own.
    assert {"_checks", "_membership", "_acks", "_log"} <= set(play.stops)
    assert play.stops.index("_checks") < play.stops.index("_log")  # checked before taken
    assert Replica.receive is receive_path.ORIGINAL  # put back after the run


def test_a_message_that_commits_nothing_takes_spec_s_steps_in_order() -> None:
    # SPEC §4.2: checked (1), admitted by the view (3-7), next on its link (8), accepted
    # (9), taken by kind (10). Only the gate (steps 1 and 8), the membership (3-7, and
    # hearing from the sender in 9), the time kept away (woken, then an Ack's word on this
    # seat's stall) and the acknowledgements (taken in 9; an Ack's lowest for this seat's
    # outbox in 10; asked in 11 whether the head can commit) are visited again.
    routes = receive_path.follow(peers=3, rounds=1, seed=2)
    quiet = [r for r in routes if r.kind in ("Ack", "Play") and "_inplay" not in r.stops]
    assert len({r.kind for r in quiet}) == 2
    for route in quiet:
        # (Checking a signature the first time may stop at _log, _codec and _wire before.)
        after = route.stops[route.stops.index("_membership") :]
        first = {part: after.index(part) for part in set(after)}
        assert route.stops.index("_checks") < route.stops.index("_membership")
        assert first["_acks"] < first["_witness"] < first["_outbox"]
        assert first["_acks"] < first["_log"] < first["_outbox"]
        again = route.returned_to()
        del again["_codec"], again["_wire"]  # encoding, for a signature and for a witness
        assert set(again) <= {"_checks", "_membership", "_away", "_acks"}
        assert again["_checks"] <= 1 and again["_membership"] <= 1 and again["_away"] <= 1
        assert again["_acks"] <= (2 if route.kind == "Ack" else 1)


def test_at_a_majority_s_table_its_ballots_and_tallies_are_followed_too() -> None:
    routes = receive_path.follow(peers=4, rounds=1, seed=1, majority=True)
    kinds = {route.kind for route in routes}
    assert {"Ballot", "Tally", "Play"} <= kinds
    ballot = next(route for route in routes if route.kind == "Ballot")
    assert {"_majority", "_commits", "_ballots"} <= set(ballot.stops)


def test_at_a_majority_s_table_a_commit_frame_passes_through_the_commit_s_parts_once() -> None:
    # Step 11 (`Majority.apply`) takes `Commits.step`, then `Applying.take`, once a pass: a
    # pass again only where applying sent a message (a Ready as a round ends), so neither
    # is come back to more than once. Before, the replica went back and forth between the
    # two (what resolved, applied; what settled, folded): four returns to each, and eleven
    # to `_commits`. A Tally's signatures are checked together, its Ballots decoded first.
    # A commit frame is checked at the Gate before `Majority.take` counts it.
    routes = receive_path.follow(peers=4, rounds=1, seed=1, majority=True)
    frames = [route for route in routes if route.kind in ("Ballot", "Tally")]
    assert {route.kind for route in frames} == {"Ballot", "Tally"}
    for route in frames:
        # Each stop is named by the function called there; the Gate checks a frame first.
        assert [call.split(".")[0] for call in route.calls] == route.stops
        assert route.calls[:4] == [
            "_replica.receive",
            "_away.gap",
            "_checks.check_frame",
            "_majority.take",
        ]
        again = route.returned_to()
        assert again["_applying"] <= 1 and again["_commits"] <= 3, route.stops
        if route.kind == "Tally":
            assert again["_signing"] <= 2, route.stops
