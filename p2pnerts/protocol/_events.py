"""What a replica tells the program driving it: small frozen dataclasses, one per kind."""

from __future__ import annotations

from dataclasses import dataclass

from p2pnerts.rules import EndReason, Move, RoundScore


@dataclass(frozen=True, slots=True)
class RoundStarted:
    """Every seat's Ready committed: play is on, with the decks of the seats ``dealt``
    (the others sit the round out)."""

    round: int
    dealt: tuple[int, ...] = ()
    again: bool = False
    """This replica told the round's start before: it replays the round, rebuilt from the
    StartView that let it back in."""


@dataclass(frozen=True, slots=True)
class PlayInTheAir:
    """This peer's own play was sent; it lands or returns once the order is settled."""

    move: Move


@dataclass(frozen=True, slots=True)
class PlayCommitted:
    """A play took its place in the agreed order and was applied; ``tie`` if it stayed
    beside an equal card under the both-stay rule."""

    seat: int
    move: Move
    clock: int
    tie: bool


@dataclass(frozen=True, slots=True)
class AutoApplied:
    """A move no one sent, that every replica applies by itself at this place in the order:
    a stuck declaration for a seat away from the table, or the rotation when all are stuck."""

    move: Move


@dataclass(frozen=True, slots=True)
class PlayReturned:
    """A play could not be applied at its place in the order: the card goes back.

    ``winner`` is the seat whose earlier play took the spot, when one did. ``raced`` is
    False when no play ordered before it is to blame: the round was over, or the seat sat
    the round out.
    """

    seat: int
    move: Move
    clock: int
    winner: int | None
    reason: str
    raced: bool = True


@dataclass(frozen=True, slots=True)
class RoundOver:
    """The round ended at this place in the order; the scores every peer must agree on."""

    round: int
    reason: EndReason
    caller: int | None
    scores: tuple[RoundScore, ...]
    digest: bytes
    dealt: tuple[int, ...] = ()
    """The decks dealt in: the others sat the round out (and score nothing in it)."""
    again: bool = False
    """This replica told the round's end before (it replayed the round on coming back)."""


@dataclass(frozen=True, slots=True)
class RoundMissed:
    """A round that ended while this replica was out: it learns only every deck's points,
    from the StartView that let it back in."""

    round: int
    points: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class AuditPassed:
    """Every deck dealt in revealed the secret it pledged, was dealt as its shuffle says,
    and every card its seats showed fits it; ``unchecked`` lists the seats whose decks
    this replica could not check (it came back after their pledges were made)."""

    round: int
    unchecked: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class AuditFailed:
    """A deck failed the audit of round ``round`` (SPEC §5.5), ``seat`` answering for it:
    it never revealed its secret, the secret is not the one it pledged, its deal is not
    what it showed, or a card it showed contradicts its deck. ``points`` is what the deck
    scores for the round now that it is voided (None: told, not voided: a teammate saw a
    card its own copy of the deck holds elsewhere; the audit decides)."""

    round: int
    seat: int
    reason: str
    points: int | None = None


@dataclass(frozen=True, slots=True)
class PeerSuspected:
    """Nothing heard from a seat for longer than the suspicion timeout."""

    seat: int


@dataclass(frozen=True, slots=True)
class PeerRecovered:
    """A suspected seat was heard from again, after ``silent_for`` seconds of silence."""

    seat: int
    silent_for: float | None = None


@dataclass(frozen=True, slots=True)
class Diverged:
    """A seat's digest after the same number of committed messages differs from ours."""

    seat: int
    index: int


@dataclass(frozen=True, slots=True)
class PeerStalled:
    """A seat talks on but acknowledges nothing new, holding every commit up: it is left
    out, and not let back in for a while."""

    seat: int
    passed: bool = False
    """At a majority's table, where no commit waits for an Ack: what it never says is that
    it passed more of the canonical order, and every seat holds what it has not said it
    passed (SPEC §6.2)."""


@dataclass(frozen=True, slots=True)
class PeerRefused:
    """A seat broke the protocol: every later message of it is refused (told once)."""

    seat: int
    reason: str


@dataclass(frozen=True, slots=True)
class ViewInstalled:
    """This replica moved to a new view: the members that play on from here."""

    view: int
    members: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PeerExcluded:
    """A silent seat was left out of the view; the others play on without it."""

    seat: int


@dataclass(frozen=True, slots=True)
class PeerRejoined:
    """A restarted or shut-out seat came back into the view, ``away_for`` seconds after it
    was last heard (None: not known here)."""

    seat: int
    away_for: float | None = None


@dataclass(frozen=True, slots=True)
class PeerLeft:
    """A seat left the table cleanly."""

    seat: int


@dataclass(frozen=True, slots=True)
class ShutOut:
    """This replica learned the others went on without it; it asks to rejoin. ``away_for``:
    its own time jumped that long just before (it was not run), the likely reason."""

    view: int
    away_for: float | None = None


@dataclass(frozen=True, slots=True)
class Returned:
    """This replica was not run for ``away_for`` seconds (its process stopped, its machine
    slept), and the others kept it in: one of them acknowledged what it sent on return."""

    away_for: float


@dataclass(frozen=True, slots=True)
class RejoinedTable:
    """This replica, out, came back into view ``view``. ``points``: back from its disk (a
    new process, after a crash or after leaving), its deck's points in the match so far;
    None for a replica that ran on."""

    view: int
    points: int | None = None


@dataclass(frozen=True, slots=True)
class SitOut:
    """This seat, back in, sits round ``round`` out: the round was dealt while it was away.
    It deals in the next if its deck pledged for it (a Ready of this round committed before
    it was left out, ``deals_next``); else it sits the next out too, and deals in the one
    after (SPEC §5.1)."""

    round: int
    deals_next: bool = False


Event = (
    RoundStarted
    | PlayInTheAir
    | PlayCommitted
    | AutoApplied
    | PlayReturned
    | RoundOver
    | RoundMissed
    | AuditPassed
    | AuditFailed
    | PeerSuspected
    | PeerRecovered
    | Diverged
    | PeerRefused
    | PeerStalled
    | ViewInstalled
    | PeerExcluded
    | PeerRejoined
    | PeerLeft
    | ShutOut
    | Returned
    | RejoinedTable
    | SitOut
)
