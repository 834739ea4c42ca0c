"""Human time at a seat: ready before a round, the countdown, idle, declared stuck."""

from __future__ import annotations

from p2pnerts.net import COUNTDOWN, SHOWN_IDLE, Pacing
from p2pnerts.net._pace import TELL_UNREADY
from p2pnerts.rules import DeclareStuck, TurnStock


def test_a_bot_is_ready_at_once_and_a_person_once_they_say_so_each_round() -> None:
    assert Pacing(person=False).said_ready
    person = Pacing(person=True)
    assert not person.said_ready
    person.ready(now=4.0)
    assert person.said_ready
    person.dealt()
    assert not person.said_ready  # the next round waits for them again


def test_the_next_round_waits_for_every_deck_no_one_has_said_ready_for() -> None:
    pacing = Pacing(person=False)
    decks = (0, 0, 1, 2)  # seats 0 and 1 play one deck
    pacing.said_ready_for(1, 2)
    pacing.said_ready_for(2, 1)  # ready for the round before: not this one
    assert pacing.unready([0, 1, 2, 3], decks, 2) == (2, 3)
    pacing.said_ready_for(3, 2)
    assert pacing.unready([0, 1, 2, 3], decks, 2) == (2,)


def test_play_waits_for_the_countdown_after_the_deal() -> None:
    pacing = Pacing(person=True)
    pacing.round_started(3, now=10.0)
    assert pacing.starts_in(10.0) == COUNTDOWN
    assert pacing.starts_in(10.0 + COUNTDOWN) == 0.0
    assert pacing.deadline(10.0) == 10.0 + COUNTDOWN  # the screen redraws as it ends


def test_a_seat_that_makes_no_move_is_due_to_be_declared_stuck_and_a_move_resets_it() -> None:
    pacing = Pacing(person=True, countdown=0.0, idle_after=20.0)
    pacing.round_started(2, now=0.0)
    assert not pacing.idle_due(19.0) and pacing.idle_due(20.0)
    pacing.moved(20.5)
    assert not pacing.idle_due(21.0) and pacing.deadline(21.0) == 40.5
    # So is a bot whose policy stopped moving (a bot's pace moves it more often than that).
    bot = Pacing(person=False, idle_after=20.0)
    bot.round_started(2, now=0.0)
    assert not bot.idle_due(19.0 + COUNTDOWN) and bot.idle_due(20.0 + COUNTDOWN)


def test_a_wait_on_the_table_is_no_idle_time_and_the_idle_time_starts_over_after_it() -> None:
    pacing = Pacing(person=False, countdown=0.0, idle_after=20.0)
    pacing.round_started(2, now=0.0)
    pacing.moved(15.0)
    pacing.waits(True, 16.0)  # stuck, say: waiting for the others to be
    assert not pacing.idle_due(50.0)
    pacing.waits(False, 50.0)  # the stocks rotate: something new to play
    assert not pacing.idle_due(69.0) and pacing.idle_due(70.0)
    assert pacing.deadline(60.0) == float("inf")  # (a bot's peer looks when its replica runs)


def test_a_seat_without_moves_shows_as_idle_but_not_one_waiting_stuck() -> None:
    pacing = Pacing(person=False, countdown=0.0)
    pacing.round_started(3, now=0.0)
    pacing.heard(1, TurnStock(1), 1.0)
    pacing.heard(1, DeclareStuck(1), 1.5)  # stuck just after its last move: waiting
    pacing.heard(2, TurnStock(2), 1.0)
    pacing.heard(2, DeclareStuck(2), 1.0 + SHOWN_IDLE)  # declared stuck after idling
    now = 1.0 + SHOWN_IDLE + 2
    idle = pacing.idle([False, True, True], now)
    assert idle == (now, 0.0, now - 1.0)
    assert pacing.idle([False, True, True], 1.0) == (0.0, 0.0, 0.0)  # not for a while yet


def test_a_seat_plays_while_it_made_a_move_within_the_idle_time() -> None:
    pacing = Pacing(person=True, countdown=0.0, idle_after=20.0)
    pacing.round_started(2, now=0.0)
    pacing.heard(1, TurnStock(1), 5.0)
    assert pacing.playing(1, 24.0) and not pacing.playing(1, 25.0)
    assert not pacing.playing(0, 21.0)


def test_a_round_kept_waiting_for_others_is_told_once_after_a_while() -> None:
    pacing = Pacing(person=False)
    assert pacing.still_waiting((2,), 0.0) == ()
    assert pacing.still_waiting((2,), TELL_UNREADY - 1) == ()
    assert pacing.still_waiting((2,), TELL_UNREADY) == (2,)
    assert pacing.still_waiting((2,), TELL_UNREADY + 9) == ()  # told once
    assert pacing.still_waiting((), 30.0) == ()
    assert pacing.still_waiting((1, 2), 31.0) == ()  # others now: the wait starts again
