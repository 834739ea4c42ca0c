"""Fuzzing the wire and the replica, bounded for CI (tools/fuzz.py runs it for longer).

Random bytes, mutated golden frames and messages with random headers never crash a peer:
the codec returns a message (which encodes back to itself) or raises RemoteProtocolError,
and a replica either takes a message or refuses it with RemoteProtocolError, changing
nothing when it refuses.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import msgpack
from _table import Table, order
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_validation import _state

from p2pnerts.protocol import (
    PROTOCOL_VERSION,
    FrameDecoder,
    Message,
    RemoteProtocolError,
    Replica,
    decode,
    encode,
)
from p2pnerts.rules import TableOptions

GOLDEN = [
    bytes.fromhex(frame["hex"])
    for frame in json.loads((Path(__file__).parents[2] / "protocol" / "golden.json").read_text())[
        "frames"
    ]
]
OPTIONS = TableOptions()
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    """A golden frame with a few of its bytes changed, cut short, or grown."""
    frame = bytearray(draw(st.sampled_from(GOLDEN)))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(frame) - 1))
        frame[at] = draw(st.integers(0, 255))
    if draw(st.booleans()):
        frame = frame[: draw(st.integers(0, len(frame)))]
    return bytes(frame) + draw(st.binary(max_size=8))


def _items() -> st.SearchStrategy[object]:
    scalars = st.one_of(
        st.integers(-(2**63), 2**64 - 1), st.binary(max_size=70), st.text(max_size=40),
        st.booleans(), st.none(),
    )  # fmt: skip
    return st.recursive(scalars, lambda inner: st.lists(inner, max_size=8), max_leaves=30)


@st.composite
def shaped(draw: st.DrawFn) -> bytes:
    """A frame of the right version and a known kind, with items of any msgpack type."""
    kind = draw(st.sampled_from([*range(1, 10), *range(16, 21)]))
    items = draw(st.lists(_items(), max_size=18))
    payload: bytes = msgpack.packb([PROTOCOL_VERSION, kind, *items], use_bin_type=True)
    return len(payload).to_bytes(4, "big") + payload


def _decoded_or_refused(data: bytes) -> list[object]:
    try:
        return list(FrameDecoder().feed(data))
    except RemoteProtocolError:
        return []


@FUZZ
@given(st.one_of(st.binary(max_size=400), mutated(), shaped()))
def test_any_bytes_decode_to_messages_that_encode_back_or_to_a_remote_error(data: bytes) -> None:
    for message in _decoded_or_refused(data):
        assert decode(encode(message)) == message  # type: ignore[arg-type]


def _dealt() -> Table:
    table = Table(3, OPTIONS)
    table.start([order(s, ["QS"], ["2H", "9C", "9S", "KD"], OPTIONS) for s in range(3)])
    return table


def _received(replica: Replica, message: Message, now: float) -> bool:
    """Give ``message`` to ``replica``: True if taken; if refused, nothing changed."""
    before = _state(replica)
    try:
        replica.receive(message, now)
    except RemoteProtocolError:
        assert _state(replica) == before
        return False
    return True


@FUZZ
@given(mutated())
def test_a_replica_takes_or_refuses_any_frame_and_a_refusal_changes_nothing(data: bytes) -> None:
    table = _dealt()
    for message in _decoded_or_refused(data):
        if isinstance(message, Message):  # not a link frame: those never reach a replica
            _received(table.replicas[1], message, table.now)


BIG = 2**63 - 1


@FUZZ
@given(
    st.sampled_from([1, 2]),
    st.integers(0, BIG),
    st.integers(0, BIG),
    st.integers(1, BIG),
    st.integers(0, 3),
)
def test_a_replica_takes_or_refuses_any_header_and_a_refusal_changes_nothing(
    dest: int, view: int, clock: int, seq: int, which: int
) -> None:
    """Seat 0's next Ack, with any header values the codec allows, to another seat."""
    table = _dealt()
    table.replicas[0].send_ack(table.now)
    message = table.replicas[0].take_outgoing()[-1]
    bent = [
        replace(message, view=view),
        replace(message, clock=clock),
        replace(message, seq=seq),
        replace(message, view=view % 4, clock=clock % 1000, seq=seq % 8),
    ][which]
    for arrived in _decoded_or_refused(encode(bent)):  # what a peer decodes of it, if any
        assert isinstance(arrived, Message)
        _received(table.replicas[dest], arrived, table.now)
