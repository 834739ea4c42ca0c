"""The simulator benchmark's cost of an ordered message (python tools/bench.py sim): at a
majority's table a play, a Ready or a Reveal goes to every other seat, each of them votes
to its sender, and the sender's outcome goes to every other seat, 3(N - 1) frames; by
acknowledgement at two seats, the message and its Ack."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

from benchmarks.sim import sim_cost


def test_an_ordered_message_costs_three_frames_per_other_seat_at_a_majoritys_table() -> None:
    figures = sim_cost(4, 1, range(1), majority=True)
    # (A few Polls more go where votes split, and an Ack where a seat has passed plays and
    # no Tally of its own has said so: 9.28 while each seat sent an Ack a second as well.)
    assert 9 <= figures["frames_per_ordered"] <= 9 * 1.02
    # The plays carry the round's Readies and Reveals too: more frames a play than that.
    assert figures["messages_per_play"] > figures["frames_per_ordered"]


def test_by_acknowledgement_two_seats_send_a_message_and_its_ack() -> None:
    assert sim_cost(2, 1, range(1))["frames_per_ordered"] == 2.0
