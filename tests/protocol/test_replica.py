"""Replicas driven against each other directly: ordering, races, ties, Nerts, stuck, faults."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from _table import Table, order

from p2pnerts.protocol import (
    Ack,
    AuditFailed,
    AuditPassed,
    Diverged,
    LocalProtocolError,
    Message,
    PeerExcluded,
    PeerRejoined,
    PeerSuspected,
    Play,
    PlayCommitted,
    PlayReturned,
    RemoteProtocolError,
    Reveal,
    RoundOver,
    RoundStarted,
    Status,
)
from p2pnerts.rules import (
    NERTS,
    NEW_FOUNDATION,
    CallNerts,
    Card,
    DeclareStuck,
    Suit,
    TableOptions,
    TieRule,
    ToFoundation,
    ToWork,
    TurnStock,
    shuffled_deck,
)

AH0, H2_0, H2_1 = Card(0, 1, Suit.HEARTS), Card(0, 2, Suit.HEARTS), Card(1, 2, Suit.HEARTS)


def _table(players: int = 2, **options: object) -> Table:
    """Seat 0 shows the ace of hearts on its Nerts pile; every seat has the two of hearts
    on its first work pile; the ace has already started foundation #0."""
    opts = TableOptions(**options)  # type: ignore[arg-type]
    table = Table(players, opts)
    orders = [order(0, ["AH"], ["2H", "9C", "9S", "KD"], opts)]
    orders += [order(s, ["QS"], ["2H", "9C", "9S", "KD"], opts) for s in range(1, players)]
    table.start(orders)
    table.play(0, ToFoundation(0, AH0, NERTS, NEW_FOUNDATION))
    return table


def _two_of_hearts(seat: int) -> ToFoundation:
    return ToFoundation(seat, Card(seat, 2, Suit.HEARTS), 0, 0)


def test_every_seat_commits_the_ready_messages_and_the_first_play() -> None:
    table = _table(3)
    for replica in table.replicas:
        assert replica.public is not None
        assert [f.rank for f in replica.public.foundations] == [1]
    table.agree()


def test_a_race_the_earlier_clock_stays_and_the_later_returns_naming_the_winner() -> None:
    table = _table(3)
    table.level_clocks([0, 1])
    table.replicas[1].send_ack(table.now)  # seat 1 is one tick ahead: its play sorts later
    first = table.replicas[0].intend(_two_of_hearts(0), table.now)
    table.replicas[1].intend(_two_of_hearts(1), table.now)
    table.flush()
    table.deliver(0, 1)  # seat 1 hears of seat 0's play, but cannot commit it alone
    assert [e for e in table.events[1] if isinstance(e, PlayReturned)] == []
    table.settle()
    for seat in range(3):
        committed = [e for e in table.of(seat, PlayCommitted) if e.move == first]
        returned = table.of(seat, PlayReturned)
        assert committed and len(returned) == 1
        assert returned[0].seat == 1 and returned[0].winner == 0
        assert "is not next on foundation #0" in returned[0].reason
    back = table.replicas[1].display
    assert back is not None and back.tableau_of(1).work[0].cards == (H2_1,)
    table.agree()


@pytest.mark.parametrize("rule", list(TieRule))
def test_a_tie_at_equal_clocks_follows_the_tie_rule(rule: TieRule) -> None:
    table = _table(tie_rule=rule)
    clock = table.level_clocks([0, 1]) + 1
    for seat in (0, 1):
        table.replicas[seat].intend(_two_of_hearts(seat), table.now)
    table.flush()
    table.settle()
    told: list[PlayCommitted | PlayReturned] = [
        *table.of(0, PlayCommitted),
        *table.of(0, PlayReturned),
    ]
    races = [e for e in told if e.move in (_two_of_hearts(0), _two_of_hearts(1))]
    assert sorted((e.seat, e.clock) for e in races) == [(0, clock), (1, clock)]  # concurrent
    plays = [e for e in table.of(0, PlayCommitted) if e.clock == clock]
    public = table.replicas[0].public
    assert public is not None
    if rule is TieRule.BOTH_STAY:
        assert sorted(p.seat for p in plays) == [0, 1] and [p.tie for p in plays] == [False, True]
        assert public.foundations[0].cards[1:] == (H2_0, H2_1)
    else:
        winner = 0 if rule is TieRule.SEAT else min((0, 1), key=lambda s: (s - clock) % 2)
        assert [p.seat for p in plays] == [winner]
        assert [(e.seat, e.winner) for e in table.of(0, PlayReturned)] == [(1 - winner, winner)]
    table.agree()


def test_a_play_in_the_air_when_nerts_is_called_completes_and_a_later_one_returns() -> None:
    table = _table(3, nerts_pile=1)
    clock = table.level_clocks([0, 1]) + 1
    table.replicas[0].intend(CallNerts(0), table.now)
    table.replicas[1].intend(_two_of_hearts(1), table.now)
    table.flush()
    table.deliver(0, 2)  # seat 2 hears the call before it plays: its play is later
    table.play(2, _two_of_hearts(2))
    for seat in range(3):
        [over] = table.of(seat, RoundOver)
        assert over.caller == 0
        assert [(e.seat, e.clock) for e in table.of(seat, PlayCommitted)][-2:] == [
            (1, clock),
            (0, clock),
        ]
        [late] = table.of(seat, PlayReturned)
        assert late.seat == 2 and late.reason == "the round is over"
    assert len({e.digest for s in range(3) for e in table.of(s, RoundOver)}) == 1


def test_when_every_seat_is_stuck_every_peer_rotates_the_stocks_at_the_same_place() -> None:
    table = _table(3)
    for seat in range(3):
        table.replicas[seat].intend(DeclareStuck(seat), table.now)
    table.flush()
    table.settle()
    for replica in table.replicas:
        assert replica.public is not None and replica.public.rotations == 1
    table.agree()


def test_one_hand_a_move_that_depends_on_the_play_in_the_air_waits_for_it() -> None:
    table = _table()
    table.replicas[0].intend(_two_of_hearts(0), table.now)  # from work pile 1
    table.replicas[0].intend(TurnStock(0), table.now)  # touches nothing the 2 left or met
    with pytest.raises(LocalProtocolError, match="one hand"):
        table.replicas[0].intend(DeclareStuck(0), table.now)
    table.flush()
    table.settle()
    table.replicas[0].intend(DeclareStuck(0), table.now)  # landed: the hand is free


@pytest.mark.parametrize("by", ["peer", "player"])
def test_a_stuck_player_turns_the_stock_again_only_once_a_play_opens_up(by: str) -> None:
    # Seat 2's deal has no play through a whole pass of its stock: its peer declares it
    # stuck at once (SPEC 4.9's SHOULD), or its player does. The two of hearts is in that
    # stock.
    opts = TableOptions()
    table = Table(3, opts, auto_stuck=by == "peer")
    orders = [order(0, ["AH"], ["2H", "9C", "9S", "KD"], opts)]
    orders += [order(1, ["QS"], ["2H", "9C", "9S", "KD"], opts)]
    table.start([*orders, shuffled_deck(2, opts, random.Random(284))])
    if by == "player":
        table.play(2, DeclareStuck(2))
    stuck = table.replicas[2]
    assert stuck.display is not None and stuck.display.tableau_of(2).stuck
    assert not stuck.turns_though_stuck
    with pytest.raises(LocalProtocolError, match="nothing your stock turns up can go anywhere"):
        stuck.intend(TurnStock(2), table.now)
    # Seat 0's ace of hearts starts a foundation: the two in seat 2's stock can go up.
    table.play(0, ToFoundation(0, AH0, NERTS, NEW_FOUNDATION))
    assert stuck.turns_though_stuck
    cards = len(stuck.display.tableau_of(2).stock)
    table.play(2, TurnStock(2))
    for replica in table.replicas:
        tableau = replica.display.tableau_of(2)
        assert not tableau.stuck and len(tableau.stock) < cards
    table.agree()


def test_a_repeat_is_ignored_and_a_gap_or_a_forged_sender_is_a_remote_error() -> None:
    table = _table(3)
    replica = table.replicas[1]
    play = table.replicas[0].intend(TurnStock(0), table.now)
    table.flush()
    [message] = list(table.links[0, 1])
    table.deliver(0, 1)
    committed = replica.committed
    replica.receive(message, table.now)  # delivered again after a reconnect
    assert replica.committed == committed
    assert isinstance(message, Play) and message.move == play
    sign = table.replicas[0].signer.sign
    skipped = sign(Play(0, 0, message.clock + 5, message.seq + 2, 1, TurnStock(0, rotation=0)))
    with pytest.raises(RemoteProtocolError, match="skipped"):
        replica.receive(skipped, table.now)
    with pytest.raises(RemoteProtocolError, match="cannot reach"):
        replica.receive(Play(1, 0, 99, 99, 1, TurnStock(1, rotation=0)), table.now)
    forged = Play(2, 0, message.clock + 1, 1, 1, TurnStock(0, rotation=0))
    with pytest.raises(RemoteProtocolError, match="move for another seat"):
        replica.receive(forged, table.now)


def test_a_digest_that_differs_at_the_same_commit_index_is_reported() -> None:
    table = _table()
    replica = table.replicas[1]
    last = table.replicas[0]
    forged = Ack(
        0, 0, last.clock + 1, last.have[0] + 1, tuple(last.have), replica.committed, bytes(16)
    )
    replica.receive(forged, table.now)
    assert [e.seat for e in replica.take_events() if isinstance(e, Diverged)] == [0]


def _lie_about_the_secret(message: Message) -> list[Message]:
    if isinstance(message, Reveal) and message.round == 1:
        return [replace(message, secret=bytes(32))]
    return [message]


def test_a_secret_other_than_the_pledged_one_fails_the_audit_and_voids_the_round() -> None:
    table = _table(3, nerts_pile=1)
    table.tamper[1] = _lie_about_the_secret  # a peer lying about its deck after the round
    table.play(1, _two_of_hearts(1))
    table.play(0, CallNerts(0))
    for seat in (0, 2):
        failed = table.of(seat, AuditFailed)
        assert [(e.seat, "pledge" in e.reason, e.points) for e in failed] == [(1, True, -2)]
        assert not table.of(seat, AuditPassed)
        over = table.of(seat, RoundOver)[-1]
        assert [s.points for s in over.scores] == [1, -1, -2]  # as the round ended
        assert table.replicas[seat].match_scores == [(1, -2, -2)]  # voided: the lowest


def test_a_crashed_seat_is_excluded_by_the_others_who_play_on() -> None:
    table = _table(3)
    table.crash(2)
    table.run_for(6)
    for seat in (0, 1):
        assert [e.seat for e in table.of(seat, PeerSuspected)] == [2]
        assert [e.seat for e in table.of(seat, PeerExcluded)] == [2]
        assert table.replicas[seat].members == {0, 1}
    before = table.replicas[0].committed
    table.play(0, _two_of_hearts(0))
    assert table.replicas[1].committed > before
    table.agree()


def test_a_restarted_seat_rejoins_and_recovers_the_table() -> None:
    table = _table(3)
    table.play(2, _two_of_hearts(2))
    disk = table.crash(2)
    table.run_for(6)
    table.restart(2, disk)
    table.run_for(4)
    for seat in (0, 1):
        assert [e.seat for e in table.of(seat, PeerRejoined)] == [2]
    rejoined = table.replicas[2]
    assert rejoined.status is Status.NORMAL and rejoined.members == {0, 1, 2}
    assert rejoined.public == table.replicas[0].public
    display = rejoined.display
    assert display is not None and display.tableau_of(2).work[0].cards == ()
    table.agree()


def test_a_minority_commits_nothing_and_the_majority_goes_on_then_the_two_heal() -> None:
    table = _table(5)
    minority, majority = {0, 1}, {2, 3, 4}
    table.cut = {frozenset((a, b)) for a in minority for b in majority}
    before = [r.committed for r in table.replicas]
    table.run_for(6)
    assert [table.replicas[s].committed for s in minority] == [before[s] for s in minority]
    for seat in majority:
        assert table.replicas[seat].members == majority
    table.play(2, _two_of_hearts(2))
    assert table.replicas[3].committed > before[3]
    table.cut = set()
    for a in range(5):  # reconnected links resend what the other side may lack
        for b in range(5):
            if a != b and (a in minority) != (b in minority):
                table.links[a, b].extend(table.replicas[a].resend_to(b))
    table.run_for(6)
    assert all(r.members == {0, 1, 2, 3, 4} for r in table.replicas)
    table.agree()


def test_a_round_dealt_while_a_seat_is_away_starts_without_it() -> None:
    table = _table(3, nerts_pile=1)
    table.play(0, CallNerts(0))
    assert all(table.of(s, RoundOver) for s in range(3))
    table.crash(2)
    table.run_for(6)
    opts = table.options
    table.choose(2, [order(s, ["5C"], ["6D", "7S", "8H", "9C"], opts) for s in range(3)])
    for seat in (0, 1):
        table.deal(seat)
    table.flush()
    table.settle()
    for seat in (0, 1):
        assert [e.round for e in table.of(seat, RoundStarted)] == [1, 2]
        public = table.replicas[seat].public
        assert public is not None
        away = public.tableau_of(2)
        assert away.stuck and not away.nerts and not away.stock
    table.agree()


def test_a_ready_that_commits_after_play_started_deals_nothing_in() -> None:
    table = _table(3, nerts_pile=1)
    table.play(0, CallNerts(0))
    disk = table.crash(2)
    table.run_for(6)
    opts = table.options
    table.choose(2, [order(s, ["5C"], ["6D", "7S", "8H", "9C"], opts) for s in range(3)])
    table.deal(0)
    table.flush()
    table.settle()  # round 2's first Ready commits: its participants are seats 0 and 1
    table.restart(2, disk)
    table.run_for(4)
    assert table.replicas[2].members == {0, 1, 2}
    table.deal(1)
    table.flush()
    for seat in (0, 2):
        table.deliver(1, seat)  # seat 2 deals after it has seen seat 1's Ready: later
    table.deal(2)
    table.flush()
    table.settle()
    for seat in range(3):
        replica = table.replicas[seat]
        assert [e.dealt for e in table.of(seat, RoundStarted) if e.round == 2] == [(0, 1)]
        assert 2 in replica.sitting_out()  # its Ready is in, but came too late to be dealt
        public = replica.public
        assert public is not None and public.tableau_of(2).stuck
        assert not public.tableau_of(2).nerts
    with pytest.raises(LocalProtocolError, match="sit this round out"):
        table.replicas[2].intend(CallNerts(2), table.now)
    for move in (ToWork(0, Card(0, 5, Suit.CLUBS), NERTS, 0), CallNerts(0)):
        table.play(0, move)
    for seat in range(3):
        assert [e.round for e in table.of(seat, RoundOver)][-1] == 2
        assert not table.of(seat, AuditFailed)
    table.agree()
