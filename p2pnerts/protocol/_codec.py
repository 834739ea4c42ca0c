"""The wire format: length-prefixed msgpack frames, versioned, every field checked.

A frame is a 4-byte big-endian length, then that many bytes holding one msgpack array:
``[version, kind, sender, view, clock, seq, ...fields]``. The fields of each kind are the
tables of `_layouts.py`, so the encoder, the decoder and ``protocol/SPEC.md`` all read one
description. The field types those tables are made of, and the moves' layout, are in
`_wire.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import msgpack

from p2pnerts.protocol._errors import RemoteProtocolError
from p2pnerts.protocol._layouts import (
    _BY_KIND,
    _CARRIED,
    _COMMIT_BY_KIND,
    _COMMIT_LAYOUT,
    _HEADER,
    _LAYOUT,
    _LINK_BY_KIND,
    _LINK_LAYOUT,
    _MOST_ITEMS,
    _WITNESS,
    _Layout,
)
from p2pnerts.protocol._messages import (
    PROTOCOL_VERSION,
    Ballot,
    CommitFrame,
    LinkMessage,
    Message,
    Tally,
)
from p2pnerts.protocol._wire import (
    _LENGTH,
    MAX_FRAME,
    MAX_SEATS,
    _array,
    _int,
)

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
