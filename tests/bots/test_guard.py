"""A policy's failures do not take its seat down, and are told: an exception, or a move
the rules refuse (which the peer would otherwise drop, again and again, unseen)."""

from __future__ import annotations

import random
from pathlib import Path

from p2pnerts.bots import Guarded, SimpleBot, refused
from p2pnerts.rules import CallNerts, DeclareStuck, Move, State, TableOptions, TurnStock, deal

TABLE = deal(TableOptions(), [0, 1], rng=random.Random(3))


class Says:
    """A policy that plays the moves it is given, in turn."""

    def __init__(self, *moves: Move) -> None:
        self.moves = list(moves)

    def choose(self, view: State, seat: int) -> Move | None:
        return self.moves.pop(0)


def test_a_move_the_rules_take_passes_and_one_they_refuse_is_told_once_then_the_seat_is_stuck() -> (
    None
):
    told: list[str] = []
    guarded = Guarded(Says(TurnStock(0), CallNerts(0), TurnStock(0)), told.append, "Ann's policy")
    assert guarded.choose(TABLE, 0) == TurnStock(0)
    assert told == [] and not guarded.failed
    assert guarded.choose(TABLE, 0) == DeclareStuck(0)  # not the CallNerts
    assert guarded.failed and len(told) == 1
    # Its author's file and line: where its choose() is written.
    written = f"{Path(__file__).relative_to(Path.cwd())}:{Says.choose.__code__.co_firstlineno}"
    assert told[0] == (
        "Ann's policy chose CallNerts(seat=0), which the rules refuse: your Nerts pile still "
        f"has 13 cards (its choose() is at {written}); it plays no more, and the seat plays "
        "on as stuck"
    )
    assert guarded.choose(TABLE, 0) == DeclareStuck(0) and len(told) == 1


def test_a_move_the_rules_cannot_read_or_for_another_seat_is_refused_with_what_went_wrong() -> None:
    assert refused(TABLE, 0, TurnStock(0)) is None
    assert refused(TABLE, 1, SimpleBot(random.Random(1)).choose(TABLE, 1) or TurnStock(1)) is None
    assert refused(TABLE, 1, CallNerts(1)) == "your Nerts pile still has 13 cards"
    why = refused(TABLE, 0, "turn the stock, please")  # type: ignore[arg-type]
    assert why is not None and why.startswith("it is no move the rules can read (")
    # The rules would take it, but the peer plays seat 0 only (it would drop it unseen).
    assert refused(TABLE, 0, TurnStock(1)) == "it is a move for seat 1, and the policy plays seat 0"
