"""A change of members at a table that commits by a majority takes hold at one seat before
another (`Membership.taken_hold`), and a seat holds what it kept while the members changed
only once the view has taken hold there (`Majority._begin`): a Ballot on a play of its own
that it has not held yet waits for it, and a later message of the same sender waits behind
it. Each test orders the links so that the slowest seat to take hold is the one they test
(its links from some seats slow), as a loaded laptop did on a real table."""

from __future__ import annotations

from collections.abc import Callable, Collection

from _table import Table, order

from p2pnerts.protocol import (
    PeerLeft,
    PeerRefused,
    RoundOver,
    Status,
    ViewInstalled,
)
from p2pnerts.rules import DeclareStuck, TableOptions

STEP = 0.05


def _table() -> Table:
    opts = TableOptions(rounds=50)
    table = Table(4, opts, majority=True)
    table.start([order(s, ["QS"], ["2H", "9C", "9S", "KD"], opts) for s in range(4)])
    return table


def _run(
    table: Table,
    most: float,
    *,
    until: Callable[[], bool] = lambda: False,
    slow: Collection[tuple[int, int]] = (),
) -> None:
    """Let time pass `STEP` at a time, delivering one message at a time on every link but
    the ``slow`` ones (sender, receiver: what they carry waits), until ``until()`` holds
    (checked after every message) or ``most`` seconds have passed."""
    end = table.now + most
    while table.now < end and not until():
        table.advance(STEP)
        moved = True
        while moved and not until():
            moved = False
            for src, dest in list(table.links):
                if (src, dest) not in slow and table.deliver(src, dest, 1):
                    moved = True
                    if until():
                        return


def _refused(table: Table) -> list[PeerRefused]:
    return [e for seat in range(table.players) for e in table.of(seat, PeerRefused)]


def test_a_seat_leaving_as_members_change_counts_ballots_of_seats_quicker_to_take_hold() -> None:
    """Seat 3 falls silent; seat 1, coordinating the change that leaves it out, says Leave
    meanwhile (kept: held once the change takes hold). Seat 2's word in the new view is
    slow to reach seat 1, so seats 0 and 2 take hold first, hold the Leave and vote on it:
    seat 1 keeps seat 0's Ballot until it has taken hold, and counts it then. (It refused
    it as one on a play it never asked about, and so refused two honest seats.)"""
    table = _table()
    table.paused.add(3)
    _run(table, 12, until=lambda: table.replicas[1].status is Status.CHANGING)
    table.replicas[1].leave(table.now)
    table.flush()
    _run(table, 1, until=lambda: table.replicas[1].view == 1)
    _run(table, 1, slow={(2, 1)})
    assert table.replicas[0].taken_hold() and not table.replicas[1].taken_hold()
    assert not table.links[0, 1], "seat 0's Ballot on the Leave has reached seat 1"
    _run(table, 2)
    assert table.replicas[1].status is Status.LEFT
    for seat in (0, 2):
        assert [e.seat for e in table.of(seat, PeerLeft)] == [1]
        assert table.replicas[seat].members == frozenset((0, 2))
    assert _refused(table) == []
    assert table.replicas[0].digest == table.replicas[2].digest


def _coordinated_before_taking_hold(table: Table) -> None:
    """Seat 2 installs a view that leaves silent seat 3 out, and hears nothing of seat 0
    in it: the view has not taken hold there when seat 2, coordinating the next change,
    begins it. Applying the first change's StartView declares seat 3 stuck, the round ends
    (every other seat was stuck, the stocks turned once), and seat 2's Reveal, said in the
    middle of the change, is kept: held once the next view takes hold there."""
    for seat in range(4):
        table.play(seat, DeclareStuck(seat))  # (every seat stuck: the stocks turn)
    for seat in range(3):
        table.play(seat, DeclareStuck(seat))
    table.paused.add(3)
    _run(table, 12, until=lambda: table.replicas[1].view == 1)
    _run(table, 2, slow={(0, 2)}, until=lambda: table.replicas[2].view == 1)
    _run(table, 2, slow={(0, 2)})
    assert not table.replicas[2].taken_hold()
    assert not table.of(2, RoundOver), "seat 2 has applied nothing of view 1"
    table.paused.discard(3)
    _run(table, 6, slow={(0, 2)}, until=lambda: table.replicas[2].view == 2)
    assert table.of(2, RoundOver), "the round ended as seat 2 began view 1"
    assert not table.replicas[2].taken_hold()


def test_a_seat_that_leaves_before_its_view_takes_hold_says_so_after_what_it_kept() -> None:
    """Seat 2's Leave comes after its kept Reveal, in its order, at every seat, itself
    included. (Held at once, it came before the Reveal: "play (2, 7) held out of its
    sender's order", and seat 2 stopped.)"""
    table = _table()
    _coordinated_before_taking_hold(table)
    slow = {(0, 2), (1, 2), (3, 2)}
    _run(table, 0.5, slow=slow)
    table.replicas[2].leave(table.now)
    table.flush()
    _run(table, 0.5, slow=slow)
    _run(table, 4)
    assert table.replicas[2].status is Status.LEFT
    for seat in (0, 1, 3):
        assert [e.seat for e in table.of(seat, PeerLeft)] == [2]
    assert _refused(table) == []
    assert len({table.replicas[seat].digest for seat in (0, 1, 3)}) == 1


def test_a_seat_whose_view_takes_hold_last_counts_the_ballots_on_its_kept_reveal() -> None:
    """The others take hold of seat 2's view first and vote on its kept Reveal; seat 1's
    word reaches seat 2 before seat 3's, its Ballot with it: seat 2 counts it once the view
    takes hold there, and the next round is dealt. (It refused it as one on a play it never
    asked about.)"""
    table = _table()
    _coordinated_before_taking_hold(table)
    _run(table, 1, slow={(0, 2), (1, 2), (3, 2)})
    table.deliver(1, 2)
    assert not table.replicas[2].taken_hold()
    _run(table, 4)
    assert _refused(table) == []
    for seat in range(4):
        table.deal(seat)
    table.flush()
    _run(table, 2)
    assert [r.playing for r in table.replicas] == [2] * 4
    assert len({r.digest for r in table.replicas}) == 1
    assert [e.view for e in table.of(1, ViewInstalled)][:2] == [1, 2]


def test_a_seat_back_in_forgets_a_request_to_rejoin_answered_while_it_was_out() -> None:
    """Seat 3 asked to rejoin while seat 0 was a member; the view that let it in left seat
    0 out, and seat 0 came back in the next: it begins no change of members for a request
    answered already. (It began one after each view it installed, 17 in a second, until
    the request was two seconds old.)"""
    table = _table()
    _coordinated_before_taking_hold(table)
    _run(table, 5)
    assert [e.view for e in table.of(0, ViewInstalled)] == [1, 3]
    assert [e.view for e in table.of(1, ViewInstalled)] == [1, 2, 3]
    assert all(r.members == frozenset(range(4)) for r in table.replicas)
