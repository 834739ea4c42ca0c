"""What the network's peers and the simulator ask of a program that plays a seat.

Both give a bot's seat a look at the table now and then (its pace), and at each look ask
it for a move: what to play, kept to the seat's part of a team's tableau. A `Driver`
answers both questions; `p2pnerts.bots.BotDriver` is the one the commands, the arena and
the tests hand in. `net` and `sim` see only this interface, so neither imports the bots.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from p2pnerts.rules import Move, State


@dataclass(frozen=True, slots=True)
class Pace:
    """How long a bot takes between looks at the table, in seconds: uniform from ``think``
    to ``think + spread``."""

    think: float = 0.05
    spread: float = 0.05
    patience: float = 2.0
    """On a team, how long the bot leaves a teammate's part of the tableau to a teammate
    that makes no move before it plays that part too."""

    def sample(self, rng: random.Random) -> float:
        """Seconds until the next look, drawn from ``rng``."""
        return self.think + rng.random() * self.spread


@dataclass(frozen=True, slots=True)
class Look:
    """What a seat's player sees when it looks at the table: the table, and its team."""

    view: State
    """The table as this seat's player sees it (the replica's ``display``)."""
    seat: int
    team: tuple[int, ...]
    """The seats playing this seat's deck, itself included, in seat order."""
    away: Collection[int] = ()
    """Seats that cannot move this round (not at the table, or not dealt in)."""
    now: float = 0.0
    moved: Mapping[int, float] = field(default_factory=dict)
    """When each seat last made a move (or the round began). A seat missing here counts as
    moving just now: whoever does not keep these times takes every teammate to be minding
    their part."""


class Driver(Protocol):
    """Plays one seat for a program: when it looks at the table, and what it plays then."""

    def next_look(self, rng: random.Random) -> float:
        """Seconds until this seat's next look at the table, drawn from ``rng``."""
        ...

    def choose(self, look: Look) -> Move | None:
        """The move to make at this look, or None to wait for the next.

        On the network it is called in a worker thread (one call at a time, with a look
        of its own), so that the peer answers the table meanwhile: the table may have
        moved on by the time it returns, and a move it no longer allows is not made."""
        ...


Drivers = Callable[[int, random.Random], Driver]
"""Makes the driver of seat ``seat`` of a simulated table, given the generator its run's
seed fixes for that seat's bot."""
