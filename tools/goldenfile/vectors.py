"""The golden file's test vectors, each with how it is computed, for python tools/golden.py.

The seats' keys, a private table's handshake, the table's terms, a pledge, a round-0
share, a round's seed, a deck's shuffle and the running digest.
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgpack

from p2pnerts.protocol import Signer, encode, pledge, table_terms
from p2pnerts.protocol._channel import PROLOGUE
from p2pnerts.protocol._codec import encode_payload
from p2pnerts.protocol._wire import _options_to_wire
from p2pnerts.rules import TableOptions

from .frames import FRAMES
from .meaning import card_text
from .values import (
    ANSWERER_EPHEMERAL,
    ANSWERER_SCALAR,
    KEY_SEED,
    OPENER_EPHEMERAL,
    OPENER_SCALAR,
    ORDER,
    PASSPHRASE,
    SECRET,
    SEED,
    SHARES,
    TABLE,
    ZERO,
    handshake,
    link,
)


def _blake(previous: bytes, payload: bytes, outcome: int) -> bytes:
    return hashlib.blake2b(previous + payload + bytes((outcome,)), digest_size=16).digest()


def vectors() -> dict[str, Any]:
    steps = []
    digest = ZERO
    for name, outcome in (("ready", 0), ("play-to-foundation", 1), ("play-joker-declared", 2)):
        payload = encode_payload(next(m for n, m, _ in FRAMES if n == name))
        digest = _blake(digest, payload, outcome)
        steps.append({"frame": name, "outcome": outcome, "digest": digest.hex()})
    return {
        "keys": {
            "note": "the seats' Ed25519 public keys of these frames. A signed message's sig"
            " is its sender's signature of the ASCII bytes p2pnerts/3 message, a zero byte,"
            " the table's 16-byte id (table, below), then the message's payload"
            " with sig empty (a StartView's with carried empty too, as the running digest"
            " hashes it)",
            "public": [Signer.computed(0, 4, KEY_SEED).keys[s].hex() for s in range(4)],
            "table": TABLE.hex(),
        },
        "link": link_vector(),
        "passphrase": passphrase_vector(),
        "terms": terms_vector(),
        "pledge": {
            "note": "SHA-256 of the ASCII bytes p2pnerts-pledge-2, the round (4 bytes,"
            " big-endian), the deck (1 byte) and the 32-byte secret (the ready-round-0 frame"
            " pledges this one)",
            "round": 1,
            "deck": 0,
            "secret": SECRET.hex(),
            "sha256": pledge(1, 0, SECRET).hex(),
        },
        "derived": {
            "note": "a round-0 share: SHA-256 of the ASCII bytes p2pnerts-derive-2, the label"
            " 0 (4 bytes, big-endian) and the seat's round-1 secret",
            "secret": SECRET.hex(),
            "sha256": SHARES[0].hex(),
        },
        "seed": {
            "note": "round 1's common seed: SHA-256 of the ASCII bytes p2pnerts-seed-2, the"
            " round (4 bytes), then for each deck in ascending order its number (1 byte) and"
            " its revealed share",
            "round": 1,
            "shares": {str(d): share.hex() for d, share in SHARES.items()},
            "sha256": SEED.hex(),
        },
        "shuffle": {
            "note": "deck 0's order in round 1: its cards in ascending code order, then"
            " Fisher-Yates from the last place down, place"
            " i swapped with a draw j in 0..i; draws are 32-bit big-endian words of"
            " HMAC-SHA-256(key: secret, message: seed, round (4 bytes), deck (1 byte),"
            " counter (4 bytes, from 0)), 8 words a block, first word first; j = word mod"
            " (i+1), a word at or above 2^32 - 2^32 mod (i+1) drawn again (the ready frame"
            " deals this order)",
            "deck": 0,
            "round": 1,
            "secret": SECRET.hex(),
            "seed": SEED.hex(),
            "order": [card_text(c) for c in ORDER],
        },
        "digest": {
            "note": "the running digest from 16 zero bytes: BLAKE2b with a 16-byte output"
            " (not a truncated 64-byte one) over the previous digest, the frame's payload (no"
            " length prefix) and the outcome byte",
            "start": ZERO.hex(),
            "steps": steps,
        },
    }


def link_vector() -> dict[str, Any]:
    """The golden link (SPEC §2.8): a Noise handshake from fixed ephemeral keys, its hash,
    and the newcomer's Hello sealed as the opener's first record, then a frame too large
    for one record."""
    noise = link()
    hello = encode(handshake().newcomer)
    sealed = noise.opener.seal(hello)
    large = bytes(i % 251 for i in range(70_000))
    return {
        "note": "Noise_NN_25519_ChaChaPoly_SHA256 with the prologue below; opening and answer"
        " are the two handshake messages (each a Noise frame's field), hash the handshake hash"
        " both ends then sign over (SPEC 2.8). record: the hello-newcomer frame sealed by the"
        " opener, its first record: the Noise message's length (2 bytes, big-endian), the"
        " counter 0 (8 bytes, big-endian), then ChaCha20-Poly1305 under the opener's sending"
        " key with nonce 4 zero bytes and the counter as 8 bytes little-endian, no associated"
        " data. large: a frame of 70000 bytes (byte i is i mod 251) sealed after it, in two"
        " records (counters 1 and 2), the first holding 65519 bytes of it",
        "prologue": PROLOGUE.decode("ascii"),
        "opener_ephemeral": OPENER_EPHEMERAL.hex(),
        "answerer_ephemeral": ANSWERER_EPHEMERAL.hex(),
        "opening": noise.opening.hex(),
        "answer": noise.answer.hex(),
        "hash": noise.opener.hash.hex(),
        "frame": hello.hex(),
        "record": sealed.hex(),
        "large_sha256": hashlib.sha256(noise.opener.seal(large)).hexdigest(),
    }


def passphrase_vector() -> dict[str, Any]:
    """A private table's handshake (SPEC §2.9), whole (`values.handshake`), with the
    entropy each end's SPAKE2 drew."""
    shake = handshake()
    return {
        "note": "each end runs SPAKE2 (SPEC 2.9: the spake2 package's Ed25519 group, M and"
        " N; password the passphrase in NFC UTF-8; idA 'p2pnerts/3 opener', idB"
        " 'p2pnerts/3 answerer'), the newcomer as A, the host as B, each drawing its"
        " scalar from the entropy given (n bytes of it, reduced mod L); pake is each"
        " Hello's message; each mac is HMAC-SHA-256(key, 'p2pnerts/3 passphrase proof'"
        " 0x00 || statement), the statement being the one that end signs (SPEC 2.8); the"
        " host's Hello carries its mac, the newcomer's Proof its own",
        "passphrase": PASSPHRASE,
        "opener_entropy_byte": OPENER_SCALAR(1).hex(),
        "answerer_entropy_byte": ANSWERER_SCALAR(1).hex(),
        "newcomer_hello": encode(shake.newcomer).hex(),
        "answerer_statement": shake.answerer.hex(),
        "host_hello": encode(shake.host).hex(),
        "opener_statement": shake.opener.hex(),
        "proof": encode(shake.proof).hex(),
    }


def terms_vector() -> dict[str, Any]:
    options = TableOptions(rounds=3)
    return {
        "note": "SHA-256 of 'p2pnerts/2 table terms' 0x00, the table id, then the msgpack array"
        " [seats, options as Welcome carries them, whether it commits by a majority] (SPEC 2.8)",
        "table": TABLE.hex(),
        "players": 4,
        "options": msgpack.packb(_options_to_wire(options)).hex(),
        "majority": True,
        "sha256": table_terms(TABLE, options, 4, majority=True).hex(),
    }
