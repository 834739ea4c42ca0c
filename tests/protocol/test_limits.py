"""What one seat may make the others hold is bounded: its ordered messages waiting to
commit (SPEC §4.2). An honest seat stops at the bound itself; a seat past it is refused,
and only it: the others play on."""

from __future__ import annotations

import pytest
from test_headers import _dealt

from p2pnerts.protocol import (
    PENDING_LIMIT,
    PLAYS_WAITING,
    LocalProtocolError,
    PeerExcluded,
    Play,
    RemoteProtocolError,
)
from p2pnerts.rules import TurnStock


def test_a_seat_makes_no_more_plays_than_may_wait_to_commit() -> None:
    table = _dealt()
    table.crash(2)  # nothing commits until seat 2 is left out
    seat = table.replicas[1]
    made = 0
    with pytest.raises(LocalProtocolError, match="too many of your plays wait"):
        while made <= PENDING_LIMIT:
            seat.intend(TurnStock(1), table.now)
            made += 1
    assert made == PLAYS_WAITING
    assert len([p for p in seat.pending if p.message.sender == 1]) == PLAYS_WAITING
    table.flush()
    table.settle()  # the others take every one of them: an honest seat is never refused
    assert not table.replicas[0].gate.refuses(1)
    table.run_for(6)  # seat 2 is left out; the plays commit, and the seat plays on
    assert 2 in [e.seat for e in table.of(0, PeerExcluded)]
    assert not seat.pending
    seat.intend(TurnStock(1), table.now)


def test_a_seat_past_the_bound_is_refused_and_the_others_play_on() -> None:
    table = _dealt()
    table.crash(2)
    receiver, cheat = table.replicas[1], table.replicas[0]
    clock, seq = cheat.clock, cheat.have[0]
    with pytest.raises(RemoteProtocolError, match=f"more than {PENDING_LIMIT} messages waiting"):
        for n in range(1, PENDING_LIMIT + 2):
            play = Play(0, cheat.view, clock + n, seq + n, cheat.playing, TurnStock(0, rotation=0))
            play = cheat.signer.sign(play)
            receiver.receive(play, table.now)
    assert n == PENDING_LIMIT + 1  # the first past the bound
    assert receiver.gate.refuses(0)
    assert len([p for p in receiver.pending if p.message.sender == 0]) == PENDING_LIMIT
