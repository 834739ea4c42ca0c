"""What a bot is to the rest of p2pnerts: a policy that picks a seat's next move."""

from __future__ import annotations

from typing import Protocol

from p2pnerts.rules import DeclareStuck, Move, Rotate, State, TurnStock, is_stuck


class Policy(Protocol):
    """Chooses the next move for one seat from what that seat may see.

    ``view`` is `private_view(state, seat)`: the public table plus the seat's own cards
    as its player knows them; other seats' face-down cards are hidden (None). Return a
    move for ``seat`` to try, or None to wait and look again later. How often a policy
    is asked (its reaction time) is its driver's business (`BotDriver`), not the policy's.
    """

    def choose(self, view: State, seat: int) -> Move | None: ...


def nothing_to_play(view: State, seat: int, moves: list[Move]) -> Move | None:
    """What a seat does when no play is worth making: the rotation once everyone is stuck;
    wait, once it has said stuck; say so when a whole pass of the stock would not help
    (`is_stuck`); otherwise turn the stock."""
    if Rotate(seat) in moves:
        return Rotate(seat)
    if view.tableau_of(seat).stuck:
        return None
    if is_stuck(view, seat):
        return DeclareStuck(seat)
    return TurnStock(seat) if TurnStock(seat) in moves else None
