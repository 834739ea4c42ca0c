"""The fixed values the golden frames of python tools/golden.py are built from, in one place.

Secrets, shares, the deck they shuffle, the seats' keys, the table and its passphrase are
fixed, and Ed25519 is deterministic, so every frame and vector comes out the same each run.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import NamedTuple

from p2pnerts.protocol import (
    ANSWERER,
    OPENER,
    Channel,
    Hello,
    Opening,
    Proof,
    SeatKey,
    TableSecret,
    answer_opening,
    common_seed,
    derived,
    link_statement,
    shuffle,
)
from p2pnerts.rules import Suit, TableOptions

SECRET = bytes.fromhex("5a17c0ffee0ddba11de7ec7ab1e5eed5" * 2)
"""Seat 0's secret for round 1, pledged in its Ready of round 0."""
NEXT = hashlib.sha256(b"golden next").digest()
"""Seat 0's secret for round 2, pledged in its Ready of round 1."""
SHARES = {0: derived(SECRET, 0), 1: hashlib.sha256(b"golden seat 1").digest()}
"""Round 0's shares of a two-seat table: seat 0's follows from its round-1 secret."""
SEED = common_seed(1, SHARES)
ORDER = shuffle(0, 1, SECRET, SEED, options=TableOptions())
"""Seat 0's deck for round 1, from its secret and the round's seed."""
ZERO = bytes(16)
DIGEST = bytes.fromhex("0f1e2d3c4b5a69788796a5b4c3d2e1f0")


S, H, D, C = Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS

KEY_SEED = b"golden"
"""The seats' keys of the golden frames: `Signer.computed` from this seed, for 4 seats
(their public halves are in the file's vectors)."""

TABLE = bytes.fromhex("7ab1e1d0c0ffee00112233445566778f")
HOST_KEY = SeatKey.from_secret(bytes(range(32)))
NEWCOMER_KEY = SeatKey.from_secret(bytes(range(32, 64)))
SPECTATOR_KEY = SeatKey.from_secret(bytes(range(64, 96)))
PASSPHRASE = "correct horse battery staple"
OPENER_EPHEMERAL = bytes(range(96, 128))
ANSWERER_EPHEMERAL = bytes(range(128, 160))
"""The X25519 private keys of the golden handshake's two ends (fresh on every real link)."""


class Link(NamedTuple):
    """The golden link's Noise handshake (SPEC §2.8): each end's message, and each end's
    encryption once it is done."""

    opening: bytes
    answer: bytes
    opener: Channel
    answerer: Channel


def link() -> Link:
    """The handshake made from the fixed ephemeral keys: the same bytes every run."""
    opening = Opening(OPENER_EPHEMERAL)
    answer, answerer = answer_opening(opening.message, ANSWERER_EPHEMERAL)
    return Link(opening.message, answer, opening.finish(answer), answerer)


class Handshake(NamedTuple):
    """A newcomer's way into a private table (SPEC §2.8–2.9): the Hellos both ways, the
    statements each end signs, and the newcomer's Proof."""

    newcomer: Hello
    host: Hello
    answerer: bytes
    opener: bytes
    proof: Proof


def handshake() -> Handshake:
    """The handshake of the passphrase vector and the link frames, over the golden `link`:
    keys, nonces and SPAKE2's entropy fixed, so that the signatures (Ed25519 is
    deterministic), SPAKE2's messages and the MACs are too."""
    newcomer = Hello(ZERO, -1, "Bea", 4001, NEWCOMER_KEY.public, bytes(range(16)))
    bare = Hello(TABLE, 0, "Ann", 4000, HOST_KEY.public, bytes(range(16, 32)))
    binding = link().opener.hash
    answerer = link_statement(ANSWERER, binding, TABLE, newcomer, bare)
    opener = link_statement(OPENER, binding, TABLE, newcomer, bare)
    secret = TableSecret(PASSPHRASE)
    mine, theirs = secret.opening(OPENER_SCALAR), secret.answering(ANSWERER_SCALAR)
    newcomer = replace(newcomer, pake=mine.message)
    host = replace(bare, proof=HOST_KEY.sign(answerer), pake=theirs.message)
    host = replace(host, mac=theirs.finish(newcomer.pake).prove(answerer))
    proof = Proof(NEWCOMER_KEY.sign(opener), mine.finish(host.pake).prove(opener))
    return Handshake(newcomer, host, answerer, opener, proof)


def OPENER_SCALAR(size: int) -> bytes:
    """The newcomer's SPAKE2 entropy in the golden handshake: fixed bytes."""
    return bytes([0xA1]) * size


def ANSWERER_SCALAR(size: int) -> bytes:
    """The host's SPAKE2 entropy in the golden handshake: fixed bytes."""
    return bytes([0xB2]) * size
