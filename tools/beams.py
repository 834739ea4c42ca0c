"""Beam searches over a seat's own tableau, arena policies: tools/beams.py:NAME.

The bounds the expert bot's notes (``p2pnerts/bots/_expert.py``) measure what it leaves at
its own tableau with: a search a hundred times its time, reading its own face-down cards
(``BeamPlan``, ``BeamHome``), and the same on guesses at them instead (``BeamGuess``).

    p2pnerts arena --fast --policies strong,tools/beams.py:BeamHome --rounds 200 --seed 1
    python tools/probes.py strong expert tools/beams.py:BeamPlan --deals 200
"""

from __future__ import annotations

import random
from collections import Counter

from probes import _guess, _score, _unseen_hidden  # beside this file

from p2pnerts.bots import ExpertBot, StrongBot
from p2pnerts.bots._strong import STRONG, _Table, _worth
from p2pnerts.rules import (
    CallNerts,
    IllegalMove,
    Move,
    SlideUnder,
    State,
    ToFoundation,
    ToWork,
    TurnStock,
    apply,
    legal_moves,
    makes_progress,
)


class BeamPlan:
    """Every card play and turn the first move of a beam search over the bot's own tableau
    (`WIDTH` tableaux kept at each of `DEPTH` moves, each valued as the strong bot values a
    tableau, plus its points: cards up less two a Nerts card left), the foundations as they
    are; it calls Nerts at once. It reads its own face-down cards, as the view lets it and
    the expert never does: a bound, not a bot (20-35 ms a decision)."""

    WIDTH, DEPTH = 60, 14

    def __init__(self) -> None:
        self.strong = StrongBot()

    def choose(self, view: State, seat: int) -> Move | None:
        moves = legal_moves(view, seat)
        if CallNerts(seat) in moves:
            return CallNerts(seat)
        return self.planned(view, seat) or self.strong.choose(view, seat)

    def planned(self, view: State, seat: int) -> Move | None:
        """The first move of the best line the beam finds; None if there is none."""
        beam: list[tuple[float, State, Move | None]] = [(0.0, view, None)]
        seen = set()
        for _ in range(self.DEPTH):
            wider = []
            for value, state, first in beam:
                if not state.tableau_of(seat).nerts:
                    wider.append((value + 1000, state, first))  # (a line that can call)
                    continue
                for m in legal_moves(state, seat):
                    if not isinstance(m, ToFoundation | ToWork | SlideUnder | TurnStock):
                        continue
                    try:
                        after = apply(state, m)[0]
                    except IllegalMove:
                        continue
                    key = (after.tableau_of(seat), after.foundations)
                    if key not in seen:
                        seen.add(key)
                        wider.append((_beam_value(after, seat), after, first or m))
            if not wider:
                break
            wider.sort(key=lambda line: -line[0])
            beam = wider[: self.WIDTH]
        return beam[0][2]


class BeamHome(BeamPlan):
    """The expert bot; where it moves a card at home or turns the stock, `BeamPlan`'s move
    instead, if that is a turn or makes progress (`makes_progress`: else two piles could
    trade a card back and forth for ever). Its plays up, calls and waits are the expert's."""

    def __init__(self) -> None:
        super().__init__()
        self.expert = ExpertBot()

    def choose(self, view: State, seat: int) -> Move | None:
        move = self.expert.choose(view, seat)
        if not isinstance(move, ToWork | SlideUnder | TurnStock):
            return move
        planned = self.planned(view, seat)
        if isinstance(planned, TurnStock) or (
            planned is not None and makes_progress(view, planned)
        ):
            return planned
        return move


class BeamGuess(BeamHome):
    """`BeamHome` that reads no face-down card: the beam runs on `GUESSES` guesses at the
    cards the seat has not seen, its own face-down Nerts cards and the stock it has not
    turned included (`_guess`: each dealt at random from the cards of its deck not seen),
    and its move is the first move most of them plan (ties: the expert's move)."""

    GUESSES, WIDTH, DEPTH = 2, 16, 8

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.rng = rng

    def planned(self, view: State, seat: int) -> Move | None:
        # (The view holds the seat's own face-down cards, as its peer does: hidden first.)
        known = _unseen_hidden(self.expert.sight.known(view, seat), seat)
        firsts = Counter(
            super(BeamGuess, self).planned(_guess(known, self.rng), seat)
            for _ in range(self.GUESSES)
        )
        (best, most), *rest = firsts.most_common()
        return None if rest and rest[0][1] == most else best


def _beam_value(state: State, seat: int) -> float:
    worth = _worth(state, seat, _Table(state, seat, STRONG, True), known=True)
    return _score(state, state.seats[seat]).points + worth
