"""A private table's passphrase: SPAKE2 on each link, and the proofs of its two ends."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from p2pnerts.protocol import (
    ANSWERER,
    OPENER,
    Hello,
    LinkProof,
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


RIGHT = "correct horse battery staple"


def _linked(newcomer: str, host: str) -> tuple[LinkProof, LinkProof]:
    """The keys a newcomer knowing ``newcomer`` and a host knowing ``host`` get from one
    link's SPAKE2."""
    mine, theirs = TableSecret(newcomer).opening(), TableSecret(host).answering()
    return mine.finish(theirs.message), theirs.finish(mine.message)


def test_both_ends_with_the_right_passphrase_prove_it_to_each_other() -> None:
    joiner, host = _linked(RIGHT, RIGHT)
    answerer, opener = _statements(*_hellos(b"n" * 16, b"h" * 16))
    assert joiner.check(answerer, host.prove(answerer))  # the joiner knows the host knows
    assert host.check(opener, joiner.prove(opener))  # and the host that the joiner does


def test_a_wrong_passphrase_proves_nothing_either_way() -> None:
    joiner, host = _linked(RIGHT + "r", RIGHT)
    answerer, opener = _statements(*_hellos(b"n" * 16, b"h" * 16))
    assert not joiner.check(answerer, host.prove(answerer))
    assert not host.check(opener, joiner.prove(opener))


def test_no_proof_at_all_is_no_proof() -> None:
    _, host = _linked(RIGHT, RIGHT)
    _, opener = _statements(*_hellos(b"n" * 16, b"h" * 16))
    assert not host.check(opener, b"")
    assert not host.check(opener, bytes(32))


def test_each_link_agrees_a_key_of_its_own() -> None:
    joiner, host = _linked(RIGHT, RIGHT)
    again, _ = _linked(RIGHT, RIGHT)
    _, opener = _statements(*_hellos(b"n" * 16, b"h" * 16))
    assert host.check(opener, joiner.prove(opener))
    assert not host.check(opener, again.prove(opener))  # a proof from another run


def test_a_replayed_proof_fails_on_a_new_connection() -> None:
    joiner, host = _linked(RIGHT, RIGHT)
    _, recorded = _statements(*_hellos(b"n" * 16, b"h" * 16))
    proof = joiner.prove(recorded)
    _, fresh = _statements(*_hellos(b"n" * 16, b"H" * 16))  # the host's nonce is new
    assert host.check(recorded, proof) and not host.check(fresh, proof)


def test_a_proof_made_on_one_link_fails_on_another_whatever_else_it_names() -> None:
    """A relay that runs a handshake with each end holds two hashes: the proof one end made
    for its link to the relay does not check on the relay's link to the other end, even
    with the SPAKE2 messages passed through unchanged (so both ends agreed one key)."""
    joiner, host = _linked(RIGHT, RIGHT)
    hellos = _hellos(b"n" * 16, b"h" * 16)
    _, joiner_side = _statements(*hellos, binding=LINK)
    _, host_side = _statements(*hellos, binding=bytes(range(200, 232)))
    assert not host.check(host_side, joiner.prove(joiner_side))


def test_a_proof_cannot_be_relayed_for_another_key() -> None:
    joiner, host = _linked(RIGHT, RIGHT)
    _, theirs = _statements(*_hellos(b"n" * 16, b"h" * 16))
    _, mine = _statements(*_hellos(b"n" * 16, b"h" * 16, opener=SeatKey.generate()))
    assert not host.check(mine, joiner.prove(theirs))


def test_the_passphrase_is_the_same_across_unicode_forms() -> None:
    composed, decomposed = _linked("caf\u00e9", "cafe\u0301")
    _, statement = _statements(*_hellos(b"n" * 16, b"h" * 16))
    assert decomposed.check(statement, composed.prove(statement))


def test_an_empty_or_overlong_passphrase_is_refused() -> None:
    with pytest.raises(ValueError, match="1 to 1024 bytes"):
        TableSecret("")
    with pytest.raises(ValueError, match="1 to 1024 bytes"):
        TableSecret("x" * 1025)


@pytest.mark.parametrize(
    "message",
    [
        pytest.param(None, id="its own message sent back"),
        pytest.param(b"B" + bytes(32), id="the identity element"),
        pytest.param(b"B" + bytes([2]) + bytes(31), id="a point off the curve"),
        pytest.param(b"A" + bytes(range(32)), id="a message from its own side"),
    ],
)
def test_a_spake2_message_that_opens_nothing_is_a_protocol_error(message: bytes | None) -> None:
    run = TableSecret(RIGHT).opening()
    with pytest.raises(RemoteProtocolError, match="a passphrase message that opens nothing"):
        run.finish(run.message if message is None else message)


def _entropy(byte: int) -> Callable[[int], bytes]:
    return lambda size: bytes([byte]) * size


def test_a_run_tests_one_guess_and_its_record_tests_no_other() -> None:
    """What a stranger gets from running the newcomer's end with a guess, keeping its own
    secret scalar: the host's message and its proof. Redoing its run with any other
    passphrase, the right one included, checks nothing against them: the host's key mixes
    in the guess the stranger's message was made with (SPEC §2.9). Only the guess it ran
    with was tested, online."""
    _, said = _statements(*_hellos(b"n" * 16, b"h" * 16))
    guesses = ["kitchen", "hallway", RIGHT, "correct horse battery stapler"]

    def recorded(guess: str) -> tuple[bytes, bytes]:
        """The host's message and proof, to a stranger that ran ``guess`` (entropy 7)."""
        host = TableSecret(RIGHT).answering(_entropy(9))
        stranger = TableSecret(guess).opening(_entropy(7))
        return host.message, host.finish(stranger.message).prove(said)

    def checks(guess: str, message: bytes, proof: bytes) -> bool:
        """Whether the record checks against ``guess``, the stranger's run redone with it."""
        again = TableSecret(guess).opening(_entropy(7))
        return again.finish(message).check(said, proof)

    for ran in ("kitchen", "hallway"):
        record = recorded(ran)
        assert [g for g in guesses if checks(g, *record)] == []
    # The same search finds the passphrase when the stranger ran with it: it can fail.
    record = recorded(RIGHT)
    assert [g for g in guesses if checks(g, *record)] == [RIGHT]


def test_hello_and_proof_carry_the_proofs_and_the_terms_on_the_wire() -> None:
    terms = table_terms(TABLE, TableOptions(), 4)
    pake = TableSecret(RIGHT).answering().message
    hello = Hello(TABLE, 2, "Cal", 4002, HOST.public, b"n" * 16, b"s" * 64, b"m" * 32, terms, pake)
    assert decode(encode(hello)) == hello
    with pytest.raises(RemoteProtocolError, match="0 or 33 bytes"):
        decode(encode(replace(hello, pake=pake[:32])))
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
