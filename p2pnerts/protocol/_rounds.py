"""What a replica keeps of each round until its audit (`Round`), and of its own deck on
disk to come back after a crash (`Disk`): data the parts that deal, play and close a
round share."""

from __future__ import annotations

from dataclasses import dataclass, field

from p2pnerts.protocol._messages import Ready
from p2pnerts.rules import Card, Move


@dataclass(frozen=True, slots=True)
class Disk:
    """What a peer keeps on disk to come back after a crash: its current deck."""

    round: int = 0
    order: tuple[Card, ...] = ()
    secrets: bytes = b""
    """The deck's secret for ``round``, then the one pledged for the round after (32 bytes
    each; empty before the first)."""
    view: int = 0
    """The last view it was in: Rejoin messages older than the view it joined are stale."""
    pledges: tuple[tuple[int, bytes], ...] = ()
    """The pledges for ``round`` it committed (deck, pledge: made in the Readies of the
    round before), if it saw them all: back in that round, it makes the next round's seed
    from the shares that match them, and deals in (SPEC §5.5)."""


@dataclass(slots=True)
class Round:
    """What a replica keeps about one round until its audit is done."""

    number: int
    order: tuple[Card, ...] = ()
    """This seat's deck order for the round (empty: it does not know it)."""
    secret: bytes = b""
    """The secret this seat's deck is shuffled from in the round, if this seat holds it."""
    readies: dict[int, Ready] = field(default_factory=dict)
    shown: dict[int, tuple[Card, ...]] = field(default_factory=dict)
    """The cards each deck dealt face up, by deck."""
    log: list[tuple[Move, bool]] = field(default_factory=list)
    ended: bool = False
    dealers: dict[int, int] = field(default_factory=dict)
    """Per deck dealt in, the seat whose Ready deals it: the first of the deck's seats to
    have its Ready committed (a team deals one deck; `shown` and the audit go by deck)."""
    participants: frozenset[int] = frozenset()
    """The seats at the table when the round's first Ready committed: play starts once
    each of them still seated has its Ready committed."""
    pledges: dict[int, bytes] = field(default_factory=dict)
    """Per deck, the pledge for the round after: from its first Ready of this round
    committed whose order key sorts before every Reveal of this round (SPEC §5.1)."""
    shares: dict[int, tuple[int, bytes]] = field(default_factory=dict)
    """Per deck, the seat that revealed its secret of this round first, and the secret."""
    first_reveal: tuple[int, ...] | None = None
    """The lowest order key of the Reveals of this round committed here: a Ready sorting
    after it pledges nothing. (Where every member's acknowledgement commits, the Reveals
    committed so far are those sorting before a Ready committed now; where a majority
    commits, a Reveal of another deck may commit before a Ready that sorts before it.)"""
    seed: bytes | None = None
    """The round's common seed, once known (None: not yet, or not knowable here)."""
    closed: bool = False
    """Whether the round's reveals are all in (or given up) and its audit done."""
