"""The simple bot: it only makes legal moves, and a table of them always finishes a round."""

from __future__ import annotations

import random

import pytest

from p2pnerts.bots import SimpleBot, play_round
from p2pnerts.rules import (
    DeclareStuck,
    TableOptions,
    apply,
    deal,
    is_stuck,
    legal_moves,
    public_view,
    solo_seats,
    team_seats,
)


@pytest.mark.parametrize("players", [2, 3, 4, 8, 14])
@pytest.mark.parametrize(
    "options",
    [TableOptions(), TableOptions(stock_turn=1, work_piles=5), TableOptions(jokers=True)],
    ids=["standard", "turn-one-five-piles", "jokers"],
)
def test_a_table_of_simple_bots_finishes_every_round(players: int, options: TableOptions) -> None:
    for seed in range(6):
        state = deal(options, solo_seats(players), rng=random.Random(seed))
        bots = [SimpleBot(random.Random(seed * 31 + i)) for i in range(players)]
        assert play_round(state, bots, random.Random(seed)).ended is not None


def test_teams_of_bots_finish_a_round() -> None:
    seats = team_seats(2, 3, 1)
    state = deal(TableOptions(teams=(2, 3, 1)), seats, rng=random.Random(4))
    bots = [SimpleBot(random.Random(i)) for i in range(len(seats))]
    assert play_round(state, bots, random.Random(4)).ended is not None


def test_the_bot_chooses_only_legal_moves_from_the_public_table() -> None:
    state = public_view(deal(TableOptions(), solo_seats(3), rng=random.Random(9)))
    bot = SimpleBot(random.Random(0))
    move = bot.choose(state, 1)
    assert move in legal_moves(state, 1)


def test_the_bot_declares_stuck_only_when_it_is() -> None:
    declared = 0
    for seed in range(10):
        state = deal(TableOptions(), solo_seats(2), rng=random.Random(seed))
        bots = [SimpleBot(random.Random(seed)), SimpleBot(random.Random(seed + 1))]
        rng = random.Random(seed)
        for _ in range(5000):
            if state.ended is not None:
                break
            seat = rng.randrange(2)
            move = bots[seat].choose(state, seat)
            if isinstance(move, DeclareStuck):
                assert is_stuck(state, seat)
                declared += 1
            if move is not None:
                state, _ = apply(state, move)
    assert declared > 0, "no seed got a bot stuck: the check above never ran"
