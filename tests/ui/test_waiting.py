"""The status line says whom the table waits for, and why; idle seats are marked."""

from __future__ import annotations

from dataclasses import replace

from _tables import dealt

from p2pnerts.protocol import PlayCommitted
from p2pnerts.rules import NERTS, DeclareStuck, EndReason, RoundEnd, apply
from p2pnerts.ui import Liveness, Snapshot, TableModel, render
from p2pnerts.ui._waiting import seat_note, stuck_line, waiting

TABLE = dealt(["7H"], ["8S", "9D", "KC", "AS"])


def model_with(snap: Snapshot) -> TableModel:
    model = TableModel(0, ("Ann", "Bea"), TABLE.options)
    model.refresh(snap)
    return model


def test_before_a_round_it_asks_the_player_and_names_who_else_is_not_ready() -> None:
    model = model_with(Snapshot(unready=(0, 1)))
    assert waiting(model) == "Enter when you are ready for the first round (Bea not yet)"
    model.next_round()
    assert model.ready
    assert waiting(model) == "Waiting for Bea to be ready for the first round"
    assert waiting(model_with(Snapshot(unready=()))) == ""


def test_the_countdown_is_shown_before_play() -> None:
    model = model_with(Snapshot(display=TABLE, starts_in=2.2))
    model.round_number = 3
    assert waiting(model) == "Round 3 starts in 3 s…"
    status = render(model, 80, 24).rows[-1]
    assert "Round 3 starts in 3 s…" in "".join(text for _, text in status.frags)


def test_a_stuck_player_is_told_whom_the_table_waits_for_and_that_they_are_idle() -> None:
    stuck, _ = apply(TABLE, DeclareStuck(0))
    model = model_with(Snapshot(display=stuck, idle=(0.0, 14.0)))
    waits = "You are stuck: play a card to go on, or wait for Bea (Bea idle 14s)"
    assert stuck_line(model) == waits
    assert seat_note(model, 1) == "idle 14s"
    assert stuck_line(model_with(Snapshot(display=TABLE))) == ""  # not stuck: nobody waited for
    assert waiting(model) == "", "a stuck player may play on: the table waits for nobody"


def test_a_player_declared_stuck_while_idle_is_told_why() -> None:
    stuck, _ = apply(TABLE, DeclareStuck(0))
    model = model_with(Snapshot(display=stuck, idle=(25.0, 0.0)))
    assert stuck_line(model) == "No move for 25 s, so stuck: play a card to go on, or wait for Bea"
    model.names = ("Ann", "Bot 2")
    assert len(stuck_line(model)) <= 80  # (the status line of an 80-column screen, bots' names)


def test_a_player_declared_stuck_for_being_idle_is_told_to_turn_the_stock() -> None:
    stuck, _ = apply(TABLE, DeclareStuck(0))
    idle = Snapshot(display=stuck, idle=(25.0, 0.0), stuck_for_idle=True, turns_though_stuck=True)
    model = model_with(idle)
    assert stuck_line(model) == (
        "No move for 25 s, so stuck: turn your stock or play a card to go on"
    )
    over = stuck._replace(ended=RoundEnd(EndReason.STUCK, None))
    model.refresh(replace(idle, display=over))
    assert stuck_line(model) == "", "the round is over: nothing to turn or play"
    # With no play through a whole pass of the stock, there is none to turn to.
    model.refresh(replace(idle, turns_though_stuck=False))
    assert stuck_line(model) == "No move for 25 s, so stuck: play a card to go on, or wait for Bea"


def test_the_ticker_tells_a_stuck_declaration_made_for_an_idle_player_as_the_stock_to_turn() -> (
    None
):
    stuck, _ = apply(TABLE, DeclareStuck(0))
    declared = PlayCommitted(0, DeclareStuck(0), 7, False)
    idle = Snapshot(display=stuck, idle=(25.0, 0.0), stuck_for_idle=True, turns_though_stuck=True)
    model = model_with(idle)
    model.refresh(model.snap, [declared])
    assert model.ticker[-1].text == (
        "no move for a while, so you are stuck: turn your stock to go on"
    )
    provably = model_with(replace(idle, turns_though_stuck=False))  # no play to turn to
    provably.refresh(provably.snap, [declared])
    assert provably.ticker[-1].text == "you are stuck: waiting for the others (or play a card)"
    own = model_with(Snapshot(display=stuck))  # the player's own declaration: no stock turn
    own.refresh(own.snap, [declared])
    assert own.ticker[-1].text == "you are stuck: waiting for the others (or play a card)"


def test_a_player_counted_as_stuck_while_away_is_told_to_turn_the_stock() -> None:
    stuck, _ = apply(TABLE, DeclareStuck(0))
    model = model_with(Snapshot(display=stuck, stuck_while_away=True, turns_though_stuck=True))
    assert stuck_line(model) == (
        "You were counted as stuck while away: turn your stock or play a card to go on"
    )
    model.refresh(Snapshot(display=stuck, stuck_while_away=True))  # no play to turn to
    assert stuck_line(model) == (
        "You were counted as stuck while away: play a card to go on, or wait for Bea"
    )


def test_a_stuck_player_is_told_when_a_play_opens_up() -> None:
    stuck, _ = apply(TABLE, DeclareStuck(0))
    model = model_with(Snapshot(display=stuck, turns_though_stuck=True))
    assert stuck_line(model) == "Stuck, yet a play is open: turn your stock or play a card to go on"
    model.refresh(Snapshot(display=stuck))  # still no play through a whole pass
    assert stuck_line(model).startswith("You are stuck: play a card to go on, or wait for Bea")


def test_a_silent_seat_the_others_cannot_leave_out_is_named_with_the_way_out() -> None:
    lives = (Liveness(0.0), Liveness(9.0, suspected=True))
    model = model_with(Snapshot(display=TABLE, stranded=(1,), liveness=lives))
    text = waiting(model)
    assert text == "Waiting for Bea to come back (1 of 2 is no majority) · e ends the match here"
    ended: list[None] = []
    model.end_match = lambda: ended.append(None)
    model.stop_waiting()
    assert ended == [None]
    model.refresh(Snapshot(display=TABLE, over=True, ended="the player did not wait"))
    assert waiting(model) == "The match ended: the player did not wait. q quits"


def test_a_seat_nobody_has_answered_for_minutes_is_told_the_table_is_gone_and_the_way_out() -> None:
    # Left out, and asking in vain to come back: the others ended the match or went on.
    model = model_with(Snapshot(display=TABLE, status="rejoining", forsaken=150.0))
    assert waiting(model) == (
        "Nobody has answered for 2 min: the table ended or went on · e ends the match here"
    )
    ended: list[None] = []
    model.end_match = lambda: ended.append(None)
    model.stop_waiting()
    assert ended == [None]
    model.refresh(Snapshot(display=TABLE, status="rejoining"))
    assert waiting(model) == "The others went on without you: asking to rejoin…"
    model.stop_waiting()  # rejoining, answered: nothing to end
    assert ended == [None]
    assert model.notice == "e ends the match only while the table waits for a silent seat"


def status(model: TableModel) -> str:
    return "".join(text for _, text in render(model, 100, 30).rows[-1].frags)


def test_a_stuck_player_who_plays_on_reads_what_they_select_and_why_a_move_is_refused() -> None:
    model = model_with(Snapshot(display=TABLE))
    model.to_foundation()  # nothing selected: told to select a card first
    assert model.notice.startswith("select a card first")
    stuck, _ = apply(TABLE, DeclareStuck(0))
    model.refresh(Snapshot(display=stuck))
    waits = "You are stuck: play a card to go on, or wait for Bea"
    assert waits in status(model), "what was said before the seat was stuck is stale"
    model.pick(NERTS)
    assert "7♥ selected" in status(model) and waits not in status(model)
    model.pick(2)  # the 7♥ onto the K♣
    assert model.notice and model.notice in status(model)
    model.cancel()
    assert waits in status(model)
