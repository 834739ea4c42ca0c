"""What a bot is to the rest of p2pnerts: a policy that picks a seat's next move."""

from __future__ import annotations

from typing import Protocol

from p2pnerts.rules import HIDDEN, Card, DeclareStuck, Move, Rotate, State, TurnStock, is_stuck


class Policy(Protocol):
    """Chooses the next move for one seat from what that seat may see.

    ``view`` is `private_view(state, seat)`: the public table plus the seat's own cards
    as its player knows them; other seats' face-down cards are hidden (None). Return a
    move for ``seat`` to try, or None to wait and look again later. How often a policy
    is asked (its reaction time) is its driver's business (`BotDriver`), not the policy's.
    """

    def choose(self, view: State, seat: int) -> Move | None: ...


class Sight:
    """What a person at one seat knows of its own stock: a card once it has shown on the
    waste, and nothing of the rest. Every built-in policy looks through one, so none reads
    a stock card before it has turned it; from the second pass on it knows the order, as a
    person who watched does. (The face-down Nerts cards stay in the view: no built-in
    policy reads below the top one. tests/bots/test_unseen.py holds them all to both.)

    One instance follows one seat through its rounds: the cards of stock and waste only
    leave them within a round, so a card new to them means a new round.
    """

    def __init__(self) -> None:
        self._seen: set[Card] = set()
        self._pool: set[Card] = set()

    def known(self, view: State, seat: int) -> State:
        """``view`` with the seat's stock cards it has not seen yet hidden."""
        own = view.seats[seat]
        tableau = view.tableaux[own]
        pool = {c for c in (*tableau.stock, *tableau.waste) if c is not None}
        if not pool <= self._pool:
            self._seen = set()
        self._pool = pool
        self._seen.update(tableau.waste)
        stock = tuple(c if c in self._seen else HIDDEN for c in tableau.stock)
        if stock == tableau.stock:
            return view
        tableaux = list(view.tableaux)
        tableaux[own] = tableau._replace(stock=stock)
        return view._replace(tableaux=tuple(tableaux))


def nothing_to_play(view: State, seat: int, moves: list[Move]) -> Move | None:
    """What a seat does when no play is worth making: the rotation once everyone is stuck;
    wait, once it has said stuck; say so when a whole pass of the stock would not help
    (`is_stuck`, which on a view through a `Sight` cannot know that before a whole pass);
    otherwise turn the stock."""
    if Rotate(seat) in moves:
        return Rotate(seat)
    if view.tableau_of(seat).stuck:
        return None
    if is_stuck(view, seat):
        return DeclareStuck(seat)
    return TurnStock(seat) if TurnStock(seat) in moves else None
