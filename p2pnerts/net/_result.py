"""How a match ended, and what a peer measured of it."""

from __future__ import annotations

from dataclasses import dataclass, field

from p2pnerts.net._words import counted, deck_names


@dataclass(slots=True)
class PeerStats:
    """What one peer measured of its own table: for benchmarks and the curious."""

    commit_latencies: list[float]
    """Seconds from sending each own foundation play to its commit (or return)."""
    frames_sent: int = 0
    bytes_sent: int = 0
    started: float = 0.0
    finished: float = 0.0


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

    @property
    def decks(self) -> tuple[str, ...]:
        """Every deck's name: its seat's, or its team's ("You & Bot 1")."""
        return deck_names(self.names, self.seats or range(len(self.names)))

    def summary(self) -> str:
        decks = self.decks
        totals = ", ".join(f"{n} {t}" for n, t in zip(decks, self.totals, strict=True))
        winners = " and ".join(decks[d] for d in self.winners)
        label = "Winner" if len(self.winners) == 1 else "Winners"
        return f"match over after {counted(self.rounds, 'round')}: {totals}. {label}: {winners}"
