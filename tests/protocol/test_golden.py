"""The golden frames of ``protocol/golden.json`` against the codec.

Each frame must decode to the meaning the file states beside it, and that meaning must
encode to the same bytes. The meaning is parsed here on its own terms (card codes
computed by hand, piles named as in the spec), never through the encoder or
``tools/golden.py``, so a change to the codec and a matching change to the file cannot
hide each other.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import spake2

from p2pnerts.protocol import (
    ANSWERER,
    OPENER,
    Ack,
    Decided,
    Evidence,
    FrameDecoder,
    Hello,
    Leave,
    LinkMessage,
    Message,
    Noise,
    Play,
    Proof,
    Ready,
    Refuse,
    Rejoin,
    RemoteProtocolError,
    Reveal,
    Roster,
    Scene,
    Seat,
    Seen,
    Signer,
    StartView,
    TableauSight,
    TeamDeal,
    ViewChange,
    Watch,
    Welcome,
    common_seed,
    decode,
    decode_carried,
    decode_payload,
    derived,
    encode,
    encode_carried,
    link_statement,
    order_key,
    pledge,
    table_terms,
    verify,
    witness,
)
from p2pnerts.protocol._ballots import BallotBox
from p2pnerts.protocol._checks import Gate, Seating
from p2pnerts.protocol._messages import Ballot, CommitFrame, Poll, Tally
from p2pnerts.protocol._spots import Spotted, spots_of
from p2pnerts.rules import (
    CallNerts,
    Card,
    DeclareStuck,
    Move,
    Rotate,
    SlideUnder,
    Suit,
    TableOptions,
    TieRule,
    ToFoundation,
    ToWork,
    TurnStock,
)

ROOT = Path(__file__).resolve().parents[2]
GOLDEN: dict[str, Any] = json.loads((ROOT / "protocol" / "golden.json").read_text("utf-8"))
FRAMES: list[dict[str, Any]] = GOLDEN["frames"]
INVALID: list[dict[str, Any]] = GOLDEN["invalid"]

# --- the meaning notation, parsed independently of the codec -------------------------------

_RANKS = ["Jk", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
_SUITS = "SHDC"


def _rank_suit(text: str) -> tuple[int, int]:
    return _RANKS.index(text[:-1]), _SUITS.index(text[-1])


def card(text: str) -> Card:
    face, deck = text.split("@")
    rank, suit = _rank_suit(face)
    return Card(int(deck), rank, Suit(suit))


def code(text: str) -> int:
    face, deck = text.split("@")
    rank, suit = _rank_suit(face)
    return int(deck) * 64 + rank * 4 + suit


def pile(text: str) -> int:
    if text in ("nerts", "waste"):
        return -1 if text == "nerts" else -2
    word, number = text.split()
    assert word == "work"
    return int(number)


def move(m: dict[str, Any]) -> Move:
    kind, seat = m["kind"], m["seat"]
    revealed = tuple(card(c) for c in m.get("revealed", ()))
    if kind == "TurnStock":
        return TurnStock(seat, revealed, m["rotation"])
    if kind == "ToFoundation":
        declare = None
        if m["declare"] is not None:
            rank, suit = _rank_suit(m["declare"])
            declare = (rank, Suit(suit))
        foundation = -1 if m["foundation"] == "new" else m["foundation"]
        return ToFoundation(seat, card(m["card"]), pile(m["source"]), foundation, declare, revealed)
    if kind in ("ToWork", "SlideUnder"):
        cls = ToWork if kind == "ToWork" else SlideUnder
        return cls(seat, card(m["card"]), pile(m["source"]), pile(m["dest"]), revealed)
    bare: dict[str, Callable[[int], Move]] = {
        "DeclareStuck": DeclareStuck,
        "Rotate": Rotate,
        "CallNerts": CallNerts,
    }
    return bare[kind](seat)


_KINDS: dict[str, Callable[..., Message]] = {
    "Ready": Ready,
    "Play": Play,
    "Ack": Ack,
    "Reveal": Reveal,
    "Leave": Leave,
    "ViewChange": ViewChange,
    "StartView": StartView,
    "Rejoin": Rejoin,
    "TeamDeal": TeamDeal,
    "Evidence": Evidence,
}
_COMMIT_KINDS: dict[str, Callable[..., CommitFrame]] = {
    "Ballot": Ballot,
    "Tally": Tally,
    "Poll": Poll,
}
_FIELDS: dict[str, Callable[[Any], Any]] = {
    "move": move,
    "pledge": bytes.fromhex,
    "secret": bytes.fromhex,
    "next": bytes.fromhex,
    "seed": bytes.fromhex,
    "digest": bytes.fromhex,
    "base_digest": bytes.fromhex,
    "votes_digest": bytes.fromhex,
    "sig": bytes.fromhex,
    "holding": bytes.fromhex,
    "witness": bytes.fromhex,
    "ballots": lambda items: tuple(bytes.fromhex(i["hex"]) for i in items),
    "face_up": lambda cards: tuple(code(c) for c in cards),
    "carried": lambda items: tuple(bytes.fromhex(i["hex"]) for i in items),
    "votes": lambda items: tuple(bytes.fromhex(i["hex"]) for i in items),
    "messages": lambda items: tuple(bytes.fromhex(i["hex"]) for i in items),
    "play": lambda item: bytes.fromhex(item["hex"]),
    "pool": lambda items: tuple(bytes.fromhex(i) for i in items),
    "heard": lambda heard: tuple((s, q, bytes.fromhex(w)) for s, q, w in heard),
    "scores": lambda rows: tuple(tuple(r) for r in rows),
    "quorums": lambda views: tuple((n, tuple(m)) for n, m in views),
}


def _plain(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def message(meaning: dict[str, Any]) -> Message | CommitFrame:
    """The message a meaning states, every field converted as the notation says."""
    values = {
        name: _FIELDS.get(name, _plain)(value) for name, value in meaning.items() if name != "kind"
    }
    return {**_KINDS, **_COMMIT_KINDS}[meaning["kind"]](**values)


def _name(entry: dict[str, Any]) -> str:
    return str(entry["name"])


# --- the frames -----------------------------------------------------------------------------


@pytest.mark.parametrize("frame", FRAMES, ids=_name)
def test_a_golden_frame_decodes_to_the_meaning_stated_beside_it(frame: dict[str, Any]) -> None:
    assert decode(bytes.fromhex(frame["hex"])) == message(frame["meaning"])


@pytest.mark.parametrize("frame", FRAMES, ids=_name)
def test_the_stated_meaning_encodes_to_the_golden_bytes_exactly(frame: dict[str, Any]) -> None:
    assert encode(message(frame["meaning"])).hex() == frame["hex"]


@pytest.mark.parametrize("frame", FRAMES, ids=_name)
def test_the_length_prefix_counts_the_payload(frame: dict[str, Any]) -> None:
    data = bytes.fromhex(frame["hex"])
    assert int.from_bytes(data[:4], "big") == len(data) - 4


@pytest.mark.parametrize("field", ["carried", "votes"])
def test_every_carried_payload_and_vote_decodes_to_its_own_stated_meaning(field: str) -> None:
    starts = [f["meaning"] for f in FRAMES if f["meaning"]["kind"] == "StartView"]
    items = [i for start in starts for i in start[field]]
    assert items
    for item in items:
        assert decode_payload(bytes.fromhex(item["hex"])) == message(item["meaning"])


def test_every_golden_start_view_passes_the_checks_of_a_seat_of_its_view() -> None:
    # Signed with the keys of the vectors; every member but the joined seats voted.
    receivers = {1: 0, 3: 0}  # by coordinator: a seat of the new view, not the coordinator
    for frame in FRAMES:
        start = decode(bytes.fromhex(frame["hex"]))
        if isinstance(start, StartView):
            seat = receivers[start.sender]
            majority = bool(start.pool)  # (a majority's table: its votes bring holdings)
            gate = Gate(
                Seating(seat, (0, 1, 2, 3), TableOptions(), majority),
                Signer.computed(
                    seat, 4, b"golden", bytes.fromhex(GOLDEN["vectors"]["keys"]["table"])
                ),
            )
            gate.check(start, start.clock, start.view)


def test_a_stream_of_every_golden_frame_decodes_in_order_whatever_the_chunks() -> None:
    stream = b"".join(bytes.fromhex(f["hex"]) for f in FRAMES)
    expected = [message(f["meaning"]) for f in FRAMES]
    for size in (1, 5, 64, len(stream)):
        decoder = FrameDecoder()
        got = [m for i in range(0, len(stream), size) for m in decoder.feed(stream[i : i + size])]
        assert got == expected
        assert decoder.pending == 0


def test_the_golden_frames_cover_every_kind_and_every_case_the_spec_names() -> None:
    kinds = {f["meaning"]["kind"] for f in FRAMES}
    assert kinds == set(_KINDS) | set(_COMMIT_KINDS)
    moves = [f["meaning"]["move"] for f in FRAMES if f["meaning"]["kind"] == "Play"]
    assert {m["kind"] for m in moves} == {
        "TurnStock",
        "ToFoundation",
        "ToWork",
        "SlideUnder",
        "DeclareStuck",
        "Rotate",
        "CallNerts",
    }
    assert any(m.get("declare") and m["card"].startswith("Jk") for m in moves)
    assert any(f["meaning"]["kind"] == "StartView" and f["meaning"]["carried"] for f in FRAMES)
    meanings = [f["meaning"] for f in FRAMES]
    assert {"Ready", "Play"} <= {m["kind"] for m in meanings if m.get("below")}
    ballots = [m for m in meanings if m["kind"] == "Ballot"]
    assert {(b["ok"], bool(b["witness"])) for b in ballots} == {
        (True, True),
        (False, True),
        (False, False),
    }
    assert any(m["kind"] == "Tally" and m["ballots"] for m in meanings)
    assert any(m["kind"] == "ViewChange" and m["holding"] for m in meanings)
    assert any(m["kind"] == "StartView" and m["carried"] and m["pool"] for m in meanings)


# --- version 3's majority commit -------------------------------------------------------------


def test_every_ballot_a_tally_carries_decodes_to_its_own_stated_meaning() -> None:
    tallies = [f for f in FRAMES if f["meaning"]["kind"] == "Tally"]
    assert tallies
    for frame in tallies:
        tally = decode(bytes.fromhex(frame["hex"]))
        assert isinstance(tally, Tally) and frame["meaning"]["ballots"]
        for item in frame["meaning"]["ballots"]:
            ballot = decode_carried(bytes.fromhex(item["hex"]), tally)
            assert ballot == message(item["meaning"])
            assert encode_carried(ballot, tally.witness).hex() == item["hex"]


def _golden_signer(seat: int) -> Signer:
    return Signer.computed(seat, 4, b"golden", bytes.fromhex(GOLDEN["vectors"]["keys"]["table"]))


def test_the_golden_ballots_and_tally_are_signed_and_every_seat_takes_the_tally() -> None:
    frames = {f["name"]: decode(bytes.fromhex(f["hex"])) for f in FRAMES}
    play, tally = frames["play-majority"], frames["tally-in"]
    assert isinstance(play, Play) and isinstance(tally, Tally)
    for name in ("ballot-for", "ballot-late", "ballot-unseen", "tally-in", "play-majority"):
        assert _golden_signer(0).genuine(frames[name]), name  # type: ignore[arg-type]
    # Each Ballot names a witness of 16 bytes and a number per seat when for, else none.
    for name in ("ballot-for", "ballot-late", "ballot-unseen"):
        ballot = frames[name]
        assert isinstance(ballot, Ballot)
        assert len(ballot.below) == (4 if ballot.ok else 0)
        assert ballot.below[ballot.seat] == ballot.number if ballot.ok else True
    assert play.below[play.sender] == tally.number
    spotted = Spotted(
        2, tally.number, order_key(play, 4, TableOptions().tie_rule),
        spots_of(play.move, 2), play.below, witness(play),
    )  # fmt: skip
    assert tally.witness == witness(play)
    for seat in range(4):
        BallotBox(seat, 4, _golden_signer(seat)).check(tally, spotted, (0, 1, 2, 3))


# --- the frames every peer refuses -----------------------------------------------------------


@pytest.mark.parametrize("frame", INVALID, ids=_name)
def test_an_invalid_golden_frame_is_refused_with_its_stated_error(frame: dict[str, Any]) -> None:
    with pytest.raises(RemoteProtocolError) as caught:
        decode(bytes.fromhex(frame["hex"]))
    assert frame["message"] in str(caught.value)


@pytest.mark.parametrize("frame", INVALID, ids=_name)
def test_a_stream_decoder_refuses_it_too_or_waits_for_a_truncated_one(
    frame: dict[str, Any],
) -> None:
    data = bytes.fromhex(frame["hex"])
    decoder = FrameDecoder()
    if frame["error"] == "truncated":
        assert list(decoder.feed(data)) == []
        assert decoder.pending == len(data)
        return
    with pytest.raises(RemoteProtocolError) as caught:
        list(decoder.feed(data))
    assert frame["message"] in str(caught.value)


def test_the_invalid_frames_cover_the_cases_the_spec_names() -> None:
    assert {"version", "truncated", "frame-length", "bad-card"} <= {f["error"] for f in INVALID}
    refused = " ".join(f["message"] for f in INVALID)
    assert all(f"{kind}." in refused or f"{kind}:" in refused for kind in _COMMIT_KINDS)
    assert "below:" in refused and "ViewChange.holding:" in refused


# --- the vectors ----------------------------------------------------------------------------


def test_the_pledge_share_and_seed_vectors_are_sha256_over_the_stated_bytes() -> None:
    vectors = GOLDEN["vectors"]
    pledged = vectors["pledge"]
    secret = bytes.fromhex(pledged["secret"])
    head = b"p2pnerts-pledge-2" + (1).to_bytes(4, "big") + bytes((0,))
    assert hashlib.sha256(head + secret).hexdigest() == pledged["sha256"]
    assert pledge(1, 0, secret).hex() == pledged["sha256"]
    zero = hashlib.sha256(b"p2pnerts-derive-2" + bytes(4) + secret).hexdigest()
    assert zero == vectors["derived"]["sha256"] == derived(secret, 0).hex()
    seeded = vectors["seed"]
    by_hand = hashlib.sha256(b"p2pnerts-seed-2" + (1).to_bytes(4, "big"))
    for deck, share in sorted(seeded["shares"].items()):
        by_hand.update(bytes((int(deck),)) + bytes.fromhex(share))
    assert by_hand.hexdigest() == seeded["sha256"]
    shares = {int(d): bytes.fromhex(v) for d, v in seeded["shares"].items()}
    assert common_seed(1, shares).hex() == seeded["sha256"]


def _shuffled_by_hand(vector: dict[str, Any]) -> list[int]:
    """The shuffle as the spec words it, written apart from the package's."""
    secret, seed = bytes.fromhex(vector["secret"]), bytes.fromhex(vector["seed"])
    message = seed + vector["round"].to_bytes(4, "big") + bytes((vector["deck"],))
    words: list[int] = []
    counter = 0

    def draw() -> int:
        nonlocal counter
        if not words:
            block = hmac.new(secret, message + counter.to_bytes(4, "big"), "sha256").digest()
            words.extend(int.from_bytes(block[k : k + 4], "big") for k in range(0, 32, 4))
            counter += 1
        return words.pop(0)

    cards = [code(c) for c in sorted({c for c in vector["order"]}, key=code)]
    for i in range(len(cards) - 1, 0, -1):
        limit = 2**32 - 2**32 % (i + 1)
        while (word := draw()) >= limit:
            pass
        j = word % (i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def test_the_shuffle_vector_follows_the_stated_steps_and_the_ready_deals_it() -> None:
    vector = GOLDEN["vectors"]["shuffle"]
    assert _shuffled_by_hand(vector) == [code(c) for c in vector["order"]]
    assert vector["seed"] == GOLDEN["vectors"]["seed"]["sha256"]
    meanings = {f["name"]: f["meaning"] for f in FRAMES}
    order = vector["order"]
    assert meanings["ready"]["face_up"] == [order[12], *order[13:17]]
    assert meanings["reveal"]["secret"] == vector["secret"]
    assert meanings["ready-round-0"]["pledge"] == GOLDEN["vectors"]["pledge"]["sha256"]
    assert meanings["reveal-round-0"]["secret"] == GOLDEN["vectors"]["derived"]["sha256"]


def test_the_digest_vector_chains_blake2b_128_over_payload_and_outcome() -> None:
    vector = GOLDEN["vectors"]["digest"]
    frames = {f["name"]: bytes.fromhex(f["hex"]) for f in FRAMES}
    digest = bytes.fromhex(vector["start"])
    assert digest == bytes(16)
    for step in vector["steps"]:
        payload = frames[step["frame"]][4:]
        chained = hashlib.blake2b(digest + payload + bytes((step["outcome"],)), digest_size=16)
        digest = chained.digest()
        assert digest.hex() == step["digest"]


def test_the_file_is_what_tools_golden_py_writes() -> None:
    tool = ROOT / "tools" / "golden.py"
    done = subprocess.run(
        [sys.executable, str(tool), "--check"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


def test_the_passphrase_vector_is_spake2_then_hmac_over_the_signed_statements() -> None:
    vector = GOLDEN["vectors"]["passphrase"]
    password = vector["passphrase"].encode()
    ids = {"idA": b"p2pnerts/3 opener", "idB": b"p2pnerts/3 answerer"}
    # SPAKE2 as the spake2 package defines it (SPEC §2.9), each end's entropy as given.
    opener_byte = bytes.fromhex(vector["opener_entropy_byte"])
    answerer_byte = bytes.fromhex(vector["answerer_entropy_byte"])
    a = spake2.SPAKE2_A(password, entropy_f=lambda n: opener_byte * n, **ids)
    b = spake2.SPAKE2_B(password, entropy_f=lambda n: answerer_byte * n, **ids)
    sent_a, sent_b = a.start(), b.start()
    key = a.finish(sent_b)
    assert b.finish(sent_a) == key
    frames = {k: bytes.fromhex(vector[k]) for k in ("newcomer_hello", "host_hello", "proof")}
    newcomer, host, proof = (decode(frame) for frame in frames.values())
    assert isinstance(newcomer, Hello) and isinstance(host, Hello) and isinstance(proof, Proof)
    assert [encode(m) for m in (newcomer, host, proof)] == list(frames.values())
    binding = bytes.fromhex(GOLDEN["vectors"]["link"]["hash"])
    answerer = link_statement(ANSWERER, binding, host.table, newcomer, host)
    opener = link_statement(OPENER, binding, host.table, newcomer, host)
    assert (answerer.hex(), opener.hex()) == (
        vector["answerer_statement"],
        vector["opener_statement"],
    )
    assert (newcomer.pake, host.pake) == (sent_a, sent_b)
    domain = b"p2pnerts/3 passphrase proof\x00"
    assert host.mac == hmac.digest(key, domain + answerer, "sha256")
    assert proof.mac == hmac.digest(key, domain + opener, "sha256")
    assert verify(host.key, host.proof, answerer) and verify(newcomer.key, proof.proof, opener)


def test_the_terms_vector_is_sha256_over_the_table_its_options_and_its_commit_rule() -> None:
    vector = GOLDEN["vectors"]["terms"]
    table, options = bytes.fromhex(vector["table"]), bytes.fromhex(vector["options"])
    # A fixarray of 3: the seats, the options, then whether the table commits by a majority.
    players = bytes((0x90 | 3, vector["players"]))
    rule = b"\xc3" if vector["majority"] else b"\xc2"
    by_hand = hashlib.sha256(b"p2pnerts/2 table terms\x00" + table + players + options + rule)
    assert by_hand.hexdigest() == vector["sha256"]
    terms = table_terms(table, TableOptions(rounds=3), vector["players"], vector["majority"])
    assert terms.hex() == vector["sha256"]
    other = table_terms(table, TableOptions(rounds=3), vector["players"], not vector["majority"])
    assert other != terms  # a seat kept at the other rule is refused (SPEC 2.8)


LINK_FRAMES: list[dict[str, Any]] = GOLDEN["link_frames"]


def link_message(meaning: dict[str, Any]) -> LinkMessage:
    """The link frame a meaning states (bytes in hex, options by name, seats as lists)."""
    values = {name: value for name, value in meaning.items() if name != "kind"}
    for name, value in values.items():
        if isinstance(value, str) and name not in ("name", "reason"):
            values[name] = bytes.fromhex(value)
        elif isinstance(value, list):
            values[name] = _tuples(value)
    if "options" in values:
        named = values["options"]
        values["options"] = TableOptions(
            **{**named, "tie_rule": TieRule(named["tie_rule"]), "teams": tuple(named["teams"])}
        )
    if "tableaux" in values:
        values["tableaux"] = tuple(TableauSight(*t) for t in values["tableaux"])
    if "seats" in values:
        values["seats"] = tuple(
            Seat(seat, name, host, port, bytes.fromhex(key))
            for seat, name, host, port, key in values["seats"]
        )
    kinds: dict[str, Callable[..., LinkMessage]] = {
        "Hello": Hello,
        "Welcome": Welcome,
        "Refuse": Refuse,
        "Roster": Roster,
        "Proof": Proof,
        "Watch": Watch,
        "Scene": Scene,
        "Seen": Seen,
        "Decided": Decided,
        "Noise": Noise,
    }
    return kinds[meaning["kind"]](**values)


def _tuples(value: Any) -> Any:
    """JSON's arrays as the tuples the messages hold, all the way down."""
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def test_every_link_kind_has_a_golden_frame() -> None:
    kinds = {f["meaning"]["kind"] for f in LINK_FRAMES}
    assert kinds == {"Noise", "Hello", "Welcome", "Refuse", "Roster", "Proof"} | {
        "Watch",
        "Scene",
        "Seen",
        "Decided",
    }


@pytest.mark.parametrize("frame", LINK_FRAMES, ids=lambda f: f["name"])
def test_a_link_frame_decodes_to_its_stated_meaning_and_back(frame: dict[str, Any]) -> None:
    data = bytes.fromhex(frame["hex"])
    stated = link_message(frame["meaning"])
    assert decode(data) == stated
    assert encode(stated) == data


def test_the_golden_link_proofs_verify_against_the_stated_keys() -> None:
    hello = {f["name"]: link_message(f["meaning"]) for f in LINK_FRAMES}
    newcomer, host, proof = hello["hello-newcomer"], hello["hello-host"], hello["proof"]
    assert isinstance(newcomer, Hello) and isinstance(host, Hello) and isinstance(proof, Proof)
    bare = Hello(host.table, host.seat, host.name, host.port, host.key, host.nonce)
    table, binding = host.table, bytes.fromhex(GOLDEN["vectors"]["link"]["hash"])
    said = link_statement(ANSWERER, binding, table, newcomer, bare)
    assert verify(host.key, host.proof, said)
    assert verify(newcomer.key, proof.proof, link_statement(OPENER, binding, table, newcomer, bare))
    assert not verify(
        host.key, host.proof, link_statement(ANSWERER, bytes(32), table, newcomer, bare)
    )
