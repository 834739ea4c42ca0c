"""The wire codec: every message round-trips, and bad input is a clear remote error."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2pnerts.protocol import (
    MAX_FRAME,
    MAX_SEATS,
    PROTOCOL_VERSION,
    Ack,
    Evidence,
    FrameDecoder,
    Hello,
    Leave,
    Message,
    Play,
    Ready,
    Rejoin,
    RemoteProtocolError,
    Reveal,
    Roster,
    Seat,
    StartView,
    TeamDeal,
    ViewChange,
    Watch,
    Welcome,
    _wire,
    decode,
    encode,
)
from p2pnerts.protocol._codec import encode_payload
from p2pnerts.rules import (
    NERTS,
    NEW_FOUNDATION,
    WASTE,
    CallNerts,
    Card,
    DeclareStuck,
    Rotate,
    SlideUnder,
    Suit,
    TableOptions,
    ToFoundation,
    ToWork,
    TurnStock,
    card_code,
)

H7 = Card(2, 7, Suit.HEARTS)
JOKER = Card(1, 0, Suit.HEARTS)

MESSAGES: list[Message] = [
    Rejoin(4, 2, 7, 1, 3),
    ViewChange(1, 2, 30, 12, new_view=3, suspects=(0,), have=(5, 12, 4), committed=40),
    StartView(
        2,
        3,
        31,
        13,
        voted_in=2,
        members=(1, 2),
        quorums=((2, (0, 1, 2)), (0, (0, 1, 2))),
        cuts=(5, 12, 9),
        joined=(),
        joined_from=(),
        lives=(0, 2, 0),
        seated=(0, 1, 2),
        round=1,
        base_committed=40,
        base_digest=bytes(16),
        carried=(encode_payload(Leave(0, 2, 29, 5)),),
        scores=((3, -2, 0),),
    ),
    Ready(0, 0, 1, 1, 1, bytes(range(32)), (card_code(H7), 5, 6, 7, 8)),
    Play(2, 0, 17, 5, 1, ToFoundation(2, H7, NERTS, 3, None, (Card(2, 1, Suit.CLUBS),))),
    Play(1, 0, 9, 2, 3, ToFoundation(1, JOKER, WASTE, NEW_FOUNDATION, (1, Suit.SPADES))),
    Play(1, 0, 10, 3, 3, ToWork(1, Card(1, 9, Suit.CLUBS), 2, 0)),
    Play(1, 0, 11, 4, 3, SlideUnder(1, Card(1, 13, Suit.DIAMONDS), WASTE, 4)),
    Play(3, 0, 12, 6, 2, TurnStock(3, (Card(3, 2, Suit.SPADES), Card(3, 13, Suit.CLUBS)), 2)),
    Play(3, 0, 13, 7, 2, DeclareStuck(3)),
    Play(3, 0, 14, 8, 2, Rotate(3)),
    Play(3, 0, 15, 9, 2, CallNerts(3)),
    Ack(1, 0, 9, 3, (4, 5, 6), 12, bytes(16)),
    Ack(1, 0, 10, 4, (4, 5, 7), 12, bytes(16), ((2, 7, b"w" * 16),)),
    Evidence(1, 0, 10, 1, (encode_payload(Leave(0, 2, 29, 5)),)),
    Reveal(0, 0, 40, 20, 1, b"s" * 32),
    Ready(2, 0, 3, 1, 0, bytes(32), ()),
    TeamDeal(0, 0, 4, 1, 1, 2, b"a" * 32, b"b" * 32, b"c" * 32),
    Leave(5, 0, 99, 42),
]


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: type(m).__name__)
def test_every_message_round_trips(message: Message) -> None:
    assert decode(encode(message)) == message


def test_a_stream_split_anywhere_yields_the_same_messages() -> None:
    stream = b"".join(encode(m) for m in MESSAGES)
    for chunk in (1, 3, 7, 64, len(stream)):
        decoder = FrameDecoder()
        got = [m for i in range(0, len(stream), chunk) for m in decoder.feed(stream[i : i + chunk])]
        assert got == MESSAGES
        assert decoder.pending == 0


V = PROTOCOL_VERSION


def _frame(value: object) -> bytes:
    payload: bytes = msgpack.packb(value, use_bin_type=True)
    return len(payload).to_bytes(4, "big") + payload


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (b"\x00\x00\x00\x00", "frame length 0"),
        ((MAX_FRAME + 1).to_bytes(4, "big"), "frame length"),
        (b"\x00\x00\x00\x02\xc1\xc1", "undecodable frame"),
        (_frame([1, 5, 0, 0, 1, 1]), "protocol version 1"),
        (_frame([V, 99, 0, 0, 1, 1]), "unknown message kind 99"),
        (_frame([V, 5, 64, 0, 1, 1]), "sender"),
        (_frame([V, 5, 0, 0, 0, 1]), "clock"),
        (_frame([V, 5, 0, 0, "1", 1]), "clock"),
        (_frame([V, 5, 0, 0, 1, 1, [], b"", "extra"]), "Leave: expected 2 fields"),
        (_frame({"kind": 5}), "frame: expected an array"),
        (_frame([V, 2, 0, 0, 1, 1, 1, [2, 0, 9999, -1, 0, None, []], [], b""]), "card"),
        (_frame([V, 2, 0, 0, 1, 1, 1, [2, 0, 5, -3, 0, None, []], [], b""]), "source"),
        (_frame([V, 3, 0, 0, 1, 1, [1, 2], 3, b"short", [], [], 0]), "digest"),
        (_frame([V, 3, 0, 0, 1, 1, [1, 2], 3, b"d" * 16, [[0, 1, b"short"]], [], 0]), "heard"),
        (_frame([V, 10, 0, 0, 1, 1, []]), "Evidence.messages"),
        (_frame([V, 1, 0, 0, 1, 1, 1, b"x" * 32, [1, 2, 3, 4, 5, 6, 7, 8], [], b""]), "face_up"),
        (_frame([V, 4, 0, 0, 1, 1, 1, b"x" * 16, [], b""]), "secret"),
    ],
)
def test_malformed_frames_raise_a_clear_remote_error(frame: bytes, message: str) -> None:
    with pytest.raises(RemoteProtocolError, match=message):
        list(FrameDecoder().feed(frame))


@pytest.mark.parametrize(
    ("name", "fault"),
    [
        ("Eve\x1b]0;owned\x07", "a name cannot hold control characters"),
        ("Eve\u202e", "a name cannot hold control characters"),  # turns the text around
        ("   ", "a name cannot be empty or blank"),
        ("E" * 33, "a name is at most 32 characters, not 33"),
    ],
)
def test_a_name_that_would_mislead_or_take_over_a_screen_is_refused(name: str, fault: str) -> None:
    for link in (Hello(bytes(16), -1, name, 9), Watch(bytes(16), name, bytes(32), bytes(16))):
        with pytest.raises(RemoteProtocolError, match=f"{type(link).__name__}.name: {fault}"):
            decode(encode(link))
    hello = Hello(bytes(16), -1, "Ann Bé 🂡", 9)
    assert decode(encode(hello)) == hello


@pytest.mark.parametrize(
    ("name", "fault"),
    [
        ("Den\x1b[2J", "a table's name cannot hold control characters"),
        (" ", "a table's name cannot be empty or blank"),
        ("é" * 101, "a table's name is at most 200 bytes in UTF-8"),
    ],
)
def test_a_welcome_names_its_table_and_a_name_no_table_may_have_is_refused(
    name: str, fault: str
) -> None:
    welcome = Welcome(bytes(16), 1, 2, TableOptions(), "Den & co ♥")
    assert decode(encode(welcome)) == welcome
    with pytest.raises(RemoteProtocolError, match=f"Welcome.name: {fault}"):
        decode(encode(Welcome(bytes(16), 1, 2, TableOptions(), name)))


def test_a_truncated_frame_waits_for_the_rest_and_decode_refuses_it() -> None:
    frame = encode(MESSAGES[1])
    decoder = FrameDecoder()
    assert list(decoder.feed(frame[:-1])) == []
    assert decoder.pending == len(frame) - 1
    assert list(decoder.feed(frame[-1:])) == [MESSAGES[1]]
    with pytest.raises(RemoteProtocolError, match="not exactly one whole frame"):
        decode(frame[:-1])


def test_an_oversized_message_is_refused_before_it_is_sent() -> None:
    huge = Ack(0, 0, 1, 1, tuple(range(64)), 0, bytes(16))
    assert decode(encode(huge)) == huge
    with pytest.raises(RemoteProtocolError, match="have: expected an array"):
        decode(_frame([V, 3, 0, 0, 1, 1, list(range(65)), 0, bytes(16), [], [], 0]))


def test_a_rosters_address_is_the_hosts_own_or_an_ip_address() -> None:
    # A host's roster tells each seat where to dial the others, and a seat that cannot
    # be reached is named with its address on the screen: nothing else may be there.
    def roster(host: str) -> Roster:
        return Roster((Seat(0, "Ann", "", 9, bytes(32)), Seat(1, "Bea", host, 9, bytes(32))), True)

    for host in ("192.168.1.20", "fe80::1%eth0", "::1"):
        assert decode(encode(roster(host))) == roster(host)
    for host in ("\x1b[2Jhost", "kitchen.local", "1.2.3"):
        with pytest.raises(RemoteProtocolError, match="is not an IP address"):
            decode(encode(roster(host)))


_ITEMS = st.lists(
    st.one_of(
        st.integers(-3, 70),
        st.integers((MAX_SEATS << 6) - 2, (MAX_SEATS << 6) + 2),
        st.booleans(),
        st.floats(0, 9),
        st.binary(max_size=3),
        st.text(max_size=2),
        st.none(),
    ),
    max_size=16,
)


def _each(check: Callable[[Any, str], Any], items: list[Any]) -> tuple[Any, ...] | str:
    """``items`` checked one by one: what the array's check must give, or its error."""
    try:
        return tuple(check(v, "f") for v in items)
    except RemoteProtocolError as exc:
        return str(exc)


def _whole(field: Any, items: list[Any]) -> tuple[Any, ...] | str:
    try:
        return tuple(field.from_wire(items, "f"))
    except RemoteProtocolError as exc:
        return str(exc)


@given(_ITEMS)
def test_an_array_is_checked_whole_as_it_is_item_by_item(items: list[Any]) -> None:
    """Arrays of numbers, cards and frames are checked whole where they pass: the same
    values, and the same error, as checking each item."""
    numbers = _wire._numbers(MAX_SEATS, 1, 13)
    assert _whole(numbers, items) == _each(lambda v, w: _wire._int(v, w, 1, 13), items)
    assert _whole(_wire._card_codes(0, 16), items) == _each(_wire._card_code, items)
    assert _whole(_wire._frames(), items) == _each(_wire._FRAME.from_wire, items)
