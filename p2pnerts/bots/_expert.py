"""The expert bot: the strong bot's search on what a person at the seat really knows.

It never reads a face-down card. Its own stock counts as known only card by card, once it
has been turned up onto the waste: on the first pass a turn of the stock shows unknown
cards (the search stops there and counts a turn at a guess, ``turn_guess``); from the
second pass on it knows the order, as a person who watched it does. Its face-down Nerts
cards it never reads (the strong bot's search does not: a line stops where the next one
would be turned up).
"""

from __future__ import annotations

from p2pnerts.bots._strong import StrongBot, Weights
from p2pnerts.rules import HIDDEN, Card, Move, State

EXPERT = Weights()
"""The expert's weights: the strong bot's. Tried in the fast arena (800 paired rounds each,
against strong): other weights for Nerts cards, spaces, races, blocking, feeding, digging,
calling, a deeper or wider search, a value for turning into unseen cards, and terms for
the kinds of card the work piles take and for the turns until the waste shows a card that
plays. None moved the margin beyond its interval (about ±0.9 points a round)."""


class ExpertBot:
    """Plays one seat for one or more rounds, remembering the stock cards it has seen."""

    def __init__(self, weights: Weights = EXPERT) -> None:
        self._search = StrongBot(weights)
        self._seen: set[Card] = set()
        self._pool: set[Card] = set()
        """The cards of stock and waste when it last looked: within a round they only
        leave it, so a card new to it means a new round."""

    def choose(self, view: State, seat: int) -> Move | None:
        """The move to make now, or None to wait."""
        return self._search.choose(self._known(view, seat), seat)

    def _known(self, view: State, seat: int) -> State:
        """The view with the own stock's cards not seen yet hidden."""
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
