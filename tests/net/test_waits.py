"""What a table waits for, read from a replica: a silent seat it cannot leave out, or a
table gone quiet on a seat that cannot go on by itself; and what a seat waits for, which
is no idle time."""

from __future__ import annotations

import pytest

from p2pnerts.net import IDLE_AFTER, Narrator, Pacing
from p2pnerts.net._closed import Closed
from p2pnerts.net._waits import (
    GONE_AFTER,
    Quiet,
    alone,
    declare_idle,
    forsaken,
    gone_words,
    stranded,
    stranded_words,
)
from p2pnerts.protocol import Replica, Status
from p2pnerts.rules import DeclareStuck, Move, TableOptions


def _silent_all_around(players: int) -> Replica:
    """Seat 0's replica, ticked as its peer ticks it, having heard nothing from anyone for
    ten seconds. (Ticked once after ten seconds, it would find that its own process had
    not run, and blame nobody.)"""
    replica = Replica(0, TableOptions(), players, now=0.0)
    for step in range(1, 41):
        replica.tick(step * replica.timing.heartbeat)
    return replica


def test_at_a_table_of_two_a_silent_seat_cannot_be_left_out_and_is_waited_for() -> None:
    replica = _silent_all_around(2)
    assert replica.suspected == {1}
    assert stranded(replica) == {1} and not alone(replica)
    narrator = Narrator(("Ann", "Bea"), replica.seats, 0)
    assert stranded_words(narrator, frozenset({1}), replica.members) == (
        "Bea silent: 1 of 2 seats are no majority, so the table waits for Bea to come back"
    )


def test_half_a_table_silent_is_waited_for_too() -> None:
    assert stranded(_silent_all_around(4)) == {1, 2, 3}


def test_a_table_that_hears_everyone_waits_for_no_silent_seat() -> None:
    replica = Replica(0, TableOptions(), 3, now=0.0)
    assert stranded(replica) == frozenset() and not alone(replica)


def test_a_seat_waiting_for_silent_seats_counts_the_table_gone_only_after_long_quiet() -> None:
    replica = _silent_all_around(2)  # Bea silent for ten seconds: Ann waits for her
    assert not forsaken(replica, quiet=10.0)
    assert not forsaken(replica, quiet=GONE_AFTER - 1)
    assert forsaken(replica, quiet=GONE_AFTER)
    assert forsaken(replica, quiet=5.0, after=5.0)


def test_a_seat_left_out_whose_rejoin_nobody_answers_counts_the_table_gone() -> None:
    seated = Replica(0, TableOptions(), 3, now=0.0)
    replica = Replica.restart(0, TableOptions(), 3, disk=seated.disk, now=0.0)
    assert replica.status is Status.OUT
    assert not forsaken(replica, quiet=GONE_AFTER - 1)
    assert forsaken(replica, quiet=GONE_AFTER)


def test_a_seat_that_hears_everyone_never_counts_the_table_gone() -> None:
    assert not forsaken(Replica(0, TableOptions(), 3, now=0.0), quiet=10 * GONE_AFTER)


def test_a_bot_says_why_it_ended_a_match_that_went_quiet() -> None:
    assert gone_words(121.4) == (
        "no other seat has answered for 121 s (the table ended, or went on without it)"
    )


def test_time_this_process_did_not_run_counts_as_no_silence() -> None:
    quiet = Quiet(0.0, heartbeat=0.25)
    for now in (0.25, 0.5, 0.75):
        quiet.ran(now)
    assert quiet.blocked(0.75, blocked=True) == 0.0  # left out, say: blocked from 0.75
    quiet.ran(1.0)
    assert (1.0 - quiet.heard_at, quiet.blocked(1.0, blocked=True)) == (1.0, 0.25)
    # Stopped for ten minutes (a closed lid): back, it has not heard the table yet, and
    # has been quiet, and blocked, only as long as before it stopped.
    quiet.ran(601.0)
    assert 601.0 - quiet.heard_at == 1.0
    assert quiet.blocked(601.0, blocked=True) == 0.25
    quiet.heard(601.2)
    quiet.ran(601.25)  # a heartbeat on: no gap
    assert 601.25 - quiet.heard_at == pytest.approx(0.05)
    assert quiet.blocked(601.25, blocked=False) == 0.0 and quiet.blocked_since is None


def test_a_seat_that_hears_nobody_while_it_runs_grows_quiet() -> None:
    quiet = Quiet(0.0, heartbeat=0.25)
    for step in range(1, 41):
        quiet.ran(step * 0.25)
    assert 10.0 - quiet.heard_at == 10.0


class _TwoSeats:
    """Two replicas playing a round, every message carried at once and the time moved by
    hand, as the seats' peers would: seat 0's peer asks `declare_idle` each time it runs."""

    def __init__(self, *, person: bool = False) -> None:
        self.now = 0.0
        self.replicas = [Replica(s, TableOptions(), 2, now=0.0, auto_stuck=False) for s in (0, 1)]
        self.pacing = Pacing(person=person, countdown=0.0)
        for seat, replica in enumerate(self.replicas):
            replica.start_round(bytes([seat]) * 32, self.now)
        self.run_for(1.0)
        self.pacing.round_started(2, self.now)

    def run_for(self, seconds: float) -> bool:
        """Let ``seconds`` pass a quarter second at a time; whether seat 0 was declared
        stuck for idleness on the way."""
        declared = False
        for _ in range(int(seconds / 0.25)):
            self.now += 0.25
            for replica in self.replicas:
                replica.tick(self.now)
            self._carry()
            declared |= declare_idle(self.replicas[0], self.pacing, self.now)
        return declared

    def move(self, seat: int, move: Move) -> None:
        if seat == 0:
            self.pacing.moved(self.now)
        self.replicas[seat].intend(move, self.now)
        self._carry()

    def _carry(self) -> None:
        moved = True
        while moved:
            moved = False
            for replica in self.replicas:
                for message in replica.take_outgoing():
                    moved = True
                    self.replicas[1 - replica.seat].receive(message, self.now)
                replica.take_events()


def test_a_seat_that_waited_stuck_for_the_others_is_not_idle_when_the_stocks_rotate() -> None:
    # Before, it was declared stuck for idleness the moment the stocks rotated, before
    # its next look ("made no move for 20 s, nor said it was stuck"), and sat out its new
    # stock: a table's last seat to get stuck took 20 s or more, under load, say.
    table = _TwoSeats()
    table.move(0, DeclareStuck(0))
    assert not table.run_for(IDLE_AFTER + 10)  # stuck, waiting for seat 1: not idle
    table.move(1, DeclareStuck(1))
    assert not table.run_for(0.25)  # the rotation: seat 0 has a new stock to play
    public = table.replicas[0].display
    assert public is not None and public.rotations == 1
    assert not public.tableau_of(0).stuck
    # From the rotation on, its idle time counts again.
    assert not table.run_for(IDLE_AFTER - 1)
    assert table.run_for(1.0)


def test_a_person_declared_stuck_while_away_is_declared_again_as_the_stocks_rotate() -> None:
    table = _TwoSeats(person=True)
    assert table.run_for(IDLE_AFTER)  # away: declared stuck for them
    assert not table.run_for(10.0)
    table.move(1, DeclareStuck(1))
    assert table.run_for(0.25)  # still away: the rotation does not wait for them


def _waiting_for_bea(hears_others: bool) -> tuple[Quiet, Replica, str | None]:
    """Ann's seat at a table of two, Bea silent: Ann's `Quiet` run a heartbeat at a time
    for up to 30 s after that, hearing some other seat at every run or nobody: when it
    gives up, and why."""
    replica = _silent_all_around(2)
    narrator = Narrator(("Ann", "Bea"), replica.seats, 0)
    quiet = Quiet(10.0, heartbeat=replica.timing.heartbeat, gone_after=20.0)
    said = None
    for step in range(1, 121):
        now = 10.0 + step * replica.timing.heartbeat
        quiet.ran(now)
        if hears_others:
            quiet.heard(now)
        said = quiet.gives_up(replica, narrator, now)
        if said is not None:
            return quiet, replica, f"{now:.2f}: {said}"
    return quiet, replica, said


def test_a_bot_waiting_for_a_silent_seat_gives_up_after_gone_after_seconds() -> None:
    *_, said = _waiting_for_bea(hears_others=True)
    assert said == "30.25: the table waited 20 s for Bea to come back"


def test_a_bot_that_hears_nobody_gives_up_once_the_table_counts_as_gone() -> None:
    quiet, replica, said = _waiting_for_bea(hears_others=False)
    assert said == "30.00: " + gone_words(20.0)
    assert quiet.forsaken(replica, 30.0) == 20.0 and quiet.deadline(30.0) == float("inf")
    assert quiet.deadline(29.0) == 30.0


def _closed_on_ann(replica: Replica, answered_at: float | None = None) -> str | None:
    """Ann's seat (seat 0 of ``replica``) unable to play on, hearing nobody, where every
    other seat's port refuses each try from 12 s on (until ``answered_at``, when one takes
    it), run a heartbeat at a time for up to 60 s: when it gives up, and why."""
    narrator = Narrator(("Ann", "Bea", "Cy")[: replica.players], replica.seats, 0)
    others = range(1, replica.players)
    closed = Closed(others)
    quiet = Quiet(10.0, heartbeat=replica.timing.heartbeat, gone_after=120.0, closed=closed)
    for seat in others:
        closed.refused(seat, 12.0)
    for step in range(1, 241):
        now = 10.0 + step * replica.timing.heartbeat
        if answered_at is not None and now >= answered_at:
            closed.answered(1)
        quiet.ran(now)
        said = quiet.gives_up(replica, narrator, now)
        if said is not None:
            return f"{now:.2f}: {said}"
    return None


def _left_out() -> Replica:
    seated = Replica(0, TableOptions(), 3, now=0.0)
    return Replica.restart(0, TableOptions(), 3, disk=seated.disk, now=0.0)


def test_a_seat_left_out_that_finds_every_port_closed_counts_the_table_gone_in_seconds() -> None:
    assert _closed_on_ann(_left_out()) == "17.00: " + gone_words(7.0, closed=True)
    assert "every other seat's port is closed" in gone_words(7.0, closed=True)


def test_a_seat_waiting_for_silent_seats_whose_ports_are_closed_waits_longer() -> None:
    # (the silent seat may have crashed, and be started again on the same port)
    said = _closed_on_ann(_silent_all_around(2))
    assert said == "42.00: " + gone_words(32.0, closed=True)


def test_a_port_that_takes_a_try_again_leaves_the_wait_at_gone_after() -> None:
    assert _closed_on_ann(_left_out(), answered_at=14.0) is None  # (not within 60 s)
    assert not forsaken(_left_out(), quiet=60.0, closed=4.0)
    assert forsaken(_left_out(), quiet=60.0, closed=5.0)
    assert not forsaken(_left_out(), quiet=4.0, closed=60.0)
