"""A link's encryption (SPEC §2.8): the Noise handshake that opens every connection, and
the records that carry its frames, sealed and opened without any IO.

Theory of operation. The opening end sends its ephemeral X25519 key (`Opening.message`,
in a `Noise` frame), the answering end its own and a tag (`answer_opening`): Noise's NN
pattern, Noise_NN_25519_ChaChaPoly_SHA256, run by the `noiseprotocol` package. Both ends
then hold two keys, one for each direction, and the handshake hash (`Channel.hash`), which
names everything the handshake said. Nobody is authenticated by NN itself: the seats prove
their keys afterwards, inside the encrypted link, by signing statements that include the
hash (`_identity.link_statement`). A relay that runs a handshake with each end holds two
different hashes, so a proof it passes on from one end proves nothing to the other.

Each frame then travels as one or more records: an explicit 64-bit counter, which is the
AEAD nonce (Noise §11.4, as WireGuard does: a datagram can be opened alone), and a Noise
transport message of at most 65,535 bytes. Over TCP a record is preceded by its length,
and a receiver takes only the next counter (`Channel.open`); over datagrams a receiver
would take each counter once.
"""

from __future__ import annotations

import warnings
from typing import Any

from cryptography.exceptions import InvalidTag
from noise.connection import Keypair, NoiseConnection
from noise.exceptions import NoiseHandshakeError, NoiseInvalidMessage, NoiseValueError

from p2pnerts.protocol._errors import RemoteProtocolError

_REFUSED = (InvalidTag, ValueError, NoiseValueError, NoiseInvalidMessage, NoiseHandshakeError)
"""What the package raises for a handshake message that does not open (a tag that does not
check, a key X25519 refuses)."""

NOISE_NAME = b"Noise_NN_25519_ChaChaPoly_SHA256"
PROLOGUE = b"p2pnerts/3 link\x00"
"""Mixed into the handshake hash before the first message: both ends must mean this."""
KEY_BYTES = 32
TAG_BYTES = 16
HASH_BYTES = 32
OPENING_BYTES = KEY_BYTES
"""The opener's handshake message: its ephemeral public key."""
ANSWER_BYTES = KEY_BYTES + TAG_BYTES
"""The answerer's: its ephemeral public key, then the tag of an empty payload."""
NOISE_MOST = 65535
"""The longest Noise message (Noise §3): a record's ciphertext, its tag included."""
PIECE_MOST = NOISE_MOST - TAG_BYTES
"""The most plaintext one record carries."""
COUNTER_BYTES = 8
LENGTH_BYTES = 2
LAST_COUNTER = 2**64 - 2
"""Noise reserves 2^64 - 1: a link that has sealed this many records must be opened anew."""


def _handshake(initiator: bool, ephemeral: bytes | None) -> Any:
    noise = NoiseConnection.from_name(NOISE_NAME)
    if initiator:
        noise.set_as_initiator()
    else:
        noise.set_as_responder()
    noise.set_prologue(PROLOGUE)
    if ephemeral is not None:  # fixed keys, for the golden vectors alone
        noise.set_keypair_from_private_bytes(Keypair.EPHEMERAL, ephemeral)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (it warns of a fixed ephemeral key)
        noise.start_handshake()
    return noise


class Opening:
    """The opening end's half of a handshake: its `message`, then `finish` with the
    answer."""

    def __init__(self, ephemeral: bytes | None = None) -> None:
        self._noise = _handshake(True, ephemeral)
        self.message = bytes(self._noise.write_message())

    def finish(self, answer: bytes) -> Channel:
        """The link the answerer's message opens; `RemoteProtocolError` if it opens none."""
        if len(answer) != ANSWER_BYTES:
            raise RemoteProtocolError(f"a Noise answer of {len(answer)} bytes, not {ANSWER_BYTES}")
        try:
            self._noise.read_message(answer)
        except _REFUSED as exc:
            raise RemoteProtocolError(f"a Noise answer that does not open: {exc!r}") from None
        return Channel(self._noise)


def answer_opening(opening: bytes, ephemeral: bytes | None = None) -> tuple[bytes, Channel]:
    """The answering end's message to the opener's ``opening``, and the link it opens;
    `RemoteProtocolError` if ``opening`` is no opener's message."""
    if len(opening) != OPENING_BYTES:
        raise RemoteProtocolError(f"a Noise opening of {len(opening)} bytes, not {OPENING_BYTES}")
    noise = _handshake(False, ephemeral)
    try:
        noise.read_message(opening)
        message = bytes(noise.write_message())
    except _REFUSED as exc:
        raise RemoteProtocolError(f"a Noise opening that does not open: {exc!r}") from None
    return message, Channel(noise)


class Channel:
    """One end of an open link: `seal` frames into records, `open` records into frames.

    ``hash`` is the handshake hash, the same at both ends of one handshake and at no other:
    what the seats' proofs bind to this link."""

    def __init__(self, noise: Any) -> None:
        protocol = noise.noise_protocol
        self.hash: bytes = bytes(noise.get_handshake_hash())
        self._out = protocol.cipher_state_encrypt
        self._in = protocol.cipher_state_decrypt
        self._sent = 0
        """The counter of the next record sealed."""
        self._due = 0
        """The counter the next record opened must carry."""
        self._buffer = bytearray()
        """Bytes of a record not yet whole."""
        self._wanted = LENGTH_BYTES
        """How many bytes ``_buffer`` must hold before a record in it is whole."""

    def seal_record(self, piece: bytes) -> bytes:
        """One record: the next counter (8 bytes, big-endian) and ``piece`` sealed under it
        (at most `PIECE_MOST` bytes): what a datagram would carry."""
        if self._sent > LAST_COUNTER:
            raise OverflowError("this link has sealed all the records it may")
        counter, self._sent = self._sent, self._sent + 1
        self._out.set_nonce(counter)
        sealed: bytes = self._out.encrypt_with_ad(b"", piece)
        return counter.to_bytes(COUNTER_BYTES, "big") + sealed

    def open_record(self, record: bytes) -> tuple[int, bytes]:
        """A record's counter and plaintext; `RemoteProtocolError` if it does not open under
        its counter (forged, altered, or sealed for another link)."""
        counter = int.from_bytes(record[:COUNTER_BYTES], "big")
        if counter > LAST_COUNTER:
            raise RemoteProtocolError(f"record counter {counter} is beyond Noise's last")
        self._in.set_nonce(counter)
        try:
            plain: bytes = self._in.decrypt_with_ad(b"", record[COUNTER_BYTES:])
            return counter, plain
        except InvalidTag:
            raise RemoteProtocolError(
                f"record {counter} does not open: not sealed for this link"
            ) from None

    def seal(self, frame: bytes) -> bytes:
        """A frame as it goes on a TCP stream: its records, each after its Noise message's
        length (2 bytes, big-endian)."""
        out = bytearray()
        for start in range(0, len(frame), PIECE_MOST):
            record = self.seal_record(frame[start : start + PIECE_MOST])
            out += (len(record) - COUNTER_BYTES).to_bytes(LENGTH_BYTES, "big") + record
        return bytes(out)

    def open(self, data: bytes) -> bytes:
        """Take bytes from a TCP stream; the plaintext of every record now complete. Each
        record must carry the counter after the last one's (TCP neither loses nor reorders):
        any other is a `RemoteProtocolError`, after which the link is beyond repair."""
        if self._buffer:
            self._buffer += data
            if len(self._buffer) < self._wanted:  # (bytes that trickle in cost no copies)
                return b""
            data = bytes(self._buffer)
        plain, at, end = [], 0, len(data)
        while end - at >= LENGTH_BYTES:
            size = int.from_bytes(data[at : at + LENGTH_BYTES], "big")
            if size < TAG_BYTES:
                raise RemoteProtocolError(f"a record of {size} bytes: shorter than its tag")
            stop = at + LENGTH_BYTES + COUNTER_BYTES + size
            if stop > end:
                break
            record = data[at + LENGTH_BYTES : stop]
            counter = int.from_bytes(record[:COUNTER_BYTES], "big")
            if counter != self._due:
                raise RemoteProtocolError(f"record counter {counter} where {self._due} was due")
            plain.append(self.open_record(record)[1])
            self._due += 1
            at = stop
        self._buffer = bytearray(data[at:])
        self._wanted = stop - at if end - at >= LENGTH_BYTES else LENGTH_BYTES
        return b"".join(plain)
