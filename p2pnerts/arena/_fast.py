"""The fast arena: a round on the rules engine alone, races settled by each seat's pace.

No replicas and no messages: one true table, and a clock of looks and landings. Each seat
looks at the table at its pace (the same `BotDriver` the simulator asks) and sees its
`private_view`. A move that the protocol holds in the air until it commits (a foundation
play, a Nerts call, a stuck declaration; on a team's tableau every move) lands after an
*air time* drawn from `AIR`, what the full protocol's commit takes on the simulator's quiet
network at 4 players; until then the seat's one hand is busy, and the other seats do not
see the move. Every other move is the seat's own business and applies at once. A move that
the rules refuse when it lands goes back: a race lost to the seat whose card took the spot.
Plays land one by one, so there are no ties (the full protocol's both-stay ties, two plays
of equal clocks, are rare above 2 players).

Everyone stuck means the rotation, applied as the replicas apply it; a Nerts call that
lands ends the round, and moves still in the air go back. The seed fixes everything but
the measured decision times.
"""

from __future__ import annotations

import heapq
import math
import random
from dataclasses import dataclass

from p2pnerts.arena._job import Job, faces
from p2pnerts.arena._report import ArenaError, ArenaRound, Tally
from p2pnerts.bots import BotDriver
from p2pnerts.driver import Look
from p2pnerts.rules import (
    CallNerts,
    DeclareStuck,
    IllegalMove,
    Move,
    Rotate,
    State,
    ToFoundation,
    apply,
    deal,
    exposed,
    private_view,
    score_round,
)

AIR = (0.008, 0.0125)
"""Seconds a held move is in the air, uniform in this range: the full arena's commit time
(one round trip to the slowest peer and an acknowledgement) on its 1-3 ms links."""
MAX_EVENTS = 200_000
"""A bound no real round comes near; past it the round is given up as runaway."""


def fast_round(job: Job, tallies: dict[str, Tally], deal_: int, rotation: int) -> ArenaRound:
    """One round on the rules alone: what every seat was dealt and scored, in seat order."""
    orders = [job.deck(deal_, rotation, job.seating.index(d)) for d in range(job.decks)]
    state = deal(job.options, job.seating, orders=orders)
    drivers = job.drivers(tallies, deal_, rotation)
    seats = [Seat(drivers[s], job.seats[s], job.team(s)) for s in range(job.players)]
    rng = random.Random(f"fast:{job.seed}:{deal_}:{rotation}")
    end = FastRound(state, seats, tallies, rng).run()
    assert end.ended is not None
    scores, caller = score_round(end), end.ended.caller
    points = tuple(job.score(tallies, s, caller, scores) for s in range(job.players))
    dealt = tuple(faces(orders[d]) for d in job.seating)
    return ArenaRound(deal_, rotation, dealt, points)


@dataclass(frozen=True, slots=True)
class Seat:
    """One seat of a fast round: its policy's driver, its name, and its team's seats."""

    driver: BotDriver
    name: str
    team: tuple[int, ...]


class FastRound:
    """One round on one true table, played out by `run`."""

    def __init__(
        self, state: State, seats: list[Seat], tallies: dict[str, Tally], rng: random.Random
    ) -> None:
        self.state, self.seats, self.tallies, self.rng = state, seats, tallies, rng
        self.now = 0.0
        self.hands: list[Move | None] = [None] * len(seats)
        self.placed: dict[int, int] = {}
        """The seat that last put a card on each foundation (by id)."""
        self._queue: list[tuple[float, int, int, Move | None]] = []
        self._order = 0

    def run(self, until: float = math.inf) -> State:
        """Play until the round ends, or only until ``until`` seconds into it (a look ahead
        at how a round goes on); the table then."""
        for seat in range(len(self.seats)):
            self._at(self.seats[seat].driver.next_look(self.rng), seat, None)
        for _ in range(MAX_EVENTS):
            if self.state.ended is not None or self._queue[0][0] > until:
                return self.state
            self.now, _, seat, landing = heapq.heappop(self._queue)
            if landing is None:
                self._look(seat)
            else:
                self._land(seat, landing)
        raise ArenaError(f"a fast round did not end within {MAX_EVENTS} looks and landings")

    def _at(self, when: float, seat: int, landing: Move | None) -> None:
        self._order += 1
        heapq.heappush(self._queue, (when, self._order, seat, landing))

    def _look(self, seat: int) -> None:
        me = self.seats[seat]
        self._at(self.now + me.driver.next_look(self.rng), seat, None)
        if self.hands[seat] is not None:
            return
        view = private_view(self.state, seat)
        move = me.driver.choose(Look(view, seat, me.team, (), self.now))
        if move is None:
            return
        if len(me.team) > 1 or isinstance(move, ToFoundation | CallNerts | DeclareStuck):
            self.hands[seat] = move
            self._at(self.now + self.rng.uniform(*AIR), seat, move)
        else:
            self._apply(seat, move)

    def _land(self, seat: int, move: Move) -> None:
        self.hands[seat] = None
        try:
            self._apply(seat, move)
        except IllegalMove:
            # A race lost, if the card is still there to go back (on a team's tableau a
            # teammate may have moved the card itself: then nobody won a race).
            if isinstance(move, ToFoundation) and move.foundation in self.placed:
                if move.card not in (c for _, c in exposed(self.state.tableau_of(seat))):
                    return
                winner = self.placed[move.foundation]
                self.tallies[self.seats[seat].name].lost += 1
                self.tallies[self.seats[winner].name].won += 1

    def _apply(self, seat: int, move: Move) -> None:
        """Apply a seat's move to the table (raising `IllegalMove` if the rules refuse it),
        then the rotation if everyone is stuck."""
        self.state, _ = apply(self.state, move)
        if isinstance(move, ToFoundation):
            self.tallies[self.seats[seat].name].cards += 1
            self.placed[move.foundation] = seat  # (a new foundation's aces never race)
        if self.state.ended is None and all(t.stuck for t in self.state.tableaux):
            self.state, _ = apply(self.state, Rotate(0))
