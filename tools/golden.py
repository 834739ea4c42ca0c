"""Regenerate ``protocol/golden.json``, the wire spec's golden frames, from the codec.

Every frame is built from the fixed message values below and encoded by
`p2pnerts.protocol`; its meaning is written beside it in readable form (the notation is
in the file). The tests decode each frame and compare it with that meaning, and encode
the meaning back to the same bytes, so the file pins the format down for a peer written
in any language. The file also holds frames every peer must refuse, with the error each
gives, and test vectors for the deck commitment and the running digest.

    python tools/golden.py           rewrite the file
    python tools/golden.py --check   exit 1 if the file is not what the codec gives now

Run it when the format changes on purpose and read the diff: every byte that moved is a
change to the protocol, and `PROTOCOL_VERSION` may have to move with it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Sequence
from dataclasses import fields, replace
from pathlib import Path
from typing import Any, TypeVar

import msgpack
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

from p2pnerts.protocol import (
    ANSWERER,
    MAX_FRAME,
    OPENER,
    PROTOCOL_VERSION,
    Ack,
    Decided,
    Evidence,
    Hello,
    Leave,
    LinkMessage,
    Message,
    Play,
    Proof,
    Ready,
    Refuse,
    Rejoin,
    RemoteProtocolError,
    Reveal,
    Roster,
    Scene,
    Seat,
    SeatKey,
    Seen,
    Signer,
    StartView,
    TableauSight,
    TableSecret,
    TeamDeal,
    ViewChange,
    Watch,
    Welcome,
    common_seed,
    decode,
    decode_payload,
    derived,
    encode,
    face_up,
    link_statement,
    pledge,
    shuffle,
    table_terms,
    witness,
)
from p2pnerts.protocol._codec import encode_payload
from p2pnerts.protocol._passphrase import SALT_DOMAIN, SCRYPT_N, SCRYPT_P, SCRYPT_R
from p2pnerts.protocol._wire import _options_to_wire
from p2pnerts.rules import (
    NERTS,
    NEW_FOUNDATION,
    WASTE,
    CallNerts,
    Card,
    DeclareStuck,
    Move,
    Rotate,
    SlideUnder,
    Suit,
    TableOptions,
    ToFoundation,
    ToWork,
    TurnStock,
    card_code,
    card_from_code,
)

GOLDEN = Path(__file__).resolve().parent.parent / "protocol" / "golden.json"

# --- the fixed values -----------------------------------------------------------------------

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
M = TypeVar("M", bound=Message)


def _signed(message: M) -> M:
    """``message`` as its sender signs it (kinds that are not signed stay as they are)."""
    return Signer.computed(message.sender, 4, KEY_SEED).sign(message)


SHOWN = tuple(map(card_code, face_up(ORDER, TableOptions())))
READY = _signed(Ready(0, 0, 3, 3, 1, pledge(2, 0, NEXT), SHOWN))
TO_FOUNDATION = _signed(
    Play(2, 0, 17, 5, 1, ToFoundation(2, Card(2, 7, H), NERTS, 3, None, (Card(2, 1, C),)))
)
JOKER = Play(1, 0, 9, 2, 1, ToFoundation(1, Card(1, 0, H), WASTE, NEW_FOUNDATION, (1, S), ()))
LEAVE = Leave(2, 0, 99, 42)
PLAY_2 = _signed(Play(2, 0, 8, 6, 1, DeclareStuck(2)))
"""Seat 2's message 6, and what it signed under the same number for other seats."""
PLAY_2_OTHER = _signed(Play(2, 0, 8, 6, 1, Rotate(2)))
SHOWN_2 = tuple(card_code(Card(0, r, S)) for r in (9, 2, 3, 4, 5))
READY_2 = _signed(Ready(0, 1, 310, 141, 2, bytes(range(32)), SHOWN_2))
VOTE = _signed(
    ViewChange(0, 0, 40, 20, new_view=1, suspects=(2,), have=(19, 9, 7, 11), committed=12)
)
"""Seat 0's vote for view 1 (the view-change frame); seats 1 and 3 vote alike."""
CRASH_VOTES = (
    VOTE,
    *(
        _signed(ViewChange(s, 0, clock, seq, new_view=1, suspects=(2,), have=have, committed=12))
        for s, clock, seq, have in ((1, 58, 32, (20, 31, 7, 11)), (3, 44, 11, (20, 32, 7, 10)))
    ),
)
REJOIN_VOTES = tuple(
    _signed(ViewChange(s, 1, 312 + s, c, new_view=3, suspects=(), have=(141, 98, 17, 149),
                       committed=60))
    for s, c in ((0, 142), (1, 99), (3, 150))
)  # fmt: skip
CRASH = StartView(
    1, 1, 60, 33, voted_in=0, members=(0, 1, 3), quorums=((0, (0, 1, 2, 3)),),
    cuts=(20, 32, 7, 11), joined=(), joined_from=(), lives=(0, 0, 0, 0),
    seated=(0, 1, 2, 3), round=1, base_committed=0, base_digest=ZERO,
    carried=(encode_payload(READY), encode_payload(TO_FOUNDATION)), scores=(),
    votes=tuple(map(encode_payload, CRASH_VOTES)),
)  # fmt: skip
REJOIN = _signed(Rejoin(2, 0, 1, 1, 2))
"""Seat 2 asks to be let back in from view 0 (the rejoin frame), signed."""
REJOINED = StartView(
    3, 3, 320, 150, voted_in=1, members=(0, 1, 2, 3), quorums=((1, (0, 1, 3)),),
    cuts=(141, 98, 17, 149), joined=(2,), joined_from=(0,), lives=(0, 0, 3, 0),
    seated=(0, 1, 3), round=2, base_committed=57, base_digest=DIGEST,
    carried=(encode_payload(READY_2), encode_payload(REJOIN)), scores=((5, -40, 12, 0),),
    votes=tuple(map(encode_payload, REJOIN_VOTES)),
)  # fmt: skip

FRAMES: list[tuple[str, Message, str]] = [
    (
        "ready-round-0",
        Ready(0, 0, 1, 1, 0, pledge(1, 0, SECRET), ()),
        "Before the first round, seat 0 pledges its secret for round 1 (the vectors' secret)"
        " and deals nothing: round 0 only makes round 1's common seed.",
    ),
    (
        "reveal-round-0",
        Reveal(0, 0, 2, 2, 0, SHARES[0]),
        "Once every seated deck's Ready of round 0 is committed, seat 0 reveals its share of"
        " round 1's seed: derived from its round-1 secret, so that round 1's audit checks it.",
    ),
    (
        "ready",
        READY,
        "Seat 0 is dealt for round 1 from its pledged secret and round 1's seed (the vectors'"
        " order): it pledges its secret for round 2, then gives the codes of its Nerts top"
        " and four work-pile cards.",
    ),
    (
        "play-turn-stock",
        Play(1, 0, 7, 3, 1, TurnStock(1, (Card(1, 5, D), Card(1, 12, S), Card(1, 2, C)))),
        "Seat 1 turns three cards from its stock; they land on the waste in this order, the"
        " last one on top.",
    ),
    (
        "play-turn-waste-over",
        Play(1, 0, 8, 4, 1, TurnStock(1, ())),
        "Seat 1's stock is empty: turning it turns the waste over as the new stock, revealing"
        " nothing.",
    ),
    (
        "play-to-foundation",
        TO_FOUNDATION,
        "Seat 2 plays the 7 of hearts from its Nerts pile onto foundation 3 and reveals the"
        " next Nerts card, the ace of clubs.",
    ),
    (
        "play-joker-declared",
        JOKER,
        "At a table with jokers, seat 1 plays its joker with suit bits 1 from its waste as the"
        " ace of spades, starting a new foundation.",
    ),
    (
        "play-to-work",
        Play(1, 0, 10, 5, 1, ToWork(1, Card(1, 9, C), 2, 0, ())),
        "Seat 1 moves the 9 of clubs, with any cards on it, from work pile 2 onto work pile 0.",
    ),
    (
        "play-to-work-from-nerts",
        Play(3, 0, 11, 2, 1, ToWork(3, Card(3, 12, H), NERTS, 1, (Card(3, 4, S),))),
        "Seat 3 moves its Nerts top, the queen of hearts, onto work pile 1 and reveals the next"
        " Nerts card, the 4 of spades.",
    ),
    (
        "play-slide-under",
        Play(1, 0, 11, 6, 1, SlideUnder(1, Card(1, 13, D), WASTE, 4, ())),
        "Seat 1 slides the king of diamonds from its waste under work pile 4 (another work"
        " pile is empty).",
    ),
    (
        "play-declare-stuck",
        Play(3, 0, 13, 7, 1, DeclareStuck(3)),
        "Seat 3 declares its tableau stuck.",
    ),
    (
        "play-rotate",
        Play(3, 0, 14, 8, 1, Rotate(3)),
        "Move kind 6, the all-stuck rotation: every peer applies it on its own and none sends"
        " it (SPEC.md 4.8), but the codec carries it.",
    ),
    ("play-call-nerts", Play(3, 0, 15, 9, 1, CallNerts(3)), "Seat 3 calls Nerts."),
    (
        "ack",
        Ack(1, 0, 9, 3, (4, 2, 6), 12, DIGEST, ((2, 6, witness(PLAY_2)),)),
        "Seat 1 holds messages up to 4 and 6 from seats 0 and 2 and has sent 2 before this"
        " one; it has committed 12 ordered messages, with this running digest after them."
        " Since its previous Ack it took one signed ordered message, seat 2's message 6 (the"
        " first of the two the evidence frame shows), and witnesses it: BLAKE2b-128 of that"
        " message's payload, signature included.",
    ),
    (
        "ack-wide-integers",
        Ack(3, 2, 70000, 300, (65536, 256, 255, 299), 2**32, DIGEST),
        "Integers take their shortest msgpack form: this Ack shows the 1-, 2-, 3-, 5- and"
        " 9-byte forms.",
    ),
    (
        "reveal",
        Reveal(0, 0, 90, 40, 1, SECRET),
        "After round 1, seat 0 reveals the secret its round-0 Ready pledged: everyone can now"
        " shuffle its deck again and audit the round, and it is a share of round 2's seed.",
    ),
    ("leave", LEAVE, "Seat 2 leaves the table cleanly."),
    (
        "view-change",
        VOTE,
        "Seat 0, in view 0, has heard nothing from seat 2 for 2 s: it asks for view 1 without"
        " seat 2, saying what it holds and how many messages it has committed.",
    ),
    (
        "start-view-crash",
        CRASH,
        "Seat 1, coordinator of view 1 (index 1 mod 4 of members 0 1 2 3), starts it without"
        " seat 2; round 1 began at commit 0, and its two ordered messages so far are carried."
        " Until view 1 is known to be installed by all its members, a view change out of it"
        " needs a majority of view 0's members 0 1 2 3 too; no seat has rejoined yet. It holds"
        " the signed votes for view 1 of seats 0, 1 and 3, its members.",
    ),
    (
        "rejoin",
        REJOIN,
        "Seat 2 restarted, holding its deck of round 2, and asks to be let back in; it knows"
        " no view later than 0. Signed: the StartView that lets it in carries it.",
    ),
    (
        "evidence",
        Evidence(1, 0, 12, 1, (encode_payload(PLAY_2), encode_payload(PLAY_2_OTHER))),
        "Seat 1 shows every seat two messages seat 2 signed as its message 6 of view 0 with"
        " different words: the proof that seat 2 equivocated. Every receiver checks both"
        " signatures itself and refuses seat 2. Outside the sequence (seq 1, like Rejoin).",
    ),
    (
        "team-deal",
        TeamDeal(0, 0, 3, 1, 1, 1, SECRET, NEXT, SEED),
        "Seat 0 deals its team's deck for round 1 and sends its teammate, seat 1, alone: the"
        " secret the deck is shuffled from, the one its Ready pledges for round 2, and round"
        " 1's seed. Outside the sequence (seq 1, like Rejoin); the clock is the sender's, not"
        " advanced.",
    ),
    (
        "start-view-rejoin",
        REJOINED,
        "Seat 3, coordinator of view 3 (3 mod 4 seats), lets seat 2 back in during round 2,"
        " as it asked from view 0 (its signed Rejoin is carried, after round 2's messages),"
        " its life beginning in view 3; seats 0, 1 and 3 voted for it in view 1 (their signed"
        " votes are held); round 1 scored 5, -40, 12 and 0.",
    ),
]

FRAMES = [(name, _signed(message), note) for name, message, note in FRAMES]

# --- frames every peer refuses --------------------------------------------------------------


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
        f"Message kind 11 does not exist in version {PROTOCOL_VERSION}.",
        _raw([PROTOCOL_VERSION, 11, 0, 0, 1, 1]),
        "unknown-kind",
        "unknown message kind 11",
    ),
    (
        "extra-field",
        "A Leave with one field too many.",
        _raw([PROTOCOL_VERSION, 5, 2, 0, 99, 42, bytes(64), 0]),
        "field-count",
        "Leave: expected 1 fields, got 2",
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
        _raw([PROTOCOL_VERSION, 3, 1, 0, 9, 3, [4, 5, 6], 12, "0123456789abcdef", []]),
        "field-type",
        "Ack.digest: expected 16..16 bytes",
    ),
    (
        "bad-card-code",
        "A Ready whose last face-up code, 60, has rank bits 15: no card.",
        _raw([PROTOCOL_VERSION, 1, 0, 0, 1, 1, 1, bytes(32), [4, 5, 6, 7, 60], bytes(64)]),
        "bad-card",
        "Ready.face_up: 60 is no card",
    ),
    (
        "bad-joker-code",
        "A ToWork move of code 66: deck 1, rank 0 (a joker) with suit bits 2; a joker's suit"
        " bits are 0 or 1.",
        _raw([PROTOCOL_VERSION, 2, 1, 0, 10, 5, 1, [3, 1, 66, 2, 0, []], bytes(64)]),
        "bad-card",
        "card: 66 is no card",
    ),
    (
        "move-field-count",
        "A ToFoundation move with four fields instead of five.",
        _raw([PROTOCOL_VERSION, 2, 2, 0, 17, 5, 1, [2, 2, 156, -1, 3, None], bytes(64)]),
        "field-count",
        "move kind 2: expected 5 fields",
    ),
]

# --- the readable meaning -------------------------------------------------------------------

_RANKS = ("Jk", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
_BYTES = {"pledge", "secret", "next", "seed", "digest", "base_digest", "sig"}
_CODES = {"face_up", "order"}

NOTATION = {
    "frame": "hex of the whole frame: the 4-byte big-endian length, then the msgpack payload",
    "card": "rank, suit letter, @deck: 7H@2 is the 7 of hearts of deck 2 (decks and seats"
    " count from 0); ranks A 2 3 4 5 6 7 8 9 10 J Q K; suits S H D C (suit bits 0 1 2 3); a"
    " joker is Jk with suit bits 0 (JkS) or 1 (JkH)",
    "face_up, order": "card codes on the wire (deck*64 + rank*4 + suit), shown as cards",
    "pile": "nerts (-1 on the wire), waste (-2), work N (N, counting from 0)",
    "foundation": "new (-1 on the wire) or the foundation's number",
    "declare": "null (nil), or what a joker stands for: AS is [1, 0] on the wire",
    "bytes": "pledge, secret, next, seed, digest, base_digest: hex",
    "carried, votes, messages": "each payload as hex (no length prefix), with its own meaning",
    "heard": "each witness as [seat, seq, hex]",
    "meaning": "kind, then every field in wire order",
    "invalid": "error is a language-neutral class; message is text that the Python codec's"
    " RemoteProtocolError contains",
}


def card_text(card: Card) -> str:
    return f"{_RANKS[card.rank]}{card.suit.letter}@{card.deck}"


def _pile(pile: int) -> str:
    return {NERTS: "nerts", WASTE: "waste"}.get(pile, f"work {pile}")


def move_meaning(move: Move) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": type(move).__name__, "seat": move.seat}
    match move:
        case TurnStock():
            out["revealed"] = [card_text(c) for c in move.revealed]
        case ToFoundation():
            declare = move.declare
            out["card"] = card_text(move.card)
            out["source"] = _pile(move.source)
            out["foundation"] = "new" if move.foundation == NEW_FOUNDATION else move.foundation
            out["declare"] = None if declare is None else _RANKS[declare[0]] + declare[1].letter
            out["revealed"] = [card_text(c) for c in move.revealed]
        case ToWork() | SlideUnder():
            out["card"] = card_text(move.card)
            out["source"] = _pile(move.source)
            out["dest"] = _pile(move.dest)
            out["revealed"] = [card_text(c) for c in move.revealed]
    return out


def meaning(message: Message) -> dict[str, Any]:
    """A message's kind and every field, in declaration (and so wire) order, readably."""
    out: dict[str, Any] = {"kind": type(message).__name__}
    for field in fields(message):
        out[field.name] = _value(field.name, getattr(message, field.name))
    return out


def _value(name: str, value: Any) -> Any:
    if name == "move":
        return move_meaning(value)
    if name in _BYTES:
        return value.hex()
    if name in _CODES:
        return [card_text(card_from_code(code)) for code in value]
    if name == "heard":
        return [[seat, seq, mark.hex()] for seat, seq, mark in value]
    if name in ("carried", "votes", "messages"):
        return [{"hex": p.hex(), "meaning": meaning(decode_payload(p))} for p in value]
    if name == "scores":
        return [list(row) for row in value]
    return list(value) if isinstance(value, tuple) else value


# --- the vectors ----------------------------------------------------------------------------


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
            " is its sender's signature of the ASCII bytes p2pnerts/2 message, a zero byte,"
            " then the message's payload with sig empty (a StartView's with carried empty"
            " too, as the running digest hashes it)",
            "public": [Signer.computed(0, 4, KEY_SEED).keys[s].hex() for s in range(4)],
        },
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


TABLE = bytes.fromhex("7ab1e1d0c0ffee00112233445566778f")
HOST_KEY = SeatKey.from_secret(bytes(range(32)))
NEWCOMER_KEY = SeatKey.from_secret(bytes(range(32, 64)))
PASSPHRASE = "correct horse battery staple"


def passphrase_vector() -> dict[str, Any]:
    """A private table's handshake (SPEC §2.9), whole: keys and nonces fixed, so that the
    signatures (Ed25519 is deterministic) and the MACs are too."""
    newcomer = Hello(ZERO, -1, "Bea", 4001, NEWCOMER_KEY.public, bytes(range(16)))
    host = Hello(TABLE, 0, "Ann", 4000, HOST_KEY.public, bytes(range(16, 32)))
    answerer = link_statement(ANSWERER, TABLE, newcomer, host)
    opener = link_statement(OPENER, TABLE, newcomer, host)
    secret = TableSecret.derive(PASSPHRASE, TABLE)
    host = Hello(
        TABLE, 0, "Ann", 4000, HOST_KEY.public, host.nonce, HOST_KEY.sign(answerer),
        secret.prove(answerer),
    )  # fmt: skip
    proof = Proof(NEWCOMER_KEY.sign(opener), secret.prove(opener))
    return {
        "note": "secret = scrypt(passphrase in NFC UTF-8, salt, N, r, p, 32 bytes); each mac"
        " is HMAC-SHA-256(secret, 'p2pnerts/2 passphrase proof' 0x00 || statement), the"
        " statement being the one that end signs (SPEC 2.8); the host's Hello carries its"
        " mac, the newcomer's Proof its own",
        "passphrase": PASSPHRASE,
        "salt": (SALT_DOMAIN + TABLE).hex(),
        "n": SCRYPT_N,
        "r": SCRYPT_R,
        "p": SCRYPT_P,
        "secret": _scrypt(PASSPHRASE, TABLE).hex(),
        "newcomer_hello": encode(newcomer).hex(),
        "answerer_statement": answerer.hex(),
        "host_hello": encode(host).hex(),
        "opener_statement": opener.hex(),
        "proof": encode(proof).hex(),
    }


def _scrypt(passphrase: str, table: bytes) -> bytes:
    kdf = Scrypt(salt=SALT_DOMAIN + table, length=32, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P)
    return kdf.derive(passphrase.encode("utf-8"))


def terms_vector() -> dict[str, Any]:
    options = TableOptions(rounds=3)
    return {
        "note": "SHA-256 of 'p2pnerts/2 table terms' 0x00, the table id, then the msgpack array"
        " [seats, options as Welcome carries them] (SPEC 2.8)",
        "table": TABLE.hex(),
        "players": 4,
        "options": msgpack.packb(_options_to_wire(options)).hex(),
        "sha256": table_terms(TABLE, options, 4).hex(),
    }


def link_frames() -> list[tuple[str, LinkMessage, str]]:
    """The link's frames (SPEC §2.7–2.9): a newcomer at a private table and the host."""
    secret = TableSecret.derive(PASSPHRASE, TABLE)
    newcomer = Hello(ZERO, -1, "Bea", 4001, NEWCOMER_KEY.public, bytes(range(16)))
    bare = Hello(TABLE, 0, "Ann", 4000, HOST_KEY.public, bytes(range(16, 32)))
    answerer = link_statement(ANSWERER, TABLE, newcomer, bare)
    opener = link_statement(OPENER, TABLE, newcomer, bare)
    host = replace(bare, proof=HOST_KEY.sign(answerer), mac=secret.prove(answerer))
    seats = (
        Seat(0, "Ann", "192.168.1.20", 4000, HOST_KEY.public),
        Seat(1, "Bea", "192.168.1.31", 4001, NEWCOMER_KEY.public),
    )
    options = TableOptions(rounds=3)
    terms = table_terms(TABLE, options, 2)
    return [
        ("hello-newcomer", newcomer, "A newcomer opens a connection to the host: no table"
         " id yet (16 zero bytes), seat -1 (asking for one), its name, the port it listens"
         " on, its public key and a fresh nonce."),
        ("hello-host", host, "The host of a private table answers: the table id, its seat"
         " 0, its key and nonce, its Ed25519 signature of the answerer's statement (SPEC"
         " 2.8) and its passphrase MAC of it (2.9), as in the passphrase vector."),
        ("proof", Proof(NEWCOMER_KEY.sign(opener), secret.prove(opener)), "The newcomer"
         " proves its key and that it knows the passphrase, over the opener's statement."),
        ("welcome", Welcome(TABLE, 1, 2, options), "The host gives the newcomer seat 1 at a"
         " table of 2 playing 3 rounds (the options as the terms vector lays them out)."),
        ("roster", Roster(seats, True), "Who sits where, with their keys: the table is full"
         " and play begins."),
        ("hello-seat", Hello(TABLE, 1, "Bea", 4001, NEWCOMER_KEY.public, bytes(range(32, 48)),
         terms=terms), "Seat 1 opens a link to seat 0 once play began: its Hello says the"
         " table's terms (SPEC 2.8)."),
        ("refuse", Refuse("that is not a seat of this table"), "The answer to a Hello that"
         " cannot be taken; the connection then closes."),
    ]  # fmt: skip


SPECTATOR_KEY = SeatKey.from_secret(bytes(range(64, 96)))


def spectator_frames() -> list[tuple[str, LinkMessage, str]]:
    """A spectator's frames (SPEC §2.10): its opening, and what the seat streams to it."""
    by_name = {name: message for name, message, _ in FRAMES}
    play, ack = by_name["play-to-foundation"], by_name["ack"]
    sight = TableauSight(
        12,
        (card_code(Card(1, 9, S)),),
        ((card_code(Card(1, 13, D)),), (), (), ()),
        30,
        5,
        (card_code(Card(1, 4, C)),),
    )
    scene = Scene(
        TABLE, 0, ("Ann", "Bea"), TableOptions(rounds=3), 1, 42, (17, 16), (0, 120), (0, 0),
        (0, -4), (card_code(Card(0, 2, H)),), 0, (sight, sight), 0,
    )  # fmt: skip
    return [
        ("watch", Watch(ZERO, "Prof", SPECTATOR_KEY.public, bytes(range(48, 64))), "A"
         " spectator opens a connection to the host: any table (16 zero bytes), its name, a"
         " key made for this watch and a fresh nonce. The host answers as to a newcomer (its"
         " Hello, proven; SPEC 2.8 with opener seat -2), then the spectator's Proof."),
        ("scene", scene, "The host shows its table to the spectator: a table of two, round"
         " 1, 42 messages committed; clocks, ms since heard, health and totals per seat; a"
         " foundation topped by Ann's 2 of hearts; both tableaux alike (12 in the Nerts pile"
         " under the 9 of spades, a king of diamonds in work pile 0, 30 in the stock, 5 in the"
         " waste under the 4 of clubs)."),
        ("seen", Seen(1234, False, 2, encode_payload(ack)), "The host received the ack"
         " frame's payload from seat 2, 1.234 s after it began to play."),
        ("decided", Decided(43, play.clock, 0, play.sender, encode_payload(play), 2, 1,
         "foundation 3 needs the 8 of hearts"), "The host's 43rd commit: the play-to-foundation"
         " frame's payload at key (clock, 0, rank), returned: seat 1's play took the spot."),
    ]  # fmt: skip


def link_meaning(message: LinkMessage) -> dict[str, Any]:
    """A link frame's kind and fields, readably: bytes in hex, the options by name, the
    roster's seats as [seat, name, host, port, key]."""
    out: dict[str, Any] = {"kind": type(message).__name__}
    for field in fields(message):
        value = getattr(message, field.name)
        if isinstance(value, bytes):
            value = value.hex()
        elif isinstance(value, TableOptions):
            value = {f.name: getattr(value, f.name) for f in fields(TableOptions)}
            value = {**value, "tie_rule": value["tie_rule"].value, "teams": list(value["teams"])}
        elif field.name == "seats":
            value = [[s.seat, s.name, s.host, s.port, s.key.hex()] for s in value]
        elif field.name == "tableaux":
            value = [[getattr(t, f.name) for f in fields(t)] for t in value]
        out[field.name] = value
    return out


# --- the file -------------------------------------------------------------------------------


def document() -> dict[str, Any]:
    for name, _, frame, _, text in INVALID:
        try:
            decode(frame)
        except RemoteProtocolError as exc:
            if text not in str(exc):
                raise SystemExit(f"{name}: the codec says {exc!s}, the spec says {text}") from None
        else:
            raise SystemExit(f"{name}: the codec accepts a frame the spec refuses")
    return {
        "about": "Golden frames of the p2pnerts wire protocol (protocol/SPEC.md), written by"
        " tools/golden.py: do not edit by hand.",
        "version": PROTOCOL_VERSION,
        "notation": NOTATION,
        "frames": [
            {"name": name, "note": note, "hex": encode(m).hex(), "meaning": meaning(m)}
            for name, m, note in FRAMES
        ],
        "link_frames": [
            {"name": name, "note": note, "hex": encode(m).hex(), "meaning": link_meaning(m)}
            for name, m, note in link_frames() + spectator_frames()
        ],
        "invalid": [
            {"name": name, "note": note, "hex": frame.hex(), "error": error, "message": text}
            for name, note, frame, error, text in INVALID
        ],
        "vectors": vectors(),
    }


def dump(value: Any, indent: str = "") -> str:
    """JSON with one key per line, but short lists of plain values kept on one line."""
    inner = indent + "  "
    if isinstance(value, dict):
        items = [f"{inner}{json.dumps(k)}: {dump(v, inner)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{indent}}}"
    if isinstance(value, list) and any(isinstance(v, dict) for v in value):
        return "[\n" + ",\n".join(inner + dump(v, inner) for v in value) + f"\n{indent}]"
    return json.dumps(value)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is out of date")
    args = parser.parse_args(argv)
    text = dump(document()) + "\n"
    if args.check:
        current = GOLDEN.read_text(encoding="utf-8") if GOLDEN.exists() else ""
        if current != text:
            print(f"{GOLDEN} is out of date: run python tools/golden.py", file=sys.stderr)
            return 1
        return 0
    GOLDEN.parent.mkdir(exist_ok=True)
    GOLDEN.write_text(text, encoding="utf-8")
    print(f"wrote {len(FRAMES)} frames and {len(INVALID)} invalid frames to {GOLDEN}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
