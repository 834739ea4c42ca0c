"""Signed messages: what a seat says in the order is its own, and stays provably so.

Every ordered message (Ready, Play, Reveal, Leave), every vote (ViewChange), every
StartView and every Rejoin carries its sender's Ed25519 signature (SPEC §3.7). The
signature covers the message as the order hashes it (`bare`: a StartView without the
messages it carries, each of which is signed by its own sender) with ``sig`` empty, after
a domain tag that names the protocol's version and the table's id: a message signed at
one table proves nothing at another, even were a key ever used at both. So a message
carried in a StartView is as verifiable as one that came straight from its sender, and
nobody — a coordinator included — can put words in another seat's mouth, nor say that a
seat asked to come back when it did not.

A `Signer` holds this seat's key and every seat's public key (from the roster).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TypeVar

from p2pnerts.protocol._codec import encode_payload
from p2pnerts.protocol._identity import SeatKey, verify
from p2pnerts.protocol._messages import (
    Ballot,
    CommitFrame,
    Leave,
    Message,
    Play,
    Ready,
    Rejoin,
    Reveal,
    StartView,
    Tally,
    ViewChange,
    bare,
)

SIGNED = (Ready, Play, Reveal, Leave, ViewChange, StartView, Rejoin, Ballot, Tally)
"""The kinds of message a seat signs (a Ballot and a Tally: version 3's, not yet sent)."""
MESSAGE_DOMAIN = b"p2pnerts/3 message\x00"
TABLE_BYTES = 16
"""A table's id, as its signatures name it (SPEC §3.7)."""
SIMULATED = bytes(TABLE_BYTES)
"""The table id a simulated table signs with: its keys are computed, it has no other."""
VERIFIED_KEPT = 1 << 16
"""How many verdicts on signatures a process remembers: a message verified once (by
one replica of a simulated table, or when it comes again carried), or signed here, is not
verified again."""

M = TypeVar("M", bound=Message | CommitFrame)
SignedMessage = Ready | Play | Reveal | Leave | ViewChange | StartView | Rejoin | Ballot | Tally


def signed_bytes(message: Message | CommitFrame, table: bytes) -> bytes:
    """What a signature of ``message`` at the table ``table`` covers."""
    if len(table) != TABLE_BYTES:
        raise ValueError(f"a table id is {TABLE_BYTES} bytes")
    unsigned = bare(message)
    if unsigned.sig:  # type: ignore[union-attr]
        unsigned = replace(unsigned, sig=b"")  # type: ignore[arg-type]
    return MESSAGE_DOMAIN + table + encode_payload(unsigned)


_Verdict = tuple[bytes, bytes, bytes]
_verdicts: dict[_Verdict, tuple[SignedMessage, bool]] = {}
"""Verdicts on signatures, each keyed by the public key, the table and the signature, with
the message it was given on (an equal message has equal signed bytes, and so the same
verdict; another message under the same signature is verified, and its verdict kept in
place of the first), the oldest forgotten first past `VERIFIED_KEPT`. Keyed by bytes, whose
hashes are kept, a look-up does not hash the message's every field."""


def _genuine(public: bytes, table: bytes, message: SignedMessage) -> bool:
    key = (public, table, message.sig)
    kept = _verdicts.get(key)
    if kept is not None and kept[0] == message:
        return kept[1]
    verdict = verify(public, message.sig, signed_bytes(message, table))
    _remember(key, message, verdict)
    return verdict


def _remember(key: _Verdict, message: SignedMessage, verdict: bool) -> None:
    _verdicts.pop(key, None)
    if len(_verdicts) >= VERIFIED_KEPT:
        del _verdicts[next(iter(_verdicts))]
    _verdicts[key] = (message, verdict)


class Signer:
    """Signs this seat's messages, and tells whether another seat's are its own."""

    def __init__(self, key: SeatKey, keys: Sequence[bytes], table: bytes = SIMULATED) -> None:
        if len(table) != TABLE_BYTES:
            raise ValueError(f"a table id is {TABLE_BYTES} bytes")
        self.key = key
        self.keys = tuple(keys)
        """Every seat's public key, by seat."""
        self.table = table
        """The table's id, which every signature names."""

    @classmethod
    def computed(
        cls, seat: int, players: int, seed: bytes = b"", table: bytes = SIMULATED
    ) -> Signer:
        """A signer whose keys anyone can compute from ``seed``: for simulations and tests,
        never for a table on the network (the network gives every seat a key of its own)."""
        keys = [_computed_key(s, seed) for s in range(players)]
        return cls(keys[seat], [k.public for k in keys], table)

    def sign(self, message: M) -> M:
        """``message``, signed if it is of a kind that is."""
        if not isinstance(message, SIGNED):
            return message
        signed = replace(message, sig=self.key.sign(signed_bytes(message, self.table)))
        # A signature made here verifies under this key (Ed25519 signs deterministically,
        # and verifying what it signed cannot fail): in a simulation, where every replica
        # shares the process, the replicas that receive it need not verify it again. A
        # copy changed in any field, or named another seat's, is verified as ever.
        _remember((self.key.public, self.table, signed.sig), signed, True)
        return signed

    def genuine(self, message: Message | CommitFrame) -> bool:
        """Whether ``message`` carries its sender's signature (True for kinds not signed)."""
        if not isinstance(message, SIGNED):
            return True
        if not 0 <= message.sender < len(self.keys):
            return False
        return _genuine(self.keys[message.sender], self.table, message)

    def first_forged(
        self, messages: Iterable[Message | CommitFrame]
    ) -> Message | CommitFrame | None:
        """The first of ``messages`` that does not carry its sender's signature, if any:
        a frame and what it carries, checked together."""
        return next((m for m in messages if not self.genuine(m)), None)


def _computed_key(seat: int, seed: bytes) -> SeatKey:
    secret = hashlib.sha256(b"p2pnerts computed seat key\x00" + seed + bytes((seat,))).digest()
    return SeatKey.from_secret(secret)
