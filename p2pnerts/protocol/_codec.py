"""The wire format: length-prefixed msgpack frames, versioned, every field checked.

A frame is a 4-byte big-endian length, then that many bytes holding one msgpack array:
``[version, kind, sender, view, clock, seq, ...fields]``. The fields of each kind are the
table `_LAYOUT` below, so the encoder, the decoder and ``protocol/SPEC.md`` (whose golden
frames the tests check against this module) all read one description. The field types
those tables are made of, and the moves' layout, are in `_wire.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import fields
from typing import Any

import msgpack

from p2pnerts.protocol._errors import RemoteProtocolError
from p2pnerts.protocol._messages import (
    PROTOCOL_VERSION,
    Ack,
    Ballot,
    CommitFrame,
    Evidence,
    Hello,
    Leave,
    LinkMessage,
    Message,
    Noise,
    Play,
    Poll,
    Proof,
    Ready,
    Refuse,
    Rejoin,
    Reveal,
    Roster,
    StartView,
    Tally,
    TeamDeal,
    ViewChange,
    Welcome,
)
from p2pnerts.protocol._passphrase import PAKE_BYTES
from p2pnerts.protocol._spectate import Decided, Scene, Seen, Watch
from p2pnerts.protocol._wire import (
    _BELOW,
    _DIGEST,
    _HAVE,
    _LENGTH,
    _NONE_OR_32,
    _SEATS,
    _TABLE_ID,
    BIG,
    EVIDENCE_MOST,
    MAX_FRAME,
    MAX_SEATS,
    NAME,
    TABLE_NAME,
    _array,
    _bytes,
    _card_codes,
    _empty_or,
    _Field,
    _flag,
    _frames,
    _heard,
    _int,
    _move,
    _move_to_wire,
    _names,
    _number,
    _numbers,
    _options_from_wire,
    _options_to_wire,
    _roster_seats,
    _score_rows,
    _tableaux,
    _tableaux_to_wire,
    _text,
    _views,
)

_SECRET = _bytes(32, 32)
_SIG = _bytes(0, 64)
"""A signature (`_signing`): 64 bytes when signed; the receiver refuses any other."""

_LAYOUT: dict[type[Message], tuple[int, tuple[tuple[str, _Field], ...]]] = {
    Ready: (
        1,
        (
            ("round", _number()),
            ("pledge", _SECRET),
            ("face_up", _card_codes(0, 6)),
            ("below", _BELOW),
            ("sig", _SIG),
        ),
    ),
    Play: (
        2,
        (
            ("round", _number(1)),
            ("move", _Field(lambda m: _move_to_wire(m), lambda v, _: _move(v))),
            ("below", _BELOW),
            ("sig", _SIG),
        ),
    ),
    Ack: (
        3,
        (
            ("have", _HAVE),
            ("committed", _number()),
            ("digest", _DIGEST),
            ("heard", _heard()),
            ("passed", _numbers(3)),
            ("made", _number()),
        ),
    ),
    Reveal: (4, (("round", _number()), ("secret", _SECRET), ("below", _BELOW), ("sig", _SIG))),
    Leave: (5, (("below", _BELOW), ("sig", _SIG))),
    ViewChange: (
        6,
        (
            ("new_view", _number(1)),
            ("suspects", _SEATS),
            ("have", _HAVE),
            ("committed", _number()),
            ("holding", _bytes(0, MAX_FRAME)),
            ("pool", _frames()),
            ("sig", _SIG),
        ),
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
            ("votes", _frames()),
            ("votes_digest", _bytes(32, 32)),
            ("pool", _frames()),
            ("sig", _SIG),
        ),
    ),
    Rejoin: (8, (("round", _number()), ("above", _number()), ("sig", _SIG))),
    TeamDeal: (
        9,
        (
            ("to", _number(0, MAX_SEATS - 1)),
            ("round", _number()),
            ("secret", _SECRET),
            ("next", _SECRET),
            ("seed", _SECRET),
        ),
    ),
    Evidence: (10, (("messages", _frames(1, EVIDENCE_MOST)),)),
}
_BY_KIND = {kind: (cls, layout) for cls, (kind, layout) in _LAYOUT.items()}
_HEADER = ("sender", "view", "clock", "seq")
_MOST_ITEMS = 2 + len(_HEADER) + max(len(layout) for _, layout in _LAYOUT.values())

_WITNESS = _empty_or(16)
"""A witness (`_witness`), or none: never held."""
_FLAG = _Field(lambda v: v, _flag)
"""A msgpack boolean (an integer is refused)."""
_VOTE = (("witness", _WITNESS), ("ok", _FLAG), ("below", _numbers(MAX_SEATS)))
_CARRIED = (
    ("sender", _number(0, MAX_SEATS - 1)),
    ("clock", _number(1)),
    ("to", _number(0, MAX_SEATS - 1)),
    ("ok", _FLAG),
    ("below", _numbers(MAX_SEATS)),
    ("sig", _SIG),
)
"""A Ballot as a Tally carries it (`encode_carried`): without what the Tally says once, its
view, its play and, unless the Ballot names another, its witness."""
_COMMIT_LAYOUT: dict[type[CommitFrame], tuple[int, tuple[tuple[str, _Field], ...]]] = {
    Ballot: (
        11,
        (
            ("to", _number(0, MAX_SEATS - 1)),
            ("seat", _number(0, MAX_SEATS - 1)),
            ("number", _number(1)),
            *_VOTE,
            ("sig", _SIG),
        ),
    ),
    Tally: (
        12,
        (
            ("seat", _number(0, MAX_SEATS - 1)),
            ("number", _number(1)),
            *_VOTE,
            ("ballots", _frames(0, MAX_SEATS)),
            ("passed", _numbers(3)),
            ("sig", _SIG),
        ),
    ),
    Poll: (
        13,
        (
            ("seat", _number(0, MAX_SEATS - 1)),
            ("number", _number(1)),
            ("play", _bytes(0, MAX_FRAME)),
        ),
    ),
}
"""Version 3's commit frames (`CommitFrame`), laid out, encoded and signed as protocol
messages are; a replica that commits by acknowledgement refuses them."""
_COMMIT_BY_KIND = {kind: (cls, layout) for cls, (kind, layout) in _COMMIT_LAYOUT.items()}
"""The most items a frame's array can hold: the version, the kind, the header, the
fields of the largest kind."""


_LINK_LAYOUT: dict[type[LinkMessage], tuple[int, tuple[tuple[str, _Field], ...]]] = {
    Hello: (
        16,
        (
            ("table", _TABLE_ID),
            ("seat", _number(-1, MAX_SEATS - 1)),
            ("name", NAME),
            ("port", _number(1, 65535)),
            ("key", _bytes(32, 32)),
            ("nonce", _bytes(16, 16)),
            ("proof", _bytes(0, 64)),
            ("mac", _NONE_OR_32),
            ("terms", _NONE_OR_32),
            ("pake", _empty_or(PAKE_BYTES)),
        ),
    ),
    Welcome: (
        17,
        (
            ("table", _TABLE_ID),
            ("seat", _number(0, MAX_SEATS - 1)),
            ("players", _number(2, MAX_SEATS)),
            ("options", _Field(_options_to_wire, _options_from_wire)),
            ("name", TABLE_NAME),
            ("majority", _FLAG),
        ),
    ),
    Refuse: (18, (("reason", _text(200)),)),
    Roster: (19, (("seats", _roster_seats()), ("started", _FLAG))),
    Proof: (20, (("proof", _bytes(64, 64)), ("mac", _NONE_OR_32))),
    Watch: (
        21,
        (
            ("table", _TABLE_ID),
            ("name", NAME),
            ("key", _bytes(32, 32)),
            ("nonce", _bytes(16, 16)),
            ("pake", _empty_or(PAKE_BYTES)),
        ),
    ),
    Scene: (
        22,
        (
            ("table", _TABLE_ID),
            ("seat", _number(0, MAX_SEATS - 1)),
            ("names", _Field(list, _names)),
            ("options", _Field(_options_to_wire, _options_from_wire)),
            ("round", _number()),
            ("committed", _number()),
            ("clocks", _numbers(MAX_SEATS)),
            ("heard", _numbers(MAX_SEATS)),
            ("states", _numbers(MAX_SEATS, 0, 2)),
            ("totals", _numbers(MAX_SEATS, -BIG, BIG)),
            ("foundations", _card_codes(0, MAX_SEATS * 4 * 13)),
            ("completed", _number()),
            ("tableaux", _Field(_tableaux_to_wire, _tableaux)),
            ("dropped", _number()),
        ),
    ),
    Seen: (
        23,
        (
            ("at", _number()),
            ("out", _FLAG),
            ("other", _number(-1, MAX_SEATS - 1)),
            ("frame", _bytes(1, MAX_FRAME)),
        ),
    ),
    Decided: (
        24,
        (
            ("index", _number(1)),
            ("clock", _number(1)),
            ("call", _number(0, 1)),
            ("rank", _number(0, MAX_SEATS - 1)),
            ("frame", _bytes(1, MAX_FRAME)),
            ("outcome", _number(0, 3)),
            ("winner", _number(-1, MAX_SEATS - 1)),
            ("reason", _text(200, least=0)),
        ),
    ),
    Noise: (25, (("message", _bytes(32, 48)),)),
}
_LINK_BY_KIND = {kind: (cls, layout) for cls, (kind, layout) in _LINK_LAYOUT.items()}


# --- encoding ------------------------------------------------------------------------------


def encode(message: Message | LinkMessage | CommitFrame) -> bytes:
    """One message as a whole frame, length prefix included."""
    payload = encode_payload(message)
    return len(payload).to_bytes(_LENGTH, "big") + payload


def encode_payload(message: Message | LinkMessage | CommitFrame) -> bytes:
    """One message's msgpack payload, without the length prefix."""
    wire: list[Any]
    if isinstance(message, LinkMessage):
        kind, layout = _LINK_LAYOUT[type(message)]
        wire = [PROTOCOL_VERSION, kind]
    else:
        if isinstance(message, CommitFrame):
            kind, layout = _COMMIT_LAYOUT[type(message)]
        else:
            kind, layout = _LAYOUT[type(message)]
        wire = [PROTOCOL_VERSION, kind]
        wire += [getattr(message, name) for name in _HEADER]
    wire += [field.to_wire(getattr(message, name)) for name, field in layout]
    payload: bytes = msgpack.packb(wire, use_bin_type=True)
    if len(payload) > MAX_FRAME:
        raise ValueError(f"message of {len(payload)} bytes exceeds the {MAX_FRAME}-byte limit")
    return payload


def encode_carried(ballot: Ballot, witness: bytes) -> bytes:
    """``ballot`` as a Tally whose witness is ``witness`` carries it: the msgpack array of
    its sender, clock, to, ok, below and sig, then its witness only where it differs from
    the Tally's (SPEC's notes, "The commit frames"). Its view and play are the Tally's, its
    seq 1: every field it was signed with comes back (`decode_carried`)."""
    wire = [field.to_wire(getattr(ballot, name)) for name, field in _CARRIED]
    if ballot.witness != witness:
        wire.append(_WITNESS.to_wire(ballot.witness))
    payload: bytes = msgpack.packb(wire, use_bin_type=True)
    return payload


# --- decoding ------------------------------------------------------------------------------


class FrameDecoder:
    """Splits a byte stream into messages; raises `RemoteProtocolError` on any bad frame.

    After an error the stream is beyond repair: the caller drops the connection.
    """

    def __init__(self, max_frame: int = MAX_FRAME) -> None:
        self._buffer = bytearray()
        self._max_frame = max_frame

    def feed(self, data: bytes) -> Iterator[Message | LinkMessage | CommitFrame]:
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

    def take_rest(self) -> bytes:
        """Bytes received after the last whole frame, taken out (they are not frames: the
        link was encrypted after that frame)."""
        rest = bytes(self._buffer)
        self._buffer.clear()
        return rest

    def allow(self, max_frame: int) -> None:
        """Take frames up to ``max_frame`` bytes from now on (after a handshake, say)."""
        self._max_frame = max_frame

    @property
    def pending(self) -> int:
        """Bytes received that do not yet make a whole frame."""
        return len(self._buffer)


def decode(frame: bytes) -> Message | LinkMessage | CommitFrame:
    """Exactly one whole frame, length prefix included."""
    decoder = FrameDecoder()
    messages = list(decoder.feed(frame))
    if len(messages) != 1 or decoder.pending:
        raise RemoteProtocolError("not exactly one whole frame")
    return messages[0]


def decode_payload(payload: bytes) -> Message:
    """One frame's msgpack payload as a checked protocol message (not a link message, nor
    a commit frame)."""
    message = decode_any(payload)
    if isinstance(message, LinkMessage | CommitFrame):
        raise RemoteProtocolError(f"a {type(message).__name__} where a protocol message belongs")
    return message


def decode_any(payload: bytes) -> Message | LinkMessage | CommitFrame:
    """One frame's msgpack payload as a checked message of any kind."""
    items = _unpacked(payload)
    kind = _int(items[1], "kind", 0, 255)
    if kind in _LINK_BY_KIND:
        link, fields = _LINK_BY_KIND[kind]
        return link(**_body(link.__name__, fields, items[2:]))
    if kind in _COMMIT_BY_KIND:
        return decode_commit_frame(payload)
    if kind not in _BY_KIND:
        raise RemoteProtocolError(f"unknown message kind {kind}")
    cls, layout = _BY_KIND[kind]
    return cls(*_header(items), **_body(cls.__name__, layout, items[6:]))


def decode_commit_frame(payload: bytes) -> CommitFrame:
    """One payload as a checked commit frame of version 3 (`CommitFrame`): a Ballot, a
    Tally or a Poll, and nothing else."""
    items = _unpacked(payload)
    kind = _int(items[1], "kind", 0, 255)
    if kind not in _COMMIT_BY_KIND:
        raise RemoteProtocolError(f"kind {kind} is not a commit frame")
    cls, layout = _COMMIT_BY_KIND[kind]
    return cls(*_header(items), **_body(cls.__name__, layout, items[6:]))


def decode_carried(payload: bytes, tally: Tally) -> Ballot:
    """A Ballot that ``tally`` carries (`encode_carried`), whole again: checked as a Ballot's
    fields are, its view, play and seq the Tally's, its witness the Tally's unless it
    names another (naming the Tally's again is refused: one Ballot, one layout). Its
    signature is the caller's to check."""
    what = f"a Ballot in seat {tally.sender}'s Tally"
    value = _loaded(payload, f"{what}: undecodable")
    items = _array(value, what, len(_CARRIED), len(_CARRIED) + 1)
    fields = _body(what, _CARRIED, items[: len(_CARRIED)])
    witness = tally.witness
    if len(items) > len(_CARRIED):
        witness = _WITNESS.from_wire(items[-1], f"{what}: witness")
        if witness == tally.witness:
            raise RemoteProtocolError(f"{what} names the Tally's own witness again")
    view, seat, number = tally.view, tally.seat, tally.number
    return Ballot(view=view, seq=1, seat=seat, number=number, witness=witness, **fields)


def _unpacked(payload: bytes) -> list[Any]:
    """A payload's array, its version checked: at least the version and the kind."""
    value = _loaded(payload, "undecodable frame")
    # The version first: another version may lay out everything after it differently.
    version = _int(_array(value, "frame", 1, MAX_FRAME)[0], "version")
    if version != PROTOCOL_VERSION:
        raise RemoteProtocolError(
            f"protocol version {version}, this peer speaks {PROTOCOL_VERSION}"
        )
    return _array(value, "frame", 2, _MOST_ITEMS)


def _loaded(payload: bytes, undecodable: str) -> Any:
    """``payload`` unpacked; `RemoteProtocolError` saying ``undecodable`` if it is not
    msgpack."""
    try:
        return msgpack.unpackb(payload, use_list=True, raw=False, strict_map_key=True)
    except (ValueError, msgpack.UnpackException) as exc:
        # msgpack raises both families for malformed or truncated input.
        raise RemoteProtocolError(f"{undecodable}: {exc}") from None


def _header(items: list[Any]) -> tuple[int, int, int, int]:
    """A protocol message's header, checked: sender, view, clock and seq."""
    items = _array(items, "frame", 6, _MOST_ITEMS)
    return (
        _int(items[2], "sender", 0, MAX_SEATS - 1),
        _int(items[3], "view", 0),
        _int(items[4], "clock", 1),
        _int(items[5], "seq", 1),
    )


_Layout = tuple[tuple[str, _Field], ...]
_Checks = tuple[tuple[str, Callable[[Any, str], Any], str], ...]
_CHECKS: dict[tuple[str, int], _Checks] = {}
"""Each layout's fields as read under each name: (field, its check, what an error calls
it). Keyed by the layout's identity: the layouts are this module's, made once."""


def _body(name: str, layout: _Layout, items: list[Any]) -> dict[str, Any]:
    """A message's fields after the header, checked, by name (wide messages take keywords
    only)."""
    if len(items) != len(layout):
        raise RemoteProtocolError(f"{name}: expected {len(layout)} fields, got {len(items)}")
    checks = _CHECKS.get((name, id(layout)))
    if checks is None:
        checks = tuple((field, how.from_wire, f"{name}.{field}") for field, how in layout)
        _CHECKS[name, id(layout)] = checks
    return {field: check(v, what) for (field, check, what), v in zip(checks, items, strict=True)}


def layout_of(kind: type[Message]) -> tuple[int, tuple[str, ...]]:
    """A message kind's number and field names, in wire order after the header."""
    number, layout = _LAYOUT[kind]
    return number, tuple(name for name, _ in layout)


assert all(tuple(f.name for f in fields(cls))[4:] == layout_of(cls)[1] for cls in _LAYOUT), (
    "the wire layout must list every message field in declaration order"
)
