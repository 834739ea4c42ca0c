"""Races and ties as the classroom pane marks them: both plays, and the reason the agreed
order gives ("L=1056 < L=1058", "equal clocks: rank decides", "both stay")."""

from __future__ import annotations

from collections.abc import Callable

from p2pnerts.protocol import (
    Event,
    PlayCommitted,
    PlayReturned,
    RoundStarted,
    key_for,
    order_reason,
)
from p2pnerts.rules import NEW_FOUNDATION, Card, TableOptions, ToFoundation
from p2pnerts.ui._frame import cut


class Races:
    """Remembers who last placed a card on each foundation, to tell a race or a tie."""

    def __init__(self, options: TableOptions, seats: int, name: Callable[[int], str]) -> None:
        self._options, self._seats, self._name = options, seats, name
        self._placed: dict[int, tuple[int, tuple[int, int, int]]] = {}
        """Per foundation, the seat that placed its top card, and that play's key."""

    def hear(self, event: Event) -> list[str]:
        """The lines that mark ``event`` if it decided a race or a tie (else none)."""
        if isinstance(event, RoundStarted):
            self._placed.clear()  # every foundation empty again
        if not isinstance(event, PlayCommitted | PlayReturned):
            return []
        move = event.move
        if not isinstance(move, ToFoundation) or move.foundation == NEW_FOUNDATION:
            return []  # (an ace starts a foundation of its own: it never races)
        spot = move.foundation
        key = key_for(event.seat, event.clock, False, self._seats, self._options.tie_rule)
        earlier = self._placed.get(spot)
        if isinstance(event, PlayCommitted):
            self._placed[spot] = (event.seat, key)
            if event.tie and earlier is not None:
                return [
                    f"TIE: {self._play(earlier[0], move.card)} and "
                    f"{self._play(event.seat, move.card)} both stay",
                    f"  why: equal clocks L={event.clock}, tie rule both-stay",
                ]
            return []
        if event.winner is None or not event.raced or earlier is None:
            return []
        if earlier[0] != event.winner:
            return []
        reason = order_reason(earlier, (event.seat, key), self._seats, self._options.tie_rule)
        return [
            f"RACE: {self._play(event.winner, move.card)} beat {self._play(event.seat, move.card)}",
            f"  why: {reason}",
        ]

    def _play(self, seat: int, card: Card) -> str:
        return f"{cut(self._name(seat), 8)}'s {card}"
