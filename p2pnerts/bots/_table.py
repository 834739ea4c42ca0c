"""Bots playing one table in a single process, with no network: the plain-text game."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from p2pnerts.bots._policy import Policy
from p2pnerts.rules import Event, State, apply, private_view

MAX_STEPS = 200_000
"""A bound no real round comes near; past it the round is given up as runaway."""


def play_round(
    state: State,
    bots: Sequence[Policy],
    rng: random.Random,
    on_events: Callable[[State, list[Event]], None] | None = None,
) -> State:
    """Let every seat's bot act, seats in a random order, until the round ends.

    Each bot sees its own seat's view only. ``on_events`` hears the state after every
    move and the events it produced. Returns the final state.
    """
    seats = len(state.seats)
    for _ in range(MAX_STEPS):
        if state.ended is not None:
            return state
        seat = rng.randrange(seats)
        move = bots[seat].choose(private_view(state, seat), seat)
        if move is not None:
            state, events = apply(state, move)
            if on_events is not None:
                on_events(state, events)
    raise RuntimeError(f"the round did not end within {MAX_STEPS} steps")
