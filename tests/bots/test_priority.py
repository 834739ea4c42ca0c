"""The priority bot: the first play of its list that applies, and patience that runs out."""

from __future__ import annotations

from collections.abc import Sequence

from _cards import card, cards

from p2pnerts.bots import PriorityBot
from p2pnerts.bots._priority import PATIENCE
from p2pnerts.rules import (
    NERTS,
    WASTE,
    Foundation,
    SlideUnder,
    State,
    Tableau,
    TableOptions,
    ToFoundation,
    ToWork,
    TurnStock,
    WorkPile,
    pile_of,
)


def pile(names: str) -> WorkPile:
    """A work pile from its cards bottom first (a descending run, colours alternating)."""
    run = cards(names)
    return pile_of(run) if run else WorkPile()


def table(
    *,
    nerts: str,
    work: Sequence[str],
    stock: str = "",
    waste: str = "",
    foundations: Sequence[str] = (),
) -> State:
    """One seat's table; each foundation is built from its ace of another deck."""
    built = [cards(f, 1) for f in foundations]
    tableau = Tableau(0, cards(nerts), tuple(map(pile, work)), cards(stock), cards(waste))
    middle = tuple(Foundation(i, f[0].suit, len(f), f) for i, f in enumerate(built))
    return State(TableOptions(), (0,), (tableau,), middle, next_foundation=len(middle))


def test_the_nerts_card_goes_up_before_a_work_piles_card() -> None:
    state = table(nerts="9C 2H", work=["3S", "", "KD", "QC"], foundations=["AH", "AS 2S"])
    assert PriorityBot().choose(state, 0) == ToFoundation(0, card("2H"), NERTS, 0)


def test_the_nerts_card_slides_under_a_pile_while_one_is_empty() -> None:
    state = table(nerts="9C 8D", work=["7S", "", "KD", "QC"])
    assert PriorityBot().choose(state, 0) == SlideUnder(0, card("8D"), NERTS, 0)


def test_a_part_of_a_pile_moves_when_it_uncovers_a_card_that_goes_up() -> None:
    state = table(
        nerts="9C KH", work=["4H", "4D 3C", "KS", "QC"], stock="5H", foundations=["AD 2D 3D"]
    )
    assert PriorityBot().choose(state, 0) == ToWork(0, card("3C"), 1, 0)


def test_the_waste_goes_down_only_when_it_helps_until_patience_runs_out() -> None:
    """A low waste card with most of the stock turned and nothing to build under it is
    kept on the waste: the bot turns the stock; after `PATIENCE` such looks it lays it."""
    state = table(nerts="9C KH", work=["KS", "QC", "10H", "8S"], stock="4C", waste="2D 3S 7H")
    bot = PriorityBot()
    for _ in range(PATIENCE):
        assert bot.choose(state, 0) == TurnStock(0)
    assert bot.choose(state, 0) == ToWork(0, card("7H"), WASTE, 3)


def test_a_high_waste_card_goes_down_at_once() -> None:
    state = table(nerts="9C KH", work=["KS", "QC", "10H", "8S"], stock="4C", waste="2D 3S JD")
    assert PriorityBot().choose(state, 0) == ToWork(0, card("JD"), WASTE, 1)
