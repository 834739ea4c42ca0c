"""The frames every peer refuses, with the error each gives, for python tools/golden.py.

Each is checked against the codec when the file is written: the codec must refuse it
with a message containing the one written here.
"""

from __future__ import annotations

from typing import Any

import msgpack

from p2pnerts.protocol import MAX_FRAME, PROTOCOL_VERSION, encode
from p2pnerts.protocol._codec import encode_payload

from .frames import LEAVE


def _raw(value: Any) -> bytes:
    payload: bytes = msgpack.packb(value, use_bin_type=True)
    return len(payload).to_bytes(4, "big") + payload


_TRAILING = encode_payload(LEAVE) + b"\xc0"
_V = PROTOCOL_VERSION
_W = bytes(16)
"""A witness's 16 bytes."""
_BALLOT = [_V, 11, 1, 0, 19, 1]
"""A Ballot's header (kind 11): seat 1's, as the ballot-for frame's."""
_TALLY = [_V, 12, 2, 0, 22, 1]
_POLL = [_V, 13, 0, 0, 25, 1]
_OTHER = PROTOCOL_VERSION + 1
"""A version this peer does not speak."""

INVALID: list[tuple[str, str, bytes, str, str]] = [
    (
        "wrong-version",
        f"A Leave from a peer speaking version {_OTHER}.",
        _raw([_OTHER, 5, 0, 0, 1, 1]),
        "version",
        f"protocol version {_OTHER}, this peer speaks {PROTOCOL_VERSION}",
    ),
    (
        "wrong-version-other-layout",
        f"Version {_OTHER} may lay out its header otherwise: the version is checked before"
        " anything else.",
        _raw([_OTHER, 5, 0]),
        "version",
        f"protocol version {_OTHER}, this peer speaks {PROTOCOL_VERSION}",
    ),
    (
        "truncated",
        "The leave frame without its last byte. A stream decoder waits for the rest; a frame"
        " that never completes (the connection ends) is an error.",
        encode(LEAVE)[:-1],
        "truncated",
        "not exactly one whole frame",
    ),
    (
        "truncated-payload",
        "The length is right but the msgpack value inside ends early (an array of 6 with 1 item).",
        b"\x00\x00\x00\x02\x96\x01",
        "undecodable",
        "undecodable frame",
    ),
    (
        "trailing-bytes",
        "A whole Leave followed by a msgpack nil inside the same frame: a frame holds exactly"
        " one value.",
        len(_TRAILING).to_bytes(4, "big") + _TRAILING,
        "undecodable",
        "undecodable frame",
    ),
    (
        "oversized-length",
        "A length prefix of 262145: refused as soon as the four bytes arrive, before any payload.",
        (MAX_FRAME + 1).to_bytes(4, "big"),
        "frame-length",
        f"frame length {MAX_FRAME + 1} outside 1..{MAX_FRAME}",
    ),
    (
        "zero-length",
        "A length prefix of 0.",
        bytes(4),
        "frame-length",
        f"frame length 0 outside 1..{MAX_FRAME}",
    ),
    (
        "not-an-array",
        "The payload is a map, not an array.",
        _raw({"kind": 5}),
        "field-type",
        "frame: expected an array",
    ),
    (
        "unknown-kind",
        f"Message kind 14 does not exist in version {PROTOCOL_VERSION}.",
        _raw([PROTOCOL_VERSION, 14, 0, 0, 1, 1]),
        "unknown-kind",
        "unknown message kind 14",
    ),
    (
        "extra-field",
        "A Leave with one field too many.",
        _raw([PROTOCOL_VERSION, 5, 2, 0, 99, 42, [], bytes(64), 0]),
        "field-count",
        "Leave: expected 2 fields, got 3",
    ),
    (
        "boolean-as-integer",
        "A clock of msgpack true: booleans are not integers.",
        _raw([PROTOCOL_VERSION, 5, 2, 0, True, 42]),
        "field-type",
        "clock: expected an integer 1..9223372036854775807, got True",
    ),
    (
        "string-as-bytes",
        "An Ack whose digest is a msgpack str, not bin.",
        _raw([PROTOCOL_VERSION, 3, 1, 0, 9, 3, [4, 5, 6], 12, "0123456789abcdef", [], [], 0]),
        "field-type",
        "Ack.digest: expected 16..16 bytes",
    ),
    (
        "bad-card-code",
        "A Ready whose last face-up code, 60, has rank bits 15: no card.",
        _raw([PROTOCOL_VERSION, 1, 0, 0, 1, 1, 1, bytes(32), [4, 5, 6, 7, 60], [], bytes(64)]),
        "bad-card",
        "Ready.face_up: 60 is no card",
    ),
    (
        "bad-joker-code",
        "A ToWork move of code 66: deck 1, rank 0 (a joker) with suit bits 2; a joker's suit"
        " bits are 0 or 1.",
        _raw([PROTOCOL_VERSION, 2, 1, 0, 10, 5, 1, [3, 1, 66, 2, 0, []], [], bytes(64)]),
        "bad-card",
        "card: 66 is no card",
    ),
    (
        "move-field-count",
        "A ToFoundation move with four fields instead of five.",
        _raw([PROTOCOL_VERSION, 2, 2, 0, 17, 5, 1, [2, 2, 156, -1, 3, None], [], bytes(64)]),
        "field-count",
        "move kind 2: expected 5 fields",
    ),
    (
        "ballot-field-count",
        "A Ballot (kind 11) without its signature: six fields after the header, not seven.",
        _raw([*_BALLOT, 2, 2, 4, _W, True, [3, 0, 4, 2]]),
        "field-count",
        "Ballot: expected 7 fields, got 6",
    ),
    (
        "ballot-witness-length",
        "A Ballot whose witness has 8 bytes: a witness is 16 bytes, or none (never held).",
        _raw([*_BALLOT, 2, 2, 4, bytes(8), True, [3, 0, 4, 2], bytes(64)]),
        "field-type",
        "Ballot.witness: expected 0 or 16 bytes",
    ),
    (
        "ballot-ok-as-integer",
        "A Ballot whose ok is the integer 1: ok is a msgpack boolean.",
        _raw([*_BALLOT, 2, 2, 4, _W, 1, [3, 0, 4, 2], bytes(64)]),
        "field-type",
        "Ballot.ok: expected true or false",
    ),
    (
        "ballot-to-out-of-range",
        "A Ballot to seat 64: a seat is 0 … 63.",
        _raw([*_BALLOT, 64, 2, 4, _W, True, [3, 0, 4, 2], bytes(64)]),
        "field-type",
        "Ballot.to: expected an integer 0..63, got 64",
    ),
    (
        "ballot-number-zero",
        "A Ballot on play 0 of seat 2: a play's number counts from 1.",
        _raw([*_BALLOT, 2, 2, 0, _W, False, [], bytes(64)]),
        "field-type",
        "Ballot.number: expected an integer 1..9223372036854775807, got 0",
    ),
    (
        "ballot-below-negative",
        "A Ballot whose below names -1: each number is 0 … BIG.",
        _raw([*_BALLOT, 2, 2, 4, _W, True, [3, -1, 4, 2], bytes(64)]),
        "field-type",
        "Ballot.below: expected an integer 0..9223372036854775807, got -1",
    ),
    (
        "tally-ballot-empty",
        "A Tally (kind 12) carrying an empty payload as a Ballot: each is 1 … 262144 bytes.",
        _raw([*_TALLY, 2, 4, _W, True, [3, 0, 4, 3], [b""], [17, 0, 1], bytes(64)]),
        "field-type",
        "Tally.ballots: expected 1..262144 bytes",
    ),
    (
        "tally-too-many-ballots",
        "A Tally carrying 65 Ballots: at most one from each of 64 seats.",
        _raw([*_TALLY, 2, 4, _W, True, [3, 0, 4, 3], [b"\x90"] * 65, [17, 0, 1], bytes(64)]),
        "field-type",
        "Tally.ballots: expected an array of 0..64 items",
    ),
    (
        "tally-seat-out-of-range",
        "A Tally on a play of seat 64.",
        _raw([*_TALLY, 64, 4, b"", False, [], [], [], bytes(64)]),
        "field-type",
        "Tally.seat: expected an integer 0..63, got 64",
    ),
    (
        "poll-extra-field",
        "A Poll (kind 13) with a signature: it has three fields after the header, not four.",
        _raw([*_POLL, 1, 9, b"", bytes(64)]),
        "field-count",
        "Poll: expected 3 fields, got 4",
    ),
    (
        "poll-number-as-bytes",
        "A Poll whose number is bin, not an int.",
        _raw([*_POLL, 1, b"\x09", b""]),
        "field-type",
        "Poll.number: expected an integer 1..9223372036854775807, got b'\\t'",
    ),
    (
        "below-too-long",
        "A Play whose below has 65 numbers: at most one per seat of 64.",
        _raw([_V, 2, 2, 0, 17, 9, 1, [5, 2], [1] * 65, bytes(64)]),
        "field-type",
        "Play.below: expected an array of 0..64 items",
    ),
    (
        "below-negative",
        "A Ready whose below names -3: each number is 0 … BIG.",
        _raw([_V, 1, 0, 0, 3, 7, 1, bytes(32), [], [-3, 0, 0, 0], bytes(64)]),
        "field-type",
        "Ready.below: expected an integer 0..9223372036854775807, got -3",
    ),
    (
        "holding-as-text",
        "A ViewChange whose holding is a msgpack str, not bin.",
        _raw([_V, 6, 0, 0, 30, 12, 1, [], [12, 20, 11, 14], 9, "holding", [], bytes(64)]),
        "field-type",
        "ViewChange.holding: expected 0..262144 bytes",
    ),
]
