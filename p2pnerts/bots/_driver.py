"""The bot's turn at a seat, on the network and in the simulator alike.

A `BotDriver` paces a policy's looks at the table and keeps its moves to the seat's part of
a team's tableau (`my_part`), taking over a teammate's part once that teammate has made no
move for a while (``Pace.patience``): a person may stop playing, and the round must go on.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from p2pnerts.bots._policy import Policy
from p2pnerts.bots._simple import SimpleBot
from p2pnerts.driver import Look, Pace
from p2pnerts.rules import Move, Rotate, my_part


@dataclass(frozen=True, slots=True)
class BotDriver:
    """Plays a seat with ``policy``, looking at the table at ``pace``."""

    policy: Policy
    pace: Pace = field(default_factory=Pace)

    def next_look(self, rng: random.Random) -> float:
        """Seconds until the next look, drawn from ``rng``."""
        return self.pace.sample(rng)

    def choose(self, look: Look) -> Move | None:
        """The policy's move at this look if it is the seat's to make, else None.

        The rotation when everyone is stuck happens by itself: a bot never asks for it.
        """
        move = self.policy.choose(look.view, look.seat)
        if move is None or isinstance(move, Rotate):
            return None
        return move if my_part(move, look.seat, self.minding(look)) else None

    def minding(self, look: Look) -> list[int]:
        """The seat and the teammates minding their parts, in seat order: at the table,
        dealt in, and making moves (a person may stop; a bot then plays their part too)."""
        now, patience = look.now, self.pace.patience
        return [
            s
            for s in look.team
            if s == look.seat or (s not in look.away and now - look.moved.get(s, now) < patience)
        ]


@dataclass(frozen=True, slots=True)
class SimpleBots:
    """The simulator's own players: a `SimpleBot` at every seat, all at one pace."""

    pace: Pace = field(default_factory=Pace)

    def __call__(self, seat: int, rng: random.Random) -> BotDriver:
        """Seat ``seat``'s driver, its ties broken by ``rng``."""
        return BotDriver(SimpleBot(rng), self.pace)
