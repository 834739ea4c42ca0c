"""Leaving the table: what a seat sends after its Leave never commits, and its Leave's
commit is followed by its last Ack, so that the others are never left waiting on it."""

from __future__ import annotations

import pytest
from _table import Table, order

from p2pnerts.protocol import Ack, LocalProtocolError, PeerLeft, Play, Status, _inplay
from p2pnerts.rules import DeclareStuck, TableOptions, TurnStock


def _three() -> Table:
    opts = TableOptions(rounds=50)
    table = Table(3, opts)
    table.start([order(s, ["QS"], ["2H", "9C", "9S", "KD"], opts) for s in range(3)])
    return table


def test_a_seat_that_has_sent_its_leave_makes_no_move() -> None:
    table = _three()
    table.replicas[1].leave(table.now)
    with pytest.raises(LocalProtocolError, match="leaving"):
        table.replicas[1].intend(TurnStock(1), table.now)


def test_what_a_seat_sent_after_its_leave_is_dropped_and_holds_nobody_up() -> None:
    table = _three()
    leaver = table.replicas[1]
    leaver.leave(table.now)
    leaver.leaving = False  # as a peer that breaks the rule would: a move after its Leave
    leaver.intend(TurnStock(1), table.now)
    table.flush()
    table.settle()
    for seat in (0, 2):
        assert [e.seat for e in table.of(seat, PeerLeft)] == [1]
        assert not [e for e in table.replicas[seat].pending if e.message.sender == 1]
    table.play(0, TurnStock(0))  # the others go on
    assert not table.replicas[0].pending
    table.replicas[2].leave(table.now)
    table.flush()
    table.settle()
    assert [e.seat for e in table.of(0, PeerLeft)] == [1, 2]
    assert table.replicas[0].members == frozenset({0})


def test_a_seats_leave_commits_with_its_last_ack_sent() -> None:
    table = _three()
    table.replicas[2].leave(table.now)
    table.flush()
    for _ in range(50):
        for a, b in list(table.links):
            table.deliver(a, b)
            if table.replicas[2].status is Status.LEFT:
                break
        if table.replicas[2].status is Status.LEFT:
            break
        table.advance(table.timing.ack_delay)
    leaver = table.replicas[2]
    assert leaver.status is Status.LEFT
    sent = [m for m in table.links[2, 0] if isinstance(m, Ack)]
    others = [0, 1]
    last = sent[-1].have if sent else ()
    assert [last[s] for s in others] == [leaver.have[s] for s in others], "all it holds"
    assert not [m for m in table.links[2, 0] if isinstance(m, Play)]


@pytest.mark.parametrize("leaves", [False, True])
def test_a_seat_that_has_sent_its_leave_is_not_declared_stuck_by_its_own_replica(
    monkeypatch: pytest.MonkeyPatch, leaves: bool
) -> None:
    """A replica that declares its seat stuck by itself (a bot's, a person's) does not once
    the seat has sent its Leave: the declaration was refused as a move after the Leave, and
    the refusal ended the leaving peer (seen once in the loopback tests)."""
    opts = TableOptions(rounds=50)
    table = Table(3, opts, auto_stuck=True)
    table.start([order(s, ["QS"], ["2H", "9C", "9S", "KD"], opts) for s in range(3)])
    monkeypatch.setattr(_inplay, "is_stuck", lambda state, seat: True)
    replica = table.replicas[1]
    replica.inplay._free = None  # forget that it found this tableau free before the patch
    if leaves:
        replica.leave(table.now)
    replica.tick(table.now + 1)
    assert replica.in_the_air == (None if leaves else DeclareStuck(1))
