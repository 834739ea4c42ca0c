"""What must hold after every step of a simulated run, checked as the run goes.

- Committed logs agree: the running digest every replica reports after its k-th commit is
  the same at every replica (so of any two logs, one is a prefix of the other).
- Equal commit indexes give equal tables: the public state of every replica that has
  committed k messages is the same.
- Every card of every deck is in exactly one place on each table that appears.
- The scores every replica announces at a round's end are the rules engine's scoring of
  the committed plays, replayed on a deal from the real deck orders (a team's deck from
  the shuffle of the teammate that dealt it). Scores are per deck: a team scores as one.
- Every replica deals each deck of a round from the same seat's Ready, a seat of that deck
  (the ledger checks it as each replica starts the round).

And, with what the driver knows of the network: a side of a partition (or the survivors of
a crash) without a majority commits nothing sent since the cut; a majority cut off from
the rest long enough goes on committing without them; every round ends within a bound,
while a majority is connected. A majority is of the members of the views the seats are
in, as the protocol's is (a view shrinks as seats leave or are left out), not of the
table's seats.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from operator import attrgetter
from typing import NamedTuple, Protocol

from p2pnerts.protocol import RoundOver
from p2pnerts.rules import (
    Card,
    IllegalMove,
    Move,
    Rotate,
    RoundScore,
    RulesError,
    State,
    Tableau,
    TableOptions,
    WorkPile,
    all_cards,
    apply,
    deal,
    new_deck,
    public_digest,
    score_round,
)

DIGESTS_KEPT = 4096
"""How far back a replica's `digest_at` reaches (it keeps the recent ones only)."""


_deck_of = attrgetter("deck")


class Violation(Exception):
    """An invariant failed; the message says which, and where."""


class Committing(Protocol):
    """What the checker reads of a replica."""

    @property
    def committed(self) -> int: ...

    @property
    def public(self) -> State | None: ...

    def digest_at(self, committed: int) -> bytes: ...


class Verdict(NamedTuple):
    """A round's outcome as the rules engine computes it from the real decks."""

    scores: tuple[RoundScore, ...]
    digest: bytes


class Invariants:
    """The per-step checks, over every replica of one table."""

    def __init__(self, *, tables: bool = True) -> None:
        self._digests: dict[int, bytes] = {}
        self._tables: dict[int, State] = {}
        self._check_tables = tables
        """Whether every seat's table after n commits is the same: not under version 3's
        majority, where seats apply plays of different spots in different sequences and
        the count is of the canonical order (the digests still agree)."""

    def after_step(self, seat: int, replica: Committing, checked: int) -> int:
        """Check what ``seat`` committed since its ``checked``-th commit; returns the new
        count to pass next time."""
        count = replica.committed
        if count == checked:
            return count
        for index in range(max(checked + 1, count - DIGESTS_KEPT + 1, 1), count + 1):
            try:
                digest = replica.digest_at(index)
            except KeyError:
                continue  # from before a restart: not kept
            agreed = self._digests.setdefault(index, digest)
            if agreed != digest:
                raise Violation(f"seat {seat}'s commit #{index} differs from another seat's")
        table = replica.public if self._check_tables else None
        if table is not None:
            agreed_table = self._tables.setdefault(count, table)
            if agreed_table is table:
                misplaced = misplaced_cards(table)
                if misplaced:
                    raise Violation(f"seat {seat}'s table after {count} commits: {misplaced}")
            elif agreed_table != table:
                raise Violation(f"seat {seat}'s table after {count} commits differs from another's")
        return count

    def forget_before(self, count: int) -> None:
        """Drop the tables kept for commit indexes below ``count`` (every replica is past)."""
        for index in [i for i in self._tables if i < count]:
            del self._tables[index]


def check_cut_off(seat: int, cut: float | None, sent: float, what: str) -> None:
    """A peer cut off on a side without a majority (since ``cut``) commits nothing sent
    since: ``what`` was sent at ``sent``."""
    if cut is not None and sent > cut:
        raise Violation(
            f"seat {seat}, cut off without a majority since {cut:.3f} s, committed {what} "
            f"sent at {sent:.3f} s"
        )


def check_progress(
    before: Mapping[int, int], now: Mapping[int, int], lasted: float, what: str
) -> None:
    """Every seat of a majority cut off from the rest for ``lasted`` seconds (by ``what``)
    committed something new: ``before`` and ``now`` are their commit counts."""
    for seat, count in before.items():
        if seat in now and now[seat] <= count:
            raise Violation(
                f"seat {seat}, on the majority side of a {what} for {lasted:.1f} s, "
                "committed nothing new"
            )


def check_round_time(number: int, since: float, now: float, limit: float) -> None:
    """Round ``number``, under way since ``since``, has not gone on longer than ``limit``."""
    if now - since > limit:
        raise Violation(f"round {number} has not ended {limit:.0f} simulated seconds on")


def misplaced_cards(state: State) -> str | None:
    """Why not every card of every deck is in exactly one place, or None if all are.

    A face-down card the state does not know counts for the deck whose tableau holds it;
    the known ones must all differ, and each deck must add up to a whole deck — or to none,
    for a seat that was away when the round was dealt (it is not dealt in).
    """
    known = [card for card in all_cards(state) if card is not None]
    if len(set(known)) < len(known):
        repeated = next(card for card, n in Counter(known).items() if n > 1)
        return f"{_label(repeated)} is in two places"
    per_deck = Counter(map(_deck_of, known))
    for t in state.tableaux:  # only the Nerts pile and the stock lie face down
        per_deck[t.deck] += t.nerts.count(None) + t.stock.count(None)
    size = state.options.deck_size
    for deck in range(len(state.tableaux)):
        if per_deck[deck] not in (0, size):
            return f"deck {deck + 1} has {per_deck[deck]} cards, not {size}"
    strays = set(per_deck) - set(range(len(state.tableaux)))
    if strays:
        return f"cards of deck {min(strays) + 1}, which is not at the table"
    return None


def replay_round(
    options: TableOptions,
    orders: Sequence[Sequence[Card] | None],
    moves: Sequence[tuple[Move, bool]],
) -> Verdict:
    """Deal from the real deck orders (one per deck: per team, at a table of teams; None
    for a deck not dealt in, whose tableau is empty), apply the moves the round took, and
    score the round.

    Whenever every tableau is stuck, the next move must be the rotation (every replica
    makes it by itself, at that place in the order).
    """
    players = sum(options.teams) if options.teams else len(orders)  # one deck per team
    dealt = [new_deck(d, jokers=options.jokers) if o is None else o for d, o in enumerate(orders)]
    state = deal(options, options.seating(players), orders=dealt)
    state = state._replace(
        tableaux=tuple(
            _not_dealt_in(t.deck, options) if orders[t.deck] is None else t for t in state.tableaux
        )
    )
    for number, (move, tie) in enumerate(moves, 1):
        if all(t.stuck for t in state.tableaux) and not isinstance(move, Rotate):
            raise Violation(f"every tableau is stuck, yet move {number} is not the rotation")
        try:
            state, _ = apply(state, move, tie=tie)
        except (IllegalMove, RulesError) as exc:
            raise Violation(f"move {number} does not replay on the real decks: {exc}") from exc
    if state.ended is None:
        raise Violation("the committed plays do not end the round")
    misplaced = misplaced_cards(state)
    if misplaced:
        raise Violation(f"the replayed table: {misplaced}")
    return Verdict(score_round(state), public_digest(state))


def _not_dealt_in(deck: int, options: TableOptions) -> Tableau:
    """The tableau of a deck not dealt in (SPEC §5.2): no cards at all."""
    return Tableau(deck, (), (WorkPile(),) * options.work_piles, ())


def check_round_over(seat: int, over: RoundOver, verdict: Verdict) -> None:
    """A replica's announced round end must be the replayed verdict."""
    if over.scores != verdict.scores:
        raise Violation(
            f"seat {seat} scored round {over.round} {_points(over.scores)}, "
            f"the rules engine {_points(verdict.scores)}"
        )
    if over.digest != verdict.digest:
        raise Violation(f"seat {seat}'s table at the end of round {over.round} is not the replay's")


def _points(scores: Sequence[RoundScore]) -> str:
    return "/".join(str(s.points) for s in scores)


def _label(card: Card) -> str:
    return f"deck {card.deck + 1}'s {card.label(ascii_only=True)}"
