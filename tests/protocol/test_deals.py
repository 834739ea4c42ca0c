"""Deals no one chooses: pledges, the common seed, the shuffle, and the audit's void."""

from __future__ import annotations

from _table import Table, order

from p2pnerts.cheats import stacked
from p2pnerts.protocol import (
    NEVER_REVEALED,
    AuditFailed,
    AuditPassed,
    PeerExcluded,
    Replica,
    RoundOver,
    common_seed,
    derived,
    face_up,
    pledge,
    shuffle,
)
from p2pnerts.rules import (
    NERTS,
    NEW_FOUNDATION,
    CallNerts,
    Card,
    Match,
    Suit,
    TableOptions,
    ToFoundation,
    new_deck,
    void_points,
)

OPTIONS = TableOptions()
A, B = bytes(range(32)), bytes(range(1, 33))


def test_a_deck_is_a_permutation_fixed_by_its_secret_and_the_seed() -> None:
    seed = common_seed(1, {0: A, 1: B})
    dealt = shuffle(0, 1, A, seed, options=OPTIONS)
    assert sorted(dealt) == sorted(new_deck(0))
    assert dealt == shuffle(0, 1, A, seed, options=OPTIONS)  # every peer deals it again
    others = [
        shuffle(0, 1, B, seed, options=OPTIONS),  # another secret
        shuffle(0, 1, A, common_seed(1, {0: A, 1: A}), options=OPTIONS),  # another share
        shuffle(0, 2, A, seed, options=OPTIONS),  # another round
    ]
    assert all(other != dealt for other in others)


def test_pledges_seeds_and_shares_bind_the_round_the_deck_and_every_share() -> None:
    assert pledge(1, 0, A) != pledge(2, 0, A) != pledge(1, 1, A)
    assert common_seed(1, {0: A, 1: B}) == common_seed(1, {1: B, 0: A})
    assert common_seed(1, {0: A, 1: B}) != common_seed(1, {0: A})
    assert derived(A, 0) != A and derived(A, 0) == derived(A, 0)


def test_a_voided_deck_scores_the_round_s_lowest_and_never_above_zero() -> None:
    assert void_points((12, -4, 30), {2}) == (12, -4, -4)
    assert void_points((12, 5, 30), {2}) == (12, 5, 0)  # cannot win the round
    match = Match.of_points(OPTIONS, 3, [(12, 5, 30), (1, 2, 3)]).void(0, {2})
    assert match.rounds == ((12, 5, 0), (1, 2, 3)) and match.totals == (13, 7, 3)


def _table(players: int = 3, cheat: Replica | None = None) -> Table:
    table = Table(players, TableOptions(nerts_pile=1))
    if cheat is not None:
        table.replicas[cheat.seat] = cheat
    table.start([[] for _ in range(players)])  # no deck chosen: every deck is shuffled
    return table


def test_every_seat_is_dealt_the_shuffle_of_its_pledged_secret_and_the_seed() -> None:
    table = _table()
    for seat in range(3):
        this = table.replicas[seat].dealing.rounds[1]
        seed = this.seed
        assert seed is not None and this.order
        assert this.order == shuffle(seat, 1, this.secret, seed, options=table.options)
        zero = table.replicas[seat].dealing.rounds[0]
        assert zero.pledges[seat] == pledge(1, seat, this.secret)
        shares = {d: share for d, (_, share) in zero.shares.items()}
        assert shares[seat] == derived(this.secret, 0) and seed == common_seed(1, shares)
        public = table.replicas[0].public
        assert public is not None
        assert public.tableau_of(seat).nerts[-1] == face_up(this.order, table.options)[0]


def test_a_stacked_deck_is_voided_by_every_honest_peer() -> None:
    options = TableOptions(nerts_pile=1)
    stacker = lambda deck, number, secret, seed: (  # noqa: E731
        stacked(deck, options)
        if deck == 1
        else shuffle(deck, number, secret, seed, options=options)
    )
    table = _table(cheat=Replica(1, options, 3, shuffle=stacker, auto_stuck=False))
    ace = Card(1, 1, Suit.SPADES)
    table.play(1, ToFoundation(1, ace, NERTS, NEW_FOUNDATION))  # its stacked Nerts pile
    table.play(1, CallNerts(1))
    for seat in (0, 2):
        over = table.of(seat, RoundOver)[-1]
        assert max(s.points for s in over.scores) == over.scores[1].points  # it won the round
        failed = table.of(seat, AuditFailed)
        assert [(e.seat, "face up" in e.reason) for e in failed] == [(1, True)]
        points = [s.points for s in over.scores]
        assert table.replicas[seat].match_scores == [void_points(points, {1})]
        assert table.replicas[seat].match_scores[0][1] <= 0  # and cannot have won it


def _withheld_by_seat_2() -> Table:
    """Seat 2 will not reveal its secret for round 1, which seat 0 ends at once."""
    table = Table(3, TableOptions(nerts_pile=1))
    table.start([order(s, ["AH"], ["2S", "3S", "4S", "5S"], table.options) for s in range(3)])
    table.replicas[2].dealing.rounds[1].secret = b""  # it will not reveal
    table.play(0, ToFoundation(0, Card(0, 1, Suit.HEARTS), NERTS, NEW_FOUNDATION))
    table.play(0, CallNerts(0))
    return table


def _left_out_and_voided(table: Table) -> None:
    """Seats 0 and 1 left seat 2 out and voided its round 1, alike."""
    for seat in (0, 1):
        assert [e.seat for e in table.of(seat, PeerExcluded)] == [2]
        failed = table.of(seat, AuditFailed)
        assert [(e.seat, e.reason, e.points) for e in failed] == [(2, NEVER_REVEALED, -2)]
        assert table.replicas[seat].match_scores == [(1, -2, -2)]
    table.agree()


def test_a_seat_withholding_its_secret_but_staying_is_left_out_in_time_and_voided_alike() -> None:
    table = _withheld_by_seat_2()
    wait = table.timing.reveal_within
    table.run_for(wait - 1)  # it talks on, acknowledges everything: the deal waits
    for seat in (0, 1):
        assert not table.of(seat, AuditFailed) and not table.of(seat, PeerExcluded)
    table.run_for(2 + table.timing.view_change_timeout)
    _left_out_and_voided(table)
    for seat in range(3):  # it comes back at once, and the next round deals
        table.deal(seat)
    table.flush()
    table.settle()
    assert [r.playing for r in table.replicas] == [2, 2, 2]
    table.agree()


def test_a_seat_withholding_its_secret_holds_the_audit_up_until_it_goes_then_is_voided() -> None:
    table = _withheld_by_seat_2()
    table.run_for(1)
    assert not table.of(0, AuditFailed) and not table.of(0, AuditPassed)  # it waits
    table.crash(2)
    table.run_for(6)
    _left_out_and_voided(table)
