"""Who a seat is: an Ed25519 key pair, and the proofs a link's two ends give each other.

The table id is public (mDNS announces it), so it proves nothing. Each seat has a key
pair instead; the host's roster binds every seat to its public key; and a connection is
taken as a seat's only once that seat has signed a statement naming the connection's
Noise handshake hash (`_channel`), both ends' keys and two fresh nonces (SPEC §2.8). A
recorded handshake proves nothing on another connection, a relay that opens a handshake
of its own with each end cannot pass a proof from one to the other (the two hashes
differ), and no one but the key's holder can sign.
"""

from __future__ import annotations

import hashlib
import os

import msgpack
from nacl.bindings import crypto_sign, crypto_sign_open, crypto_sign_seed_keypair
from nacl.exceptions import BadSignatureError

from p2pnerts.protocol._messages import Hello
from p2pnerts.protocol._spectate import Watch
from p2pnerts.protocol._wire import _options_to_wire
from p2pnerts.rules import TableOptions

KEY_BYTES = 32
SECRET_BYTES = 32
SIGNATURE_BYTES = 64
NONCE_BYTES = 16
NO_KEY = bytes(KEY_BYTES)
"""The key of a seat not known yet (never a real Ed25519 public key's encoding that signs)."""
DOMAIN = b"p2pnerts/3 link proof\x00"
TERMS_DOMAIN = b"p2pnerts/2 table terms\x00"
TICKET_DOMAIN = b"p2pnerts/2 spectator ticket\x00"
TERMS_BYTES = 32
OPENER = b"O"
"""The role of the end that opened the connection (it said Hello first)."""
ANSWERER = b"A"
"""The role of the end that accepted it (it answers with a Hello that proves itself)."""


class SeatKey:
    """One seat's key pair: it signs, and gives out its public half."""

    def __init__(self, secret: bytes) -> None:
        if len(secret) != SECRET_BYTES:
            raise ValueError(f"a seat's private key is {SECRET_BYTES} bytes")
        self.public, self._signing = crypto_sign_seed_keypair(secret)
        """The public key, 32 bytes: what the roster and every Hello carry."""

    @classmethod
    def generate(cls) -> SeatKey:
        """A new key pair, from the operating system's randomness."""
        return cls(os.urandom(SECRET_BYTES))

    @classmethod
    def from_secret(cls, secret: bytes) -> SeatKey:
        """The key pair whose 32-byte private key is ``secret`` (a state file keeps it)."""
        return cls(secret)

    @property
    def secret(self) -> bytes:
        """The 32-byte private key (RFC 8032's seed): to be kept by this seat alone."""
        return self._signing[:SECRET_BYTES]

    def sign(self, data: bytes) -> bytes:
        return crypto_sign(data, self._signing)[:SIGNATURE_BYTES]


def verify(public: bytes, signature: bytes, data: bytes) -> bool:
    """Whether ``signature`` is the holder of ``public``'s signature of ``data``, as SPEC
    §3.7 says exactly (libsodium's check: no key or ``R`` of small order, ``S`` below the
    group's order), so that every seat reaches the same verdict on a crafted one."""
    if len(public) != KEY_BYTES or len(signature) != SIGNATURE_BYTES:
        return False
    try:
        crypto_sign_open(signature + data, public)
    except BadSignatureError:
        return False
    return True


def fingerprint(public: bytes) -> str:
    """A short, readable name for a public key: the first 6 bytes of its SHA-256."""
    digest = hashlib.sha256(public).hexdigest()[:12]
    return ":".join(digest[i : i + 4] for i in range(0, 12, 4))


def link_statement(
    role: bytes, binding: bytes, table: bytes, opener: Hello, answerer: Hello
) -> bytes:
    """What the end in ``role`` signs to open a link of table ``table`` (the answerer's:
    a newcomer opens with no table yet) over the connection whose handshake hash is
    ``binding``: the hash, both seats, both keys and both nonces."""
    seats = opener.seat.to_bytes(2, "big", signed=True) + answerer.seat.to_bytes(2, "big")
    keys = opener.key + answerer.key
    return DOMAIN + role + binding + table + seats + keys + opener.nonce + answerer.nonce


SPECTATOR_SEAT = -2
"""The opener's seat a spectator's link statement names (a newcomer's is −1)."""


def spectator_opener(watch: Watch) -> Hello:
    """The Hello a spectator's `Watch` stands for in its link's statements (SPEC §2.10)."""
    return Hello(
        watch.table, SPECTATOR_SEAT, watch.name, 0, watch.key, watch.nonce, pake=watch.pake
    )


def ticket_statement(table: bytes, spectator: bytes) -> bytes:
    """What the host signs to let the spectator of key ``spectator`` watch every other seat
    of table ``table`` too (SPEC §2.10): the seats take its signature as the host's word."""
    return TICKET_DOMAIN + table + spectator


def table_terms(table: bytes, options: TableOptions, players: int, majority: bool = False) -> bytes:
    """What a seat's Hello says the table is (SPEC §2.8): a hash of its id, its size, its
    options as Welcome carries them and whether it commits by a majority. A seat coming
    back from a state file whose terms are not the table's is refused, before it can
    diverge."""
    wire = msgpack.packb([players, _options_to_wire(options), majority], use_bin_type=True)
    return hashlib.sha256(TERMS_DOMAIN + table + wire).digest()
