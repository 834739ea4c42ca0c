"""A round of Nerts played to its end over version 3's commit (`_round_table`), with the
real rules. Seats apply plays of different spots in different orders; at every play on the
whole table (a stuck declaration, a call) and at the end every seat holds the same table,
and the round's scores are the same everywhere. A seat left out mid-round changes none of
that for the others: the change of members is a place where they hold one table too."""

from __future__ import annotations

import pytest
from _round_table import Round

from p2pnerts.rules import TableOptions, public_digest, score_round


@pytest.mark.parametrize(
    ("options", "players", "seed"),
    [
        (TableOptions(nerts_pile=6), 4, 1),
        (TableOptions(nerts_pile=6), 4, 2),
        (TableOptions(nerts_pile=6, jokers=True), 3, 3),
        (TableOptions(nerts_pile=6, teams=(2, 2)), 4, 4),
        (TableOptions(nerts_pile=4), 6, 5),
    ],
)
def test_a_round_over_the_commit_ends_on_one_table_and_one_score_everywhere(
    options: TableOptions, players: int, seed: int
) -> None:
    game = Round(options, players, seed)
    game.play()
    tables = [seat.table for seat in game.seats]
    assert all(t.ended is not None for t in tables)
    assert len({public_digest(t) for t in tables}) == 1
    assert len({tuple(score_round(t)) for t in tables}) == 1
    first = game.seats[0].barriers
    assert first and all(seat.barriers == first for seat in game.seats)
    assert all(
        not seat.commits.order.unresolved and not seat.air and not seat.waiting
        for seat in game.seats
    )
    orders = {tuple(seat.applied) for seat in game.seats}
    assert len(orders) > 1  # the seats applied the plays in different orders


@pytest.mark.parametrize(("players", "seed"), [(2, 22), (2, 12), (2, 10)])
def test_rotations_and_calls_that_come_back_late_leave_one_table_everywhere(
    players: int, seed: int
) -> None:
    """Full piles: every seat stuck, the stocks rotated at every seat at the same place;
    a stuck declaration or a call that came back late, and the bot that made it making
    it again."""
    game = Round(TableOptions(), players, seed)
    game.play(until=300)
    tables = [seat.table for seat in game.seats]
    assert all(t.ended is not None for t in tables)
    assert tables[0].rotations + game.late_barriers >= 2
    assert all(t == tables[0] for t in tables)
    assert all(seat.barriers == game.seats[0].barriers for seat in game.seats)


@pytest.mark.parametrize(
    ("options", "players", "seed", "at"),
    [
        (TableOptions(nerts_pile=6), 4, 1, 0.8),
        (TableOptions(nerts_pile=6), 4, 2, 0.7),
        (TableOptions(nerts_pile=6), 4, 6, 0.7),
        (TableOptions(nerts_pile=6), 5, 2, 0.5),
        (TableOptions(), 3, 21, 4.0),
        (TableOptions(nerts_pile=6, teams=(1, 1, 2)), 4, 4, 0.8),
    ],
)
def test_a_seat_left_out_mid_round_and_the_rest_end_it_on_one_table(
    options: TableOptions, players: int, seed: int, at: float
) -> None:
    """The last seat is left out mid-round, its frames and the others' then in flight
    dropped: the change settles every open play alike, each seat of the new view holds the
    same table once it has applied what the change settled (its deck, with no seat left,
    counted stuck), and the round ends on one table everywhere."""
    game = Round(options, players, seed)
    game.play(leave=(at, players - 1))
    assert game.out == {players - 1}
    seats = [seat for i, seat in enumerate(game.seats) if i not in game.out]
    tables = [seat.table for seat in seats]
    assert all(t.ended is not None for t in tables)
    assert all(t == tables[0] for t in tables)
    assert all(seat.barriers == seats[0].barriers for seat in seats)
    assert len({tuple(seat.applied) for seat in seats}) > 1
    assert all(
        not seat.commits.order.unresolved and not seat.air and not seat.waiting for seat in seats
    )
