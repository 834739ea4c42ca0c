"""The messages peers exchange: small frozen dataclasses, one per kind.

Every message carries its sender's seat, the sender's Lamport clock when it was sent
(`clock`) and the sender's own sequence number (`seq`, 1, 2, 3 … per sender and table,
never reused), so that links can be FIFO and resumed after a reconnect.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2pnerts.rules import Move

PROTOCOL_VERSION = 1


@dataclass(frozen=True, slots=True)
class Ready:
    """A seat is dealt and ready for round ``round``.

    ``commitment`` is the salted hash of its deck order (revealed and audited at the end);
    ``face_up`` the cards it deals face up: the Nerts pile's top, then one per work pile.
    """

    sender: int
    clock: int
    seq: int
    round: int
    commitment: bytes
    face_up: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Play:
    """A move in round ``round``, ordered with every other play by (clock, tie rule)."""

    sender: int
    clock: int
    seq: int
    round: int
    move: Move


@dataclass(frozen=True, slots=True)
class Ack:
    """What the sender holds: the highest sequence number received from every seat in
    ``have`` (its own included), how many messages it has committed, and the digest of
    the public table after them. Sent promptly after a play (coalesced), and as the
    heartbeat when idle."""

    sender: int
    clock: int
    seq: int
    have: tuple[int, ...]
    committed: int
    digest: bytes


@dataclass(frozen=True, slots=True)
class Reveal:
    """After round ``round``: the salt and whole deck order behind the commitment."""

    sender: int
    clock: int
    seq: int
    round: int
    salt: bytes
    order: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Leave:
    """The sender leaves the table cleanly."""

    sender: int
    clock: int
    seq: int


Message = Ready | Play | Ack | Reveal | Leave
