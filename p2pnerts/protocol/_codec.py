"""The wire format: length-prefixed msgpack frames, versioned, every field checked.

A frame is a 4-byte big-endian length, then that many bytes holding one msgpack array:
``[version, kind, sender, view, clock, seq, ...fields]``. The fields of each kind are the
table `_LAYOUT` below, so the encoder, the decoder and ``protocol/SPEC.md`` (whose golden
frames the tests check against this module) all read one description.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, fields
from typing import Any

import msgpack

from p2pnerts.protocol._errors import RemoteProtocolError
from p2pnerts.protocol._messages import (
    PROTOCOL_VERSION,
    Ack,
    Hello,
    Leave,
    LinkMessage,
    Message,
    Play,
    Ready,
    Refuse,
    Rejoin,
    Reveal,
    Roster,
    Seat,
    StartView,
    TeamDeal,
    ViewChange,
    Welcome,
)
from p2pnerts.rules import (
    JOKER,
    KING,
    BadOptions,
    CallNerts,
    Card,
    DeclareStuck,
    Move,
    Rotate,
    SlideUnder,
    Suit,
    TableOptions,
    TieRule,
    ToFoundation,
    ToWork,
    TurnStock,
    card_code,
    card_from_code,
)

MAX_FRAME = 256 * 1024
MAX_SEATS = 64
BIG = 2**63 - 1
_LENGTH = 4


# --- field types: how each value goes on the wire and is checked coming off it ------------


@dataclass(frozen=True, slots=True)
class _Field:
    to_wire: Callable[[Any], Any]
    from_wire: Callable[[Any, str], Any]


def _int(value: Any, what: str, low: int = 0, high: int = BIG) -> int:
    if type(value) is not int or not low <= value <= high:
        raise RemoteProtocolError(f"{what}: expected an integer {low}..{high}, got {value!r}")
    return value


def _array(value: Any, what: str, low: int, high: int) -> list[Any]:
    if type(value) is not list or not low <= len(value) <= high:
        raise RemoteProtocolError(f"{what}: expected an array of {low}..{high} items")
    return value


def _bytes(low: int, high: int) -> _Field:
    def check(value: Any, what: str) -> bytes:
        if type(value) is not bytes or not low <= len(value) <= high:
            raise RemoteProtocolError(f"{what}: expected {low}..{high} bytes")
        return value

    return _Field(lambda v: v, check)


def _number(low: int = 0, high: int = BIG) -> _Field:
    return _Field(lambda v: v, lambda v, what: _int(v, what, low, high))


def _numbers(most: int, low: int = 0, high: int = BIG, least: int = 0) -> _Field:
    def check(value: Any, what: str) -> tuple[int, ...]:
        return tuple(_int(v, what, low, high) for v in _array(value, what, least, most))

    return _Field(list, check)


def _card_code(value: Any, what: str) -> int:
    code = _int(value, what, 0, (MAX_SEATS << 6) - 1)
    rank, suit = code >> 2 & 15, code & 3
    if rank > KING or (rank == JOKER and suit > 1):
        raise RemoteProtocolError(f"{what}: {code} is no card")
    return code


def _card_codes(least: int, most: int) -> _Field:
    def check(value: Any, what: str) -> tuple[int, ...]:
        return tuple(_card_code(v, what) for v in _array(value, what, least, most))

    return _Field(list, check)


def _frames() -> _Field:
    def check(value: Any, what: str) -> tuple[bytes, ...]:
        items = _array(value, what, 0, 100_000)
        return tuple(_bytes(1, MAX_FRAME).from_wire(v, what) for v in items)

    return _Field(list, check)


def _views() -> _Field:
    """Views, each ``[number, members]``."""

    def check(value: Any, what: str) -> tuple[tuple[int, tuple[int, ...]], ...]:
        views = (_array(v, what, 2, 2) for v in _array(value, what, 0, 1_000))
        return tuple((_int(n, what), _SEATS.from_wire(m, what)) for n, m in views)

    return _Field(lambda views: [[n, list(m)] for n, m in views], check)


def _score_rows() -> _Field:
    def check(value: Any, what: str) -> tuple[tuple[int, ...], ...]:
        rows = _array(value, what, 0, 10_000)
        return tuple(_numbers(MAX_SEATS, -BIG, BIG, 1).from_wire(r, what) for r in rows)

    return _Field(lambda rows: [list(r) for r in rows], check)


_SEATS = _numbers(MAX_SEATS, 0, MAX_SEATS - 1)
_HAVE = _numbers(MAX_SEATS, least=1)
_DIGEST = _bytes(16, 16)

_LAYOUT: dict[type[Message], tuple[int, tuple[tuple[str, _Field], ...]]] = {
    Ready: (
        1,
        (("round", _number(1)), ("commitment", _bytes(32, 32)), ("face_up", _card_codes(2, 6))),
    ),
    Play: (
        2,
        (
            ("round", _number(1)),
            ("move", _Field(lambda m: _move_to_wire(m), lambda v, _: _move(v))),
        ),
    ),
    Ack: (3, (("have", _HAVE), ("committed", _number()), ("digest", _DIGEST))),
    Reveal: (4, (("round", _number(1)), ("salt", _bytes(16, 64)), ("order", _card_codes(52, 54)))),
    Leave: (5, ()),
    ViewChange: (
        6,
        (("new_view", _number(1)), ("suspects", _SEATS), ("have", _HAVE), ("committed", _number())),
    ),
    StartView: (
        7,
        (
            ("voted_in", _number()),
            ("members", _SEATS),
            ("quorums", _views()),
            ("cuts", _HAVE),
            ("joined", _SEATS),
            ("joined_from", _numbers(MAX_SEATS)),
            ("lives", _numbers(MAX_SEATS)),
            ("seated", _SEATS),
            ("round", _number()),
            ("base_committed", _number()),
            ("base_digest", _DIGEST),
            ("carried", _frames()),
            ("scores", _score_rows()),
        ),
    ),
    Rejoin: (8, (("round", _number()),)),
    TeamDeal: (
        9,
        (
            ("to", _number(0, MAX_SEATS - 1)),
            ("round", _number(1)),
            ("salt", _bytes(16, 64)),
            ("order", _card_codes(52, 54)),
        ),
    ),
}
_BY_KIND = {kind: (cls, layout) for cls, (kind, layout) in _LAYOUT.items()}
_HEADER = ("sender", "view", "clock", "seq")
_MOST_ITEMS = 2 + len(_HEADER) + max(len(layout) for _, layout in _LAYOUT.values())
"""The most items a frame's array can hold: the version, the kind, the header, the
fields of the largest kind."""


def _text(most: int, least: int = 1) -> _Field:
    def check(value: Any, what: str) -> str:
        if type(value) is not str or not least <= len(value) <= most:
            raise RemoteProtocolError(f"{what}: expected text of {least}..{most} characters")
        return value

    return _Field(lambda v: v, check)


def _options_to_wire(o: TableOptions) -> list[Any]:
    # The teams go last, and only at a table of teams: a table of solo players encodes
    # as it did before teams existed.
    return [*o.numbers(), o.tie_rule.value] + ([list(o.teams)] if o.teams else [])


def _options_from_wire(value: Any, what: str) -> TableOptions:
    items = _array(value, what, 10, 11)
    teams = _numbers(MAX_SEATS, 1, 3, 2).from_wire(items[10], what) if len(items) > 10 else ()
    numbers = [_int(v, what, 0, 10_000) for i, v in enumerate(items[:10]) if i not in (3, 9)]
    if type(items[3]) is not bool or items[9] not in {r.value for r in TieRule}:
        raise RemoteProtocolError(f"{what}: bad jokers flag or tie rule")
    pile, work, turn, bonus, points, penalty, target, rounds = numbers
    try:
        return TableOptions(
            pile,
            work,
            turn,
            items[3],
            bonus,
            points,
            penalty,
            target,
            rounds or None,
            TieRule(items[9]),
            teams,
        )
    except BadOptions as exc:
        raise RemoteProtocolError(f"{what}: {exc}") from None


def _roster_seats() -> _Field:
    def to_wire(seats: tuple[Seat, ...]) -> list[Any]:
        return [[s.seat, s.name, s.host, s.port] for s in seats]

    def check(value: Any, what: str) -> tuple[Seat, ...]:
        seats = []
        for item in _array(value, what, 0, MAX_SEATS):
            seat, name, host, port = _array(item, what, 4, 4)
            seats.append(
                Seat(
                    _int(seat, what, 0, MAX_SEATS - 1),
                    _text(32).from_wire(name, what),
                    _text(255, least=0).from_wire(host, what),
                    _int(port, what, 1, 65535),
                )
            )
        return tuple(seats)

    return _Field(to_wire, check)


def _flag(value: Any, what: str) -> bool:
    if type(value) is not bool:
        raise RemoteProtocolError(f"{what}: expected true or false")
    return value


_TABLE_ID = _bytes(16, 16)
_LINK_LAYOUT: dict[type[LinkMessage], tuple[int, tuple[tuple[str, _Field], ...]]] = {
    Hello: (
        16,
        (
            ("table", _TABLE_ID),
            ("seat", _number(-1, MAX_SEATS - 1)),
            ("name", _text(32)),
            ("port", _number(1, 65535)),
        ),
    ),
    Welcome: (
        17,
        (
            ("table", _TABLE_ID),
            ("seat", _number(0, MAX_SEATS - 1)),
            ("players", _number(2, MAX_SEATS)),
            ("options", _Field(_options_to_wire, _options_from_wire)),
        ),
    ),
    Refuse: (18, (("reason", _text(200)),)),
    Roster: (19, (("seats", _roster_seats()), ("started", _Field(lambda v: v, _flag)))),
}
_LINK_BY_KIND = {kind: (cls, layout) for cls, (kind, layout) in _LINK_LAYOUT.items()}


# --- encoding ------------------------------------------------------------------------------


def encode(message: Message | LinkMessage) -> bytes:
    """One message as a whole frame, length prefix included."""
    payload = encode_payload(message)
    return len(payload).to_bytes(_LENGTH, "big") + payload


def encode_payload(message: Message | LinkMessage) -> bytes:
    """One message's msgpack payload, without the length prefix."""
    wire: list[Any]
    if isinstance(message, Hello | Welcome | Refuse | Roster):
        kind, layout = _LINK_LAYOUT[type(message)]
        wire = [PROTOCOL_VERSION, kind]
    else:
        kind, layout = _LAYOUT[type(message)]
        wire = [PROTOCOL_VERSION, kind]
        wire += [getattr(message, name) for name in _HEADER]
    wire += [field.to_wire(getattr(message, name)) for name, field in layout]
    payload: bytes = msgpack.packb(wire, use_bin_type=True)
    if len(payload) > MAX_FRAME:
        raise ValueError(f"message of {len(payload)} bytes exceeds the {MAX_FRAME}-byte limit")
    return payload


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


_MOVE_KIND = {
    TurnStock: 1,
    ToFoundation: 2,
    ToWork: 3,
    SlideUnder: 4,
    DeclareStuck: 5,
    Rotate: 6,
    CallNerts: 7,
}


# --- decoding ------------------------------------------------------------------------------


class FrameDecoder:
    """Splits a byte stream into messages; raises `RemoteProtocolError` on any bad frame.

    After an error the stream is beyond repair: the caller drops the connection.
    """

    def __init__(self, max_frame: int = MAX_FRAME) -> None:
        self._buffer = bytearray()
        self._max_frame = max_frame

    def feed(self, data: bytes) -> Iterator[Message | LinkMessage]:
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
            yield decode_any(payload)

    @property
    def pending(self) -> int:
        """Bytes received that do not yet make a whole frame."""
        return len(self._buffer)


def decode(frame: bytes) -> Message | LinkMessage:
    """Exactly one whole frame, length prefix included."""
    decoder = FrameDecoder()
    messages = list(decoder.feed(frame))
    if len(messages) != 1 or decoder.pending:
        raise RemoteProtocolError("not exactly one whole frame")
    return messages[0]


def decode_payload(payload: bytes) -> Message:
    """One frame's msgpack payload as a checked protocol message (not a link message)."""
    message = decode_any(payload)
    if isinstance(message, Hello | Welcome | Refuse | Roster):
        raise RemoteProtocolError(f"a {type(message).__name__} where a protocol message belongs")
    return message


def decode_any(payload: bytes) -> Message | LinkMessage:
    """One frame's msgpack payload as a checked message of any kind."""
    try:
        value = msgpack.unpackb(payload, use_list=True, raw=False, strict_map_key=True)
    except (ValueError, msgpack.UnpackException) as exc:
        # msgpack raises both families for malformed or truncated input.
        raise RemoteProtocolError(f"undecodable frame: {exc}") from None
    # The version first: another version may lay out everything after it differently.
    version = _int(_array(value, "frame", 1, MAX_FRAME)[0], "version")
    if version != PROTOCOL_VERSION:
        raise RemoteProtocolError(
            f"protocol version {version}, this peer speaks {PROTOCOL_VERSION}"
        )
    items = _array(value, "frame", 2, _MOST_ITEMS)
    kind = _int(items[1], "kind", 0, 255)
    if kind in _LINK_BY_KIND:
        link, fields = _LINK_BY_KIND[kind]
        return link(**_body(link.__name__, fields, items[2:]))
    if kind not in _BY_KIND:
        raise RemoteProtocolError(f"unknown message kind {kind}")
    cls, layout = _BY_KIND[kind]
    items = _array(value, "frame", 6, _MOST_ITEMS)
    header = (
        _int(items[2], "sender", 0, MAX_SEATS - 1),
        _int(items[3], "view", 0),
        _int(items[4], "clock", 1),
        _int(items[5], "seq", 1),
    )
    return cls(*header, **_body(cls.__name__, layout, items[6:]))


def _body(name: str, layout: tuple[tuple[str, _Field], ...], items: list[Any]) -> dict[str, Any]:
    """A message's fields after the header, checked, by name (wide messages take keywords
    only)."""
    if len(items) != len(layout):
        raise RemoteProtocolError(f"{name}: expected {len(layout)} fields, got {len(items)}")
    return {
        field_name: field.from_wire(v, f"{name}.{field_name}")
        for (field_name, field), v in zip(layout, items, strict=True)
    }


def _move(value: Any) -> Move:
    items = _array(value, "move", 2, 7)
    kind = _int(items[0], "move kind", 1, 7)
    seat = _int(items[1], "seat", 0, MAX_SEATS - 1)
    rest = items[2:]
    expected = {1: 1, 2: 5, 3: 4, 4: 4}.get(kind, 0)
    if len(rest) != expected:
        raise RemoteProtocolError(f"move kind {kind}: expected {expected} fields")
    if kind == 1:
        return TurnStock(seat, _cards(rest[0], 3))
    if kind == 2:
        card, source, foundation, declare, revealed = rest
        return ToFoundation(
            seat,
            _card(card),
            _source(source),
            _int(foundation, "foundation", -1),
            _declare(declare),
            _cards(revealed, 1),
        )
    if kind in (3, 4):
        card, source, dest, revealed = rest
        cls = ToWork if kind == 3 else SlideUnder
        return cls(
            seat, _card(card), _source(source), _int(dest, "dest", 0, 4), _cards(revealed, 1)
        )
    return (DeclareStuck, Rotate, CallNerts)[kind - 5](seat)


def _declare(value: Any) -> tuple[int, Suit] | None:
    if value is None:
        return None
    rank, suit = _array(value, "declare", 2, 2)
    return _int(rank, "declared rank", 1, KING), Suit(_int(suit, "declared suit", 0, 3))


def _source(value: Any) -> int:
    return _int(value, "source", -2, 4)


def _cards(value: Any, most: int) -> tuple[Card, ...]:
    return tuple(_card(c) for c in _array(value, "revealed", 0, most))


def _card(value: Any) -> Card:
    return card_from_code(_card_code(value, "card"))


def layout_of(kind: type[Message]) -> tuple[int, tuple[str, ...]]:
    """A message kind's number and field names, in wire order after the header."""
    number, layout = _LAYOUT[kind]
    return number, tuple(name for name, _ in layout)


assert all(tuple(f.name for f in fields(cls))[4:] == layout_of(cls)[1] for cls in _LAYOUT), (
    "the wire layout must list every message field in declaration order"
)
