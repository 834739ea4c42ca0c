"""The bot driver: its pace, and a team's tableau shared out between its seats."""

from __future__ import annotations

import random

import pytest

from p2pnerts.bots import BotDriver, SimpleBot, SimpleBots
from p2pnerts.driver import Look, Pace
from p2pnerts.rules import (
    NERTS,
    NEW_FOUNDATION,
    WASTE,
    Card,
    Move,
    Rotate,
    State,
    Suit,
    TableOptions,
    ToFoundation,
    TurnStock,
    deal,
    team_seats,
)

ACE = Card(0, 1, Suit.SPADES)
TABLE = deal(TableOptions(teams=(3, 1)), team_seats(3, 1), rng=random.Random(1))
TEAM = (0, 1, 2)
"""Seats 0-2 share a tableau; seat 3 plays alone."""


class Always:
    """A policy that always wants one move (made for whichever seat asks)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def choose(self, view: State, seat: int) -> Move | None:
        match self.kind:
            case "turn":
                return TurnStock(seat)
            case "waste up":
                return ToFoundation(seat, ACE, WASTE, NEW_FOUNDATION)
            case "nerts up":
                return ToFoundation(seat, ACE, NERTS, NEW_FOUNDATION)
            case "rotate":
                return Rotate(seat)
        return None


def look(
    seat: int,
    *,
    away: tuple[int, ...] = (),
    now: float = 0.0,
    moved: dict[int, float] | None = None,
) -> Look:
    """Seat ``seat``'s look at the team's tableau."""
    return Look(TABLE, seat, TEAM, away, now, moved or {})


def test_a_look_is_drawn_from_the_pace_with_one_draw_of_the_generator() -> None:
    driver = BotDriver(Always("turn"), Pace(0.1, 0.2))
    rng, twin = random.Random(7), random.Random(7)
    waits = [driver.next_look(rng) for _ in range(50)]
    assert waits == [0.1 + twin.random() * 0.2 for _ in range(50)]
    assert all(0.1 <= w <= 0.3 for w in waits)


@pytest.mark.parametrize(
    ("kind", "stock_hand"), [("turn", True), ("waste up", True), ("nerts up", False)]
)
def test_on_a_team_the_first_seat_plays_stock_and_waste_the_others_the_rest(
    kind: str, stock_hand: bool
) -> None:
    driver = BotDriver(Always(kind))
    assert [driver.choose(look(s)) is not None for s in TEAM] == [
        stock_hand,
        not stock_hand,
        not stock_hand,
    ]


def test_a_teammate_away_or_idle_past_the_patience_leaves_its_part_to_the_others() -> None:
    driver = BotDriver(Always("turn"), Pace(patience=2.0))
    assert driver.choose(look(1)) is None  # seat 0 turns the stock
    assert driver.choose(look(1, away=(0,))) == TurnStock(1)
    assert driver.choose(look(1, now=10.0, moved={0: 7.0})) == TurnStock(1)
    assert driver.choose(look(1, now=10.0, moved={0: 8.5})) is None
    assert driver.choose(look(2, now=10.0, moved={0: 7.0})) is None  # seat 1 is first now
    assert driver.minding(look(1, now=10.0, moved={0: 7.0, 2: 9.0})) == [1, 2]


def test_a_seat_alone_plays_its_whole_tableau() -> None:
    for kind in ("turn", "waste up", "nerts up"):
        move = BotDriver(Always(kind)).choose(Look(TABLE, 3, (3,)))
        assert move is not None and move.seat == 3


def test_a_bot_never_asks_for_the_rotation_nor_plays_when_its_policy_waits() -> None:
    assert BotDriver(Always("rotate")).choose(look(0)) is None
    assert BotDriver(Always("nothing")).choose(look(0)) is None


def test_the_simulators_bots_are_simple_bots_at_one_pace() -> None:
    pace = Pace(0.02, 0.01)
    made = SimpleBots(pace)(3, random.Random(5))
    assert isinstance(made.policy, SimpleBot) and made.pace == pace
