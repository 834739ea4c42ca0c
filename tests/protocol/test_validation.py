"""A replica checks a message completely before it changes any state, and refuses a seat
that broke the protocol from then on (as h11's ERROR state)."""

from __future__ import annotations

import pytest
from _table import Table, order

from p2pnerts.protocol import Ack, Play, Ready, RemoteProtocolError, Replica
from p2pnerts.rules import TableOptions, TurnStock

OPTIONS = TableOptions()


def _dealt(players: int = 3) -> Table:
    table = Table(players, OPTIONS)
    table.start([order(s, ["QS"], ["2H", "9C", "9S", "KD"], OPTIONS) for s in range(players)])
    return table


def _state(replica: Replica) -> tuple[object, ...]:
    """Everything a message could move: acknowledgements, clock, log and digest."""
    return (
        list(replica.have),
        replica.clock,
        replica.committed,
        replica.digest,
        [p.message for p in replica.pending],
        [list(row) for row in replica.acks.acked],
        [list(row) for row in replica.acks.vouched],
        list(replica.heard),
    )


def _next_ack(table: Table, sender: int, have: tuple[int, ...]) -> Ack:
    """An Ack that comes next on ``sender``'s link, claiming ``have``."""
    me = table.replicas[sender]
    return Ack(sender, me.view, me.clock + 1, me.have[sender] + 1, have, me.committed, me.digest)


def test_a_malformed_ack_changes_nothing_and_its_sender_is_refused_after() -> None:
    table = _dealt()
    replica = table.replicas[1]
    table.now += 0.5  # a message taken would also count as the sender heard from now
    before = _state(replica)
    with pytest.raises(RemoteProtocolError, match="covers 2 seats"):
        replica.receive(_next_ack(table, 0, (1, 1)), table.now)
    assert _state(replica) == before
    good = _next_ack(table, 0, tuple(table.replicas[0].have))
    with pytest.raises(RemoteProtocolError, match="refused"):
        replica.receive(good, table.now)
    assert _state(replica) == before


def test_a_message_out_of_order_changes_nothing_and_its_sender_is_refused_after() -> None:
    table = _dealt()
    replica, sender = table.replicas[1], table.replicas[0]
    seq = sender.have[0]
    gap = sender.signer.sign(Play(0, 0, sender.clock + 9, seq + 2, 1, TurnStock(0, rotation=0)))
    before = _state(replica)
    with pytest.raises(RemoteProtocolError, match="skipped"):
        replica.receive(gap, table.now)
    assert _state(replica) == before
    with pytest.raises(RemoteProtocolError, match="refused"):
        replica.receive(
            Play(0, 0, sender.clock + 1, seq + 1, 1, TurnStock(0, rotation=0)), table.now
        )
    assert _state(replica) == before


def test_a_bad_message_is_refused_before_the_sequence_is_looked_at() -> None:
    table = _dealt()
    replica = table.replicas[1]
    before = _state(replica)
    wrong_deal = Ready(0, 0, 99, 1, 2, bytes(32), (0,))  # an old number, and a bad deal
    with pytest.raises(RemoteProtocolError, match="wrong deal"):
        replica.receive(wrong_deal, table.now)
    assert _state(replica) == before


def test_only_the_seat_that_broke_the_protocol_is_refused() -> None:
    table = _dealt()
    replica = table.replicas[1]
    with pytest.raises(RemoteProtocolError):
        replica.receive(_next_ack(table, 0, (1,)), table.now)
    table.replicas[2].intend(TurnStock(2), table.now)
    table.flush()
    assert table.deliver(2, 1) > 0  # seat 2's messages still reach seat 1
    assert replica.have[2] == table.replicas[2].have[2]
