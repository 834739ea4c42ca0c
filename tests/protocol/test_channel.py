"""A link's encryption, without sockets: the Noise handshake's two ends, and the records
that carry frames between them (SPEC §2.8)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2pnerts.protocol import Channel, Hello, Opening, RemoteProtocolError, answer_opening, encode
from p2pnerts.protocol._channel import ANSWER_BYTES, OPENING_BYTES, PIECE_MOST


def _link() -> tuple[Channel, Channel]:
    """The opener's end and the answerer's of one handshake."""
    opening = Opening()
    message, answerer = answer_opening(opening.message)
    return opening.finish(message), answerer


FRAME = encode(Hello(bytes(16), -1, "Bea", 4001, bytes(range(32)), bytes(16)))


def test_both_ends_hold_one_hash_and_each_opens_what_the_other_seals() -> None:
    opener, answerer = _link()
    assert opener.hash == answerer.hash and len(opener.hash) == 32
    assert answerer.open(opener.seal(FRAME)) == FRAME
    assert opener.open(answerer.seal(FRAME)) == FRAME


def test_the_handshake_messages_are_the_ephemeral_keys_and_nothing_else() -> None:
    opening = Opening()
    message, _ = answer_opening(opening.message)
    assert (len(opening.message), len(message)) == (OPENING_BYTES, ANSWER_BYTES)


def test_a_relay_running_a_handshake_with_each_end_holds_two_hashes_and_cannot_forward() -> None:
    joiner, relay_to_joiner = _link()
    relay_to_host, host = _link()
    assert joiner.hash != host.hash
    assert {relay_to_joiner.hash, relay_to_host.hash} == {joiner.hash, host.hash}
    with pytest.raises(RemoteProtocolError, match="does not open"):
        host.open(joiner.seal(FRAME))  # bytes copied across unopened open nowhere


def test_a_record_hides_its_frame() -> None:
    opener, _ = _link()
    sealed = opener.seal(FRAME)
    assert b"Bea" not in sealed and bytes(range(32)) not in sealed
    assert len(sealed) == len(FRAME) + 2 + 8 + 16  # length, counter, tag


def test_a_record_sent_again_is_refused() -> None:
    opener, answerer = _link()
    first = opener.seal(FRAME)
    answerer.open(first)
    with pytest.raises(RemoteProtocolError, match="record counter 0 where 1 was due"):
        answerer.open(first)


def test_a_record_that_skips_one_is_refused() -> None:
    opener, answerer = _link()
    opener.seal(FRAME)  # lost, or held back by someone between
    with pytest.raises(RemoteProtocolError, match="record counter 1 where 0 was due"):
        answerer.open(opener.seal(FRAME))


@pytest.mark.parametrize("at", [12, 40, -1], ids=["the text", "the middle", "the tag"])
def test_a_record_altered_anywhere_is_refused(at: int) -> None:
    opener, answerer = _link()
    sealed = bytearray(opener.seal(FRAME))
    sealed[at] ^= 1
    with pytest.raises(RemoteProtocolError, match="does not open"):
        answerer.open(bytes(sealed))


def test_a_counter_altered_is_refused_even_where_it_would_be_due() -> None:
    opener, answerer = _link()
    opener.seal(FRAME)
    sealed = bytearray(opener.seal(FRAME))  # counter 1
    sealed[2:10] = bytes(8)  # says 0, which is due: but 0 is not the nonce it was sealed with
    with pytest.raises(RemoteProtocolError, match="record 0 does not open"):
        answerer.open(bytes(sealed))


@given(size=st.integers(1, 3 * PIECE_MOST), chunk=st.integers(1, 70_000))
def test_a_frame_of_any_size_arrives_whole_however_the_stream_cuts_it(
    size: int, chunk: int
) -> None:
    opener, answerer = _link()
    frame = bytes(i % 251 for i in range(size))
    stream = opener.seal(frame) + opener.seal(FRAME)
    got = b"".join(answerer.open(stream[i : i + chunk]) for i in range(0, len(stream), chunk))
    assert got == frame + FRAME


def test_a_record_is_at_most_what_noise_allows() -> None:
    opener, _ = _link()
    sealed = opener.seal(bytes(PIECE_MOST + 1))
    first = int.from_bytes(sealed[:2], "big")
    assert first == 65535  # a Noise message's most: the piece and its tag
    assert int.from_bytes(sealed[2:10], "big") == 0
    second = sealed[10 + first :]
    assert int.from_bytes(second[:2], "big") == 1 + 16
    assert int.from_bytes(second[2:10], "big") == 1


@pytest.mark.parametrize(
    "opening",
    [bytes(31), bytes(33), bytes(32)],
    ids=["short", "long", "a key X25519 refuses"],
)
def test_an_opening_that_is_no_key_is_refused(opening: bytes) -> None:
    with pytest.raises(RemoteProtocolError, match="Noise opening"):
        answer_opening(opening)


def test_an_answer_whose_tag_does_not_check_is_refused() -> None:
    opening = Opening()
    message, _ = answer_opening(opening.message)
    with pytest.raises(RemoteProtocolError, match="Noise answer"):
        opening.finish(message[:-1] + bytes((message[-1] ^ 1,)))


def test_a_record_trickling_in_a_byte_at_a_time_opens_once_whole() -> None:
    opener, answerer = _link()
    stream = opener.seal(bytes(PIECE_MOST))
    got = [answerer.open(stream[i : i + 1]) for i in range(len(stream))]
    assert got[-1] == bytes(PIECE_MOST) and not any(got[:-1])
