"""One hand (SPEC §4.9): a move waits for a play in the air only if that play's verdict
could change it."""

from __future__ import annotations

import pytest

from p2pnerts.protocol import Hand
from p2pnerts.rules import (
    NERTS,
    NEW_FOUNDATION,
    WASTE,
    CallNerts,
    Card,
    DeclareStuck,
    Move,
    SlideUnder,
    Suit,
    ToFoundation,
    ToWork,
    TurnStock,
)

FIVE = Card(0, 5, Suit.HEARTS)
SIX = Card(0, 6, Suit.HEARTS)
ACE = Card(0, 1, Suit.SPADES)
TWO = Card(0, 2, Suit.SPADES)
FLYING = ToFoundation(0, FIVE, 1, 2)
"""The 5♥ from work pile 2 onto foundation 3, in the air."""


@pytest.mark.parametrize(
    "move",
    [
        pytest.param(TurnStock(0), id="a stock turn"),
        pytest.param(ToFoundation(0, TWO, NERTS, 0), id="a Nerts card to another foundation"),
        pytest.param(ToFoundation(0, ACE, WASTE, NEW_FOUNDATION), id="an ace to a new one"),
        pytest.param(ToWork(0, SIX, WASTE, 0), id="the waste's card onto another pile"),
        pytest.param(ToWork(0, SIX, 3, 0), id="a pile moved between two others"),
    ],
)
def test_a_move_that_touches_neither_the_pile_nor_the_foundation_goes_at_once(
    move: Move,
) -> None:
    assert Hand((FLYING,), agreed=4).waits_for(move) is None


@pytest.mark.parametrize(
    "move",
    [
        pytest.param(ToWork(0, SIX, WASTE, 1), id="a card onto the pile the 5 left"),
        pytest.param(ToWork(0, SIX, 1, 0), id="the pile the 5 left, moved"),
        pytest.param(ToFoundation(0, SIX, 1, 2), id="the next card from that pile"),
        pytest.param(ToFoundation(0, SIX, WASTE, 2), id="a card onto the 5 in the air"),
        pytest.param(SlideUnder(0, SIX, WASTE, 0), id="a slide, which asks for an empty pile"),
        pytest.param(DeclareStuck(0), id="a stuck declaration"),
        pytest.param(CallNerts(0), id="a Nerts call"),
    ],
)
def test_a_move_the_verdict_could_change_waits_for_it(move: Move) -> None:
    assert Hand((FLYING,), agreed=4).waits_for(move) == FLYING


def test_a_stock_turn_waits_for_the_wastes_card_in_the_air() -> None:
    from_waste = ToFoundation(0, FIVE, WASTE, 2)
    assert Hand((from_waste,), agreed=4).waits_for(TurnStock(0)) == from_waste


def test_while_an_ace_starts_a_foundation_a_card_for_a_foundation_not_agreed_waits() -> None:
    ace = ToFoundation(0, ACE, NERTS, NEW_FOUNDATION)
    hand = Hand((ace,), agreed=2)
    assert hand.waits_for(ToFoundation(0, TWO, WASTE, 2)) == ace  # the ace's, on screen
    assert hand.waits_for(ToFoundation(0, SIX, WASTE, 1)) is None  # an agreed one
    assert hand.waits_for(ToFoundation(0, Card(0, 1, Suit.HEARTS), 3, NEW_FOUNDATION)) is None


@pytest.mark.parametrize("held", [DeclareStuck(0), CallNerts(0)])
def test_while_a_stuck_declaration_or_a_nerts_call_is_in_the_air_everything_waits(
    held: Move,
) -> None:
    assert Hand((held,)).waits_for(TurnStock(0)) == held


@pytest.mark.parametrize(
    ("held", "move", "waits"),
    [
        pytest.param(TurnStock(0), TurnStock(0), True, id="a turn after a turn"),
        pytest.param(TurnStock(0), ToWork(0, SIX, WASTE, 0), True, id="the turned card"),
        pytest.param(TurnStock(0), ToWork(0, SIX, 3, 0), False, id="a pile after a turn"),
        pytest.param(ToWork(0, SIX, 3, 0), ToFoundation(0, SIX, 0, 1), True, id="its card on"),
        pytest.param(ToWork(0, SIX, 3, 0), ToWork(0, FIVE, 1, 3), True, id="onto its pile"),
        pytest.param(ToWork(0, SIX, 3, 0), TurnStock(0), False, id="a turn after a pile"),
        pytest.param(ToWork(0, SIX, 3, 0), ToFoundation(0, TWO, NERTS, 1), False, id="nerts up"),
        pytest.param(ToWork(0, SIX, NERTS, 0), ToWork(0, FIVE, NERTS, 2), True, id="nerts next"),
        pytest.param(ToWork(0, SIX, 3, 0), SlideUnder(0, FIVE, 1, 2), True, id="a slide"),
        pytest.param(ToWork(0, SIX, 3, 0), CallNerts(0), True, id="a call"),
    ],
)
def test_on_a_teams_tableau_a_move_waits_for_a_move_in_the_air_on_a_pile_it_touches(
    held: Move, move: Move, waits: bool
) -> None:
    """A team's every move holds the hand (a teammate's move may send it back), and a next
    move waits for one whose return would change it: one on a pile it touches."""
    assert Hand((held,), agreed=4).waits_for(move) == (held if waits else None)


def test_a_move_waits_for_the_last_play_it_depends_on_and_the_last_sent_is_shown() -> None:
    second = ToFoundation(0, TWO, NERTS, 0)
    hand = Hand((FLYING, second), agreed=4)
    assert hand.last == second
    assert hand.waits_for(ToWork(0, SIX, WASTE, 1)) == FLYING
    assert hand.waits_for(ToFoundation(0, Card(0, 3, Suit.SPADES), WASTE, 0)) == second
    assert Hand().waits_for(DeclareStuck(0)) is None and Hand().last is None
