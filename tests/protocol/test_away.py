"""A seat whose own process stops (a closed lid) blames nobody, is told what happened and
how long it was away, and tells every round once, in order."""

from __future__ import annotations

import pytest
from _table import Table, order

from p2pnerts.protocol import (
    PeerExcluded,
    PeerRecovered,
    PeerRejoined,
    PeerSuspected,
    RejoinedTable,
    Returned,
    RoundMissed,
    RoundOver,
    RoundStarted,
    ShutOut,
    SitOut,
    Status,
)
from p2pnerts.protocol._away import Record
from p2pnerts.rules import (
    NERTS,
    NEW_FOUNDATION,
    CallNerts,
    Card,
    DeclareStuck,
    EndReason,
    Suit,
    TableOptions,
    ToFoundation,
    TurnStock,
)

STOPPED = 2


def _table(**options: object) -> Table:
    """Three seats playing round 1; seat 0 has played its ace of hearts."""
    opts = TableOptions(**options)  # type: ignore[arg-type]
    table = Table(3, opts)
    orders = [order(0, ["AH"], ["2H", "9C", "9S", "KD"], opts)]
    orders += [order(s, ["QS"], ["2H", "9C", "9S", "KD"], opts) for s in (1, 2)]
    table.start(orders)
    table.play(0, ToFoundation(0, Card(0, 1, Suit.HEARTS), NERTS, NEW_FOUNDATION))
    return table


def _stop(table: Table, seconds: float) -> None:
    """Stop seat 2's process for ``seconds`` while the others run on."""
    table.paused.add(STOPPED)
    table.run_for(seconds)
    table.paused.discard(STOPPED)


@pytest.mark.parametrize("first", ["tick", "message"])
def test_a_seat_stopped_long_is_told_it_was_left_out_and_back_and_blames_nobody(
    first: str,
) -> None:
    table = _table()
    _stop(table, 5)
    if first == "message":
        table.deliver(0, STOPPED)  # what waited in its socket comes before its timer
    table.run_for(4)
    assert not table.of(STOPPED, PeerSuspected), "its own stall is nobody else's silence"
    (shut,) = table.of(STOPPED, ShutOut)
    assert shut.away_for is not None and 5.0 <= shut.away_for < 5.5
    assert table.of(STOPPED, RejoinedTable)
    assert table.replicas[STOPPED].status is Status.NORMAL
    for seat in (0, 1):
        (back,) = table.of(seat, PeerRejoined)
        assert back.seat == STOPPED and back.away_for is not None and back.away_for >= 5.0
    table.agree()


def test_a_seat_stopped_briefly_is_told_the_table_waited_and_the_others_how_long() -> None:
    table = _table()
    _stop(table, 1.5)
    table.run_for(2)
    (back,) = table.of(STOPPED, Returned)
    assert 1.5 <= back.away_for < 2.0
    assert not table.of(STOPPED, PeerSuspected) and not table.of(STOPPED, ShutOut)
    for seat in (0, 1):
        (heard,) = table.of(seat, PeerRecovered)
        assert heard.seat == STOPPED and heard.silent_for is not None
        assert heard.silent_for >= 1.0


def test_a_round_replayed_on_coming_back_is_told_once() -> None:
    table = _table()
    _stop(table, 5)
    table.run_for(4)
    started = table.of(STOPPED, RoundStarted)
    assert [(e.round, e.again) for e in started] == [(1, False), (1, True)]
    assert not table.of(STOPPED, SitOut), "dealt in before it stopped, it plays on"


def test_rounds_missed_while_away_are_told_and_a_round_dealt_then_is_sat_out() -> None:
    table = _table(nerts_pile=1)
    table.paused.add(STOPPED)
    table.run_for(5)  # seat 2 is left out
    table.play(0, CallNerts(0))  # round 1 ends while it is away
    opts = table.options
    number = max(table.replicas[0].round, table.replicas[0].playing) + 1
    table.choose(
        number,
        [order(s, ["AH" if s == 0 else "5C"], ["6D", "7S", "8H", "9C"], opts) for s in (0, 1)],
    )
    for seat in (0, 1):
        table.deal(seat)
    table.flush()
    table.settle()  # round 2 starts without it
    table.paused.discard(STOPPED)
    table.run_for(4)
    news = [
        e
        for e in table.events[STOPPED]
        if isinstance(e, ShutOut | RejoinedTable | RoundMissed | RoundStarted | SitOut)
    ]
    kinds = [type(e).__name__ for e in news]
    assert kinds == [
        "RoundStarted",
        "ShutOut",
        "RejoinedTable",
        "RoundMissed",
        "RoundStarted",
        "SitOut",
    ]
    (missed,) = table.of(STOPPED, RoundMissed)
    (over,) = table.of(0, RoundOver)
    assert missed.round == 1 and missed.points == tuple(s.points for s in over.scores)
    assert table.of(STOPPED, SitOut) == [SitOut(2)]
    table.play(0, ToFoundation(0, Card(0, 1, Suit.HEARTS), NERTS, NEW_FOUNDATION))
    table.play(0, CallNerts(0))
    (ended,) = table.of(STOPPED, RoundOver)
    assert ended.round == 2 and ended.dealt == (0, 1), "told as a round it sat out"


def test_a_round_that_began_and_ended_while_away_is_not_told_as_one_to_sit_out() -> None:
    record = Record(deck=2)
    record.tell([RoundStarted(1, (0, 1, 2)), RoundOver(1, EndReason.NERTS, 0, (), b"")])
    assert record.rejoined([(1, 2, 3), (4, 5, 6), (7, 8, 9)]) == [
        RoundMissed(2, (4, 5, 6)),
        RoundMissed(3, (7, 8, 9)),
    ]
    over = RoundOver(4, EndReason.NERTS, 0, (), b"", dealt=(0, 1))
    assert record.tell([RoundStarted(4, (0, 1)), over]) == [RoundStarted(4, (0, 1)), over]


CUT = 3


def _four() -> Table:
    opts = TableOptions()
    table = Table(4, opts)
    table.start([order(s, ["QS"], ["2H", "9C", "9S", "KD"], opts) for s in range(4)])
    return table


@pytest.mark.parametrize("lost", [False, True], ids=["held", "lost"])
def test_a_seat_cut_off_for_seconds_is_out_and_asks_back_as_soon_as_its_links_return(
    lost: bool,
) -> None:
    table = _four()
    table.cut_off(CUT, 4.5, lost=lost)
    assert table.replicas[0].view > 0 and CUT not in table.replicas[0].members
    # Meanwhile it voted for later views of its own, which cannot form without the others.
    assert table.replicas[CUT].status is Status.CHANGING
    assert not table.of(CUT, ShutOut)
    # Back: what arrives first shows it was left out (the StartView that left it out,
    # or, lost with its connection, the coordinator's next word in that view), not 2 s
    # of waiting on a newer view it never gets.
    table.settle()
    table.advance(table.timing.heartbeat)
    table.settle()
    assert table.of(CUT, ShutOut)
    table.advance(table.timing.heartbeat)
    table.settle()
    assert table.of(CUT, RejoinedTable)
    assert table.replicas[CUT].status is Status.NORMAL
    assert CUT in table.replicas[0].members
    table.agree()


def test_a_seat_back_from_away_turns_its_stock_at_once_though_it_was_declared_stuck_for_it() -> (
    None
):
    table = _table()
    _stop(table, 5)
    table.run_for(4)
    back = table.replicas[STOPPED]
    assert back.status is Status.NORMAL
    assert back.display is not None and back.display.tableau_of(STOPPED).stuck  # while away
    assert back.stuck_while_away
    stock = len(back.display.tableau_of(STOPPED).stock)
    table.play(STOPPED, TurnStock(STOPPED))
    for replica in table.replicas:
        tableau = replica.display.tableau_of(STOPPED)  # type: ignore[union-attr]
        assert not tableau.stuck and len(tableau.stock) < stock
    assert not back.stuck_while_away  # (it is not stuck any more)
    table.agree()


def test_a_player_declared_stuck_while_idle_turns_the_stock_at_once_when_back() -> None:
    # The seat's peer declared it for the idle player: like a seat back from away, the
    # player turns on at once, not only once everyone is stuck. Their own declaration
    # since takes that back.
    table = _table()
    seat = table.replicas[STOPPED]
    seat.intend(DeclareStuck(STOPPED), table.now, idle=True)
    table.flush()
    table.settle()
    assert seat.display is not None and seat.display.tableau_of(STOPPED).stuck
    assert seat.stuck_for_idle
    table.play(STOPPED, TurnStock(STOPPED))
    assert not seat.stuck_for_idle
    for replica in table.replicas:
        display = replica.display
        assert display is not None and not display.tableau_of(STOPPED).stuck
    table.play(STOPPED, DeclareStuck(STOPPED))  # the player's own, this time
    assert not seat.stuck_for_idle
    table.agree()


@pytest.mark.parametrize("majority", [False, True], ids=["acks", "majority"])
def test_a_seat_back_in_is_told_who_else_the_table_went_on_without(majority: bool) -> None:
    """Two seats stop; the other three leave both out. The first back is told it is back
    and that the other is left out: the view it comes back to lacks a seat it never saw go.
    (At a majority's table the seat coming back replays the round, which commits the
    StartView at once; the seats at the table are then its members, and it was told of
    nobody: a real table's host, out and back, never said who else had gone.)"""
    opts = TableOptions()
    table = Table(5, opts, majority=majority)
    table.start([order(s, ["QS"], ["2H", "9C", "9S", "KD"], opts) for s in range(5)])
    table.paused |= {3, 4}
    table.run_for(12 if majority else 5)  # (a majority's table waits `depart_after` for them)
    assert table.replicas[0].members == frozenset({0, 1, 2})
    table.paused.discard(3)
    table.run_for(4)
    assert table.replicas[3].status is Status.NORMAL
    assert table.replicas[3].members == frozenset({0, 1, 2, 3})
    assert table.of(3, RejoinedTable)
    assert [e.seat for e in table.of(3, PeerExcluded)] == [4]
    for seat in (0, 1, 2):
        assert sorted(e.seat for e in table.of(seat, PeerExcluded)) == [3, 4]
