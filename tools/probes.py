"""Probes of the strong bot, arena policies: p2pnerts arena --policies strong,tools/probes.py:NAME.

Each probe is a policy that changes one kind of the strong bot's decisions. What the expert
bot's notes (``p2pnerts/bots/_expert.py``) say about which decisions matter, and about the
bounds of deciding them better, was measured with these. Each plays as the strong bot does
but for one change; play it against the strong bot on the fast arena:

    p2pnerts arena --fast --policies strong,tools/probes.py:AnyNertsPlace --rounds 400 --seed 1

- ``AnyNertsPlace``, ``AnyRunMove``, ``AnyWasteMove``: of the moves of one kind, one at
  random where the strong bot makes one of that kind (a Nerts card's place; which run goes
  onto which work pile; which pile the waste card goes onto).
- ``HomeForTurn``, ``WasteForTurn``: where the strong bot turns the stock, half the time a
  move onto a work pile instead (any, or the waste card's).
- ``TurnForHome``: where it moves a card onto a work pile that does not free its Nerts card,
  half the time a turn instead.
- ``AnyFoundationPlay``: which card goes up at random, where the strong bot plays one up
  that is not its Nerts card.
- ``TurnForUp``: where it plays such a card up, half the time a turn instead.
- ``ShortestPlan``: the expert bot, but where its Nerts card cannot move, the first move of
  the shortest way (breadth first, six moves deep) to a place for it.
- ``TableRollouts``, ``OwnRollouts``: "a move at home, or a turn" decided by playing on: six
  guesses at every hidden card, a second of play, every seat (or the bot's own only) played
  by the strong bot; slow (54 and 18 ms a decision).
  The guesses keep the seat's own face-down cards as the view holds them: these probes read
  them (a bound, not play a seat may make; ``tools/sampled.py`` guesses them too).
- The beam searches over the bot's own tableau are in ``tools/beams.py``.

How well a policy plays its own tableau alone, with no race and no other player's cards to
help (`solo`: the same deals for every policy, 56 looks each, the other seat still):

    python tools/probes.py strong expert tools/beams.py:BeamPlan --deals 200

The quicker hand is the arena's own: ``--policies strong,strong@14.7``.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter, deque

from p2pnerts.arena._fast import FastRound, Seat
from p2pnerts.arena._report import Tally
from p2pnerts.bots import BotDriver, ExpertBot, Policy, PolicyError, StrongBot, load_policy
from p2pnerts.bots._expert import EXPERT
from p2pnerts.bots._strong import STRONG, _fits_down, _gains, _goes_up, _Table
from p2pnerts.commands._options import count
from p2pnerts.rules import (
    HIDDEN,
    NERTS,
    WASTE,
    CardMove,
    DeclareStuck,
    IllegalMove,
    Move,
    Rotate,
    RoundScore,
    SlideUnder,
    State,
    TableOptions,
    ToFoundation,
    ToWork,
    TurnStock,
    all_cards,
    apply,
    deal,
    legal_moves,
    private_view,
    score_round,
    shuffled_deck,
)


def _kind(move: Move | None) -> str | None:
    """A move onto a work pile by where it comes from: 'nerts', 'waste' or 'work'."""
    if not isinstance(move, ToWork):
        return None
    return "nerts" if move.source == NERTS else "waste" if move.source == WASTE else "work"


def _frees(view: State, seat: int) -> bool:
    """Whether the seat's Nerts card on top can move now (or its pile is empty)."""
    tableau = view.tableau_of(seat)
    if not tableau.nerts:
        return True
    top = tableau.nerts[-1]
    if top is None:
        return False
    wanted = {(f.suit, f.rank + 1) for f in view.foundations}
    return _goes_up(top, wanted) or _fits_down(tableau, top)


class _Probe:
    """The strong bot, with one kind of decision changed by ``change``."""

    def __init__(self, rng: random.Random) -> None:
        self.bot, self.rng = StrongBot(), rng

    def choose(self, view: State, seat: int) -> Move | None:
        return self.change(view, seat, self.bot.choose(view, seat))

    def change(self, view: State, seat: int, move: Move | None) -> Move | None:
        raise NotImplementedError


class AnyNertsPlace(_Probe):
    """A Nerts card's place at random, where the strong bot moves it."""

    def change(self, view: State, seat: int, move: Move | None) -> Move | None:
        if not isinstance(move, CardMove) or move.source != NERTS:
            return move
        moves = legal_moves(view, seat)
        return self.rng.choice([m for m in moves if isinstance(m, CardMove) and m.source == NERTS])


class AnyRunMove(_Probe):
    """Which run goes onto which work pile at random, where the strong bot moves one."""

    kind = "work"

    def change(self, view: State, seat: int, move: Move | None) -> Move | None:
        if not isinstance(move, ToWork) or _kind(move) != self.kind:
            return move
        moves = legal_moves(view, seat)
        return self.rng.choice(
            [m for m in moves if isinstance(m, ToWork) and _kind(m) == self.kind]
        )


class AnyWasteMove(AnyRunMove):
    """Which work pile the waste card goes onto at random, where the strong bot plays it."""

    kind = "waste"


class HomeForTurn(_Probe):
    """Where the strong bot turns the stock, half the time a move onto a work pile instead."""

    kinds: tuple[str, ...] = ("waste", "work")

    def change(self, view: State, seat: int, move: Move | None) -> Move | None:
        if not isinstance(move, TurnStock) or self.rng.random() >= 0.5:
            return move
        home = [m for m in legal_moves(view, seat) if _kind(m) in self.kinds]
        return self.rng.choice(home) if home else move


class WasteForTurn(HomeForTurn):
    """Where the strong bot turns the stock, half the time the waste card onto a work pile."""

    kinds = ("waste",)


class _TurnFor(_Probe):
    """Where the strong bot makes a move that ``holds`` says, half the time a turn instead
    (not once 20 looks went by without a card moved)."""

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self.looks = 0
        """Looks since a card was last moved."""

    def holds(self, view: State, seat: int, move: Move | None) -> bool:
        raise NotImplementedError

    def change(self, view: State, seat: int, move: Move | None) -> Move | None:
        self.looks += 1
        turn = TurnStock(seat)
        held = self.looks < 20 and self.holds(view, seat, move)
        if held and turn in legal_moves(view, seat) and self.rng.random() < 0.5:
            return turn
        if not isinstance(move, TurnStock):
            self.looks = 0
        return move


class TurnForHome(_TurnFor):
    """Where the strong bot moves a card onto a work pile that does not free its Nerts card,
    half the time a turn instead."""

    def holds(self, view: State, seat: int, move: Move | None) -> bool:
        if _kind(move) not in ("waste", "work"):
            return False
        assert move is not None
        return not _frees(apply(view, move)[0], seat)


class AnyFoundationPlay(_Probe):
    """Which card goes up at random, where the strong bot plays one up that is not its
    Nerts card."""

    def change(self, view: State, seat: int, move: Move | None) -> Move | None:
        if not isinstance(move, ToFoundation) or move.source == NERTS:
            return move
        ups = [m for m in legal_moves(view, seat) if isinstance(m, ToFoundation)]
        return self.rng.choice(ups)


class TurnForUp(_TurnFor):
    """Where the strong bot plays a card up that is not its Nerts card, half the time a
    turn instead."""

    def holds(self, view: State, seat: int, move: Move | None) -> bool:
        return isinstance(move, ToFoundation) and move.source != NERTS


class ShortestPlan:
    """The expert bot; where its Nerts card cannot move, the first move of the shortest way
    to a place for it, if one is six moves or fewer away (the expert's own move first among
    ways as short)."""

    DEPTH, BUDGET = 6, 800

    def __init__(self) -> None:
        self.expert = ExpertBot()

    def choose(self, view: State, seat: int) -> Move | None:
        move = self.expert.choose(view, seat)
        if not isinstance(move, ToWork | SlideUnder | TurnStock) or _kind(move) == "nerts":
            return move
        known = self.expert.sight.known(view, seat)
        if _frees(known, seat):
            return move
        return self._first_step(known, seat, move) or move

    def _first_step(self, view: State, seat: int, first: Move) -> Move | None:
        seen = {(view.tableau_of(seat), view.foundations)}
        queue: deque[tuple[State, Move | None, int]] = deque([(view, None, 0)])
        tried = 0
        while queue:
            state, root, depth = queue.popleft()
            if depth == self.DEPTH:
                continue
            moves = [
                m
                for m in legal_moves(state, seat)
                if isinstance(m, TurnStock)
                or (isinstance(m, ToFoundation | ToWork | SlideUnder) and m.source != NERTS)
            ]
            if root is None and first in moves:
                moves.remove(first)
                moves.insert(0, first)
            for m in moves:
                tried += 1
                if tried > self.BUDGET:
                    return None
                try:
                    after = apply(state, m)[0]
                except IllegalMove:  # a turn that would show cards not seen yet
                    continue
                key = (after.tableau_of(seat), after.foundations)
                if key in seen:
                    continue
                seen.add(key)
                if _frees(after, seat):
                    return m if root is None else root
                queue.append((after, m if root is None else root, depth + 1))
        return None


def _score(state: State, deck: int) -> RoundScore:
    """Deck ``deck``'s points if the round ended now (cards up, Nerts cards left)."""
    return next(score for score in score_round(state) if score.deck == deck)


class TableRollouts:
    """The strong bot; where it turns and a move onto a work pile looks good to it, or it
    moves one and could turn, both are played on: `GUESSES` times, the hidden cards dealt at
    random and the same for both, every seat played by the strong bot for `HORIZON` seconds.
    The other is taken if it comes out half a point better on average."""

    GUESSES, HORIZON, OTHERS_PLAY = 6, 1.0, True
    BOT: type[Policy] = StrongBot
    """The policy that decides, and plays every seat on (with its `WEIGHTS`)."""
    WEIGHTS = STRONG

    def __init__(self, rng: random.Random) -> None:
        self.bot, self.rng = self.BOT(), rng

    def choose(self, view: State, seat: int) -> Move | None:
        move = self.bot.choose(view, seat)
        other = self.alternative(view, seat, move)
        if move is None or other is None:
            return move
        gain = 0.0
        for theirs, mine in self.played_on(view, seat, move, other, self.GUESSES):
            gain += theirs
            gain -= mine
        return other if gain / self.GUESSES > 0.5 else move

    def played_on(
        self, view: State, seat: int, move: Move, other: Move, guesses: int
    ) -> list[tuple[float, float]]:
        """How far ahead ``other`` and ``move`` leave the seat after `HORIZON` seconds of
        play, for each of ``guesses`` guesses at the hidden cards (the same for both)."""
        mine, theirs = apply(view, move)[0], apply(view, other)[0]
        ahead = []
        for _ in range(guesses):
            seed = self.rng.getrandbits(32)
            after = [
                self._play_on(_guess(state, random.Random(seed)), seat, random.Random(seed + 1))
                for state in (theirs, mine)
            ]
            ahead.append((after[0], after[1]))
        return ahead

    def alternative(self, view: State, seat: int, move: Move | None) -> Move | None:
        """The other side of "a move at home, or a turn" where ``move`` is one: the best
        move onto a work pile for a turn, a turn for such a move; else None."""
        moves = legal_moves(view, seat)
        if isinstance(move, TurnStock):
            table = _Table(view, seat, self.WEIGHTS, True)
            home = [m for _, m in _gains(view, seat, moves, table) if _kind(m) in ("waste", "work")]
            return home[0] if home else None
        if _kind(move) in ("waste", "work") and TurnStock(seat) in moves:
            return TurnStock(seat)
        return None

    def _play_on(self, state: State, seat: int, rng: random.Random) -> float:
        seats = [
            Seat(BotDriver(self.BOT() if s == seat or self.OTHERS_PLAY else _Still()), str(s), (s,))
            for s in range(len(state.seats))
        ]
        tallies = {str(s): Tally() for s in range(len(state.seats))}
        return _ahead(FastRound(state, seats, tallies, rng).run(until=self.HORIZON), seat)


class OwnRollouts(TableRollouts):
    """`TableRollouts`, with only the bot's own seat played on (the others still)."""

    OTHERS_PLAY = False


class ExpertRollouts(TableRollouts):
    """`TableRollouts` on the expert, within the top level's 50 ms budget: two guesses, half
    a second of play each (decision p99 49-50 ms in the fast arena)."""

    GUESSES, HORIZON = 2, 0.5
    BOT, WEIGHTS = ExpertBot, EXPERT


class _Still:
    def choose(self, view: State, seat: int) -> Move | None:
        return None


def _guess(view: State, rng: random.Random) -> State:
    """``view`` with every hidden card dealt at random from the cards of its deck not seen."""
    seen = Counter(c for c in all_cards(view) if c is not None)
    tableaux = []
    for tableau in view.tableaux:
        unseen = []
        for card in shuffled_deck(tableau.deck, view.options, random.Random(0)):
            if seen[card]:
                seen[card] -= 1
            else:
                unseen.append(card)
        rng.shuffle(unseen)
        deal = iter(unseen)
        nerts = tuple(next(deal) if c is HIDDEN else c for c in tableau.nerts)
        stock = tuple(next(deal) if c is HIDDEN else c for c in tableau.stock)
        tableaux.append(tableau._replace(nerts=nerts, stock=stock))
    return view._replace(tableaux=tuple(tableaux))


def _unseen_hidden(view: State, seat: int) -> State:
    """``view`` with the seat's own face-down Nerts cards hidden (the view holds them)."""
    own = view.seats[seat]
    tableau = view.tableaux[own]
    nerts = (HIDDEN,) * (len(tableau.nerts) - 1) + tableau.nerts[-1:]
    tableaux = list(view.tableaux)
    tableaux[own] = tableau._replace(nerts=nerts)
    return view._replace(tableaux=tuple(tableaux))


def _ahead(state: State, seat: int) -> float:
    """How far ``seat`` is ahead of the others' average: the round's points if it ended,
    else cards played up less four a Nerts card left."""
    own = state.seats[seat]
    if state.ended is not None:
        worth = {s.deck: float(s.points) for s in score_round(state)}
    else:
        up = Counter(c.deck for f in state.all_foundations() for c in f.cards)
        worth = {t.deck: float(up[t.deck] - 4 * len(t.nerts)) for t in state.tableaux}
    others = [w for deck, w in worth.items() if deck != own]
    return worth[own] - sum(others) / len(others)


SOLO_LOOKS = 56
"""A seat's looks in a round of the fast arena at 4 players, on average."""


def solo(policy: str, deals: int, looks: int = SOLO_LOOKS, seed: int = 0) -> tuple[float, float]:
    """Seat 0 of ``deals`` two-player deals played by ``policy`` alone (the other seat
    still, and stuck: the stocks rotate whenever seat 0 declares stuck) for ``looks`` looks,
    until its Nerts pile is empty, or until a rotation with no card played since the last
    ends the round: its Nerts cards left and cards up, on average. How well a policy plays
    its own tableau, with no race and no other player's cards to help (the same deals for
    every policy)."""
    make = load_policy(policy)
    left = up = 0
    for number in range(deals):
        rng = random.Random(f"solo:{seed}:{number}")
        state = _still_stuck(deal(TableOptions(), (0, 1), rng=rng))
        bot = make(random.Random(number))
        for _ in range(looks):
            if not state.tableau_of(0).nerts or state.ended is not None:
                break
            move = bot.choose(private_view(state, 0), 0)
            if isinstance(move, CardMove | TurnStock | DeclareStuck):
                state = apply(state, move)[0]
            if state.tableau_of(0).stuck:
                state = _still_stuck(apply(state, Rotate(0))[0])
        score = _score(state, 0)
        left, up = left + score.nerts_left, up + score.played
    return left / deals, up / deals


def _still_stuck(state: State) -> State:
    return state if state.tableau_of(1).stuck else apply(state, DeclareStuck(1))[0]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=solo.__doc__)
    parser.add_argument("policies", nargs="+", help="policy names, as the arena takes them")
    parser.add_argument("--deals", type=count(1, 100_000), default=200)
    parser.add_argument("--looks", type=count(1, 10_000), default=SOLO_LOOKS)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    for policy in args.policies:
        try:
            load_policy(policy)
        except PolicyError as exc:
            parser.error(str(exc))
    for policy in args.policies:
        started = time.perf_counter()
        left, up = solo(policy, args.deals, args.looks, args.seed)
        seconds = time.perf_counter() - started
        print(f"{policy}: {left:.2f} Nerts cards left, {up:.2f} cards up ({seconds:.0f} s)")


if __name__ == "__main__":
    main()
