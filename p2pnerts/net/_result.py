"""How a match ended, and what a peer measured of it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from p2pnerts.net._comings import Comings
from p2pnerts.protocol import (
    NEVER_REVEALED,
    AuditFailed,
    Diverged,
    Event,
    PeerRefused,
    PeerStalled,
)
from p2pnerts.rules import Match
from p2pnerts.words import counted, deck_names


@dataclass(slots=True)
class PeerStats:
    """What one peer measured of its own table: for benchmarks and the curious."""

    commit_latencies: list[float]
    """Seconds from sending each own foundation play to its commit (or return)."""
    silent_waits: list[float] = field(default_factory=list)
    """Per own foundation play (as ``commit_latencies``), the seconds of that time in
    which some seat was silent: what the play waited on a silent seat."""
    frames_sent: int = 0
    bytes_sent: int = 0
    probed: int = 0
    """How many times a silent seat's connection was replaced by a probe (`Links`)."""
    started: float = 0.0
    finished: float = 0.0
    diverged: int = 0
    """How many times another seat's digest differed from this one's."""
    refused: list[tuple[int, str]] = field(default_factory=list)
    """Each seat refused for breaking the protocol, with the reason."""
    stalled: list[int] = field(default_factory=list)
    """Each seat left out for holding every commit up while it talked on."""
    never_passed: set[int] = field(default_factory=set)
    """Of those, the seats that held it up at a majority's table, by never saying they
    passed more of the canonical order (`PeerStalled.passed`)."""
    audits_failed: list[tuple[int, int]] = field(default_factory=list)
    """Each deck voided for failing a round's audit: the seat that answers for it, and the
    round."""
    comings: Comings = field(default_factory=lambda: Comings(0))
    """The seats coming and going, with their times (this seat's own time away too)."""

    @classmethod
    def at(cls, seat: int, started: float) -> PeerStats:
        """Seat ``seat``'s figures, from ``started`` on."""
        return cls([], started=started, comings=Comings(seat, started))

    def landed(self, sent: float, now: float) -> None:
        """An own foundation play sent at ``sent`` committed (or returned) at ``now``."""
        self.commit_latencies.append(now - sent)
        self.silent_waits.append(self.comings.waited(sent, now))

    def count(self, event: Event, now: float) -> None:
        """Count ``event``: a seat coming or going, or a seat that went wrong."""
        self.comings.hear(event, now)
        if isinstance(event, Diverged):
            self.diverged += 1
        elif isinstance(event, PeerRefused):
            self.refused.append((event.seat, event.reason))
        elif isinstance(event, PeerStalled):
            self.stalled.append(event.seat)
            if event.passed:
                self.never_passed.add(event.seat)
        elif isinstance(event, AuditFailed) and event.points is not None:
            if event.reason == NEVER_REVEALED:
                return  # its seat left (or crashed) before revealing: voided, no attack
            self.audits_failed.append((event.seat, event.round))

    def alarms(self, names: Sequence[str] = ()) -> str | None:
        """What this peer saw go wrong at the table, in one line; None if nothing did. Each
        seat by its name in ``names``, as the table screen and the comings name it (none:
        "seat N", numbered from 1 as the screen numbers them)."""

        def who(seat: int) -> str:
            return names[seat] if 0 <= seat < len(names) else f"seat {seat + 1}"

        seen = [f"refused {who(seat)}: {why}" for seat, why in self.refused]
        seen += [
            f"{who(seat)} never said it passed more of the order while it talked on"
            if seat in self.never_passed
            else f"{who(seat)} acknowledged nothing while it talked on"
            for seat in self.stalled
        ]
        seen += [
            f"{who(seat)} failed the audit of its deal in round {round_}"
            for seat, round_ in self.audits_failed
        ]
        if self.diverged:
            seen.insert(0, f"{self.diverged} digest mismatch(es) with other seats")
        return "; ".join(seen) or None


@dataclass(frozen=True, slots=True)
class MatchResult:
    """How a match ended: every seat's name, every deck's total, the winning decks, the
    rounds. At a table of teams a deck is a team's (``seats`` gives each seat's deck)."""

    names: tuple[str, ...]
    totals: tuple[int, ...]
    winners: tuple[int, ...]
    rounds: int
    seats: tuple[int, ...] = ()
    """The deck of each seat; empty: every seat plays its own."""
    stats: PeerStats | None = field(default=None, compare=False)
    ended: str = ""
    """Why the match ended before its end (the others left, say); empty: it was played out."""
    log: Path | None = field(default=None, compare=False)
    """The game log this seat's peer wrote of the match, if it wrote one."""
    planned: int | None = field(default=None, compare=False)
    """The rounds the match was to have, if the table set a number (None: it is played to
    a target score)."""
    left: bool = False
    """This seat left before the match's end, which the others play on to: the result is
    how the match stood as it left (`TablePeer.standing`)."""

    @classmethod
    def of(
        cls,
        names: tuple[str, ...],
        match: Match,
        seats: tuple[int, ...],
        stats: PeerStats | None = None,
        ended: str = "",
    ) -> MatchResult:
        """How ``match`` ended: with its winners when it is over, else (``ended`` says why
        it ended early) with the leaders so far."""
        totals = match.totals
        winners = match.winners or tuple(d for d, t in enumerate(totals) if t == max(totals))
        played, planned = len(match.rounds), match.options.rounds
        return cls(names, totals, winners, played, seats, stats, ended, planned=planned)

    @property
    def decks(self) -> tuple[str, ...]:
        """Every deck's name: its seat's, or its team's ("You & Bot 1")."""
        return deck_names(self.names, self.seats or range(len(self.names)))

    def summary(self) -> str:
        decks = self.decks
        totals = ", ".join(f"{n} {t}" for n, t in zip(decks, self.totals, strict=True))
        if self.left:
            return _left(self.rounds, self.planned, totals)
        best = [decks[d] for d in self.winners]
        winners = best[0] if len(best) == 1 else f"{', '.join(best[:-1])} and {best[-1]}"
        rounds = counted(self.rounds, "round")
        if self.ended and not self.rounds:
            # Nobody leads, and a row of zeros would read as the table's result: a seat cut
            # off may have missed rounds the others played on.
            return f"match ended before any round was over here, {self.ended}"
        if self.ended:
            label = "Leader" if len(self.winners) == 1 else "Leaders"
            how = f"match ended after {rounds}, {self.ended}"
        else:
            label = "Winner" if len(self.winners) == 1 else "Winners"
            how = f"match over after {rounds}"
        return f"{how}: {totals}. {label}: {winners}"


def _left(rounds: int, planned: int | None, totals: str) -> str:
    """A seat's leaving, with the scores of the rounds played so far."""
    of = "" if planned is None else f" of {planned}"
    if not rounds:
        return f"Left the table before the end of round 1{of}"
    return f"Left the table after round {rounds}{of}: {totals}"
