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
]
