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
