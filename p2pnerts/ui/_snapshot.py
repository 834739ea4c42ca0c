"""What the table screen's model holds and shows: the peer's snapshot of the table, how
cards look, the player's selection, what a click hits and a line of the ticker."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from p2pnerts.protocol import Hand
from p2pnerts.rules import (
    Card,
    State,
)


@dataclass(frozen=True, slots=True)
class Look:
    """How cards are drawn: ASCII suit letters instead of symbols; a four-colour deck."""

    ascii: bool = False
    four_colour: bool = False

    def card(self, card: Card) -> str:
        return card.label(ascii_only=self.ascii)


@dataclass(frozen=True, slots=True)
class Liveness:
    """What this peer knows of another seat's health."""

    heard_ago: float
    """Seconds since anything was heard from the seat."""
    suspected: bool = False
    member: bool = True
    """Still in the view (False: left out, or gone)."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The seat's peer as the front end reads it after each change."""

    display: State | None = None
    hand: Hand = field(default_factory=Hand)
    """This seat's plays in the air that hold its one hand (the last sent, ``hand.last``,
    is shown flying), and which next moves wait for them."""
    status: str = "playing"
    clock: int = 0
    committed: int = 0
    pending: int = 0
    """Ordered messages (every seat's) held but not yet committed here."""
    own_pending: int = 0
    """This seat's own plays sent and not yet committed."""
    view: int = 0
    majority: bool = False
    """The table commits by a majority (protocol version 3's rule), not by acknowledgement."""
    liveness: tuple[Liveness, ...] = ()
    totals: tuple[int, ...] = ()
    """Match points per deck: a player's own, or a team's."""
    over: bool = False
    """The match is over (``totals`` are final)."""
    winners: tuple[int, ...] = ()
    """The decks (players, or teams) with the best total."""
    blind: bool = False
    """Dealt in, but the team's deck order has not reached this seat: it cannot play."""
    stuck_while_away: bool = False
    """Declared stuck for this seat while it was away."""
    stuck_for_idle: bool = False
    """Declared stuck for this seat's idle player."""
    turns_though_stuck: bool = False
    """Declared stuck, yet not provably stuck: a play has opened up since (or there was
    one all along), so the player may turn the stock now."""
    starts_in: float = 0.0
    """Seconds the countdown before this round's first move still runs."""
    unready: tuple[int, ...] = ()
    """Between rounds, the seats the next round waits for to say they are ready."""
    idle: tuple[float, ...] = ()
    """Per seat, for how long it has made no move, if it is shown as idle (else 0)."""
    stranded: tuple[int, ...] = ()
    """Silent seats the table cannot leave out (the others are no majority): it waits."""
    forsaken: float = 0.0
    """For how long no other seat has answered, if this seat cannot go on by itself and
    counts the table gone (`TablePeer.forsaken`); else 0."""
    ended: str = ""
    """Why the match ended before its end, if it did."""


@dataclass(frozen=True, slots=True)
class Selection:
    """The card the player picked: a pile, and how deep into a work pile the block starts."""

    source: int
    card: Card
    depth: int = 0


@dataclass(frozen=True, slots=True)
class Hit:
    """What a mouse click landed on."""

    kind: Literal["pile", "foundation", "stock"]
    source: int = 0
    depth: int = 0


@dataclass(frozen=True, slots=True)
class Line:
    """One entry of the ticker or of the message log, stamped with the model's clock."""

    at: float
    text: str
    quiet: bool = False
    """A message of the background (an Ack, the heartbeat), hidden unless asked for."""
    marked: bool = False
    """A race or a tie the order decided, and why: marked in the classroom pane."""
