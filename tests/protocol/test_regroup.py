"""Every seat out of the table at once, each asking to be let back in and none a member to
let the others in: a seat whose view is whole lets them in (`Membership.regroup`)."""

from __future__ import annotations

from _table import Table, order

from p2pnerts.protocol import RejoinedTable, Status, ViewInstalled
from p2pnerts.rules import TableOptions, TurnStock

OPTS = TableOptions(rounds=5)


def _table(players: int = 3, *, majority: bool = False) -> Table:
    table = Table(players, OPTS, majority=majority)
    table.start([order(s, ["QS"], ["2H", "9C", "9S", "KD"], OPTS) for s in range(players)])
    for seat in range(players):
        table.play(seat, TurnStock(seat))
    return table


def _all_out(table: Table) -> int:
    """Every seat leaves its view at once, as each would on a sign that the others went
    on without it; returns the fewest commits a seat had."""
    committed = min(r.committed for r in table.replicas)
    for replica in table.replicas:
        replica.membership.shut_out(table.now)
    table.flush()
    return committed


def test_every_seat_out_regroups_and_keeps_what_it_committed() -> None:
    """One seat lets the others in, in one view (all at once, each let the others into
    a view of its own; and each view, the seats let in took the one that let them in for
    a member asking to come back, and began another: 30 views in 8 s); each player is
    told it is back."""
    table = _table()
    view = table.replicas[0].membership.view
    committed = _all_out(table)
    table.run_for(5)
    for seat in range(3):
        assert [e.view for e in table.of(seat, ViewInstalled) if e.view > view] == [view + 1]
        assert table.of(seat, RejoinedTable) == [RejoinedTable(view + 1)]
    assert [r.status for r in table.replicas] == [Status.NORMAL] * 3
    assert all(r.members == {0, 1, 2} for r in table.replicas)
    assert len({r.membership.view for r in table.replicas}) == 1
    assert table.replicas[0].membership.view > view
    assert all(r.committed > committed for r in table.replicas)  # the view's StartView too
    table.agree()
    table.play(1, TurnStock(1))  # and the table plays on
    assert all(r.committed == table.replicas[1].committed for r in table.replicas)
    table.agree()


def test_two_of_three_out_regroup_without_the_third() -> None:
    """Seat 2's lid stays closed: seats 0 and 1, a majority, regroup; seat 2 is let back in
    once it wakes."""
    table = _table()
    table.paused.add(2)
    _all_out(table)
    table.run_for(5)
    assert [r.status for r in table.replicas[:2]] == [Status.NORMAL] * 2
    assert table.replicas[0].members == {0, 1}
    table.paused.clear()
    table.run_for(8)
    assert all(r.status is Status.NORMAL and r.members == {0, 1, 2} for r in table.replicas)
    table.agree()


def test_one_seat_out_alone_waits_to_be_let_in() -> None:
    """Out alone, asking no more than a view change's timeout, a seat is let back in by
    the members, as before: it does not regroup (its one view installed after is theirs)."""
    table = _table()
    view = table.replicas[0].membership.view
    table.replicas[0].membership.shut_out(table.now)
    table.flush()
    table.run_for(5)
    assert all(r.status is Status.NORMAL and r.members == {0, 1, 2} for r in table.replicas)
    coordinators = {e.view % 3 for e in table.of(0, ViewInstalled) if e.view > view}
    assert 0 not in coordinators
    table.agree()


def test_a_minority_out_does_not_regroup() -> None:
    """Seat 0 out, and seats 1 and 2 out of reach: alone, no majority, it keeps asking."""
    table = _table()
    table.held |= {frozenset((0, 1)), frozenset((0, 2))}
    _all_out(table)
    table.run_for(6)
    assert table.replicas[0].membership.status is Status.OUT


def test_at_a_majority_table_a_seat_out_does_not_regroup() -> None:
    """Where a commit waits for a quorum only, a seat out may lack a commit: it asks."""
    table = _table(4, majority=True)
    _all_out(table)
    table.run_for(5)
    assert all(r.membership.status is Status.OUT for r in table.replicas)
