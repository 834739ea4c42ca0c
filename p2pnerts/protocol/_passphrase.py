"""A private table's passphrase, and the proofs that a link's two ends know it, without
either end sending it or anything a guess can be tested against offline (SPEC §2.9).

The two ends of a link run SPAKE2 (the `spake2` package, Ed25519 group) with the
passphrase as its password: each sends one group element (in its Hello), and each gets a
key that is the other's only if both used the same passphrase. Anyone who runs an end
without it, as a newcomer or as a host, tests one guess a run, online, and learns nothing
to test another with: so a word like 'kitchen' holds against a stranger who may try only
a few guesses a minute (the host counts them), where an HMAC under a key drawn from the
passphrase alone let one connection test guesses at home, as fast as scrypt allowed.

Each end then gives an HMAC, under its SPAKE2 key, of the link's statement
(`_identity.link_statement`: the connection's handshake hash, both keys, both seats,
both nonces), so a proof made for one connection proves nothing on another. It travels
only inside the encrypted link. The answering end proves first, in its Hello; the opener
answers in its Proof.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Callable
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, hmac

from p2pnerts.protocol._errors import RemoteProtocolError

MAC_BYTES = 32
MAC_DOMAIN = b"p2pnerts/3 passphrase proof\x00"
PAKE_BYTES = 33
"""A SPAKE2 message: its side (b'A' from the opener, b'B' from the answerer), then an
Ed25519 group element."""
PAKE_IDS = {"idA": b"p2pnerts/3 opener", "idB": b"p2pnerts/3 answerer"}
"""SPAKE2's identities of the two ends, the same on every link: the link's statement,
under the key, names the ends."""
Entropy = Callable[[int], bytes]
"""Where a SPAKE2 run draws its secret: ``n`` random bytes."""
MAX_PASSPHRASE = 1024
"""The longest passphrase taken, in UTF-8 bytes."""


class TableSecret:
    """A table's passphrase, as both ends of a link take it: each link's `PassphraseRun`
    starts from it."""

    def __init__(self, passphrase: str) -> None:
        self._password = passphrase_bytes(passphrase)

    def opening(self, entropy: Entropy = os.urandom) -> PassphraseRun:
        """This end's run of SPAKE2 on a link it opens (side A); ``entropy`` gives its
        secret scalar's bytes (fixed only for golden.json's vector)."""
        from spake2 import SPAKE2_A  # (only a private table's links need it: 22 ms to load)

        return PassphraseRun(SPAKE2_A(self._password, entropy_f=entropy, **PAKE_IDS))

    def answering(self, entropy: Entropy = os.urandom) -> PassphraseRun:
        """This end's run of SPAKE2 on a link it answers (side B)."""
        from spake2 import SPAKE2_B

        return PassphraseRun(SPAKE2_B(self._password, entropy_f=entropy, **PAKE_IDS))


class PassphraseRun:
    """One end's SPAKE2 on one link: ``message`` to send, then `finish` with the other
    end's. Some 10-20 ms of pure-Python group arithmetic for both (run it off the event
    loop)."""

    def __init__(self, spake: Any) -> None:
        self._spake = spake
        self.message: bytes = spake.start()

    def finish(self, theirs: bytes) -> LinkProof:
        """The key this run agreed, which is the other end's only if both used the same
        passphrase; `RemoteProtocolError` for a message that is no other end's element
        (this end's own sent back, a point off the group)."""
        from spake2 import SPAKEError
        from spake2.ed25519_basic import NotOnCurve

        try:
            return LinkProof(self._spake.finish(theirs))
        except (SPAKEError, NotOnCurve, ValueError) as exc:
            raise RemoteProtocolError(f"a passphrase message that opens nothing ({exc})") from None


class LinkProof:
    """The key one link's SPAKE2 agreed: it proves, and checks proofs, that an end of that
    link knows the passphrase."""

    def __init__(self, key: bytes) -> None:
        self._key = key

    def prove(self, statement: bytes) -> bytes:
        """The MAC that shows this end knows the passphrase, for the link's statement."""
        mac = hmac.HMAC(self._key, hashes.SHA256())
        mac.update(MAC_DOMAIN + statement)
        return mac.finalize()

    def check(self, statement: bytes, proof: bytes) -> bool:
        """Whether ``proof`` is the MAC of ``statement`` under this key (in constant time)."""
        mac = hmac.HMAC(self._key, hashes.SHA256())
        mac.update(MAC_DOMAIN + statement)
        try:
            mac.verify(proof)
        except InvalidSignature:
            return False
        return True


def passphrase_bytes(passphrase: str) -> bytes:
    """A passphrase as SPAKE2 takes it: Unicode NFC (so the same words typed on two systems
    are the same bytes), UTF-8; `ValueError` if empty or too long."""
    data = unicodedata.normalize("NFC", passphrase).encode("utf-8")
    if not data or len(data) > MAX_PASSPHRASE:
        raise ValueError(f"a passphrase is 1 to {MAX_PASSPHRASE} bytes")
    return data
