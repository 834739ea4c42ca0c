"""The table model: what the player's keys and clicks make, and what the peer's events show."""

from __future__ import annotations

from dataclasses import replace

from _tables import card, dealt, played

from p2pnerts.protocol import (
    Ack,
    Ballot,
    Event,
    Hand,
    PeerRejoined,
    PeerSuspected,
    PlayCommitted,
    PlayInTheAir,
    PlayReturned,
    Ready,
    RejoinedTable,
    RoundOver,
    RoundStarted,
    ShutOut,
    SitOut,
    Tally,
    TeamDeal,
    ViewInstalled,
)
from p2pnerts.rules import (
    NERTS,
    NEW_FOUNDATION,
    CallNerts,
    DeclareStuck,
    EndReason,
    Move,
    RoundScore,
    State,
    TableOptions,
    ToFoundation,
    ToWork,
    TurnStock,
    apply,
)
from p2pnerts.ui import Hit, Snapshot, TableModel
from p2pnerts.ui._render import render

# Seat 0: the Nerts top is 7♥; work piles 8♠, 9♦, K♣, A♠.
TABLE = dealt(["7H"], ["8S", "9D", "KC", "AS"])
SEVEN, EIGHT, ACE = card(0, "7H"), card(0, "8S"), card(0, "AS")


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def model_on(state: State, options: TableOptions | None = None) -> tuple[TableModel, list[Move]]:
    sent: list[Move] = []
    model = TableModel(
        0, ("You", "Bea"), options or TableOptions(), send=sent.append, clock=Clock()
    )
    model.refresh(Snapshot(display=state, totals=(0, 0)))
    return model, sent


def test_two_keys_move_the_nerts_card_onto_a_work_pile() -> None:
    model, sent = model_on(TABLE)
    model.pick(NERTS)
    assert model.selection is not None and model.selection.card == SEVEN
    model.pick(0)
    assert sent == [ToWork(0, SEVEN, NERTS, 0)]
    assert model.selection is None


def test_a_move_the_rules_refuse_is_not_sent_and_the_reason_is_shown() -> None:
    model, sent = model_on(TABLE)
    model.pick(NERTS)
    model.pick(1)  # 7♥ onto 9♦
    assert sent == []
    assert "not one below" in model.notice


def test_the_same_pile_key_again_takes_a_deeper_block_and_wraps_round() -> None:
    state, _ = apply(TABLE, ToWork(0, SEVEN, NERTS, 0))
    model, sent = model_on(state)
    model.pick(0)
    assert model.selection is not None and (model.selection.card, model.selection.depth) == (
        SEVEN,
        0,
    )
    model.pick(0)
    assert model.selection is not None and model.selection.card == EIGHT
    model.pick(1)  # 8♠ with 7♥ on it, onto 9♦
    assert sent == [ToWork(0, EIGHT, 0, 1)]
    model.pick(0)
    model.pick(0)
    model.pick(0)
    assert model.selection is not None and model.selection.card == SEVEN


def test_f_sends_the_selected_ace_to_a_new_foundation() -> None:
    model, sent = model_on(TABLE)
    model.pick(3)
    model.to_foundation()
    assert sent == [ToFoundation(0, ACE, 3, NEW_FOUNDATION)]


def test_f_without_a_fitting_foundation_says_so_and_keeps_the_selection() -> None:
    model, sent = model_on(TABLE)
    model.pick(NERTS)
    model.to_foundation()
    assert sent == [] and "no foundation takes 7♥" in model.notice
    assert model.selection is not None


def test_best_move_prefers_a_foundation_and_takes_the_selected_card_otherwise() -> None:
    model, sent = model_on(TABLE)
    model.best()
    model.pick(NERTS)
    model.best()
    assert sent == [ToFoundation(0, ACE, 3, NEW_FOUNDATION), ToWork(0, SEVEN, NERTS, 0)]


def test_best_move_with_nothing_to_move_says_so_in_a_plain_sentence() -> None:
    # 7♥ and four kings: nothing goes up or onto another pile.
    model, sent = model_on(dealt(["7H"], ["KS", "KD", "KC", "KH"]))
    model.best()
    assert sent == [] and model.notice == "no card on your tableau can move now: turn the stock"
    model.pick(NERTS)
    model.best()
    assert sent == [] and model.notice == "that card has no move now"


def test_best_move_with_nothing_to_move_while_stuck_does_not_send_the_player_to_the_stock() -> None:
    stuck, _ = apply(dealt(["7H"], ["KS", "KD", "KC", "KH"]), DeclareStuck(0))
    model, sent = model_on(stuck)
    model.best()
    assert sent == []
    assert (
        model.notice
        == "no card on your tableau can move now: you are stuck until the stocks rotate"
    )
    # Stuck, yet a turn of the stock is open (its peer declared an idle player stuck).
    model.refresh(Snapshot(display=stuck, totals=(0, 0), turns_though_stuck=True))
    model.best()
    assert model.notice == "no card on your tableau can move now: turn the stock"


def test_nerts_is_called_only_with_an_empty_nerts_pile() -> None:
    options = TableOptions(nerts_pile=1)
    state = dealt(["7H"], ["8S", "9D", "KC", "AS"], options)
    model, sent = model_on(state, options)
    model.call_nerts()
    assert sent == [] and model.notice == "your Nerts pile still has 1 card"
    assert not model.can_call_nerts
    model.refresh(Snapshot(display=apply(state, ToWork(0, SEVEN, NERTS, 0))[0]))
    assert model.can_call_nerts
    model.call_nerts()
    assert sent == [CallNerts(0)]


def test_space_turns_the_stock() -> None:
    model, sent = model_on(TABLE)
    model.turn_stock()
    assert sent == [TurnStock(0)]


def test_click_click_moves_a_card() -> None:
    model, sent = model_on(TABLE)
    model.click(Hit("pile", NERTS))
    model.click(Hit("pile", 0))
    model.click(Hit("stock"))
    assert sent == [ToWork(0, SEVEN, NERTS, 0), TurnStock(0)]


def test_the_selection_goes_when_its_card_leaves_the_pile() -> None:
    model, _ = model_on(TABLE)
    model.pick(NERTS)
    model.refresh(Snapshot(display=apply(TABLE, ToWork(0, SEVEN, NERTS, 0))[0]))
    assert model.selection is None


def test_a_lost_race_marks_the_card_gone_back_and_names_the_winner() -> None:
    model, _ = model_on(TABLE)
    play = ToFoundation(0, ACE, 3, NEW_FOUNDATION)
    model.refresh(Snapshot(display=TABLE), [PlayReturned(0, play, 9, 1, "taken")])
    assert model.ticker[-1].text == "Bea beat you to A♠: it goes back"
    assert model.marked_returned(ACE)
    assert isinstance(model.clock, Clock)
    model.clock.now += 5
    model.refresh(Snapshot(display=TABLE))
    assert not model.marked_returned(ACE)


def test_a_tie_is_told_as_both_cards_staying() -> None:
    model, _ = model_on(TABLE)
    model.refresh(
        Snapshot(display=TABLE), [PlayCommitted(1, ToFoundation(1, card(1, "2H"), 0, 0), 9, True)]
    )
    assert model.ticker[-1].text == "Bea played 2♥: a tie, both stay"


def test_the_round_end_stays_until_the_next_round_and_enter_deals_once() -> None:
    dealt_next: list[None] = []
    model, _ = model_on(TABLE)
    model.deal_next = lambda: dealt_next.append(None)
    scores = (RoundScore(0, 10, 0, 0, 10, True), RoundScore(1, 4, 5, 0, -6, False))
    over = RoundOver(1, EndReason.NERTS, 0, scores, b"")
    model.refresh(Snapshot(display=TABLE), [over])
    assert model.round_end is over and model.ticker[-1].text == "round 1 over"
    model.next_round()
    model.next_round()
    assert len(dealt_next) == 1 and model.ready
    model.refresh(Snapshot(display=TABLE), [RoundStarted(2, (0, 1))])
    assert model.round_end is None and model.round_number == 2 and not model.ready


def test_a_player_back_from_a_stall_is_told_and_a_round_replayed_is_not_kept_twice() -> None:
    model, _ = model_on(TABLE)
    scores = (RoundScore(0, 10, 0, 0, 10, True), RoundScore(1, 4, 5, 0, -6, False))
    over = RoundOver(1, EndReason.NERTS, 0, scores, b"")
    back: list[Event] = [ShutOut(1, 5.04), RejoinedTable(2), RoundStarted(2, (1,)), SitOut(2)]
    model.refresh(Snapshot(display=TABLE), [over, *back, replace(over, again=True)])
    assert [line.text for line in model.ticker][-4:] == [
        "you were away for 5.0 s; the others left you out and played on",
        "you are back in",
        "round 2 starts",
        "you sit out this round (it began while you were away) and the next;"
        " you deal in the one after",
    ]
    assert model.history == [over]
    assert model.news_now().startswith("you sit out this round"), "kept, where plays are not"


def test_a_player_back_in_the_round_they_left_is_told_so_for_a_while_over_the_rest() -> None:
    now = [100.0]
    model, _ = model_on(TABLE)
    model.clock = lambda: now[0]
    stuck = TABLE._replace(tableaux=(TABLE.tableaux[0]._replace(stuck=True), TABLE.tableaux[1]))
    model.refresh(Snapshot(display=stuck), [RoundStarted(1, (0, 1))])
    back: list[Event] = [ShutOut(1, 5.24), RejoinedTable(2), RoundStarted(1, (0, 1), again=True)]
    model.refresh(Snapshot(display=stuck), back)
    news = "You are back in after 5.2 s away"
    assert model.news_now() == news
    assert news in render(model, 100, 30).text()  # over "You are stuck: ..."
    now[0] += 10
    assert not model.news_now()
    assert "You are stuck: play a card to go on, or wait for Bea" in render(model, 100, 30).text()


def test_a_player_back_in_no_longer_shows_the_others_silent() -> None:
    # Cut off, this seat heard nobody; back in a view of them all, no seat "recovers".
    model, _ = model_on(TABLE)
    model.refresh(Snapshot(display=TABLE), [PeerSuspected(1), ShutOut(1, 5.0)])
    assert model.notes[1] == "silent"
    model.refresh(Snapshot(display=TABLE), [ViewInstalled(2, (0, 1)), RejoinedTable(2)])
    assert 1 not in model.notes


def test_the_others_see_how_long_a_seat_was_away() -> None:
    model, _ = model_on(TABLE)
    model.refresh(Snapshot(display=TABLE), [PeerRejoined(1, 5.2)])
    assert model.ticker[-1].text == "Bea is back after 5.2 s away"
    assert model.notes[1] == "back 5s"


def test_when_everyone_else_is_stuck_the_player_is_told() -> None:
    state = TABLE._replace(tableaux=(TABLE.tableaux[0], TABLE.tableaux[1]._replace(stuck=True)))
    model, _ = model_on(state)
    assert model.others_stuck
    model.refresh(Snapshot(display=TABLE))
    assert not model.others_stuck


# --- teams --------------------------------------------------------------------------------

TEAMS = TableOptions(teams=(3, 1))


def team_model() -> TableModel:
    """Bea at seat 0; this player at seat 1, in a team of three with Bea and Cy; Dee alone."""
    model = TableModel(1, ("Bea", "You", "Cy", "Dee"), TEAMS, clock=Clock())
    model.refresh(Snapshot(display=played(4, 0, options=TEAMS), totals=(7, 3)))
    return model


def test_a_team_is_named_for_its_players_this_one_first_and_scores_once() -> None:
    model = team_model()
    assert model.deck == 0 and model.team(0) == (0, 1, 2) and model.team(1) == (3,)
    assert model.team_name(0) == "You, Bea & Cy" and model.team_name(1) == "Dee"
    assert (model.total(0), model.total(1)) == (7, 3)


def test_a_move_back_after_a_teammates_is_blamed_on_it_and_only_then() -> None:
    model = team_model()
    stock = TurnStock(1)
    returned = PlayReturned(1, stock, 9, None, "a teammate's move turned those cards up first")
    model.refresh(model.snap, [PlayInTheAir(stock), PlayCommitted(2, TurnStock(2), 8, False)])
    model.refresh(model.snap, [returned])
    assert model.ticker[-1].text == "Cy moved first: your stock turn is undone"
    # Cy's move landed before this player's went into the air: it beat nothing.
    model.refresh(model.snap, [PlayInTheAir(stock), returned])
    assert model.ticker[-1].text == (
        "your stock turn is undone: a teammate's move turned those cards up first"
    )


def test_the_team_deck_is_listed_as_going_to_one_seat_only() -> None:
    model = team_model()
    deal = TeamDeal(0, 0, 1, 1, 1, 1, bytes(32), bytes(32), bytes(32))
    model.note_message(False, 0, deal)
    model.note_message(True, None, replace(deal, sender=1, to=2))
    model.note_message(True, None, Ack(1, 0, 2, 0, (1, 1, 0, 0), 1, bytes(16)))
    texts = [line.text for line in model.messages]
    assert texts[0].startswith("← Bea") and texts[0].endswith("round 1 deck → seat 2 only")
    assert texts[1].startswith("→ Cy ") and texts[1].endswith("→ seat 3 only")
    assert texts[2].startswith("→ all")


def test_a_majoritys_commit_frames_are_listed_each_to_where_it_went() -> None:
    model = team_model()
    ballot = Ballot(0, 0, 5, 1, 2, 2, 4, bytes(16), True, (0, 0, 4, 0))
    model.note_message(True, 2, ballot)  # a vote goes to the play's sender alone
    model.note_message(False, 2, Tally(2, 0, 6, 1, 2, 4, bytes(16), True, (4, 0, 0, 0), ()))
    texts = [line.text for line in model.messages]
    assert texts[0].startswith("→ Cy ") and texts[0].endswith("on s3's #4: for, after [0, 0, 4, 0]")
    assert texts[1].startswith("← Cy ") and texts[1].endswith("of s3's #4: in, 0 Ballots")


def test_a_key_for_a_move_the_play_in_the_air_cannot_change_goes_at_once() -> None:
    model, sent = model_on(TABLE)
    flying = ToFoundation(0, EIGHT, 0, NEW_FOUNDATION)  # from pile 1, not yet landed
    model.refresh(Snapshot(display=TABLE, hand=Hand((flying,))))
    model.turn_stock()
    model.pick(3)
    model.to_foundation()  # the ace of pile 4
    assert sent == [TurnStock(0), ToFoundation(0, ACE, 3, NEW_FOUNDATION)]
    assert model.notice == ""


def test_a_key_while_a_move_is_in_the_air_keeps_the_selection_and_waits() -> None:
    model, sent = model_on(TABLE)
    air = ToWork(0, SEVEN, NERTS, 3)  # (as on a team's tableau, where any move may return)
    model.refresh(Snapshot(display=TABLE, hand=Hand((air,))))
    model.pick(3)
    model.to_foundation()  # the ace under the 7♥ in the air
    assert sent == [] and model.selection is not None
    assert model.notice == "one hand: wait until your 7♥ to pile 4 lands or returns"
    model.refresh(Snapshot(display=TABLE))
    assert model.notice == ""
    model.to_foundation()
    assert sent == [ToFoundation(0, ACE, 3, NEW_FOUNDATION)]


def test_the_classroom_pane_leaves_the_heartbeat_out_until_asked() -> None:
    model, _ = model_on(TABLE)
    model.classroom = True
    model.note_message(True, None, Ack(0, 0, 2, 1, (1, 0), 0, bytes(16)))
    model.note_message(False, 1, Ready(1, 0, 3, 1, 1, bytes(32), ()))
    pane = render(model, 100, 30).text()
    assert "Ready L=3" in pane and "Ack   L=2" not in pane and "Acks hidden" in pane
    model.acks = True
    assert "Ack   L=2" in render(model, 100, 30).text()
