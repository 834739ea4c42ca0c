"""The wire format: length-prefixed msgpack frames, versioned, every field checked.

A frame is a 4-byte big-endian length, then that many bytes holding one msgpack array:
``[version, kind, sender, clock, seq, ...fields]``. The layout of every kind is in
``protocol/SPEC.md`` at the repository root; the golden frames there are checked by the
tests against this module.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import msgpack

from p2pnerts.protocol._errors import RemoteProtocolError
from p2pnerts.protocol._messages import PROTOCOL_VERSION, Ack, Leave, Message, Play, Ready, Reveal
from p2pnerts.rules import (
    JOKER,
    KING,
    CallNerts,
    Card,
    DeclareStuck,
    Move,
    Rotate,
    SlideUnder,
    Suit,
    ToFoundation,
    ToWork,
    TurnStock,
    card_code,
    card_from_code,
)

MAX_FRAME = 64 * 1024
MAX_SEATS = 64
MAX_CLOCK = 2**63 - 1
_LENGTH = 4

_KIND = {Ready: 1, Play: 2, Ack: 3, Reveal: 4, Leave: 5}
_MOVE_KIND = {
    TurnStock: 1,
    ToFoundation: 2,
    ToWork: 3,
    SlideUnder: 4,
    DeclareStuck: 5,
    Rotate: 6,
    CallNerts: 7,
}


# --- encoding ------------------------------------------------------------------------------


def encode(message: Message) -> bytes:
    """One message as a whole frame, length prefix included."""
    payload: bytes = msgpack.packb(_to_wire(message), use_bin_type=True)
    if len(payload) > MAX_FRAME:
        raise ValueError(f"message of {len(payload)} bytes exceeds the {MAX_FRAME}-byte limit")
    return len(payload).to_bytes(_LENGTH, "big") + payload


def _to_wire(message: Message) -> list[Any]:
    head: list[Any] = [
        PROTOCOL_VERSION,
        _KIND[type(message)],
        message.sender,
        message.clock,
        message.seq,
    ]
    match message:
        case Ready():
            return head + [message.round, message.commitment, list(message.face_up)]
        case Play():
            return head + [message.round, _move_to_wire(message.move)]
        case Ack():
            return head + [list(message.have), message.committed, message.digest]
        case Reveal():
            return head + [message.round, message.salt, list(message.order)]
        case Leave():
            return head


def _move_to_wire(move: Move) -> list[Any]:
    head: list[Any] = [_MOVE_KIND[type(move)], move.seat]
    match move:
        case TurnStock():
            return head + [[card_code(c) for c in move.revealed]]
        case ToFoundation():
            declare = None if move.declare is None else [move.declare[0], int(move.declare[1])]
            return head + [
                card_code(move.card),
                move.source,
                move.foundation,
                declare,
                [card_code(c) for c in move.revealed],
            ]
        case ToWork() | SlideUnder():
            return head + [
                card_code(move.card),
                move.source,
                move.dest,
                [card_code(c) for c in move.revealed],
            ]
        case DeclareStuck() | Rotate() | CallNerts():
            return head


# --- decoding ------------------------------------------------------------------------------


class FrameDecoder:
    """Splits a byte stream into messages; raises `RemoteProtocolError` on any bad frame.

    After an error the stream is beyond repair: the caller drops the connection.
    """

    def __init__(self, max_frame: int = MAX_FRAME) -> None:
        self._buffer = bytearray()
        self._max_frame = max_frame

    def feed(self, data: bytes) -> Iterator[Message]:
        """Add received bytes; yield every message now complete."""
        self._buffer += data
        while len(self._buffer) >= _LENGTH:
            size = int.from_bytes(self._buffer[:_LENGTH], "big")
            if not 0 < size <= self._max_frame:
                raise RemoteProtocolError(f"frame length {size} outside 1..{self._max_frame}")
            if len(self._buffer) < _LENGTH + size:
                return
            payload = bytes(self._buffer[_LENGTH : _LENGTH + size])
            del self._buffer[: _LENGTH + size]
            yield decode_payload(payload)

    @property
    def pending(self) -> int:
        """Bytes received that do not yet make a whole frame."""
        return len(self._buffer)


def decode(frame: bytes) -> Message:
    """Exactly one whole frame, length prefix included."""
    decoder = FrameDecoder()
    messages = list(decoder.feed(frame))
    if len(messages) != 1 or decoder.pending:
        raise RemoteProtocolError("not exactly one whole frame")
    return messages[0]


def decode_payload(payload: bytes) -> Message:
    """One frame's msgpack payload as a checked message."""
    try:
        value = msgpack.unpackb(payload, use_list=True, raw=False, strict_map_key=True)
    except (ValueError, msgpack.UnpackException) as exc:
        # msgpack raises both families for malformed or truncated input.
        raise RemoteProtocolError(f"undecodable frame: {exc}") from None
    fields = _array(value, "frame", 5, 9)
    version = _int(fields[0], "version", 0, 255)
    if version != PROTOCOL_VERSION:
        raise RemoteProtocolError(
            f"protocol version {version}, this peer speaks {PROTOCOL_VERSION}"
        )
    kind = _int(fields[1], "kind", 0, 255)
    decoder = _DECODERS.get(kind)
    if decoder is None:
        raise RemoteProtocolError(f"unknown message kind {kind}")
    sender = _int(fields[2], "sender", 0, MAX_SEATS - 1)
    clock = _int(fields[3], "clock", 1, MAX_CLOCK)
    seq = _int(fields[4], "seq", 1, MAX_CLOCK)
    return decoder(sender, clock, seq, fields[5:])


def _ready(sender: int, clock: int, seq: int, rest: list[Any]) -> Message:
    round_, commitment, face_up = _exactly(rest, 3, "Ready")
    cards = [_card_int(c, "face-up card") for c in _array(face_up, "face_up", 2, 6)]
    return Ready(
        sender,
        clock,
        seq,
        _int(round_, "round", 1, MAX_CLOCK),
        _bytes(commitment, "commitment", 32, 32),
        tuple(cards),
    )


def _play(sender: int, clock: int, seq: int, rest: list[Any]) -> Message:
    round_, move = _exactly(rest, 2, "Play")
    return Play(sender, clock, seq, _int(round_, "round", 1, MAX_CLOCK), _move(move))


def _ack(sender: int, clock: int, seq: int, rest: list[Any]) -> Message:
    have, committed, digest = _exactly(rest, 3, "Ack")
    seqs = tuple(_int(h, "have", 0, MAX_CLOCK) for h in _array(have, "have", 1, MAX_SEATS))
    return Ack(
        sender,
        clock,
        seq,
        seqs,
        _int(committed, "committed", 0, MAX_CLOCK),
        _bytes(digest, "digest", 16, 16),
    )


def _reveal(sender: int, clock: int, seq: int, rest: list[Any]) -> Message:
    round_, salt, order = _exactly(rest, 3, "Reveal")
    cards = tuple(_card_int(c, "card") for c in _array(order, "order", 52, 54))
    return Reveal(
        sender, clock, seq, _int(round_, "round", 1, MAX_CLOCK), _bytes(salt, "salt", 16, 64), cards
    )


def _leave(sender: int, clock: int, seq: int, rest: list[Any]) -> Message:
    _exactly(rest, 0, "Leave")
    return Leave(sender, clock, seq)


_DECODERS: dict[int, Callable[[int, int, int, list[Any]], Message]] = {
    1: _ready,
    2: _play,
    3: _ack,
    4: _reveal,
    5: _leave,
}


def _move(value: Any) -> Move:
    fields = _array(value, "move", 2, 7)
    kind = _int(fields[0], "move kind", 1, 7)
    seat = _int(fields[1], "seat", 0, MAX_SEATS - 1)
    rest = fields[2:]
    if kind == 1:
        (revealed,) = _exactly(rest, 1, "TurnStock")
        return TurnStock(seat, _cards(revealed, 3))
    if kind == 2:
        card, source, foundation, declare, revealed = _exactly(rest, 5, "ToFoundation")
        return ToFoundation(
            seat,
            _card(card),
            _source(source),
            _int(foundation, "foundation", -1, MAX_CLOCK),
            _declare(declare),
            _cards(revealed, 1),
        )
    if kind in (3, 4):
        card, source, dest, revealed = _exactly(rest, 4, "ToWork")
        cls = ToWork if kind == 3 else SlideUnder
        return cls(
            seat, _card(card), _source(source), _int(dest, "dest", 0, 4), _cards(revealed, 1)
        )
    _exactly(rest, 0, "move")
    return (DeclareStuck, Rotate, CallNerts)[kind - 5](seat)


def _declare(value: Any) -> tuple[int, Suit] | None:
    if value is None:
        return None
    rank, suit = _exactly(_array(value, "declare", 2, 2), 2, "declare")
    return _int(rank, "declared rank", 1, KING), Suit(_int(suit, "declared suit", 0, 3))


def _source(value: Any) -> int:
    return _int(value, "source", -2, 4)


def _cards(value: Any, most: int) -> tuple[Card, ...]:
    return tuple(_card(c) for c in _array(value, "revealed", 0, most))


def _card(value: Any) -> Card:
    return card_from_code(_card_int(value, "card"))


def _card_int(value: Any, what: str) -> int:
    code = _int(value, what, 0, (MAX_SEATS << 6) - 1)
    if not (code >> 2 & 15) <= KING or (code >> 2 & 15 == JOKER and code & 3 > 1):
        raise RemoteProtocolError(f"{what}: {code} is no card")
    return code


def _int(value: Any, what: str, low: int, high: int) -> int:
    if type(value) is not int or not low <= value <= high:
        raise RemoteProtocolError(f"{what}: expected an integer {low}..{high}, got {value!r}")
    return value


def _bytes(value: Any, what: str, low: int, high: int) -> bytes:
    if type(value) is not bytes or not low <= len(value) <= high:
        raise RemoteProtocolError(f"{what}: expected {low}..{high} bytes")
    return value


def _array(value: Any, what: str, low: int, high: int) -> list[Any]:
    if type(value) is not list or not low <= len(value) <= high:
        raise RemoteProtocolError(f"{what}: expected an array of {low}..{high} items")
    return value


def _exactly(value: list[Any], count: int, what: str) -> list[Any]:
    if len(value) != count:
        raise RemoteProtocolError(f"{what}: expected {count} fields, got {len(value)}")
    return value
