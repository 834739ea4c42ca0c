"""A seat that signs two different messages under one number and tells each to other peers
is caught by what the others' Acks witness: neither copy commits, the two signed messages
are kept as proof and shown to every seat, each seat checks them itself and refuses the
liar, and the table goes on as one with the coordinator's copy (SPEC §4.5, §4.10)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from _table import Table
from test_headers import _dealt, _refused

from p2pnerts.cheats import Cheat
from p2pnerts.protocol import (
    Ack,
    Evidence,
    PeerRefused,
    Play,
    PlayCommitted,
    PlayReturned,
    Replica,
    encode_payload,
    witness,
)
from p2pnerts.rules import DeclareStuck, TurnStock


def sent_two_ways(table: Table) -> tuple[Play, Play]:
    """Seat 0 (`Cheat` ``equivocate``) turns its stock and tells seat 1 so, but tells the
    other seats it declared itself stuck, under the same view, number and clock, each
    signed, both on their links yet. Returns (seat 1's copy, seat 2's)."""
    cheat = table.tamper[0] = Cheat("equivocate", honest_first=0)
    table.replicas[0].send_ack(table.now)  # the cheat counts the seats from its Acks
    table.replicas[0].intend(TurnStock(0), table.now)
    table.flush()
    assert cheat.lies == 1
    told, other = (next(m for m in table.links[0, s] if isinstance(m, Play)) for s in (1, 2))
    return told, other


def _told_two_ways(table: Table) -> tuple[Play, Play]:
    """`sent_two_ways`, delivered to seats 1 and 2; then seat 0 is cut off. Returns (seat
    1's copy, seat 2's)."""
    told, other = sent_two_ways(table)
    table.deliver(0, 1)
    table.deliver(0, 2)
    table.cut |= {frozenset((0, 1)), frozenset((0, 2))}
    assert (told.seq, told.clock) == (other.seq, other.clock) and told.move != other.move
    return told, other


def _refusals(table: Table, seat: int) -> list[PeerRefused]:
    return [e for e in table.of(seat, PeerRefused) if "equivocation" in e.reason]


def test_two_peers_told_two_things_keep_the_proof_and_refuse_the_liar_before_either_commits() -> (
    None
):
    table = _dealt()
    committed = [r.committed for r in table.replicas]
    told, other = _told_two_ways(table)
    table.settle()
    for seat in (1, 2):
        replica = table.replicas[seat]
        assert [e.seat for e in _refusals(table, seat)] == [0]
        assert set(replica.witness.proofs[0]) == {told, other}
        assert replica.committed == committed[seat]  # neither copy committed anywhere
        assert not table.of(seat, PlayCommitted)


def test_the_table_goes_on_as_one_with_the_coordinators_copy_once_the_liar_is_left_out() -> None:
    table = _dealt()
    told, _ = _told_two_ways(table)
    table.run_for(6)  # seat 0 says nothing more here: it is left out, seat 1 starts view 1
    one, two = table.replicas[1], table.replicas[2]
    assert one.view == two.view == 1 and one.members == two.members == {1, 2}
    table.play(2, TurnStock(2))
    table.agree()
    assert one.committed == two.committed
    for seat in (1, 2):  # the copy seat 1 held, coordinator of view 1, committed at both
        landed = [e for e in table.events[seat] if isinstance(e, PlayCommitted | PlayReturned)]
        assert [e.move for e in landed if e.move.seat == 0] == [told.move]


def test_a_seat_shown_both_messages_checks_them_itself_and_refuses_the_liar() -> None:
    table = _dealt()
    told, other = _told_two_ways(table)
    bystander = Replica(1, table.options, 3)  # holds neither copy
    proof = Evidence(2, 0, 50, 1, (encode_payload(told), encode_payload(other)))
    bystander.receive(proof, table.now)
    assert bystander.gate.refuses(0)
    assert set(bystander.witness.proofs[0]) == {told, other}
    shown = [m for m in bystander.take_outgoing() if isinstance(m, Evidence)]
    assert [len(m.messages) for m in shown] == [2]  # it shows the proof on, once


@pytest.mark.parametrize("same", [True, False], ids=["one-message-twice", "two-numbers"])
def test_messages_that_do_not_conflict_prove_nothing(same: bool) -> None:
    table = _dealt()
    told, _ = _told_two_ways(table)
    again = told if same else table.replicas[0].signer.sign(replace(told, seq=told.seq + 1))
    bystander = Replica(1, table.options, 3)
    bystander.receive(Evidence(2, 0, 50, 1, (encode_payload(told), encode_payload(again))), 0)
    assert not bystander.gate.refuses(0) and not bystander.witness.proofs


def test_evidence_showing_a_message_its_seat_never_signed_refuses_the_seat_that_shows_it() -> None:
    table = _dealt()
    told, _ = _told_two_ways(table)
    forged = replace(told, move=DeclareStuck(0))  # signed for another move
    evidence = Evidence(2, 0, 50, 1, (encode_payload(told), encode_payload(forged)))
    _refused(table, 1, evidence, "Evidence shows a message not signed by its seat")
    assert not table.replicas[1].gate.refuses(0)


def test_an_ack_witnesses_every_signed_message_it_took_from_another_seat() -> None:
    table = _dealt()
    table.replicas[0].intend(TurnStock(0), table.now)
    table.flush()
    play = next(m for m in table.links[0, 1] if isinstance(m, Play))
    table.deliver(0, 1)
    table.advance(table.timing.ack_delay)
    acks = [m for m in table.links[1, 2] if isinstance(m, Ack)]
    assert (0, play.seq, witness(play)) in acks[-1].heard


def test_a_proof_is_shown_again_on_a_new_connection_to_a_seat_that_may_have_missed_it() -> None:
    table = _dealt()
    told, other = _told_two_ways(table)
    table.settle()
    again = [m for m in table.replicas[1].resend_to(2) if isinstance(m, Evidence)]
    assert len(again) == 1 and again[0].clock == table.replicas[1].clock
    missed = Replica(2, table.options, 3)  # its link was down when the proof went round
    missed.receive(again[0], table.now)
    assert missed.gate.refuses(0)
    assert set(missed.witness.proofs[0]) == {told, other}


def test_a_table_without_a_proof_sends_no_evidence_on_a_new_connection() -> None:
    table = _dealt()
    assert not [m for m in table.replicas[1].resend_to(2) if isinstance(m, Evidence)]
