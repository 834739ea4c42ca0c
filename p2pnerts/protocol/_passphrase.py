"""A private table's passphrase: the key drawn from it, and the proofs that a link's two
ends know it, without either end sending it (SPEC §2.9).

The key is scrypt of the passphrase, salted with the (public, random) table id, so that
no guess can be tried before a table exists and every guess costs one scrypt. Each end of
a newcomer's link to the host then gives an HMAC, under that key, of the link's statement
(`_identity.link_statement`: the connection's handshake hash, both keys, both seats, both
nonces), so a proof made for one connection proves nothing on another, and one made for
one key cannot be relayed for another. It travels only inside the encrypted link. The host
proves first, in its Hello; the newcomer answers in its Proof.
"""

from __future__ import annotations

import unicodedata

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, hmac
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

SCRYPT_N = 2**15
SCRYPT_R = 8
SCRYPT_P = 1
"""scrypt's cost (N), block size (r) and parallelism (p): 32 MiB and some 50-100 ms a
guess on a laptop (SPEC §2.9)."""
SECRET_BYTES = 32
MAC_BYTES = 32
SALT_DOMAIN = b"p2pnerts/2 table passphrase\x00"
MAC_DOMAIN = b"p2pnerts/3 passphrase proof\x00"
MAX_PASSPHRASE = 1024
"""The longest passphrase taken, in UTF-8 bytes."""


class TableSecret:
    """The key a table's passphrase gives: it proves, and checks proofs, that an end of a
    link knows the passphrase."""

    def __init__(self, key: bytes) -> None:
        if len(key) != SECRET_BYTES:
            raise ValueError(f"a table secret is {SECRET_BYTES} bytes")
        self._key = key

    @classmethod
    def derive(cls, passphrase: str, table: bytes) -> TableSecret:
        """The key of ``passphrase`` at table ``table``: slow on purpose (run it off the
        event loop). The passphrase is taken in Unicode NFC, so the same words typed on
        two systems give the same key."""
        secret = passphrase_bytes(passphrase)
        kdf = Scrypt(
            salt=SALT_DOMAIN + table, length=SECRET_BYTES, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P
        )
        return cls(kdf.derive(secret))

    def prove(self, statement: bytes) -> bytes:
        """The MAC that shows this end knows the passphrase, for one link's statement."""
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
    """A passphrase as scrypt takes it: NFC, UTF-8; `ValueError` if empty or too long."""
    data = unicodedata.normalize("NFC", passphrase).encode("utf-8")
    if not data or len(data) > MAX_PASSPHRASE:
        raise ValueError(f"a passphrase is 1 to {MAX_PASSPHRASE} bytes")
    return data
