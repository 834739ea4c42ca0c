"""Rounds one after another over version 3's commit, as SPEC's notes lay out ("The round on
a majority's order"): a seat's Ready and its Reveal are plays on its deck's spot, as its
moves are. A round starts at a seat once every seat's Ready of it is committed there, and a
play of a round that resolves there before waits for the start (a local condition, not a
conflict); a seat reveals once the round has ended there, and says Ready for the next once
every seat's Reveal is committed. Every seat plays the same rounds to the same ends."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import pytest
from _round_table import Mark, Round, Seat

from p2pnerts.protocol._spots import Spot, Spotted
from p2pnerts.rules import Move, State, TableOptions, deal, public_digest, score_round


@dataclass
class Rounds:
    """Where one seat is in the match."""

    number: int = 0
    """The round on its table (0: none yet)."""
    started: bool = False
    ended: bool = False
    closed: bool = True
    """Every seat's Reveal of the round on its table is committed here."""
    readies: dict[int, set[int]] = field(default_factory=dict)
    reveals: dict[int, set[int]] = field(default_factory=dict)
    waiting: list[tuple[Spotted, bool]] = field(default_factory=list)
    """Plays of a round not started here that resolved here, in the order they did."""
    results: list[tuple[int, bytes, tuple[int, ...]]] = field(default_factory=list)
    """Each round as it ended here: its number, its public table, its points by deck."""


class Match(Round):
    """``rounds`` rounds at a table of ``players`` seats, each dealt from ``seed`` and its
    number."""

    def __init__(self, options: TableOptions, players: int, seed: int, rounds: int) -> None:
        super().__init__(options, players, seed)
        self.options, self.seed, self.rounds = options, seed, rounds
        self.at = [Rounds() for _ in range(players)]
        self.round_of: dict[bytes, int] = {}
        """Each move's round, by the play's witness."""
        self.waited = 0
        """Plays that resolved at a seat before their round started there."""
        for seat in range(players):
            self._say(seat, ("ready", 1))

    def _deal(self, number: int) -> State:
        return deal(self.options, self.decks, rng=random.Random(self.seed * 1000 + number))

    def _say(self, seat: int, mark: Mark) -> None:
        """A Ready or a Reveal: a play on the seat's deck."""
        self.send(seat, mark, (("deck", self.decks[seat]),))

    def send(
        self, seat: int, move: Move | Mark, spots: tuple[Spot, ...], view: State | None = None
    ) -> Spotted:
        play = super().send(seat, move, spots, view)
        self.round_of[play.witness] = self.at[seat].number
        return play

    def look(self, seat: int) -> None:
        at = self.at[seat]
        if at.started and not at.ended:
            super().look(seat)

    def over(self, playing: list[Seat]) -> bool:
        return all(a.number == self.rounds and a.closed for a in self.at)

    def take(self, seat: int, play: Spotted, ok: bool) -> None:
        at, act = self.at[seat], self.moves[play.witness]
        if isinstance(act, tuple):
            kind, number = act
            if not ok:  # a member voted it late: said again
                if play.seat == seat:
                    self._say(seat, act)
                return
            group = at.readies if kind == "ready" else at.reveals
            group.setdefault(number, set()).add(play.seat)
            self._move_on(seat)
            return
        number = self.round_of[play.witness]
        if number > at.number or (number == at.number and not at.started):
            at.waiting.append((play, ok))
            self.waited += 1
            return
        if number == at.number and not at.ended:
            super().take(seat, play, ok)
            if self.seats[seat].table.ended is not None:
                self._end(seat)

    def _end(self, seat: int) -> None:
        at, table = self.at[seat], self.seats[seat].table
        at.ended = True
        points = tuple(score.points for score in score_round(table))
        at.results.append((at.number, public_digest(table), points))
        self._say(seat, ("reveal", at.number))

    def _move_on(self, seat: int) -> None:
        """Close the round on the table once every seat revealed; start the next once
        every seat is ready for it, and take the plays of it that waited."""
        at, players = self.at[seat], len(self.seats)
        if at.ended and not at.closed and len(at.reveals.get(at.number, ())) == players:
            at.closed = True
            if at.number < self.rounds:
                self._say(seat, ("ready", at.number + 1))
        following = at.number + 1
        if at.closed and len(at.readies.get(following, ())) == players:
            at.number, at.started, at.ended, at.closed = following, True, False, False
            me = self.seats[seat]
            me.table, me.air = self._deal(following), []
            waiting, at.waiting = at.waiting, []
            for play, ok in waiting:
                self.take(seat, play, ok)


@pytest.mark.parametrize(("players", "seed"), [(3, 0), (4, 0), (6, 0)])
def test_rounds_one_after_another_end_alike_at_every_seat(players: int, seed: int) -> None:
    """Three rounds: every seat ends each on the same table with the same points, though
    at some seat a play of a round resolved before the round started there (it waited)."""
    match = Match(TableOptions(nerts_pile=6), players, seed, rounds=3)
    match.play(until=300.0)
    assert all(at.number == 3 and at.closed for at in match.at)
    results = [at.results for at in match.at]
    assert len(results[0]) == 3 and all(r == results[0] for r in results)
    assert match.waited > 0
