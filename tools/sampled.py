"""The expert bot with sampled look-ahead over the table, an arena policy:

    p2pnerts arena --fast --policies strong,tools/sampled.py:ExpertSampled --rounds 400 --seed 61

Where the expert chooses between a move at home and a turn of the stock, both are played on
over deals of the cards its seat has not seen, for as many pairs as the time allows, and
the other is taken where it comes out ahead by twice its standard error. It reads no card
its seat has not seen: its own face-down Nerts cards and unturned stock are guessed too
(tests/bots/test_sampled.py holds it to the twin rounds of tests/bots/test_unseen.py).
What it found is in the expert bot's notes (``p2pnerts/bots/_expert.py``).
"""

from __future__ import annotations

import dataclasses
import random
import statistics
import time

from probes import _ahead, _guess, _kind, _unseen_hidden  # beside this file

from p2pnerts.bots import ExpertBot, Policy, PriorityBot, Sight, StrongBot
from p2pnerts.bots._expert import EXPERT
from p2pnerts.bots._strong import _gains, _Table
from p2pnerts.rules import (
    IllegalMove,
    Move,
    Rotate,
    State,
    TurnStock,
    apply,
    legal_moves,
)

QUICK = dataclasses.replace(EXPERT, candidates=1, ahead=1)
"""How the seat plays on in a line of play: the expert's judgement, one move ahead."""
LOOKS = 13.3
"""Looks a second at each seat, as the fast arena's pace."""


class ExpertSampled:
    """The expert; where it chooses between a move at home and a turn, both played on over
    guesses at the cards its seat has not seen (`PAIRS` at most, within `BUDGET` seconds),
    for `HORIZON` seconds of the table's play: its own seat by the expert's judgement one
    move ahead, every other seat by the priority bot. The other is taken if it comes out
    ahead by `MARGIN` standard errors."""

    BUDGET, HORIZON, MARGIN, PAIRS = 0.035, 0.5, 2.0, 64

    def __init__(self, rng: random.Random) -> None:
        self.expert, self.rng = ExpertBot(), rng

    def choose(self, view: State, seat: int) -> Move | None:
        started = time.perf_counter()
        move = self.expert.choose(view, seat)
        known = _unseen_hidden(self.expert.sight.known(view, seat), seat)
        other = _alternative(known, seat, move)
        if move is None or other is None:
            return move
        gains: list[float] = []
        while len(gains) < self.PAIRS and time.perf_counter() - started < self.BUDGET:
            guess = _guess(known, self.rng)
            seed = self.rng.getrandbits(32)
            theirs, mine = (self._play_on(apply(guess, m)[0], seat, seed) for m in (other, move))
            gains.append(theirs - mine)
        if len(gains) < 2:
            return move
        mean = statistics.fmean(gains)
        error = statistics.stdev(gains) / len(gains) ** 0.5
        return other if mean > 0 and mean > self.MARGIN * error else move

    def _play_on(self, state: State, seat: int, seed: int) -> float:
        """How far ahead of the others the seat is after `HORIZON` seconds of play (the
        same seats looking in the same order for either move)."""
        rng = random.Random(seed)
        players = len(state.seats)
        bots = [_player(s == seat) for s in range(players)]
        for s in (rng.randrange(players) for _ in range(int(self.HORIZON * LOOKS * players))):
            if state.ended is not None:
                break
            move = bots[s].choose(state, s)
            if move is None or isinstance(move, Rotate):
                continue
            try:
                state = apply(state, move)[0]
            except IllegalMove:
                continue
            if state.ended is None and all(t.stuck for t in state.tableaux):
                state = apply(state, Rotate(0))[0]
        return _ahead(state, seat)


class _Reads(Sight):
    """A line of play's sight: the cards of a guessed deal are guesses, all of them read."""

    def known(self, view: State, seat: int) -> State:
        return view


def _player(own: bool) -> Policy:
    """A seat's player in a line of play."""
    if own:
        bot = StrongBot(QUICK)
        bot.sight = _Reads()
        return bot
    other = PriorityBot()
    other._sight = _Reads()  # (its sight is its own business, but these cards are guesses)
    return other


def _alternative(view: State, seat: int, move: Move | None) -> Move | None:
    """The other side of "a move at home, or a turn" where ``move`` is one: the best move
    onto a work pile for a turn, a turn for such a move; else None."""
    moves = legal_moves(view, seat)
    if isinstance(move, TurnStock):
        table = _Table(view, seat, EXPERT, True)
        home = [m for _, m in _gains(view, seat, moves, table) if _kind(m) in ("waste", "work")]
        return home[0] if home else None
    if _kind(move) in ("waste", "work") and TurnStock(seat) in moves:
        return TurnStock(seat)
    return None
