"""A bot on a team keeps to its part of the shared tableau, the rule texts' way."""

from __future__ import annotations

from p2pnerts.rules import (
    NERTS,
    NEW_FOUNDATION,
    WASTE,
    CallNerts,
    Card,
    DeclareStuck,
    Suit,
    ToFoundation,
    ToWork,
    TurnStock,
    my_part,
    part_in_words,
)

ACE = Card(0, 1, Suit.SPADES)


def test_the_first_of_a_team_turns_the_stock_and_plays_the_waste_the_others_the_rest() -> None:
    team = (3, 4, 5)
    for seat, stock_hand in ((3, True), (4, False), (5, False)):
        assert my_part(TurnStock(seat), seat, team) is stock_hand
        assert my_part(ToFoundation(seat, ACE, WASTE, NEW_FOUNDATION), seat, team) is stock_hand
        assert my_part(ToWork(seat, ACE, WASTE, 1), seat, team) is stock_hand
        assert my_part(ToFoundation(seat, ACE, NERTS, NEW_FOUNDATION), seat, team) is not stock_hand
        assert my_part(ToWork(seat, ACE, 2, 1), seat, team) is not stock_hand
        for anyones in (DeclareStuck(seat), CallNerts(seat)):
            assert my_part(anyones, seat, team)
    assert part_in_words(3, team) == "the stock and the waste"
    assert part_in_words(5, team) == "the Nerts pile and the work piles"


def test_with_no_teammate_at_the_table_every_move_is_ones_own() -> None:
    for move in (TurnStock(4), ToWork(4, ACE, NERTS, 1), ToWork(4, ACE, WASTE, 1)):
        assert my_part(move, 4, (4,))
    assert part_in_words(4, (4,)) == "the whole tableau"
    # The stock's teammate gone, the one left turns the stock itself.
    assert my_part(TurnStock(4), 4, (4, 5))
