"""Deals no one chooses: pledges, the common seed, the shuffle, and the audit's void."""

from __future__ import annotations

from collections.abc import Iterable

from _table import Table, order

from p2pnerts.cheats import stacked
from p2pnerts.protocol import (
    NEVER_REVEALED,
    AuditFailed,
    AuditPassed,
    PeerExcluded,
    RejoinedTable,
    Replica,
    RoundOver,
    common_seed,
    derived,
    face_up,
    pledge,
    shuffle,
)
from p2pnerts.protocol._deal import public_deal, replay, with_own_deck
from p2pnerts.rules import (
    NERTS,
    NEW_FOUNDATION,
    CallNerts,
    Card,
    CardsRevealed,
    DeclareStuck,
    EndReason,
    Match,
    Suit,
    TableOptions,
    ToFoundation,
    TurnStock,
    apply,
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


def test_the_audit_fails_every_deck_a_move_contradicts_whichever_it_replays_first() -> None:
    """Two seats each turn their stock showing cards their decks hold in another order. At
    a majority's table seats commit plays of different decks in different sequences (they
    commute), so the audit's replay meets the two lies in either order; each seat fails
    both decks, each naming its own seat. Before, the replay stopped at the first lie it
    met, and two seats failed two different decks."""
    orders = {d: shuffle(d, 1, bytes([d]) * 32, A, options=OPTIONS) for d in range(3)}
    public = public_deal(OPTIONS, (0, 1, 2), {d: face_up(o, OPTIONS) for d, o in orders.items()})

    def turn(seat: int, lie: bool) -> TurnStock:
        _, (shown,) = apply(with_own_deck(public, seat, orders[seat]), TurnStock(seat))
        assert isinstance(shown, CardsRevealed)
        return TurnStock(seat, shown.cards[::-1] if lie else shown.cards, rotation=0)

    lies, honest = [(turn(0, True), False), (turn(1, True), False)], (turn(2, False), False)
    one_way = replay(public, orders, [lies[0], honest, lies[1]])
    other_way = replay(public, orders, [lies[1], honest, lies[0]])
    assert one_way == other_way
    assert {deck: seat for deck, (seat, _) in one_way.items()} == {0: 0, 1: 1}
    assert all("contradicts its deck" in why for _, why in one_way.values())
    assert replay(public, orders, [honest]) == {}


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


def _round_1_called(players: int) -> Table:
    """Round 1 dealt; seat 0 plays its ace and will call Nerts (`_call`)."""
    table = Table(players, TableOptions(nerts_pile=1))
    table.start(_aces(table))
    return table


def _aces(table: Table) -> list[list[Card]]:
    """Every seat's deck order: the ace of hearts its only Nerts card."""
    return [order(s, ["AH"], ["2S", "3S", "4S", "5S"], table.options) for s in range(table.players)]


def _call(table: Table) -> None:
    """Seat 0 ends the round in play, and every seat deals the next."""
    table.play(0, ToFoundation(0, Card(0, 1, Suit.HEARTS), NERTS, NEW_FOUNDATION))
    table.play(0, CallNerts(0))
    _deal(table, range(table.players))


def _deal(table: Table, seats: Iterable[int]) -> None:
    for seat in seats:
        table.deal(seat)
    table.flush()
    table.settle()


def _left_out_and_back(table: Table, seat: int) -> None:
    """Hold every link of ``seat`` for 4.5 s (it is left out), then run on for 3 s (it is
    let back in)."""
    table.cut_off(seat, 4.5)
    table.run_for(3)


def _all_stuck_twice(table: Table) -> None:
    """Every seat says it is stuck, twice over: the stocks rotate, and the round ends."""
    for _ in range(2):
        for seat in range(table.players):
            table.play(seat, DeclareStuck(seat))


def test_a_seat_let_back_in_mid_round_deals_in_the_next_from_the_pledges_it_had_committed() -> None:
    """A seat cut off for seconds and let back in (twice) replays round 1 from its first Ready,
    after the pledges of round 1's decks were made (round 0's Readies). It had committed them
    itself before it was left out, so it checks round 1's shares against them, knows round
    2's seed and deals in it as the others do; their audit passes its deck. (It sat round 2
    out; and a table every seat of which came back so dealt nobody in, and waited.)"""
    table = _round_1_called(4)
    for _ in range(2):  # twice: the second rebuild keeps what the first kept
        _left_out_and_back(table, 3)
    assert len(table.of(3, RejoinedTable)) == 2
    assert table.replicas[3].dealing.closing.known_from == 1
    _call(table)
    second = [r.dealing.rounds[2] for r in table.replicas]
    assert second[3].seed is not None and len({this.seed for this in second}) == 1
    assert all(sorted(this.shown) == [0, 1, 2, 3] for this in second)
    _all_stuck_twice(table)
    for seat in range(3):
        assert table.of(seat, RoundOver)[-1].round == 2
        assert table.of(seat, AuditPassed)[-1] == AuditPassed(2)
        assert not table.of(seat, AuditFailed)
    table.agree()


def test_a_seat_let_back_in_between_rounds_deals_in_the_next_from_the_seed_it_had_made() -> None:
    """Round 1 closed at every seat; seat 3 is cut off before it says it is ready for
    round 2 and let back in, replaying from round 2's first Ready: it no longer sees
    round 1's Reveals, but it made round 2's seed itself before, and deals in with it."""
    table = _round_1_called(4)
    table.play(0, ToFoundation(0, Card(0, 1, Suit.HEARTS), NERTS, NEW_FOUNDATION))
    table.play(0, CallNerts(0))
    assert all(r.dealing.rounds[2].seed is not None for r in table.replicas)
    _deal(table, [0])
    _left_out_and_back(table, 3)
    assert table.of(3, RejoinedTable) and table.replicas[3].dealing.closing.known_from == 2
    _deal(table, [1, 2, 3])
    assert all(sorted(r.dealing.rounds[2].shown) == [0, 1, 2, 3] for r in table.replicas)
    _all_stuck_twice(table)
    for seat in range(3):
        assert table.of(seat, AuditPassed)[-1] == AuditPassed(2)
        assert not table.of(seat, AuditFailed)
    table.agree()


def test_a_round_no_deck_is_dealt_in_ends_where_its_play_starts_and_the_next_deals() -> None:
    """No seat holds the secret its deck pledged for round 2 (as seats that came back
    without it), so every Ready of round 2 shows no cards: no seat can move, the rotation
    leaves every tableau stuck again, and the round ends there, scoring nothing, rather than
    waiting for a commit that never comes."""
    table = _round_1_called(3)
    for replica in table.replicas:
        replica.dealing.round_data(2).secret = b""
    _call(table)
    for seat in range(3):
        over = table.of(seat, RoundOver)[-1]
        assert (over.round, over.reason, over.dealt) == (2, EndReason.STUCK, ())
        assert all(score.points == 0 for score in over.scores)
    _deal(table, range(3))
    assert all(sorted(r.dealing.rounds[3].shown) == [0, 1, 2] for r in table.replicas)
    table.agree()


def test_a_seat_let_back_in_before_any_round_started_deals_in_the_first_two() -> None:
    """Seat 3 is cut off as the match begins and let back in before anything commits: its
    StartView's base is the match's start (of "round 1", as no Ready has committed), so it
    replays round 0's Readies too, and checks round 1's shares against their pledges as
    the others do: it deals in round 2, where it sat that round out."""
    table = Table(4, TableOptions(nerts_pile=1))
    _left_out_and_back(table, 3)
    assert len(table.of(3, RejoinedTable)) == 1
    table.choose(1, _aces(table))
    _deal(table, range(4))
    assert all(sorted(r.dealing.rounds[1].shown) == [0, 1, 2, 3] for r in table.replicas)
    _call(table)
    assert all(sorted(r.dealing.rounds[2].shown) == [0, 1, 2, 3] for r in table.replicas)
    table.agree()
