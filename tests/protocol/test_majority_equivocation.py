"""A seat that signs two plays under one number at a table that commits by a majority: the
Ballots and Tallies name the copy each voter held, a seat that learns so shows its own
copy to every seat, and a seat holding the other then holds the proof (SPEC §4.10): every
honest seat refuses the cheat with the same words, and the table goes on as one without
it. A copy shown again, of another view, or that a cheat voter only claims, proves
nothing."""

from __future__ import annotations

from dataclasses import replace

import pytest
from _table import Table, order
from test_equivocation import sent_two_ways
from test_spots import onto

from p2pnerts.protocol import (
    Evidence,
    PeerRefused,
    Play,
    PlayCommitted,
    RemoteProtocolError,
    Status,
    encode_payload,
)
from p2pnerts.protocol._commits import Commits
from p2pnerts.protocol._messages import Ballot, Tally
from p2pnerts.protocol._signing import Signer
from p2pnerts.protocol._spots import PlayId, Spotted
from p2pnerts.protocol._witness import conflict
from p2pnerts.rules import DeclareStuck, TableOptions, TurnStock

OPTIONS = TableOptions()


class _Table(Table):
    """A table whose links a refused seat's messages do not break: each refusal is the
    receiver's to tell (as a connection that broke the protocol is dropped, not raised)."""

    def deliver(self, src: int, dest: int, count: int | None = None) -> int:
        try:
            return super().deliver(src, dest, count)
        except RemoteProtocolError:
            self.flush()
            return 1


def _dealt(players: int) -> _Table:
    table = _Table(players, OPTIONS, majority=True)
    table.start([order(s, ["QS"], ["2H", "9C", "9S", "KD"], OPTIONS) for s in range(players)])
    return table


def _told_two_ways(table: Table) -> tuple[Play, Play]:
    """Seat 0 (`Cheat` ``equivocate``) turns its stock and tells seat 1 so, but tells every
    other seat it declared itself stuck, under the same view, number and clock, each
    signed. Returns (seat 1's copy, the others')."""
    told, other = sent_two_ways(table)
    assert (told.seq, told.below) == (other.seq, other.below) and told.move != other.move
    return told, other


def _refusals(table: Table, seat: int) -> list[PeerRefused]:
    return table.of(seat, PeerRefused)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_every_honest_seat_names_a_seat_that_signed_two_plays_under_one_number(
    players: int,
) -> None:
    """At three seats the cheat's own Tally returning the play carries both Ballots; at four
    and five the seats told the stuck declaration poll on it and seat 1's answer names the
    turn. Either way one seat shows its copy, the other copy's holders then hold the proof
    and show both, and every honest seat refuses seat 0, and only it, with the same words
    and the same two messages kept; neither copy commits; the cheat is left out and the
    rest end on one table. Before, no seat named it."""
    table = _dealt(players)
    told, other = _told_two_ways(table)
    table.run_for(1)
    honest = range(1, players)
    words = {tuple(e.reason for e in _refusals(table, seat)) for seat in honest}
    assert words == {
        (
            f"seat 0 signed two different messages as its message {told.seq} of view 0"
            " (equivocation: both kept as proof and shown to every seat)",
        )
    }
    for seat in honest:
        assert set(table.replicas[seat].witness.proofs[0]) == {told, other}
        assert all(e.move.seat != 0 for e in table.of(seat, PlayCommitted))
    table.run_for(12)  # refused, seat 0 is silent here: it is left out
    for seat in honest:
        replica = table.replicas[seat]
        assert replica.members == frozenset(honest) and replica.status is Status.NORMAL
        assert [e.seat for e in _refusals(table, seat)] == [0]
    table.play(1, TurnStock(1))
    table.run_for(1)  # (each folds its own play once the other's clock has passed it)
    table.down.add(0)
    table.agree()
    assert {table.replicas[seat].committed for seat in honest} == {table.replicas[1].committed}


def test_a_copy_shown_again_of_another_view_or_not_signed_by_its_sender_proves_nothing() -> None:
    """Seat 2 holds seat 0's turn of the stock. Shown that very play again, or a stuck
    declaration signed by seat 0 under the same number in another view, it refuses no one
    (an honest seat numbers its plays afresh in each view); shown a copy seat 1 signed in
    seat 0's name, it refuses seat 1, the Evidence's sender, at the gate."""
    table = _dealt(3)
    replica = table.replicas[0]
    replica.intend(TurnStock(0), table.now)
    table.flush()
    held = next(m for m in table.links[0, 2] if isinstance(m, Play))
    table.settle()
    seat0, seat1 = table.replicas[0].signer, table.replicas[1].signer
    stuck = replace(held, move=DeclareStuck(0), sig=b"")
    later = seat0.sign(replace(stuck, view=held.view + 1))
    assert conflict(held, seat0.sign(stuck)) and not conflict(held, later)
    for shown in (held, later):
        evidence = Evidence(1, 0, table.replicas[1].clock, 1, (encode_payload(shown),))
        table.replicas[2].receive(evidence, table.now)
    assert not table.replicas[2].witness.proofs and not table.replicas[2].take_events()
    forged = replace(seat1.sign(stuck), sender=0)
    evidence = Evidence(1, 0, table.replicas[1].clock, 1, (encode_payload(forged),))
    with pytest.raises(RemoteProtocolError, match="not signed by its seat"):
        table.replicas[2].receive(evidence, table.now)
    assert [e.seat for e in table.replicas[2].take_events() if isinstance(e, PeerRefused)] == [1]
    assert not table.replicas[2].witness.proofs


def test_two_plays_under_one_number_prove_it_whatever_their_place_on_the_link() -> None:
    """Two messages of one seat and view that name one play number, signed by it, are the
    proof even if one went after a message more on one link than on the other (their
    ``seq`` differs); of two views, or the same bytes, they prove nothing."""
    signer = Signer.computed(0, 3)
    play = signer.sign(Play(0, 2, 40, 7, 1, TurnStock(0, rotation=0), (5, 3, 3)))
    stuck = signer.sign(replace(play, seq=8, move=DeclareStuck(0), sig=b""))
    assert conflict(play, stuck) and conflict(stuck, play)
    assert not conflict(play, signer.sign(replace(stuck, view=3, sig=b"")))
    assert not conflict(play, signer.sign(replace(stuck, below=(6, 3, 3), sig=b"")))
    assert not conflict(play, play)


ACE, HOME = b"ace: a witness..", b"home: another..."


def _seats(noticed: list[list[PlayId]] | None = None) -> list[Commits]:
    """Three seats' commits; each tells ``noticed[seat]`` of the plays it notices."""
    told: list[list[PlayId]] = [[], [], []] if noticed is None else noticed
    return [
        Commits(s, 3, Signer.computed(s, 3), range(3), lambda: 1, notice=told[s].append)
        for s in range(3)
    ]


def test_a_returned_tally_whose_ballots_name_another_copy_is_noticed() -> None:
    """Seat 0 sends seat 1 one play and seat 2 another under one number; at a table of three
    its Tally returns the play, carrying both Ballots: each seat notes the witness of the
    copy it lacks (`other_copies`, which compared only the Tallies that decided a play in),
    and names the play once for the replica to show its copy (``notice``). Seat 0 notes
    seat 2's Ballot against its own play too, and names nothing: it holds its own."""
    noticed: list[list[PlayId]] = [[], [], []]
    seats = _seats(noticed)
    ace = seats[0].make(1, (1, 0), onto(0), ACE, 0.0)
    home = Spotted(0, 1, (1, 0), onto(0), ace.below, HOME)
    seats[1].hold(ace, 0.0)
    seats[2].hold(home, 0.0)
    for voter in (1, 2):
        for ballot, _ in seats[voter].take_outgoing():
            seats[0].take(ballot, 0.0)
    tally = next(frame for frame, _ in seats[0].take_outgoing() if isinstance(frame, Tally))
    assert not tally.ok and len(tally.ballots) == 2
    assert seats[0].other_copies == {ace.id: HOME} and noticed[0] == []
    for seat, lacks in ((1, HOME), (2, ACE)):
        seats[seat].take(tally, 0.0)
        seats[seat].take(tally, 0.0)  # (taken again: named no second time)
        assert seats[seat].other_copies == {ace.id: lacks}
        assert noticed[seat] == [ace.id]
        assert seats[seat].order.outcomes[ace.id].ok is False


def test_a_late_ballot_names_the_copy_its_voter_held() -> None:
    """A poll's answer voting late still names the copy its voter held: the poller notes
    it (a late Ballot's witness was not compared)."""
    noticed: list[list[PlayId]] = [[], [], []]
    seats = _seats(noticed)
    ace = seats[0].make(1, (1, 0), onto(0), ACE, 0.0)
    seats[1].hold(ace, 0.0)
    seats[1].tick(1.0)  # it polls
    poll = next(f for f, _ in seats[1].take_outgoing() if not isinstance(f, Ballot))
    late = Ballot(2, 0, 2, 1, 1, 0, 1, HOME, False, ())
    seats[1].take(seats[2].box.signer.sign(late), 1.0)
    assert poll.number == 1 and seats[1].other_copies == {ace.id: HOME}
    assert noticed[1] == [ace.id]
