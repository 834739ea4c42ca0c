"""A plain-text view of a table, and one line per event, for terminals and logs."""

from __future__ import annotations

from collections.abc import Sequence

from p2pnerts.rules import (
    NERTS,
    CardPlayed,
    CardsMoved,
    Event,
    FoundationCompleted,
    RoundEnded,
    RoundScore,
    State,
    StocksRotated,
    StuckDeclared,
    Suit,
    Tableau,
    describe,
)

NAMES = (
    "Ann",
    "Bea",
    "Cal",
    "Dee",
    "Eve",
    "Fin",
    "Gus",
    "Hal",
    "Ivy",
    "Jo",
    "Kit",
    "Lu",
    "Max",
    "Ned",
)


def seat_name(seat: int) -> str:
    return NAMES[seat] if seat < len(NAMES) else f"Seat {seat + 1}"


def render_table(state: State) -> str:
    """The foundations, then every tableau on a line of its own."""
    lines = ["Foundations: " + (_foundations(state) or "none yet")]
    lines += [_tableau_line(state, t) for t in state.tableaux]
    return "\n".join(lines)


def _foundations(state: State) -> str:
    by_suit = []
    for suit in Suit:
        tops = [describe(f.rank, suit) for f in state.foundations if f.suit == suit]
        if tops:
            by_suit.append(" ".join(tops))
    done = len(state.completed)
    return "   ".join(by_suit) + (f"   ({done} complete)" if done else "")


def _tableau_line(state: State, t: Tableau) -> str:
    players = "+".join(seat_name(s) for s, deck in enumerate(state.seats) if deck == t.deck)
    nerts = f"{len(t.nerts)} [{t.nerts[-1]}]" if t.nerts else "0"
    waste = str(t.waste[-1]) if t.waste else "-"
    work = " | ".join(" ".join(map(str, p.cards)) or "·" for p in t.work)
    stuck = "  (stuck)" if t.stuck else ""
    return (
        f"{players:<8} Nerts {nerts:<8} stock {len(t.stock):>2} waste {waste:<4} "
        f"work: {work}{stuck}"
    )


def describe_event(event: Event) -> str | None:
    """One line for the events worth telling; None for the rest (turning the stock…)."""
    match event:
        case CardPlayed(seat=seat, card=card, foundation=fid, rank=rank, suit=suit):
            as_ = "" if card.rank == rank else f" as {describe(rank, suit)}"
            return f"{seat_name(seat)} plays {card}{as_} to foundation #{fid}"
        case CardsMoved(seat=seat, cards=cards, source=source, under=True):
            return f"{seat_name(seat)} slides {cards[0]} under a pile"
        case CardsMoved(seat=seat, cards=cards, source=source) if source == NERTS:
            return f"{seat_name(seat)} moves {cards[0]} from the Nerts pile"
        case FoundationCompleted(foundation=fid):
            return f"Foundation #{fid} is complete"
        case StuckDeclared(seat=seat):
            return f"{seat_name(seat)} is stuck"
        case StocksRotated(rotation=n):
            return f"Everyone is stuck: stocks re-formed, top card to the bottom (rotation {n})"
        case RoundEnded(caller=caller) if caller is not None:
            return f"{seat_name(caller)} calls Nerts!"
        case RoundEnded():
            return "Everyone stayed stuck through the stock: the round ends"
    return None


def render_scores(state: State, scores: Sequence[RoundScore], totals: Sequence[int]) -> str:
    """A score table: cards played, Nerts cards left, bonus, round score, total."""
    rows = [f"{'':<10}{'played':>7}{'Nerts':>7}{'bonus':>7}{'round':>7}{'total':>7}"]
    for s in scores:
        players = "+".join(seat_name(x) for x, d in enumerate(state.seats) if d == s.deck)
        mark = " *" if s.called_nerts else ""
        rows.append(
            f"{players:<10}{s.played:>7}{-s.nerts_left:>7}{s.bonus:>7}"
            f"{s.points:>7}{totals[s.deck]:>7}{mark}"
        )
    return "\n".join(rows)
