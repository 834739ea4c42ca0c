"""When an arrival is acknowledged (SPEC 4.5): a moment after it, so that a burst shares one
Ack; or, with `Timing.ack_at_once`, at once unless an Ack went out within that moment."""

from __future__ import annotations

import pytest
from _table import Table

from p2pnerts.protocol import Ack, Ready, Timing
from p2pnerts.rules import TableOptions


def _acks_sent(table: Table, seat: int) -> int:
    return sum(isinstance(m, Ack) for m in table.links[seat, 0])


@pytest.mark.parametrize("at_once", [False, True], ids=["after-the-delay", "at-once"])
def test_two_arrivals_close_together_are_acknowledged_as_the_timing_says(at_once: bool) -> None:
    timing = Timing(ack_at_once=at_once)
    table = Table(3, TableOptions(), timing)
    table.now = 0.1
    for seat in (0, 2):
        table.deal(seat)
    table.flush()
    one = table.replicas[1]
    assert [type(m) for m in table.links[0, 1]] == [Ready]

    table.deliver(0, 1)  # seat 0's Ready, at 0.1
    assert one.next_deadline() == pytest.approx(0.1 if at_once else 0.1 + timing.ack_delay)
    table.advance(0.0)
    assert _acks_sent(table, 1) == (1 if at_once else 0)

    table.now = 0.101
    table.deliver(2, 1)  # seat 2's Ready, 1 ms later: within the delay either way
    assert one.next_deadline() == pytest.approx(0.1 + timing.ack_delay)
    table.advance(timing.ack_delay)
    acks = [m for m in table.links[1, 0] if isinstance(m, Ack)]
    assert len(acks) == (2 if at_once else 1)
    assert acks[-1].have[0] == 1 and acks[-1].have[2] == 1  # the last holds both Readies
