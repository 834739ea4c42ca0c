"""The expert bot: it knows only what a person at its seat knows."""

from __future__ import annotations

import random
from dataclasses import replace

from _cards import card, cards
from test_policies import positions

from p2pnerts.bots import ExpertBot, StrongBot
from p2pnerts.bots._expert import EXPERT, _call_is_near
from p2pnerts.rules import (
    NERTS,
    WASTE,
    CallNerts,
    Foundation,
    Move,
    SlideUnder,
    State,
    Suit,
    Tableau,
    TableOptions,
    ToFoundation,
    ToWork,
    WorkPile,
    is_stuck,
    legal_moves,
    pile_of,
    private_view,
)


def _reordered(state: State, seat: int, rng: random.Random, *, stock: bool) -> State:
    """The state with the seat's own stock (or its face-down Nerts cards) in another
    order."""
    own = state.seats[seat]
    t = state.tableaux[own]
    if stock:
        cards = list(t.stock)
        rng.shuffle(cards)
        t = t._replace(stock=tuple(cards))
    else:
        below = list(t.nerts[:-1])
        rng.shuffle(below)
        t = t._replace(nerts=(*below, *t.nerts[-1:]))
    tableaux = list(state.tableaux)
    tableaux[own] = t
    return state._replace(tableaux=tuple(tableaux))


def test_the_expert_reads_neither_its_face_down_nerts_cards_nor_an_unseen_stock() -> None:
    """A bot that has not watched its stock go by chooses the same whatever the order of
    its stock and of its face-down Nerts cards."""
    rng = random.Random(3)
    compared = 0
    for seed in range(8):
        for state in positions(seed, 4, TableOptions()):
            for seat in range(4):
                first = ExpertBot().choose(private_view(state, seat), seat)
                for stock in (True, False):
                    other = _reordered(state, seat, rng, stock=stock)
                    assert ExpertBot().choose(private_view(other, seat), seat) == first
                compared += 1
    assert compared > 100


def _feeds_a_nerts_card(view: State, move: ToFoundation) -> bool:
    """Whether the play would let another player's Nerts card go up next."""
    card = move.card
    tops = [t.nerts[-1] for t in view.tableaux if t.deck != move.seat and t.nerts]
    return any(t is not None and (t.suit, t.rank) == (card.suit, card.rank + 1) for t in tops)


def _nerts_emptied(state: State, seat: int) -> State:
    """The state with ``seat``'s Nerts pile emptied (its cards out of the round)."""
    tableaux = list(state.tableaux)
    tableaux[seat] = tableaux[seat]._replace(nerts=())
    return state._replace(tableaux=tuple(tableaux))


def test_with_its_pile_empty_the_expert_plays_up_before_it_calls() -> None:
    """Even with another player close to calling, where the strong bot calls at once."""
    checked = strong_calls = 0
    for seed in range(20):
        for state in positions(seed, 4, TableOptions()):
            for seat in range(4):
                view = private_view(_nerts_emptied(state, seat), seat)
                ups = [m for m in legal_moves(view, seat) if isinstance(m, ToFoundation)]
                if any(_feeds_a_nerts_card(view, m) for m in ups):
                    continue  # held back, as the strong bot holds it back
                move = ExpertBot().choose(view, seat)
                assert isinstance(move, ToFoundation) if ups else move == CallNerts(seat)
                checked += bool(ups)
                strong_calls += bool(ups) and StrongBot().choose(view, seat) == CallNerts(seat)
    assert checked > 20 and strong_calls > 0


def _scores_now(move: Move | None) -> int:
    nerts = isinstance(move, ToFoundation | ToWork | SlideUnder) and move.source == NERTS
    return isinstance(move, ToFoundation) + 2 * nerts


def test_when_another_player_may_call_the_expert_takes_the_move_that_scores_now() -> None:
    changed = 0
    for seed in range(20):
        for state in positions(seed, 4, TableOptions()):
            for seat in range(4):
                if not state.tableau_of(seat).nerts:
                    continue
                view = private_view(_nerts_emptied(state, (seat + 1) % 4), seat)
                best = max(map(_scores_now, legal_moves(view, seat)))
                move = ExpertBot().choose(view, seat)
                assert _scores_now(move) == best, (move, best)
                usual = ExpertBot().choose(private_view(state, seat), seat)
                changed += _scores_now(usual) < best
    assert changed > 0


def test_a_deck_not_dealt_in_is_no_player_about_to_call() -> None:
    state = positions(3, 4, TableOptions())[0]
    tableaux = list(state.tableaux)
    empty = tableaux[2]._replace(
        nerts=(), stock=(), waste=(), work=tuple(p._replace(cards=()) for p in tableaux[2].work)
    )
    tableaux[2] = empty
    away = state._replace(tableaux=tuple(tableaux))
    assert not _call_is_near(private_view(away, 0), 0)  # seat 2 is away, not calling
    assert _call_is_near(private_view(_nerts_emptied(state, 2), 0), 0)


def _declared_stuck(state: State, seat: int) -> State:
    """The state with ``seat``'s stock turned through onto its waste (every card of it
    seen) and its tableau declared stuck."""
    own = state.seats[seat]
    t = state.tableaux[own]
    turned = tuple(c for c in reversed(t.stock) if c is not None)  # (a full view: all)
    t = t._replace(stock=(), waste=(*t.waste, *turned), stuck=True)
    tableaux = list(state.tableaux)
    tableaux[own] = t
    return state._replace(tableaux=tuple(tableaux))


def test_declared_stuck_the_expert_plays_on_once_it_can_make_progress_again() -> None:
    """Others' plays can make a declared-stuck tableau able to progress: the strong bot
    waits for the rotation all the same; the expert plays on, and waits only while it is
    still stuck."""
    progress = strong_waited = stuck = 0
    for seed in range(6):
        for state in positions(seed, 4, TableOptions()):
            for seat in range(4):
                view = private_view(_declared_stuck(state, seat), seat)
                if not view.tableau_of(seat).nerts or view.ended is not None:
                    continue
                move = ExpertBot().choose(view, seat)
                if is_stuck(view, seat):
                    stuck += 1
                    assert move is None
                    continue
                progress += 1
                assert move is not None and move in legal_moves(view, seat)
                strong_waited += StrongBot().choose(view, seat) is None
    assert progress > 50 and strong_waited > 10 and stuck > 0


def test_the_expert_keeps_clear_a_card_another_players_play_would_let_go_up() -> None:
    """The seven of hearts goes up once the other player plays the six they show: the
    expert lays its waste card on the other seven; without that term it takes the first."""
    hearts = cards("AH 2H 3H 4H 5H", 1)
    piles = tuple(pile_of((c,)) for c in cards("7H 7D KS 10S"))
    mine = Tableau(0, cards("9C QC"), piles, cards("2C 9D"), cards("6S"))
    theirs = Tableau(1, (card("KC", 1),), (WorkPile(),) * 4, (), (card("6H", 1),))
    middle = (Foundation(0, Suit.HEARTS, 5, hearts),)
    state = State(TableOptions(), (0, 1), (mine, theirs), middle, next_foundation=1)
    assert ExpertBot().choose(state, 0) == ToWork(0, card("6S"), WASTE, 1)
    without = ExpertBot(replace(EXPERT, soon=0.0))
    assert without.choose(state, 0) == ToWork(0, card("6S"), WASTE, 0)
