"""A private table's passphrase: the key drawn from it, and the proofs of a link's two ends."""

from __future__ import annotations

import pytest

from p2pnerts.protocol import (
    ANSWERER,
    OPENER,
    Hello,
    Proof,
    RemoteProtocolError,
    SeatKey,
    TableSecret,
    decode,
    encode,
    link_statement,
    table_terms,
)
from p2pnerts.rules import TableOptions

TABLE = bytes.fromhex("00112233445566778899aabbccddeeff")
HOST = SeatKey.from_secret(bytes(range(32)))
NEWCOMER = SeatKey.from_secret(bytes(range(1, 33)))


def _hellos(
    opener_nonce: bytes, answerer_nonce: bytes, opener: SeatKey = NEWCOMER
) -> tuple[Hello, Hello]:
    newcomer = Hello(bytes(16), -1, "Bea", 4001, opener.public, opener_nonce)
    host = Hello(TABLE, 0, "Ann", 4000, HOST.public, answerer_nonce)
    return newcomer, host


LINK = bytes(range(100, 132))
"""A connection's handshake hash (`Channel.hash`)."""


def _statements(newcomer: Hello, host: Hello, binding: bytes = LINK) -> tuple[bytes, bytes]:
    return (
        link_statement(ANSWERER, binding, TABLE, newcomer, host),
        link_statement(OPENER, binding, TABLE, newcomer, host),
    )


@pytest.fixture(scope="module")
def right() -> TableSecret:
    return TableSecret.derive("correct horse battery staple", TABLE)


def test_both_ends_with_the_right_passphrase_prove_it_to_each_other(right: TableSecret) -> None:
    joiner = TableSecret.derive("correct horse battery staple", TABLE)
    answerer, opener = _statements(*_hellos(b"n" * 16, b"h" * 16))
    assert joiner.check(answerer, right.prove(answerer))  # the joiner knows the host knows
    assert right.check(opener, joiner.prove(opener))  # and the host that the joiner does


def test_a_wrong_passphrase_proves_nothing_either_way(right: TableSecret) -> None:
    wrong = TableSecret.derive("correct horse battery stapler", TABLE)
    answerer, opener = _statements(*_hellos(b"n" * 16, b"h" * 16))
    assert not wrong.check(answerer, right.prove(answerer))
    assert not right.check(opener, wrong.prove(opener))


def test_no_proof_at_all_is_no_proof(right: TableSecret) -> None:
    _, opener = _statements(*_hellos(b"n" * 16, b"h" * 16))
    assert not right.check(opener, b"")
    assert not right.check(opener, bytes(32))


def test_a_replayed_proof_fails_on_a_new_connection(right: TableSecret) -> None:
    _, recorded = _statements(*_hellos(b"n" * 16, b"h" * 16))
    proof = right.prove(recorded)
    _, fresh = _statements(*_hellos(b"n" * 16, b"H" * 16))  # the host's nonce is new
    assert right.check(recorded, proof) and not right.check(fresh, proof)


def test_a_proof_made_on_one_link_fails_on_another_whatever_else_it_names(
    right: TableSecret,
) -> None:
    """A relay that runs a handshake with each end holds two hashes: the proof one end made
    for its link to the relay does not check on the relay's link to the other end."""
    hellos = _hellos(b"n" * 16, b"h" * 16)
    _, joiner_side = _statements(*hellos, binding=LINK)
    _, host_side = _statements(*hellos, binding=bytes(range(200, 232)))
    assert not right.check(host_side, right.prove(joiner_side))


def test_a_proof_cannot_be_relayed_for_another_key(right: TableSecret) -> None:
    _, theirs = _statements(*_hellos(b"n" * 16, b"h" * 16))
    _, mine = _statements(*_hellos(b"n" * 16, b"h" * 16, opener=SeatKey.generate()))
    assert not right.check(mine, right.prove(theirs))


def test_the_key_is_salted_by_the_table_and_the_same_across_unicode_forms(
    right: TableSecret,
) -> None:
    _, statement = _statements(*_hellos(b"n" * 16, b"h" * 16))
    elsewhere = TableSecret.derive("correct horse battery staple", bytes(16))
    assert not right.check(statement, elsewhere.prove(statement))
    composed = TableSecret.derive("caf\u00e9", TABLE)
    decomposed = TableSecret.derive("cafe\u0301", TABLE)
    assert composed.check(statement, decomposed.prove(statement))


def test_an_empty_passphrase_is_refused() -> None:
    with pytest.raises(ValueError, match="1 to 1024 bytes"):
        TableSecret.derive("", TABLE)


def test_hello_and_proof_carry_the_proofs_and_the_terms_on_the_wire() -> None:
    terms = table_terms(TABLE, TableOptions(), 4)
    hello = Hello(TABLE, 2, "Cal", 4002, HOST.public, b"n" * 16, b"s" * 64, b"m" * 32, terms)
    assert decode(encode(hello)) == hello
    proof = Proof(b"s" * 64, b"m" * 32)
    assert decode(encode(proof)) == proof
    assert decode(encode(Proof(b"s" * 64))) == Proof(b"s" * 64, b"")
    with pytest.raises(RemoteProtocolError, match="0 or 32 bytes"):
        decode(encode(Proof(b"s" * 64, b"m" * 31)))


def test_the_terms_tell_tables_sizes_and_options_apart() -> None:
    terms = table_terms(TABLE, TableOptions(), 4)
    assert terms == table_terms(TABLE, TableOptions(), 4)
    assert terms != table_terms(TABLE, TableOptions(target=50), 4)
    assert terms != table_terms(TABLE, TableOptions(), 3)
    assert terms != table_terms(bytes(16), TableOptions(), 4)
