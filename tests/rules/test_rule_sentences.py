"""One test per sentence of the rules summary in shared/DESIGN.md, then the table variants.

Each test is named after its sentence (clauses joined by semicolons count as sentences)
and quotes it. It checks what the sentence allows and, where it forbids something, that
`apply` refuses with a message saying why and leaves the state it was given as it was.
Protocol-level parts (arbitration of concurrent plays, cards in the air) are checked as
far as the rules engine takes them.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from _builders import (
    assert_illegal,
    card,
    cards,
    deck_order,
    foundation,
    joker,
    play,
    table,
    tableau,
    top_first,
)

from p2pnerts.rules import (
    ACE,
    HIDDEN,
    KING,
    NERTS,
    NEW_FOUNDATION,
    WASTE,
    BadOptions,
    CallNerts,
    Card,
    CardPlayed,
    CardsMoved,
    CardsRevealed,
    DeclareStuck,
    EndReason,
    FoundationCompleted,
    Match,
    Move,
    Rotate,
    RoundEnded,
    RoundScore,
    SlideUnder,
    State,
    StocksRotated,
    Suit,
    Tableau,
    TableOptions,
    ToFoundation,
    ToWork,
    TurnStock,
    WasteTurnedOver,
    WorkPile,
    apply,
    deal,
    legal_moves,
    new_deck,
    public_digest,
    public_view,
    score_round,
    solo_seats,
    state_digest,
    team_seats,
)


def tableau_cards(t: Tableau) -> list[Card | None]:
    """Every card a tableau holds, in no particular order."""
    return [*t.nerts, *(c for pile in t.work for c in pile.cards), *t.stock, *t.waste]


def scores_of(match: Match, *points: int) -> Match:
    """The match with one more round in which deck ``i`` scored ``points[i]``."""
    return match.record(tuple(RoundScore(d, 0, 0, 0, p, False) for d, p in enumerate(points)))


# --- the deck and the deal ---------------------------------------------------------------


def test_one_52_card_deck_per_player_or_team_each_deck_marked_with_its_owner() -> None:
    """“One 52-card deck per player (or per team), each deck marked with its owner.”"""
    state = deal(TableOptions(teams=(2, 1)), team_seats(2, 1), rng=random.Random(1))

    assert len(state.tableaux) == 2
    for t in state.tableaux:
        assert sorted(c for c in tableau_cards(t) if c) == sorted(new_deck(t.deck))
        assert len(tableau_cards(t)) == 52
    theirs = state.tableaux[1].nerts[-1]
    assert theirs is not None
    assert_illegal(
        state, ToWork(0, theirs, NERTS, 0), f"{theirs} is not your card (it belongs to deck 2)"
    )


def test_deal_a_nerts_pile_of_13_4_work_piles_of_one_card_the_remaining_35_as_the_stock() -> None:
    """“Deal: a Nerts pile of 13 (12 face down, top face up), 4 work piles of one face-up
    card, the remaining 35 as the stock.”"""
    order = new_deck(0)
    state = deal(TableOptions(), solo_seats(2), orders=[order, new_deck(1)])
    t = state.tableaux[0]

    assert t.nerts == order[:13]
    assert [pile.cards for pile in t.work] == [(c,) for c in order[13:17]]
    assert top_first(t.stock) == order[17:]
    assert len(t.stock) == 35
    assert t.waste == ()
    seen = public_view(state).tableaux[0]
    assert seen.nerts == (HIDDEN,) * 12 + (order[12],)
    assert [pile.cards for pile in seen.work] == [(c,) for c in order[13:17]]
    # Only the face-up top of the Nerts pile is in play, not the cards below it.
    assert_illegal(
        state, ToWork(0, order[11], NERTS, 0), f"{order[11]} is not the top of your Nerts pile"
    )


def test_play_is_simultaneous() -> None:
    """“Play is simultaneous.”"""
    state = table(
        tableau(0, nerts="9C 6H", work=["7S"], stock="2C 3C 4C 5C"),
        tableau(1, nerts="8D", work=["9S"], stock="2D 3D"),
    )
    first = ToWork(0, card("6H"), NERTS, 0)
    other = ToWork(1, card("8D", 1), NERTS, 0)
    turn = TurnStock(0)

    # No turns: a seat may move twice running, and the players' moves commute.
    twice = play(state, first, turn)
    assert twice.tableaux[0].waste == cards("5C 4C 3C")
    assert state_digest(play(state, first, other, turn)) == state_digest(
        play(state, other, turn, first)
    )


# --- work piles ----------------------------------------------------------------------------


def test_work_piles_build_down_in_alternating_colours() -> None:
    """“Work piles build down in alternating colours.”"""
    state = table(tableau(0, nerts="2C 6H", work=["7S", "7D", "8C", "5S"]))

    after = play(state, ToWork(0, card("6H"), NERTS, 0))
    assert after.tableaux[0].work[0].cards == cards("7S 6H")
    assert_illegal(state, ToWork(0, card("6H"), NERTS, 1), "wrong colour: 6♥ on 7♦ needs a black 6")
    assert_illegal(state, ToWork(0, card("6H"), NERTS, 2), "6♥ is not one below 8♣")
    assert_illegal(state, ToWork(0, card("6H"), NERTS, 3), "6♥ is not one below 5♠")


def test_any_card_of_a_work_pile_can_move_to_another_work_pile_with_the_cards_on_it() -> None:
    """“any card of a work pile can move to another work pile together with the cards on
    it.”"""
    state = table(tableau(0, nerts="2C", work=["KD QS JH 10C", "QC", "KH"]))

    after, events = apply(state, ToWork(0, card("JH"), 0, 1))
    assert after.tableaux[0].work[0].cards == cards("KD QS")
    assert after.tableaux[0].work[1].cards == cards("QC JH 10C")
    assert events[0] == CardsMoved(0, cards("JH 10C"), 0, 1, under=False)
    assert play(state, ToWork(0, card("QS"), 0, 2)).tableaux[0].work[2].cards == cards(
        "KH QS JH 10C"
    )
    assert_illegal(state, ToWork(0, card("QS"), 0, 1), "Q♠ is not one below Q♣")
    assert_illegal(state, ToWork(0, card("QS"), 1, 2), "Q♠ is not in work pile 2")


def test_the_exposed_card_of_a_work_pile_may_go_to_a_foundation() -> None:
    """“the exposed card of a work pile may go to a foundation.”"""
    state = table(
        tableau(0, nerts="2C", work=["4S 3H"]),
        tableau(1, nerts="2D"),
        foundations=[foundation(0, "AH 2H", deck=1), foundation(1, "AS 2S 3S", deck=1)],
    )

    after = play(state, ToFoundation(0, card("3H"), 0, 0))
    assert after.tableaux[0].work[0].cards == cards("4S")
    assert after.foundations[0].cards[-1] == card("3H")
    assert after.foundations[0].rank == 3
    assert_illegal(
        state,
        ToFoundation(0, card("4S"), 0, 1),
        "only the exposed card of work pile 1 can go up",
    )
    assert play(after, ToFoundation(0, card("4S"), 0, 1)).foundations[1].rank == 4


def test_an_empty_work_pile_may_take_a_card_from_nerts_pile_waste_or_another_work_pile() -> None:
    """“an empty work pile may take a card from the Nerts pile, the waste or another work
    pile.”"""
    state = table(tableau(0, nerts="2C 5D", work=["9S 8H 7C"], stock="4H", waste="3S JH"))

    after = play(
        state,
        ToWork(0, card("5D"), NERTS, 1),
        ToWork(0, card("JH"), WASTE, 2),
        ToWork(0, card("8H"), 0, 3),
    )
    work = after.tableaux[0].work
    assert [pile.cards for pile in work] == [
        cards("9S"),
        cards("5D"),
        cards("JH"),
        cards("8H 7C"),
    ]
    # The stock is no source: its top must be turned onto the waste first.
    assert_illegal(state, ToWork(0, card("4H"), WASTE, 1), "4♥ is not the top of your waste pile")


def test_with_an_empty_work_pile_a_card_one_higher_in_opposite_colour_may_slide_under() -> None:
    """“with an empty work pile a card one rank higher and opposite in colour may be slid
    under a work pile.”"""
    state = table(tableau(0, nerts="4H QS", work=["JH 10S", "", "9D", "5C"], waste="KS QD"))

    after, events = apply(state, SlideUnder(0, card("QS"), NERTS, 0))
    assert after.tableaux[0].work[0].cards == cards("QS JH 10S")
    assert after.tableaux[0].work[1].cards == ()
    assert events[0] == CardsMoved(0, (card("QS"),), NERTS, 0, under=True)
    assert_illegal(state, SlideUnder(0, card("QD"), WASTE, 0), "wrong colour")
    assert_illegal(state, SlideUnder(0, card("QS"), NERTS, 2), "9♦ is not one below Q♠")
    assert_illegal(state, SlideUnder(0, card("QS"), NERTS, 1), "work pile 2 is empty")
    full = table(tableau(0, nerts="4H QS", work=["JH 10S", "2C", "9D", "5C"]))
    assert_illegal(
        full,
        SlideUnder(0, card("QS"), NERTS, 0),
        "a card slides under a pile only while a work pile is empty",
    )


# --- foundations ---------------------------------------------------------------------------


def test_foundations_are_shared_started_by_any_ace() -> None:
    """“Foundations are shared: started by any ace.”"""
    state = table(
        tableau(0, nerts="2C AS", work=["2S"]),
        tableau(1, nerts="5C", waste="AD"),
    )

    after = play(
        state,
        ToFoundation(0, card("AS"), NERTS, NEW_FOUNDATION),
        ToFoundation(1, card("AD", 1), WASTE, NEW_FOUNDATION),
    )
    assert [(f.id, f.suit, f.rank) for f in after.foundations] == [
        (0, Suit.SPADES, ACE),
        (1, Suit.DIAMONDS, ACE),
    ]
    assert_illegal(
        state,
        ToFoundation(0, card("2S"), 0, NEW_FOUNDATION),
        "only an ace starts a foundation, not 2♠",
    )


def test_foundations_are_built_up_in_suit_to_the_king() -> None:
    """“built up in suit to the king.”"""
    state = table(
        tableau(0, nerts="2C 6S", work=["6H", "7S"]),
        foundations=[foundation(0, "AS 2S 3S 4S 5S", deck=0)],
    )

    assert_illegal(
        state, ToFoundation(0, card("7S"), 1, 0), "7♠ is not next on foundation #0 (needs 6♠)"
    )
    assert_illegal(
        state, ToFoundation(0, card("6H"), 0, 0), "6♥ does not follow suit on foundation #0"
    )
    after = play(state, ToFoundation(0, card("6S"), NERTS, 0), ToFoundation(0, card("7S"), 1, 0))
    assert after.foundations[0].rank == 7
    assert after.foundations[0].cards[-2:] == cards("6S 7S")


def test_foundations_are_removed_once_built_to_the_king() -> None:
    """“then removed.”"""
    hearts = "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH"
    state = table(
        tableau(0, nerts="2C KH"),
        tableau(1, nerts="3C", waste="KH"),
        foundations=[foundation(0, hearts)],
    )

    after, events = apply(state, ToFoundation(0, card("KH"), NERTS, 0))
    assert after.foundations == ()
    assert [(f.id, f.rank) for f in after.completed] == [(0, KING)]
    assert FoundationCompleted(0) in events
    assert_illegal(
        after,
        ToFoundation(1, card("KH", 1), WASTE, 0),
        "foundation #0 is complete and set aside",
    )
    assert score_round(after)[0].played == 13


def test_any_player_plays_on_any_foundation() -> None:
    """“any player plays on any foundation.”"""
    state = table(
        tableau(0, nerts="9D AC", work=["3C"]),
        tableau(1, nerts="9H 2C"),
    )

    after = play(
        state,
        ToFoundation(0, card("AC"), NERTS, NEW_FOUNDATION),
        ToFoundation(1, card("2C", 1), NERTS, 0),
        ToFoundation(0, card("3C"), 0, 0),
    )
    assert after.foundations[0].cards == (card("AC"), card("2C", 1), card("3C"))
    assert [s.played for s in score_round(after)] == [2, 1]


def test_there_is_no_limit_to_the_number_of_aces() -> None:
    """“there is no limit to the number of aces.”"""
    aces = ["AS", "AH", "AD", "AC"]
    state = table(
        tableau(0, nerts="9D", work=aces, waste="2S"),
        tableau(1, nerts="9H", work=aces),
    )

    moves: list[Move] = [
        ToFoundation(seat, card(name, seat), pile, NEW_FOUNDATION)
        for pile, name in enumerate(aces)
        for seat in (0, 1)
    ]
    after = play(state, *moves)
    assert len(after.foundations) == 8
    spades = [f.id for f in after.foundations if f.suit == Suit.SPADES]
    assert len(spades) == 2
    # Either spade foundation takes the two.
    assert play(after, ToFoundation(0, card("2S"), WASTE, spades[1])).foundations[1].rank == 2


# --- stock and waste -----------------------------------------------------------------------


def test_stock_is_turned_three_at_a_time_onto_the_waste_keeping_order() -> None:
    """“Stock is turned three at a time onto the waste, keeping order.”"""
    state = table(tableau(0, nerts="9D", stock="6C 5C 4C 3C 2C"), tableau(1, nerts="9H"))

    after, events = apply(state, TurnStock(0))
    assert after.tableaux[0].waste == cards("2C 3C 4C")
    assert after.tableaux[0].waste[-1] == card("4C")
    assert after.tableaux[0].stock == cards("6C 5C")
    assert events == [CardsRevealed(0, WASTE, cards("2C 3C 4C"))]
    empty = table(tableau(0, nerts="9D"), tableau(1, nerts="9H"))
    assert_illegal(empty, TurnStock(0), "your stock and waste are both empty")


def test_only_the_waste_top_plays() -> None:
    """“only the waste top plays.”"""
    state = table(
        tableau(0, nerts="9D", work=["10H"], waste="7H 9S"),
        foundations=[foundation(0, "AH 2H 3H 4H 5H 6H", deck=0)],
    )

    reason = "7♥ is not the top of your waste pile (9♠ is)"
    assert_illegal(state, ToFoundation(0, card("7H"), WASTE, 0), reason)
    assert_illegal(state, ToWork(0, card("7H"), WASTE, 1), reason)
    after = play(state, ToWork(0, card("9S"), WASTE, 0), ToFoundation(0, card("7H"), WASTE, 0))
    assert after.foundations[0].rank == 7
    assert after.tableaux[0].waste == ()


def test_with_one_or_two_cards_left_they_go_onto_the_waste_and_the_waste_is_turned_over() -> None:
    """“with one or two cards left they go onto the waste and the waste is turned over as the
    new stock.”"""
    state = deal(TableOptions(), solo_seats(2), rng=random.Random(5))
    stock = state.tableaux[0].stock
    assert len(stock) == 35

    state = play(state, *[TurnStock(0)] * 11)
    assert len(state.tableaux[0].stock) == 2
    state = play(state, TurnStock(0))
    t = state.tableaux[0]
    assert t.stock == ()
    # The last two go onto the waste as they are, never under a picked-up waste.
    assert t.waste == top_first(stock)
    after, events = apply(state, TurnStock(0))
    assert events == [WasteTurnedOver(0)]
    assert after.tableaux[0].stock == stock
    assert after.tableaux[0].waste == ()


# --- everyone stuck ------------------------------------------------------------------------


def stuck_table() -> State:
    """Two tableaux part-way through their stocks, whose players will call themselves stuck."""
    return table(
        tableau(0, nerts="9D KS", work=["8C"], stock="5C 4C", waste="2C 3C"),
        tableau(1, nerts="9H KH", work=["8S"], stock="5D", waste="2D 3D 4D"),
    )


def test_if_all_are_stuck_everyone_reforms_the_stock_and_moves_its_top_card_to_the_bottom() -> None:
    """“If all players are stuck, everyone re-forms the stock and moves its top card to the
    bottom.”"""
    state = stuck_table()
    one_stuck = play(state, DeclareStuck(0))

    assert_illegal(one_stuck, Rotate(0), "not everyone is stuck: deck 2 can play")
    after, events = apply(play(one_stuck, DeclareStuck(1)), Rotate(1))
    assert events == [StocksRotated(1)]
    # The waste goes back under what is left of the stock; then the top card goes under all.
    assert top_first(after.tableaux[0].stock) == cards("5C 2C 3C 4C")
    assert top_first(after.tableaux[1].stock) == cards("2D 3D 4D 5D", deck=1)
    assert all(t.waste == () and not t.stuck for t in after.tableaux)
    assert after.rotations == 1


def test_a_stock_turn_made_before_a_rotation_is_refused_after_it() -> None:
    """A turn names the rotation it was made after: the rotation re-forms the stock, so a
    turn ordered after one it was not made after would show cards no longer on top."""
    state = stuck_table()
    made = TurnStock(0, rotation=0)
    shown = play(state, made).tableaux[0].waste
    rotated = play(state, DeclareStuck(0), DeclareStuck(1), Rotate(0))
    assert_illegal(rotated, made, "the stocks were rotated after this turn was made")
    turned = play(rotated, TurnStock(0, rotation=1))
    assert turned.tableaux[0].waste != shown  # what the turn made before would have shown
    # A plan on one's own table names none, and applies whatever the rotations.
    assert play(rotated, TurnStock(0)) == turned


def test_if_all_stay_stuck_through_the_stock_the_round_ends() -> None:
    """“if all stay stuck through the stock, the round ends.”"""
    everyone_stuck = (DeclareStuck(0), DeclareStuck(1))
    rotated = play(stuck_table(), *everyone_stuck, Rotate(0))
    through = play(rotated, *[TurnStock(0)] * 2, *[TurnStock(1)] * 2)

    ended, events = apply(play(through, *everyone_stuck), Rotate(0))
    assert events == [RoundEnded(EndReason.STUCK, None)]
    assert ended.ended is not None and ended.ended.reason is EndReason.STUCK
    assert [s.points for s in score_round(ended)] == [-4, -4]
    # A card played since the last rotation means the table is not stuck for good.
    played = play(through, ToWork(0, card("KS"), NERTS, 1), *everyone_stuck)
    again = play(played, Rotate(0))
    assert again.ended is None and again.rotations == 2
    # Moving runs between work piles is no play: the round still ends.
    shuffled = play(
        through, ToWork(1, card("8S", 1), 0, 1), ToWork(1, card("8S", 1), 1, 0), *everyone_stuck
    )
    assert play(shuffled, Rotate(0)).ended == ended.ended


# --- Nerts -----------------------------------------------------------------------------------


def test_a_player_whose_nerts_pile_is_empty_may_call_nerts_need_not_do_so_at_once() -> None:
    """“A player whose Nerts pile is empty may call "Nerts!" (need not do so at once).”"""
    state = table(
        tableau(0, nerts="AS", work=["2S", "3S"]),
        tableau(1, nerts="9H"),
    )

    assert_illegal(state, CallNerts(0), "your Nerts pile still has 1 card")
    empty = play(state, ToFoundation(0, card("AS"), NERTS, NEW_FOUNDATION))
    assert CallNerts(0) in legal_moves(empty, 0)
    later = play(empty, ToFoundation(0, card("2S"), 0, 0), ToFoundation(0, card("3S"), 1, 0))
    assert later.ended is None
    after, events = apply(later, CallNerts(0))
    assert events == [RoundEnded(EndReason.NERTS, 0)]
    assert score_round(after)[0].points == 3
    assert_illegal(state, CallNerts(1), "your Nerts pile still has 1 card")


def test_play_stops_and_cards_already_in_the_air_complete_their_move() -> None:
    """“play stops, and cards already in the air complete their move.”"""
    state = table(
        tableau(0, work=["2S"], stock="4C"),
        tableau(1, nerts="9H 5D AD", work=["KC"], stock="4D"),
        foundations=[foundation(0, "AS")],
    )
    # Seat 1's ace was in the air when seat 0 called: ordered before the call, it counts.
    before_call = play(
        state,
        ToFoundation(1, card("AD", 1), NERTS, NEW_FOUNDATION),
        ToFoundation(0, card("2S"), 0, 0),
    )
    ended = play(before_call, CallNerts(0))

    assert legal_moves(ended, 0) == [] and legal_moves(ended, 1) == []
    refused: list[Move] = [
        ToWork(1, card("5D", 1), NERTS, 1),
        TurnStock(0),
        TurnStock(1),
        DeclareStuck(1),
        CallNerts(0),
    ]
    for move in refused:
        assert move in legal_moves(before_call, move.seat)
        assert_illegal(ended, move, "the round is over")
    assert [(s.played, s.points, s.called_nerts) for s in score_round(ended)] == [
        (2, 2, True),
        (1, -3, False),
    ]


# --- concurrent plays ------------------------------------------------------------------------


def race_table() -> State:
    """Both decks hold a 5♥ that the hearts foundation (at 4♥) wants."""
    return table(
        tableau(0, nerts="9C 5H"),
        tableau(1, nerts="9S", work=["6H"], waste="5H"),
        foundations=[foundation(0, "AH 2H 3H 4H")],
    )


def test_two_players_on_the_same_foundation_at_once_the_first_stays_the_others_go_back() -> None:
    """“Two players playing the same foundation at once: the first card stays, the others go
    back where they came from.”"""
    first = play(race_table(), ToFoundation(1, card("5H", 1), WASTE, 0))

    assert first.foundations[0].cards[-1] == card("5H", 1)
    # The second 5♥ is no longer next: refused, it stays where it came from.
    assert_illegal(
        first, ToFoundation(0, card("5H"), NERTS, 0), "5♥ is not next on foundation #0 (needs 6♥)"
    )
    assert first.tableaux[0].nerts[-1] == card("5H")


def test_a_tie_that_cannot_be_resolved_lets_both_cards_stay() -> None:
    """“a tie that cannot be resolved lets both cards stay.”"""
    first = play(race_table(), ToFoundation(1, card("5H", 1), WASTE, 0))

    both, events = apply(first, ToFoundation(0, card("5H"), NERTS, 0), tie=True)
    assert both.foundations[0].cards[-2:] == (card("5H", 1), card("5H"))
    assert both.foundations[0].rank == 5
    assert events[0] == CardPlayed(0, card("5H"), NERTS, 0, 5, Suit.HEARTS, True)
    assert [s.played for s in score_round(both)] == [5, 1]
    assert play(both, ToFoundation(1, card("6H", 1), 0, 0)).foundations[0].rank == 6
    assert_illegal(
        race_table(),
        ToFoundation(0, card("5H"), NERTS, 0),
        "5♥ does not tie with the top of foundation #0",
        tie=True,
    )
    assert_illegal(first, TurnStock(0), "only a foundation play can tie", tie=True)


def test_a_tie_on_a_king_lets_both_stay_on_the_completed_foundation() -> None:
    """“a tie that cannot be resolved lets both cards stay” — even on a king that completed
    the foundation."""
    hearts = "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH"
    state = table(
        tableau(0, nerts="9C KH"),
        tableau(1, nerts="9S KH"),
        foundations=[foundation(0, hearts)],
    )
    first = play(state, ToFoundation(0, card("KH"), NERTS, 0))

    both, _ = apply(first, ToFoundation(1, card("KH", 1), NERTS, 0), tie=True)
    assert both.completed[0].cards[-2:] == (card("KH"), card("KH", 1))
    assert [s.played for s in score_round(both)] == [13, 1]


# --- one hand, nobody forced -------------------------------------------------------------------


def test_one_hand_only_a_player_moves_one_card_or_one_work_pile_block_at_a_time() -> None:
    """“One hand only: a player moves one card (or one work-pile block) at a time.”"""
    state = table(
        tableau(0, nerts="2C 4D 6H", work=["9C 8D 7S", "", "7C"]),
        tableau(1, nerts="9H"),
        foundations=[foundation(0, "AD 2D 3D 4D 5D 6D 7D", deck=1)],
    )

    one = play(state, ToWork(0, card("6H"), NERTS, 0))
    assert one.tableaux[0].nerts == cards("2C 4D")
    assert one.tableaux[0].work[0].cards == cards("9C 8D 7S 6H")
    block, events = apply(state, ToWork(0, card("8D"), 0, 1))
    assert events[0] == CardsMoved(0, cards("8D 7S"), 0, 1, under=False)
    assert block.tableaux[0].work[1].cards == cards("8D 7S")
    assert_illegal(
        state, ToFoundation(0, card("8D"), 0, 0), "only the exposed card of work pile 1 can go up"
    )
    assert_illegal(state, SlideUnder(0, card("8D"), 0, 2), "only a single card slides under a pile")


def test_nobody_is_ever_forced_to_play() -> None:
    """“Nobody is ever forced to play.”"""
    state = table(
        tableau(0, nerts="9C AS", work=["2S"], stock="3C 4C 5C"),
        tableau(1, nerts="9D AD"),
    )
    ace = ToFoundation(0, card("AS"), NERTS, NEW_FOUNDATION)

    assert ace in legal_moves(state, 0)
    assert {TurnStock(0), DeclareStuck(0)} <= set(legal_moves(state, 0))
    waiting = play(state, TurnStock(0), DeclareStuck(0))
    assert waiting.tableaux[0].stuck
    assert waiting.tableaux[0].nerts[-1] == card("AS")
    # The others play on while this seat waits, and its ace is still there to play later.
    later = play(waiting, ToFoundation(1, card("AD", 1), NERTS, NEW_FOUNDATION), ace)
    assert [f.suit for f in later.foundations] == [Suit.DIAMONDS, Suit.SPADES]


# --- scoring -------------------------------------------------------------------------------------


def test_scoring_per_round_plus_1_per_own_foundation_card_minus_2_per_nerts_card_left() -> None:
    """“Scoring per round: +1 per own card in the foundations, −2 per card left in one's Nerts
    pile.”"""
    clubs = cards("AC 2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC", deck=1)
    mixed = (card("AD", 1), card("2D"), card("3D", 1), card("4D"))
    state = table(
        tableau(0, nerts="9H 8H 7H", work=["KS"], stock="5S"),
        tableau(1, nerts="9S", waste="6S"),
        foundations=[foundation(1, mixed)],
    )._replace(completed=(foundation(0, clubs),), next_foundation=2)

    scores = score_round(state)
    assert [(s.deck, s.played, s.nerts_left, s.points) for s in scores] == [
        (0, 2, 3, 2 - 6),
        (1, 15, 1, 15 - 2),
    ]
    assert not any(s.called_nerts or s.bonus for s in scores)


def test_rounds_until_someone_reaches_the_target_100_by_default() -> None:
    """“rounds until someone reaches the target (100 by default).”"""
    match = scores_of(Match(TableOptions(), 3), 60, 40, -10)
    match = scores_of(match, 39, 55, 30)

    assert TableOptions().target == 100
    assert match.totals == (99, 95, 20)
    assert not match.over and match.winners == ()
    match = scores_of(match, 1, 5, 2)
    assert match.totals == (100, 100, 22)
    assert match.over
    assert match.winners == (0, 1)


# --- variants ----------------------------------------------------------------------------------


def test_variant_stock_turned_one_at_a_time() -> None:
    """Variant: "stock turned 1 at a time"."""
    options = TableOptions(stock_turn=1)
    state = table(tableau(0, nerts="9D", stock="4C 3C 2C"), tableau(1, nerts="9H"), options=options)

    after = play(state, TurnStock(0))
    assert after.tableaux[0].waste == cards("2C")
    assert after.tableaux[0].stock == cards("4C 3C")
    through = play(after, TurnStock(0), TurnStock(0), TurnStock(0))
    assert through.tableaux[0].stock == state.tableaux[0].stock
    with pytest.raises(BadOptions, match="the stock turns 1 or 3 cards at a time"):
        TableOptions(stock_turn=2)


def test_variant_five_work_piles() -> None:
    """Variant: "5 work piles"."""
    options = TableOptions(work_piles=5)
    order = deck_order(options=options, nerts="5S", work="9D 2C 2H 3H 6H")
    state = deal(options, solo_seats(2), orders=[order, deck_order(1, options=options)])

    t = state.tableaux[0]
    assert [pile.cards for pile in t.work] == [(c,) for c in cards("9D 2C 2H 3H 6H")]
    assert len(t.stock) == 34
    after = play(state, ToWork(0, card("5S"), NERTS, 4))
    assert after.tableaux[0].work[4].cards == cards("6H 5S")
    assert_illegal(state, ToWork(0, card("5S"), NERTS, 5), "there is no work pile 6")
    with pytest.raises(BadOptions, match="a tableau has 4 or 5 work piles"):
        TableOptions(work_piles=6)


@pytest.mark.parametrize("size", [1, 7, 20, 26])
def test_variant_other_nerts_pile_sizes(size: int) -> None:
    """Variant: "other Nerts pile sizes"."""
    options = TableOptions(nerts_pile=size)
    state = deal(options, solo_seats(2), rng=random.Random(size))

    t = state.tableaux[0]
    assert len(t.nerts) == size
    assert len(t.stock) == 52 - size - 4
    assert public_view(state).tableaux[0].nerts[:-1] == (HIDDEN,) * (size - 1)
    stuck = play(state, DeclareStuck(0), DeclareStuck(1), Rotate(0))
    ended = play(stuck, DeclareStuck(0), DeclareStuck(1), Rotate(0))
    assert [s.points for s in score_round(ended)] == [-2 * size, -2 * size]


@pytest.mark.parametrize("size", [0, 27])
def test_variant_nerts_pile_sizes_outside_1_to_26_are_refused(size: int) -> None:
    """Variant: "other Nerts pile sizes" — but never an empty pile nor half the deck."""
    with pytest.raises(BadOptions, match="the Nerts pile holds 1 to 26 cards"):
        TableOptions(nerts_pile=size)


@pytest.mark.parametrize("bonus", [10, 25])
def test_variant_a_bonus_for_calling_nerts(bonus: int) -> None:
    """Variant: "a bonus for calling Nerts (10 or 25)"."""
    options = TableOptions(nerts_bonus=bonus)
    state = table(
        tableau(0, nerts="AS"),
        tableau(1, nerts="9H AH"),
        options=options,
    )
    emptied = play(
        state,
        ToFoundation(0, card("AS"), NERTS, NEW_FOUNDATION),
        ToFoundation(1, card("AH", 1), NERTS, NEW_FOUNDATION),
    )

    called = score_round(play(emptied, CallNerts(0)))
    assert [(s.bonus, s.points) for s in called] == [(bonus, 1 + bonus), (0, 1 - 2)]
    stuck = play(emptied, DeclareStuck(0), DeclareStuck(1), Rotate(0))
    ended = play(stuck, DeclareStuck(0), DeclareStuck(1), Rotate(0))
    assert [s.bonus for s in score_round(ended)] == [0, 0]
    with pytest.raises(BadOptions, match="the Nerts bonus is 0, 10 or 25"):
        TableOptions(nerts_bonus=15)


def test_variant_other_target_scores() -> None:
    """Variant: "other target scores"."""
    match = scores_of(Match(TableOptions(target=50), 2), 49, 20)

    assert not match.over
    match = scores_of(match, 1, 40)
    assert match.totals == (50, 60)
    assert match.over and match.winners == (1,)
    with pytest.raises(BadOptions, match="the target score is 1 to 10000"):
        TableOptions(target=0)


def test_variant_a_fixed_number_of_rounds() -> None:
    """Variant: other targets as "a fixed number of rounds" instead of a score."""
    match = Match(TableOptions(rounds=3), 2)
    match = scores_of(scores_of(match, 120, 3), 5, 4)

    assert not match.over and match.winners == ()
    match = scores_of(match, -30, 10)
    assert match.over
    assert match.totals == (95, 17) and match.winners == (0,)
    with pytest.raises(BadOptions, match="a match has 1 to 1000 rounds"):
        TableOptions(rounds=0)


# --- jokers --------------------------------------------------------------------------------------

JOKERS = TableOptions(jokers=True)


def test_variant_jokers_are_dealt_with_the_deck() -> None:
    """Variant: "jokers as declared wild cards" — each deck holds its two jokers."""
    state = deal(JOKERS, solo_seats(2), rng=random.Random(3))

    for t in state.tableaux:
        assert sorted(c for c in tableau_cards(t) if c) == sorted(new_deck(t.deck, jokers=True))
        assert len(t.stock) == 54 - 13 - 4


def test_variant_a_joker_is_declared_to_go_to_a_foundation() -> None:
    """Variant: "jokers as declared wild cards" — on a foundation a joker stands for the rank
    and suit declared with it."""
    state = table(
        tableau(0, nerts=(card("9C"), joker()), work=["2S"], waste=(joker(second=True),)),
        tableau(1, nerts="9S", work=["6H"]),
        foundations=[foundation(0, "AH 2H 3H 4H", deck=1)],
        options=JOKERS,
    )
    on_hearts = ToFoundation(0, joker(), NERTS, 0)

    assert_illegal(state, on_hearts, "a joker must be declared (rank and suit)")
    assert_illegal(
        state,
        ToFoundation(0, joker(), NERTS, 0, (6, Suit.HEARTS)),
        "6♥ is not next on foundation #0 (needs 5♥)",
    )
    assert_illegal(
        state, ToFoundation(0, joker(), NERTS, 0, (5, Suit.SPADES)), "5♠ does not follow suit"
    )
    assert_illegal(
        state,
        ToFoundation(0, joker(), NERTS, 0, (14, Suit.HEARTS)),
        "cannot be declared as rank 14",
    )
    assert_illegal(
        state, ToFoundation(0, card("2S"), 0, 0, (2, Suit.HEARTS)), "only a joker is declared"
    )
    after, events = apply(state, ToFoundation(0, joker(), NERTS, 0, (5, Suit.HEARTS)))
    assert events[0] == CardPlayed(0, joker(), NERTS, 0, 5, Suit.HEARTS, False)
    after = play(
        after,
        ToFoundation(1, card("6H", 1), 0, 0),
        ToFoundation(0, joker(second=True), WASTE, NEW_FOUNDATION, (ACE, Suit.CLUBS)),
    )
    assert after.foundations[0].rank == 6
    assert (after.foundations[1].suit, after.foundations[1].rank) == (Suit.CLUBS, ACE)
    assert score_round(after)[0].played == 2


def test_variant_a_joker_is_fixed_once_a_card_lies_on_it_in_a_work_pile() -> None:
    """Variant: "jokers as declared wild cards" — in a work pile a joker needs no
    declaration, and once a card lies on it, it is fixed as what the pile needs there."""
    state = table(
        tableau(0, nerts=(card("2D"), joker()), work=["7S", "9C", "7C"], waste="5C 5H"),
        tableau(1, nerts="9H"),
        options=JOKERS,
    )

    on_seven = play(state, ToWork(0, joker(), NERTS, 0))
    assert on_seven.tableaux[0].work[0].cards == (card("7S"), joker())
    assert_illegal(
        on_seven, ToWork(0, card("5H"), WASTE, 0), "wrong colour: 5♥ on Joker (as red 6)"
    )
    covered = play(on_seven, ToWork(0, card("5H"), WASTE, 3), ToWork(0, card("5C"), WASTE, 0))
    assert covered.tableaux[0].work[0].cards == (card("7S"), joker(), card("5C"))
    assert_illegal(
        covered, ToWork(0, joker(), 0, 1), "Joker (as red 6) is not one below 9♣: it needs a red 8"
    )
    moved = play(covered, ToWork(0, joker(), 0, 2))
    assert moved.tableaux[0].work[2].cards == (card("7C"), joker(), card("5C"))


def test_variant_a_joker_under_a_card_stands_for_what_that_card_needs() -> None:
    """Variant: "jokers as declared wild cards" — a joker heading a work pile takes the
    identity the card laid on it gives, and keeps it while that card lies there."""
    state = table(
        tableau(0, nerts="KD 5C", work=[(joker(),), "9C", "7S"], waste="4H"),
        tableau(1, nerts="9H"),
        options=JOKERS,
    )

    assert_illegal(
        play(state, ToWork(0, card("5C"), NERTS, 3)),
        ToWork(0, card("KD"), NERTS, 0),
        "K♦ leaves no rank for the jokers below it",
    )
    covered = play(state, ToWork(0, card("5C"), NERTS, 0), ToWork(0, card("4H"), WASTE, 0))
    assert covered.tableaux[0].work[0].cards == (joker(), card("5C"), card("4H"))
    assert_illegal(covered, ToWork(0, joker(), 0, 1), "Joker (as red 6) is not one below 9♣")
    moved = play(covered, ToWork(0, joker(), 0, 2))
    assert moved.tableaux[0].work[2].cards == (card("7S"), joker(), card("5C"), card("4H"))


def test_variant_a_joker_lifted_alone_is_wild_again() -> None:
    """Variant: "jokers as declared wild cards" — a joker no card has lain on is free when
    lifted alone off a run: it may go on any work pile, or up as any declared card."""
    state = table(
        tableau(0, nerts=(card("2D"), joker()), work=["7S", "9C", "KH"]),
        tableau(1, nerts="9H"),
        options=JOKERS,
    )
    on_seven = play(state, ToWork(0, joker(), NERTS, 0))

    on_nine = play(on_seven, ToWork(0, joker(), 0, 1))
    assert on_nine.tableaux[0].work[1].cards == (card("9C"), joker())
    on_king = play(on_seven, ToWork(0, joker(), 0, 2))
    assert on_king.tableaux[0].work[2].cards == (card("KH"), joker())
    up = play(on_seven, ToFoundation(0, joker(), 0, NEW_FOUNDATION, (ACE, Suit.DIAMONDS)))
    assert up.foundations[0].suit == Suit.DIAMONDS
    assert up.tableaux[0].work[0].cards == (card("7S"),)


def test_variant_a_joker_a_card_has_lain_on_stays_fixed_for_good() -> None:
    """Variant, as the rule text words it: "Once a card is played on a Joker in a work
    pile, though, it now has a fixed existence (rank, suit, color)" — also after that card
    has moved away: in the work piles and on the way up."""
    state = table(
        tableau(0, nerts=(card("2D"), joker()), work=["7S", "9C", "6H", "AS"], waste="5C"),
        tableau(1, nerts="9H"),
        foundations=[foundation(0, "AH 2H 3H 4H 5H", deck=1)],
        options=JOKERS,
    )
    covered = play(state, ToWork(0, joker(), NERTS, 0), ToWork(0, card("5C"), WASTE, 0))
    alone = play(covered, ToWork(0, card("5C"), 0, 2))
    assert alone.tableaux[0].work[0] == WorkPile((card("7S"), joker()), 7, False)

    # Moved on its own, it is still the red 6 a card lay on.
    shifted = play(alone, ToFoundation(0, card("AS"), 3, NEW_FOUNDATION), ToWork(0, joker(), 0, 3))
    assert shifted.tableaux[0].work[3] == WorkPile((joker(),), 6, True)
    assert_illegal(shifted, ToWork(0, joker(), 3, 1), "Joker (as red 6) is not one below 9♣")
    assert_illegal(
        shifted,
        ToFoundation(0, joker(), 3, NEW_FOUNDATION, (ACE, Suit.SPADES)),
        "this Joker is fixed as a red 6 for good: a card lay on it in a work pile",
    )
    ups = [m for m in legal_moves(shifted, 0) if isinstance(m, ToFoundation) and m.card == joker()]
    assert ups == [ToFoundation(0, joker(), 3, 0, (6, Suit.HEARTS))]
    up = play(shifted, ToFoundation(0, joker(), 3, 0, (6, Suit.HEARTS)))
    assert up.foundations[0].rank == 6


# --- teams ---------------------------------------------------------------------------------------


def test_variant_teams_of_2_or_3_share_one_deck_and_tableau_and_any_member_may_move() -> None:
    """Variant: "teams of 2–3 sharing one deck and tableau"."""
    state = deal(TableOptions(teams=(2, 1, 3)), team_seats(2, 1, 3), rng=random.Random(11))

    assert state.seats == (0, 0, 1, 2, 2, 2)
    assert len(state.tableaux) == 3
    for seat, mate in ((0, 1), (3, 4), (3, 5)):
        mine = legal_moves(state, seat)
        assert [replace(m, seat=mate) for m in mine] == legal_moves(state, mate)
    # The second member turns the stock, then the first goes on from where it stands.
    turned = play(state, TurnStock(1), TurnStock(0))
    assert turned.tableau_of(0).waste == top_first(state.tableaux[0].stock)[:6]
    stuck = play(turned, DeclareStuck(5))
    assert stuck.tableau_of(3).stuck
    assert_illegal(stuck, DeclareStuck(4), "your tableau is already declared stuck")
    assert [s.deck for s in score_round(stuck)] == [0, 1, 2]
    with pytest.raises(BadOptions, match="a team has 1 to 3 players, not 4"):
        TableOptions(teams=(4, 1))


def test_one_deck_per_player_two_seats_share_a_deck_only_as_a_team() -> None:
    """“One 52-card deck per player (or per team)”: two seats playing one deck outside a
    team are refused, with the reason."""
    with pytest.raises(BadOptions, match="without teams every seat plays a deck of its own"):
        deal(TableOptions(), (0, 0), rng=random.Random(1))
    with pytest.raises(BadOptions, match="seats playing decks 1 2 2 are not how teams 2\\+1 sit"):
        deal(TableOptions(teams=(2, 1)), (0, 1, 1), rng=random.Random(1))
    with pytest.raises(BadOptions, match="teams 2\\+2 seat 4, not 3"):
        deal(TableOptions(teams=(2, 2)), (0, 0, 1), rng=random.Random(1))
    assert deal(TableOptions(teams=(2, 1)), (0, 0, 1), rng=random.Random(1)).seats == (0, 0, 1)


def test_variant_any_team_member_may_call_nerts_for_the_team() -> None:
    """Variant: "teams of 2–3 sharing one deck and tableau" — the Nerts call and its bonus
    belong to the team."""
    state = table(
        tableau(0, work=["AS"]),
        tableau(1, nerts="9H"),
        options=TableOptions(nerts_bonus=10),
        seats=team_seats(3, 1),
    )

    ended, events = apply(play(state, ToFoundation(1, card("AS"), 0, NEW_FOUNDATION)), CallNerts(2))
    assert events == [RoundEnded(EndReason.NERTS, 2)]
    assert [(s.called_nerts, s.points) for s in score_round(ended)] == [(True, 11), (False, -2)]
    assert_illegal(state, CallNerts(3), "your Nerts pile still has 1 card")


# --- digests and views ---------------------------------------------------------------------------


def test_state_digest_is_equal_for_equal_states() -> None:
    """Equal states, however they were reached, have equal digests."""
    one = deal(TableOptions(), solo_seats(3), rng=random.Random(42))
    other = deal(TableOptions(), solo_seats(3), rng=random.Random(42))

    assert one is not other and one == other
    assert state_digest(one) == state_digest(other)
    moves = (TurnStock(0), TurnStock(2))
    assert state_digest(play(one, *moves)) == state_digest(play(other, *reversed(moves)))
    assert state_digest(one) != state_digest(
        deal(TableOptions(), solo_seats(3), rng=random.Random(43))
    )


def test_state_digest_differs_when_a_card_moves() -> None:
    """Moving any card changes the digest, even between two piles of one tableau."""
    state = table(tableau(0, nerts="2C", work=["9S 8H", "9C"]), tableau(1, nerts="2D"))

    moved = play(state, ToWork(0, card("8H"), 0, 1))
    assert state_digest(moved) != state_digest(state)
    back = play(moved, ToWork(0, card("8H"), 1, 0))
    assert back == state and state_digest(back) == state_digest(state)


def test_state_digest_of_a_fixed_deal_is_pinned() -> None:
    """The digest is the same in every process and on every platform: pinned for one deal."""
    state = deal(TableOptions(), solo_seats(2), orders=[new_deck(0), new_deck(1)])

    assert state_digest(state).hex() == "0e272734ff191f1f68ad558df3a93f06"
    assert public_digest(state).hex() == "e274b621057719a0214cf4b055fc8bd2"


def test_public_view_hides_every_face_down_card() -> None:
    """Everyone sees the Nerts tops, work piles, wastes and foundations; nothing face down."""
    full = play(
        deal(TableOptions(), solo_seats(3), rng=random.Random(8)), TurnStock(0), TurnStock(1)
    )
    seen = public_view(full)

    for t, shown in zip(full.tableaux, seen.tableaux, strict=True):
        assert shown.nerts == (HIDDEN,) * (len(t.nerts) - 1) + t.nerts[-1:]
        assert shown.stock == (HIDDEN,) * len(t.stock)
        assert (shown.work, shown.waste) == (t.work, t.waste)
    assert seen.foundations == full.foundations
    assert public_digest(full) == state_digest(seen) != state_digest(full)


def revealing_deal() -> State:
    """A fixed deal where deck 0 has A♠ on its Nerts pile above 7♦, and 2♣ 3♣ 4♣ on top of
    its stock."""
    order = deck_order(0, nerts="7D AS", stock="2C 3C 4C")
    return deal(TableOptions(), solo_seats(2), orders=[order, deck_order(1)])


@pytest.mark.parametrize(
    "move",
    [
        ToFoundation(0, card("AS"), NERTS, NEW_FOUNDATION, revealed=(card("7D"),)),
        TurnStock(0, revealed=cards("2C 3C 4C")),
    ],
    ids=["nerts-play", "stock-turn"],
)
def test_a_move_with_revealed_cards_applies_on_the_public_view_as_on_the_full_state(
    move: Move,
) -> None:
    """A move carries the cards it turns face up, so a peer knowing only the public table
    applies it and reaches the same public table."""
    full = revealing_deal()

    after_full, events_full = apply(full, move)
    after_public, events_public = apply(public_view(full), move)
    assert events_public == events_full
    assert public_digest(after_public) == public_digest(after_full)
    assert state_digest(after_public) == state_digest(public_view(after_full))


def test_a_move_must_reveal_the_cards_it_turns_face_up_truthfully() -> None:
    """On the public table a move that turns cards face up must name them; on any table it
    must name the right ones."""
    full = revealing_deal()
    seen = public_view(full)
    ace = ToFoundation(0, card("AS"), NERTS, NEW_FOUNDATION)

    assert_illegal(seen, ace, "a play from the Nerts pile must reveal the next Nerts card")
    assert_illegal(seen, TurnStock(0), "turning the stock must reveal the 3 cards turned")
    assert_illegal(
        full, replace(ace, revealed=(card("8D"),)), "the move reveals 8♦ but the next card is 7♦"
    )
    assert_illegal(
        full,
        TurnStock(0, revealed=cards("2C 4C 3C")),
        "the move reveals other cards than the stock holds",
    )


@pytest.mark.parametrize(
    ("move", "reason"),
    [
        (TurnStock(5), "there is no seat 5"),
        (ToWork(0, card("KS"), NERTS, 7), "there is no work pile 8"),
        (ToWork(0, card("KS"), NERTS, 0), "no card goes below A♥ in a work pile"),
        (ToWork(0, card("2H"), 1, 1), "2♥ is already in work pile 2"),
        (ToWork(0, card("5H"), WASTE, 0), "your waste pile is empty"),
        (ToFoundation(0, card("2H"), 1, NEW_FOUNDATION), "only an ace starts a foundation"),
        (ToFoundation(0, card("AH"), 0, 3), "foundation #3 does not exist"),
        (SlideUnder(0, card("KS"), NERTS, 0), "only while a work pile is empty"),
        (CallNerts(0), "your Nerts pile still has 13 cards"),
        (Rotate(0), "not everyone is stuck: deck 1, 2 can play"),
    ],
)
def test_an_illegal_move_leaves_the_state_untouched(move: Move, reason: str) -> None:
    """An illegal move raises saying why, and the state it was given is as it was."""
    state = deal(TableOptions(), solo_seats(2), orders=[new_deck(0), new_deck(1)])

    assert_illegal(state, move, reason)
    fresh = deal(TableOptions(), solo_seats(2), orders=[new_deck(0), new_deck(1)])
    assert apply(state, TurnStock(0)) == apply(fresh, TurnStock(0))
