"""Work piles' runs: whether a run may be laid on a pile (`fits`), laying it (`join`), and
why not, in the words a player is told; jokers stand for what their run needs."""

from __future__ import annotations

from p2pnerts.rules._cards import ACE, KING, rank_name
from p2pnerts.rules._errors import IllegalMove
from p2pnerts.rules._state import WorkPile


def fits(lower: WorkPile, base_rank: int, base_red: bool, length: int) -> bool:
    """Whether a run of ``length`` cards whose bottom stands for ``base_rank`` (0: free
    jokers only) and colour ``base_red`` may be laid on the pile ``lower``."""
    height = len(lower.cards)
    if not height:
        return True
    if not lower.base_rank:
        return (base_rank or length) + height <= KING
    need = lower.base_rank - height  # one below what the top card stands for
    if base_rank:
        # Colours alternate: the top card is base_red at odd heights; the run needs the other.
        return base_rank == need and base_red == lower.base_red ^ bool(height & 1)
    return need - length + 1 >= ACE


def join(lower: WorkPile, upper: WorkPile) -> WorkPile:
    """Lay the run ``upper`` on the pile ``lower``, or raise `IllegalMove` saying why not."""
    if not fits(lower, upper.base_rank, upper.base_red, len(upper.cards)):
        raise IllegalMove(_why_not(lower, upper))
    if not lower.cards:
        return upper
    cards = lower.cards + upper.cards
    if lower.base_rank:
        return WorkPile(cards, lower.base_rank, lower.base_red)
    if upper.base_rank:
        # Free jokers below take the identities the run above gives them.
        height = len(lower.cards)
        return WorkPile(cards, upper.base_rank + height, upper.base_red ^ bool(height & 1))
    return WorkPile(cards)


def _why_not(lower: WorkPile, upper: WorkPile) -> str:
    if not lower.base_rank:
        return f"{_run_name(upper)} leaves no rank for the jokers below it"
    need_rank, need_red = lower.top_rank - 1, not lower.top_red
    if need_rank < ACE or not upper.base_rank:
        return f"no card goes below {_top_name(lower)} in a work pile"
    wanted = f"{_colour(need_red)} {rank_name(need_rank)}"
    if upper.base_rank != need_rank:
        return f"{_run_name(upper)} is not one below {_top_name(lower)}: it needs a {wanted}"
    return f"wrong colour: {_run_name(upper)} on {_top_name(lower)} needs a {wanted}"


def _colour(red: bool) -> str:
    return "red" if red else "black"


def _run_name(run: WorkPile) -> str:
    bottom = run.cards[0]
    if bottom.is_joker and run.base_rank:
        return f"Joker (as {_colour(run.base_red)} {rank_name(run.base_rank)})"
    return str(bottom)


def _top_name(pile: WorkPile) -> str:
    top = pile.cards[-1]
    if top.is_joker and pile.base_rank:
        return f"Joker (as {_colour(pile.top_red)} {rank_name(pile.top_rank)})"
    return str(top)
