"""Where a race is decided: one pure function gives a committed play's verdict.

Theory of operation
-------------------
Every replica commits the same plays in the same order (`Replica`, `order_key`); when a
play reaches its place in that order, `decide` says what becomes of it, from the public
table as it stands just before, and nothing else:

- **returned, not raced** — the round it was sent in is over (or is not the one on the
  table), or its seat sits the round out: no play ordered before it is to blame;
- **landed** — the rules take it on the public table as it stands;
- **tied** — the rules refuse it, but under the `both-stay` tie rule a card of another
  seat with the very same Lamport clock took the foundation spot (the two were provably
  concurrent): it stays beside that card, and both score;
- **returned, raced** — the rules refuse it: an earlier play took the spot. The verdict
  names the seat whose play is on that foundation now, when the card was still its
  player's to play (on a team's tableau a teammate's move may instead have taken the
  card itself: then nobody won a race for the foundation, and nobody is named).

Because the function reads only its arguments, every replica reaches the same verdict on
its own; the replica then applies it, and tells it as `PlayCommitted` or `PlayReturned`
(`told`). A verdict's outcome is also folded into the running digest, so two replicas
that judged a race differently show it at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import IntEnum

from p2pnerts.protocol._events import PlayCommitted, PlayReturned
from p2pnerts.protocol._messages import Play
from p2pnerts.rules import Event as RulesEvent
from p2pnerts.rules import (
    IllegalMove,
    Move,
    State,
    TieRule,
    ToFoundation,
    all_cards,
    apply,
    exposed,
)


class Outcome(IntEnum):
    """What became of a committed play; the value is what the running digest records."""

    LANDED = 0
    TIED = 1
    RETURNED = 2
    LATE = 3
    """At a table that commits by a majority: it came back late, a quorum having held a
    later play on one of its spots first (`_majority`; the arbiter never decides it)."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """The decision on one committed play.

    ``table`` and ``effects`` are the public table after a play that stays and what the
    rules say happened; ``winner`` and ``reason`` say why a returned play went back, and
    ``raced`` whether a play ordered before it is to blame.
    """

    outcome: Outcome
    table: State | None = None
    effects: tuple[RulesEvent, ...] = ()
    winner: int | None = None
    reason: str = ""
    raced: bool = False

    @property
    def stays(self) -> bool:
        """Whether the card stays on the table (landed or tied)."""
        return self.outcome is not Outcome.RETURNED


@dataclass(frozen=True, slots=True)
class Race:
    """What `decide` reads besides the play and the public table: the same at every replica.

    ``placed`` is, per foundation, the seat and clock of the play that last put a card
    there this round; ``shared`` whether the mover's tableau is a team's; ``deck`` the
    mover's deck; ``sitting_out`` whether the mover sits this round out.
    """

    tie_rule: TieRule
    placed: Mapping[int, tuple[int, int]]
    deck: int
    shared: bool = False
    sitting_out: bool = False


def decide(play: Play, public: State | None, playing: int, race: Race) -> Verdict:
    """Decide a play at its place in the agreed order, on the public table before it."""
    if play.round != playing or public is None or public.ended is not None:
        return Verdict(Outcome.RETURNED, reason="the round is over")
    if race.sitting_out:
        return Verdict(Outcome.RETURNED, reason="that seat sits this round out")
    try:
        after, effects = _apply_public(public, play.move, race, tie=False)
    except IllegalMove as exc:
        if not _ties(play, public, race):
            winner = _winner(play, public, race)
            return Verdict(Outcome.RETURNED, winner=winner, reason=str(exc), raced=True)
        after, effects = _apply_public(public, play.move, race, tie=True)
        return Verdict(Outcome.TIED, after, tuple(effects))
    return Verdict(Outcome.LANDED, after, tuple(effects))


def told(play: Play, verdict: Verdict) -> PlayCommitted | PlayReturned:
    """The event that tells a play's verdict to the program driving the replica."""
    if verdict.stays:
        return PlayCommitted(play.sender, play.move, play.clock, verdict.outcome is Outcome.TIED)
    return PlayReturned(
        play.sender, play.move, play.clock, verdict.winner, verdict.reason, verdict.raced
    )


def _apply_public(
    public: State, move: Move, race: Race, *, tie: bool
) -> tuple[State, list[RulesEvent]]:
    """Apply a committed move to the public table. On a shared tableau, refuse one that
    turns up a card already seen: a teammate's move ordered first turned it up, and the
    mover saw the tableau before that move (the public table, not knowing the order,
    would take the card for the next face-down one)."""
    after, effects = apply(public, move, tie=tie)
    if getattr(move, "revealed", ()) and race.shared:
        cards = [c for c in all_cards(after) if c is not None and c.deck == race.deck]
        if len(cards) != len(set(cards)):
            raise IllegalMove("a teammate's move turned those cards up first")
    return after, effects


def _ties(play: Play, public: State, race: Race) -> bool:
    """Whether a refused foundation play stays beside a card of another seat played with
    the same clock (the both-stay rule), the rules allowing it as a tie."""
    move = play.move
    if race.tie_rule is not TieRule.BOTH_STAY or not isinstance(move, ToFoundation):
        return False
    placed = race.placed.get(move.foundation)
    if placed is None or placed[1] != play.clock or placed[0] == play.sender:
        return False
    try:
        apply(public, move, tie=True)
    except IllegalMove:
        return False
    return True


def _winner(play: Play, public: State, race: Race) -> int | None:
    """The seat whose play took the spot, when a foundation play lost a race for it: not
    when the card itself was gone (a teammate's move took it from a shared tableau)."""
    move = play.move
    if not isinstance(move, ToFoundation):
        return None
    placed = race.placed.get(move.foundation)
    if placed is None:
        return None
    if (move.source, move.card) not in tuple(exposed(public.tableau_of(move.seat))):
        return None
    return placed[0]
