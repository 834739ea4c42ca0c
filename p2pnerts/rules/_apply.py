"""`apply`: the one place a move changes the table.

Every check happens before anything is built, so an illegal move raises `IllegalMove`
with the reason a player would be told, and the state it was given stays as it was
(states are immutable; nothing is ever changed in place).
"""

from __future__ import annotations

from p2pnerts.rules._cards import ACE, JOKER, KING, Card, Suit, describe, rank_name
from p2pnerts.rules._errors import IllegalMove
from p2pnerts.rules._moves import (
    CallNerts,
    CardPlayed,
    CardsMoved,
    CardsRevealed,
    DeclareStuck,
    Event,
    FoundationCompleted,
    Move,
    Rotate,
    RoundEnded,
    SlideUnder,
    StocksRotated,
    StuckDeclared,
    ToFoundation,
    ToWork,
    TurnStock,
    WasteTurnedOver,
)
from p2pnerts.rules._piles import check_revealed, fix_covered, lift, pile_name, put
from p2pnerts.rules._runs import join
from p2pnerts.rules._state import (
    NEW_FOUNDATION,
    WASTE,
    EndReason,
    Foundation,
    RoundEnd,
    State,
    Tableau,
)

Result = tuple[State, list[Event]]

_SUITS = frozenset(Suit)
"""The suits, for checking a declared one: ``x in Suit`` raises on a non-member before 3.12."""


def apply(state: State, move: Move, *, tie: bool = False) -> Result:
    """Apply one move: the new state and what happened, or `IllegalMove` saying why.

    ``tie`` is for arbitration alone: a foundation play found concurrent with the card
    now on top, under the both-stay tie rule, is laid beside it instead of being returned.
    """
    if state.ended is not None:
        raise IllegalMove("the round is over")
    if not 0 <= move.seat < len(state.seats):
        raise IllegalMove(f"there is no seat {move.seat}")
    if tie and not isinstance(move, ToFoundation):
        raise IllegalMove("only a foundation play can tie")
    match move:
        case ToFoundation():
            return _to_foundation(state, move, tie)
        case ToWork():
            return _to_work(state, move)
        case TurnStock():
            return _turn_stock(state, move)
        case SlideUnder():
            return _slide_under(state, move)
        case DeclareStuck():
            return _declare_stuck(state, move)
        case Rotate():
            return _rotate(state, move)
        case CallNerts():
            return _call_nerts(state, move)
    raise IllegalMove(f"not a move: {move!r}")


# --- work piles --------------------------------------------------------------------------


def _to_work(state: State, move: ToWork) -> Result:
    tableau = state.tableau_of(move.seat)
    if not 0 <= move.dest < len(tableau.work):
        raise IllegalMove(f"there is no {pile_name(move.dest)}")
    if move.dest == move.source:
        raise IllegalMove(f"{move.card} is already in {pile_name(move.dest)}")
    events: list[Event] = []
    tableau, run = lift(tableau, move, events)
    placed = join(tableau.work[move.dest], run)
    tableau = tableau._replace(work=put(tableau.work, move.dest, placed), stuck=False)
    tableau = fix_covered(tableau, move.dest)
    events.insert(0, CardsMoved(move.seat, run.cards, move.source, move.dest, under=False))
    # Moving cards between work piles plays no card: it cannot keep a stuck round going.
    return _with(state, tableau, played=move.source < 0), events


def _slide_under(state: State, move: SlideUnder) -> Result:
    tableau = state.tableau_of(move.seat)
    if not 0 <= move.dest < len(tableau.work):
        raise IllegalMove(f"there is no {pile_name(move.dest)}")
    if move.dest == move.source:
        raise IllegalMove(f"{move.card} cannot slide under its own pile")
    if all(p.cards for p in tableau.work):
        raise IllegalMove("a card slides under a pile only while a work pile is empty")
    target = tableau.work[move.dest]
    if not target.cards:
        raise IllegalMove(f"{pile_name(move.dest)} is empty: play the card onto it instead")
    events: list[Event] = []
    tableau, run = lift(tableau, move, events)
    if len(run.cards) != 1:
        raise IllegalMove("only a single card slides under a pile")
    placed = join(run, tableau.work[move.dest])
    tableau = tableau._replace(work=put(tableau.work, move.dest, placed), stuck=False)
    tableau = fix_covered(tableau, move.dest)
    events.insert(0, CardsMoved(move.seat, run.cards, move.source, move.dest, under=True))
    return _with(state, tableau, played=move.source < 0), events


# --- foundations -------------------------------------------------------------------------


def _to_foundation(state: State, move: ToFoundation, tie: bool) -> Result:
    rank, suit = _identity(move)
    _check_fixed(state.tableau_of(move.seat), move.card, rank, suit)
    events: list[Event] = []
    tableau, run = lift(state.tableau_of(move.seat), move, events)
    if len(run.cards) != 1:
        raise IllegalMove(f"only the exposed card of {pile_name(move.source)} can go up")
    if move.foundation == NEW_FOUNDATION:
        state = _start_foundation(state, move, rank, suit, tie)
        fid = state.foundations[-1].id
    else:
        state = _build_foundation(state, move, rank, suit, tie, events)
        fid = move.foundation
    events.insert(0, CardPlayed(move.seat, move.card, move.source, fid, rank, suit, tie))
    if tableau.stuck:
        tableau = tableau._replace(stuck=False)
    return _with(state, tableau, played=True), events


def _identity(move: ToFoundation) -> tuple[int, Suit]:
    """What the card counts as on a foundation: itself, or what a joker is declared as."""
    card = move.card
    if card.rank != JOKER:
        if move.declare is not None:
            raise IllegalMove("only a joker is declared")
        return card.rank, card.suit
    if move.declare is None:
        raise IllegalMove("a joker must be declared (rank and suit) to go to a foundation")
    rank, suit = move.declare
    if not ACE <= rank <= KING or suit not in _SUITS:
        raise IllegalMove(f"a joker cannot be declared as rank {rank} of suit {suit}")
    return rank, Suit(suit)


def _check_fixed(tableau: Tableau, card: Card, rank: int, suit: Suit) -> None:
    fixed = tableau.fixed_as(card)
    if fixed and not tableau.may_declare(card, rank, suit):
        colour = "red" if fixed.red else "black"
        raise IllegalMove(
            f"this Joker is fixed as a {colour} {rank_name(fixed.rank)} for good: "
            "a card lay on it in a work pile"
        )


def _start_foundation(state: State, move: ToFoundation, rank: int, suit: Suit, tie: bool) -> State:
    if rank != ACE:
        raise IllegalMove(f"only an ace starts a foundation, not {describe(rank, suit)}")
    if tie:
        raise IllegalMove("a new foundation ties with nothing")
    fid = state.next_foundation
    started = Foundation(fid, suit, ACE, (move.card,))
    return state._replace(foundations=state.foundations + (started,), next_foundation=fid + 1)


def _build_foundation(
    state: State, move: ToFoundation, rank: int, suit: Suit, tie: bool, events: list[Event]
) -> State:
    fid = move.foundation
    piles = state.completed if tie else ()
    found = [f for f in state.foundations + piles if f.id == fid]
    if not found:
        done = any(f.id == fid for f in state.completed)
        why = "is complete and set aside" if done else "does not exist"
        raise IllegalMove(f"foundation #{fid} {why}")
    f = found[0]
    card = describe(rank, suit)
    if suit != f.suit:
        wanted = Suit(f.suit).symbol
        raise IllegalMove(f"{card} does not follow suit on foundation #{fid} ({wanted})")
    if tie:
        if rank != f.rank:
            raise IllegalMove(f"{card} does not tie with the top of foundation #{fid}")
        grown = f._replace(cards=f.cards + (move.card,))
    elif rank != f.rank + 1:
        needs = describe(f.rank + 1, suit) if f.rank < KING else "nothing"
        raise IllegalMove(f"{card} is not next on foundation #{fid} (needs {needs})")
    else:
        grown = Foundation(fid, f.suit, rank, f.cards + (move.card,))
    if f in state.completed:
        completed = tuple(grown if c.id == fid else c for c in state.completed)
        return state._replace(completed=completed)
    if grown.rank == KING:
        events.append(FoundationCompleted(fid))
        active = tuple([g for g in state.foundations if g.id != fid])
        completed = tuple(sorted((*state.completed, grown), key=lambda g: g.id))
        return state._replace(foundations=active, completed=completed)
    return state._replace(
        foundations=tuple([grown if g.id == fid else g for g in state.foundations])
    )


# --- stock, stuck, Nerts -------------------------------------------------------------------


ROTATED = "the stocks were rotated after this turn was made"
"""Why a stock turn is refused at a place in the order after a rotation it was not made
after (`TurnStock.rotation`): no move of anyone's took its cards."""


def _turn_stock(state: State, move: TurnStock) -> Result:
    if move.rotation is not None and move.rotation != state.rotations:
        raise IllegalMove(ROTATED)
    tableau = state.tableau_of(move.seat)
    stock, waste = tableau.stock, tableau.waste
    if not stock:
        if not waste:
            raise IllegalMove("your stock and waste are both empty")
        if move.revealed:
            raise IllegalMove("turning the waste over reveals nothing")
        turned = tableau._replace(stock=tuple(reversed(waste)), waste=(), stuck=False)
        return _with(state, turned), [WasteTurnedOver(move.seat)]
    # With fewer cards left than a turn takes, they go onto the waste as they are; the
    # next turn then turns the whole waste over as the new stock.
    count = min(state.options.stock_turn, len(stock))
    cards = tuple(reversed(stock[-count:]))
    shown = _learn(tableau, cards, move.revealed)
    # (A seat back at the table turns its stock though it was declared stuck while away.)
    deck, nerts, work, _, _, _, fixed = tableau  # (built field by field: the commonest move)
    turned = Tableau(deck, nerts, work, stock[:-count], waste + shown, False, fixed)
    return _with(state, turned), [CardsRevealed(move.seat, WASTE, shown)]


def _learn(
    tableau: Tableau, cards: tuple[Card | None, ...], revealed: tuple[Card, ...]
) -> tuple[Card, ...]:
    if None in cards and len(revealed) != len(cards):
        raise IllegalMove(f"turning the stock must reveal the {len(cards)} cards turned")
    if not revealed:
        return cards  # type: ignore[return-value]  # all known: checked just above
    if len(revealed) != len(cards) or any(
        [c is not None and c != r for c, r in zip(cards, revealed, strict=True)]
    ):
        raise IllegalMove("the move reveals other cards than the stock holds")
    return tuple([check_revealed(tableau, r) for r in revealed])


def _with(state: State, tableau: Tableau, *, played: bool = False) -> State:
    """The state with one tableau replaced; ``played`` marks that a card was played."""
    # Every move comes through here: built field by field, at half the cost of `_replace`.
    options, seats, tableaux, foundations, completed, next_id, rotations, was, ended = state
    deck = tableau.deck
    tableaux = tableaux[:deck] + (tableau,) + tableaux[deck + 1 :]
    return State(
        options, seats, tableaux, foundations, completed, next_id, rotations, played or was, ended
    )


def _declare_stuck(state: State, move: DeclareStuck) -> Result:
    tableau = state.tableau_of(move.seat)
    if tableau.stuck:
        raise IllegalMove("your tableau is already declared stuck")
    return _with(state, tableau._replace(stuck=True)), [StuckDeclared(move.seat)]


def _rotate(state: State, move: Rotate) -> Result:
    waiting = [t.deck + 1 for t in state.tableaux if not t.stuck]
    if waiting:
        raise IllegalMove(f"not everyone is stuck: deck {', '.join(map(str, waiting))} can play")
    if state.rotations and not state.played_since_rotation:
        ended = RoundEnd(EndReason.STUCK, None)
        return state._replace(ended=ended), [RoundEnded(EndReason.STUCK, None)]
    tableaux = tuple(_reform(t) for t in state.tableaux)
    rotated = state._replace(
        tableaux=tableaux, rotations=state.rotations + 1, played_since_rotation=False
    )
    return rotated, [StocksRotated(rotated.rotations)]


def _reform(tableau: Tableau) -> Tableau:
    """Pick the waste up under the stock, then move the stock's top card to the bottom."""
    stock = tuple(reversed(tableau.waste)) + tableau.stock
    if stock:
        stock = stock[-1:] + stock[:-1]
    return tableau._replace(stock=stock, waste=(), stuck=False)


def _call_nerts(state: State, move: CallNerts) -> Result:
    left = len(state.tableau_of(move.seat).nerts)
    if left:
        raise IllegalMove(f"your Nerts pile still has {left} card{'s' if left > 1 else ''}")
    ended = RoundEnd(EndReason.NERTS, move.seat)
    return state._replace(ended=ended), [RoundEnded(EndReason.NERTS, move.seat)]
