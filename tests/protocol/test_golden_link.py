"""The golden link of ``protocol/golden.json`` (SPEC §2.8, §2.9), worked out by hand.

The Noise handshake and the records are computed here from the Noise specification's own
steps (SHA-256, HMAC-based HKDF, X25519, ChaCha20-Poly1305 from `cryptography`), never
through `noiseprotocol` or `p2pnerts.protocol._channel`, and a private table's SPAKE2 run
from §2.9's steps (the group's additions and multiplications alone from `spake2`), so that
the file shows what a peer written from the SPEC alone must compute, and the package is
checked against it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from p2pnerts.protocol import Noise, Opening, answer_opening, decode

ROOT = Path(__file__).resolve().parents[2]
GOLDEN: dict[str, Any] = json.loads((ROOT / "protocol" / "golden.json").read_text("utf-8"))
LINK: dict[str, Any] = GOLDEN["vectors"]["link"]
NAME = b"Noise_NN_25519_ChaChaPoly_SHA256"
PAKE_IDS = (b"p2pnerts/3 opener", b"p2pnerts/3 answerer")
"""SPAKE2's idA and idB (SPEC §2.9)."""


def _hkdf(chaining: bytes, material: bytes) -> tuple[bytes, bytes]:
    temp = hmac.digest(chaining, material, "sha256")
    first = hmac.digest(temp, b"\x01", "sha256")
    return first, hmac.digest(temp, first + b"\x02", "sha256")


def _nonce(counter: int) -> bytes:
    return bytes(4) + counter.to_bytes(8, "little")


def _public(private: bytes) -> bytes:
    return X25519PrivateKey.from_private_bytes(private).public_key().public_bytes_raw()


def _by_hand() -> tuple[bytes, bytes, bytes, bytes, bytes]:
    """Noise NN from the two fixed ephemeral keys: the two messages, the handshake hash,
    and the opener's and the answerer's sending keys."""
    opener, answerer = (bytes.fromhex(LINK[k]) for k in ("opener_ephemeral", "answerer_ephemeral"))
    h = NAME  # exactly HASHLEN bytes: taken as it is
    chaining = h
    h = hashlib.sha256(h + LINK["prologue"].encode("ascii")).digest()
    opening = _public(opener)
    h = hashlib.sha256(h + opening).digest()
    h = hashlib.sha256(h).digest()  # the empty payload, sent in the clear
    theirs = _public(answerer)
    h = hashlib.sha256(h + theirs).digest()
    shared = X25519PrivateKey.from_private_bytes(answerer).exchange(
        X25519PublicKey.from_public_bytes(opening)
    )
    chaining, key = _hkdf(chaining, shared)
    tag = ChaCha20Poly1305(key).encrypt(_nonce(0), b"", h)
    h = hashlib.sha256(h + tag).digest()
    to_answerer, to_opener = _hkdf(chaining, b"")
    return opening, theirs + tag, h, to_answerer, to_opener


def test_the_golden_handshake_is_noise_nn_step_by_step() -> None:
    opening, answer, h, _, _ = _by_hand()
    assert (opening.hex(), answer.hex(), h.hex()) == (LINK["opening"], LINK["answer"], LINK["hash"])
    frames = {f["name"]: decode(bytes.fromhex(f["hex"])) for f in GOLDEN["link_frames"]}
    assert frames["noise-opening"] == Noise(opening)
    assert frames["noise-answer"] == Noise(answer)


def test_the_golden_record_is_the_frame_sealed_under_counter_zero() -> None:
    _, _, _, to_answerer, _ = _by_hand()
    record = bytes.fromhex(LINK["record"])
    length, counter = int.from_bytes(record[:2], "big"), int.from_bytes(record[2:10], "big")
    assert counter == 0 and length == len(record) - 10
    frame = ChaCha20Poly1305(to_answerer).decrypt(_nonce(0), record[10:], b"")
    assert frame.hex() == LINK["frame"]
    assert decode(frame) == next(
        decode(bytes.fromhex(f["hex"]))
        for f in GOLDEN["link_frames"]
        if f["name"] == "hello-newcomer"
    )


def test_the_package_makes_the_golden_handshake_and_record_from_the_same_keys() -> None:
    ephemeral = {k: bytes.fromhex(LINK[f"{k}_ephemeral"]) for k in ("opener", "answerer")}
    opening = Opening(ephemeral["opener"])
    answer, answerer = answer_opening(opening.message, ephemeral["answerer"])
    opener = opening.finish(answer)
    assert (opening.message.hex(), answer.hex()) == (LINK["opening"], LINK["answer"])
    assert opener.hash.hex() == answerer.hash.hex() == LINK["hash"]
    assert opener.seal(bytes.fromhex(LINK["frame"])).hex() == LINK["record"]
    assert answerer.open(bytes.fromhex(LINK["record"])).hex() == LINK["frame"]
    large = opener.seal(bytes(i % 251 for i in range(70_000)))
    assert hashlib.sha256(large).hexdigest() == LINK["large_sha256"]
    _, _, _, to_answerer, _ = _by_hand()
    first = ChaCha20Poly1305(to_answerer).decrypt(_nonce(1), large[10 : 10 + 65535], b"")
    assert first == bytes(i % 251 for i in range(65519))


def _hkdf_sha256(key: bytes, info: bytes) -> int:
    """HKDF-SHA-256 (RFC 5869) with an empty salt, 48 bytes, read big-endian."""
    prk = hmac.digest(bytes(32), key, "sha256")
    first = hmac.digest(prk, info + b"\x01", "sha256")
    second = hmac.digest(prk, first + info + b"\x02", "sha256")
    return int.from_bytes((first + second)[:48], "big")


def test_the_golden_passphrase_run_is_spake2_as_section_2_9_spells_it_out() -> None:
    """SPEC §2.9's steps, with the group's arithmetic from `spake2`'s Ed25519 (elements
    added and multiplied, nothing more): the password scalar, both messages, the key, and
    the host's MAC in golden.json."""
    from spake2 import ed25519_basic as ed

    vector = GOLDEN["vectors"]["passphrase"]
    spec = (ROOT / "protocol" / "SPEC.md").read_text("utf-8")
    m_hex, n_hex = (spec.split(f"`{name} = ")[1][:64] for name in ("M", "N"))
    M, N = ed.bytes_to_element(bytes.fromhex(m_hex)), ed.bytes_to_element(bytes.fromhex(n_hex))
    for seed, element in ((b"M", M), (b"N", N)):
        y = _hkdf_sha256(seed, b"SPAKE2 arbitrary element") % ed.Q
        while True:  # the first y on from there whose point, times 8, is no identity
            point = (ed.xrecover(y), y)  # (x the even root)
            if ed.isoncurve(point):
                extended = ed.ElementOfUnknownGroup(ed.xform_affine_to_extended(point))
                times_8 = extended.scalarmult(8)
                if times_8.to_bytes() != ed.Zero.to_bytes():
                    break
            y = (y + 1) % ed.Q
        assert times_8.to_bytes() == element.to_bytes()
    password = vector["passphrase"].encode()
    w = _hkdf_sha256(password, b"SPAKE2 pw") % ed.L
    x = int.from_bytes(bytes.fromhex(vector["opener_entropy_byte"]) * 64, "big") % ed.L
    y = int.from_bytes(bytes.fromhex(vector["answerer_entropy_byte"]) * 64, "big") % ed.L
    x_star = ed.Base.scalarmult(x).add(M.scalarmult(w))
    y_star = ed.Base.scalarmult(y).add(N.scalarmult(w))
    newcomer, host = (decode(bytes.fromhex(vector[k])) for k in ("newcomer_hello", "host_hello"))
    assert newcomer.pake == b"A" + x_star.to_bytes()  # type: ignore[union-attr]
    assert host.pake == b"B" + y_star.to_bytes()  # type: ignore[union-attr]
    k_a = y_star.add(N.scalarmult(-w)).scalarmult(x)
    k_b = x_star.add(M.scalarmult(-w)).scalarmult(y)
    assert k_a.to_bytes() == k_b.to_bytes()
    hashed = [hashlib.sha256(text).digest() for text in (password, *PAKE_IDS)]
    key = hashlib.sha256(b"".join([*hashed, x_star.to_bytes(), y_star.to_bytes(), k_a.to_bytes()]))
    statement = bytes.fromhex(vector["answerer_statement"])
    domain = b"p2pnerts/3 passphrase proof\x00"
    assert host.mac == hmac.digest(key.digest(), domain + statement, "sha256")  # type: ignore[union-attr]
