"""Scoring a round, and match totals up to a target score or a fixed number of rounds."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from typing import NamedTuple

from p2pnerts.rules._options import TableOptions
from p2pnerts.rules._state import EndReason, State


class RoundScore(NamedTuple):
    """One deck's (player's or team's) score for a round."""

    deck: int
    played: int
    """Own cards in the foundations, completed ones included."""
    nerts_left: int
    bonus: int
    points: int
    called_nerts: bool


def score_round(state: State) -> tuple[RoundScore, ...]:
    """Every deck's score, from the table as it lies (final once the round has ended)."""
    options = state.options
    played = Counter(card.deck for f in state.all_foundations() for card in f.cards)
    ended = state.ended
    caller = None
    if ended is not None and ended.reason is EndReason.NERTS and ended.caller is not None:
        caller = state.seats[ended.caller]
    scores = []
    for t in state.tableaux:
        called = t.deck == caller
        bonus = options.nerts_bonus if called else 0
        left = len(t.nerts)
        points = played[t.deck] * options.card_points - left * options.nerts_penalty + bonus
        scores.append(RoundScore(t.deck, played[t.deck], left, bonus, points, called))
    return tuple(scores)


class Match(NamedTuple):
    """The rounds of a match so far; ``decks`` players or teams take part.

    The one place a match's totals, its end and its winners are worked out: the peers keep
    every round's points per deck (``rounds``), and read the rest from here.
    """

    options: TableOptions
    decks: int
    rounds: tuple[tuple[int, ...], ...] = ()
    """Every round's points, per deck (a team's deck scores for the team)."""

    @classmethod
    def of_points(cls, options: TableOptions, decks: int, rounds: Iterable[Sequence[int]]) -> Match:
        """The match whose rounds scored ``rounds`` (each round's points, per deck)."""
        match = cls(options, decks)
        for points in rounds:
            match = match.record_points(points)
        return match

    def record(self, scores: Sequence[RoundScore]) -> Match:
        """The match with one more round's scores."""
        if len(scores) != self.decks:
            raise ValueError(f"{len(scores)} scores for {self.decks} decks")
        points = [0] * self.decks
        for s in scores:
            points[s.deck] += s.points
        return self.record_points(points)

    def record_points(self, points: Sequence[int]) -> Match:
        """The match with one more round, in which deck ``d`` scored ``points[d]``."""
        if len(points) != self.decks:
            raise ValueError(f"{len(points)} scores for {self.decks} decks")
        return self._replace(rounds=self.rounds + (tuple(points),))

    def void(self, index: int, decks: Collection[int]) -> Match:
        """The match with the round at ``index`` (0 for the first) voided for ``decks``."""
        rounds = list(self.rounds)
        rounds[index] = void_points(rounds[index], decks)
        return self._replace(rounds=tuple(rounds))

    @property
    def totals(self) -> tuple[int, ...]:
        """Every deck's points over the rounds so far."""
        return tuple(sum(points[deck] for points in self.rounds) for deck in range(self.decks))

    @property
    def over(self) -> bool:
        """Over after the fixed number of rounds, or once any total reaches the target."""
        if self.options.rounds is not None:
            return len(self.rounds) >= self.options.rounds
        return any(total >= self.options.target for total in self.totals)

    @property
    def winners(self) -> tuple[int, ...]:
        """The decks with the highest total (several on a tie); empty while not over."""
        if not self.over:
            return ()
        totals = self.totals
        best = max(totals)
        return tuple(deck for deck, total in enumerate(totals) if total == best)


def void_points(points: Sequence[int], decks: Collection[int]) -> tuple[int, ...]:
    """A round's points with ``decks`` voided (they failed its audit, SPEC §5.5): each
    scores the round's lowest points, and never more than 0, so it cannot win the round."""
    floor = min(0, *points)
    return tuple(floor if deck in decks else p for deck, p in enumerate(points))
