"""What a spectator and the seat it watches say to each other (SPEC §2.10).

A spectator takes no seat: it opens with `Watch` instead of a Hello, is proven like a
newcomer (and, at a private table, proves the passphrase like one), and from then on only
listens. The seat sends it a `Scene` (the public table, every seat's clock and health),
then a `Seen` for every protocol message the seat sends or receives that shows nothing
face down, and a `Decided` for every message it commits, each with its place in the order
and its verdict. Nothing a spectator sends after its `Proof` is taken: it is cut off.

Everything here is data and pure functions; `net._spectators` moves it.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2pnerts.rules import Card, State, TableOptions, card_code


@dataclass(frozen=True, slots=True)
class Watch:
    """A spectator's first frame: the table it means (16 zero bytes: whichever the seat
    plays), its name, a key made for this watch alone, a fresh nonce, and at a private
    table its SPAKE2 message (`_passphrase.PassphraseRun`)."""

    table: bytes
    name: str
    key: bytes
    nonce: bytes
    pake: bytes = b""


@dataclass(frozen=True, slots=True)
class TableauSight:
    """One deck's tableau as every player sees it: counts of the face-down piles, the
    face-up cards (as card codes, SPEC §3.3)."""

    nerts: int
    """Cards in the Nerts pile."""
    nerts_top: tuple[int, ...]
    """The Nerts pile's face-up top card (none once it is empty)."""
    work: tuple[tuple[int, ...], ...]
    """Each work pile's cards, bottom first."""
    stock: int
    waste: int
    waste_top: tuple[int, ...]
    """The waste's top card (none when the waste is empty)."""


@dataclass(frozen=True, slots=True)
class Scene:
    """The table as a seat shows it to a spectator, after every commit: its public table,
    and what the seat knows of every seat (clocks, health, totals)."""

    table: bytes
    seat: int
    """The seat whose peer this is (the spectator sees the table as it does)."""
    names: tuple[str, ...]
    options: TableOptions
    round: int
    committed: int
    clocks: tuple[int, ...]
    """Per seat, the highest Lamport clock this seat has heard from it (its own: its clock)."""
    heard: tuple[int, ...]
    """Per seat, milliseconds since this seat last heard from it (its own: 0)."""
    states: tuple[int, ...]
    """Per seat: 0 alive, 1 silent (suspected), 2 out of the view (left, or left out)."""
    totals: tuple[int, ...]
    """Match points per deck."""
    foundations: tuple[int, ...]
    """The top card of each foundation in the middle, in the order they were started."""
    completed: int
    """Foundations built to the king and set aside."""
    tableaux: tuple[TableauSight, ...]
    """Per deck (none between rounds)."""
    dropped: int
    """How many `Seen` and `Decided` frames this spectator missed, being slow to read."""


@dataclass(frozen=True, slots=True)
class Seen:
    """A protocol message the watched seat sent (``out``) or received, ``at`` milliseconds
    after it began to play; ``other`` is the seat it went to or came from (−1: to all)."""

    at: int
    out: bool
    other: int
    frame: bytes
    """The message's payload, as on the wire (SPEC §3)."""


@dataclass(frozen=True, slots=True)
class Decided:
    """The watched seat committed a message: the ``index``-th, at ordering key
    ``(clock, call, rank)`` (SPEC §4.3), with its outcome (0 landed, 1 tied, 2 returned,
    3 came back late at a majority's table) and, for a returned play, the seat that took
    the spot (−1: none) and the reason."""

    index: int
    clock: int
    call: int
    rank: int
    frame: bytes
    """The committed message's payload (a StartView without what it carries)."""
    outcome: int
    winner: int
    reason: str


def tableaux_of(public: State | None) -> tuple[TableauSight, ...]:
    """What a spectator is shown of every tableau of ``public`` (the public table)."""
    if public is None:
        return ()
    return tuple(
        TableauSight(
            len(t.nerts),
            _codes(t.nerts[-1:]),
            tuple(_codes(p.cards) for p in t.work),
            len(t.stock),
            len(t.waste),
            _codes(t.waste[-1:]),
        )
        for t in public.tableaux
    )


def foundation_tops(public: State | None) -> tuple[int, ...]:
    """The top card of each foundation in the middle of ``public``."""
    if public is None:
        return ()
    return tuple(card_code(f.cards[-1]) for f in public.foundations if f.cards)


def _codes(cards: tuple[Card | None, ...]) -> tuple[int, ...]:
    return tuple(card_code(c) for c in cards if c is not None)
