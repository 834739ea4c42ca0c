"""The link's golden frames and a spectator's (SPEC §2.7–2.10), for python tools/golden.py.

A newcomer at a private table and its host, then a spectator's opening and what the seat
streams to it.
"""

from __future__ import annotations

from p2pnerts.protocol import (
    Decided,
    Hello,
    LinkMessage,
    Noise,
    Refuse,
    Roster,
    Scene,
    Seat,
    Seen,
    TableauSight,
    Watch,
    Welcome,
    table_terms,
)
from p2pnerts.protocol._codec import encode_payload
from p2pnerts.rules import Card, TableOptions, card_code

from .frames import FRAMES
from .values import (
    HOST_KEY,
    NEWCOMER_KEY,
    SPECTATOR_KEY,
    TABLE,
    ZERO,
    C,
    D,
    H,
    S,
    handshake,
    link,
)


def link_frames() -> list[tuple[str, LinkMessage, str]]:
    """The link's frames (SPEC §2.7–2.9): a newcomer at a private table and the host."""
    shake = handshake()
    seats = (
        Seat(0, "Ann", "192.168.1.20", 4000, HOST_KEY.public),
        Seat(1, "Bea", "192.168.1.31", 4001, NEWCOMER_KEY.public),
    )
    options = TableOptions(rounds=3)
    terms = table_terms(TABLE, options, 2)
    noise = link()
    return [
        ("noise-opening", Noise(noise.opening), "The first frame on every connection, in the"
         " clear: the opening end's ephemeral X25519 public key, Noise NN's first message"
         " (SPEC 2.8; the vectors' link gives its private key)."),
        ("noise-answer", Noise(noise.answer), "The answering end's ephemeral key and the"
         " 16-byte tag of an empty payload: Noise NN's second message. Every frame after it"
         " goes sealed, in records (the vectors' link shows the next frame sealed)."),
        ("hello-newcomer", shake.newcomer, "A newcomer opens a connection to the host (the"
         " first frame inside the encrypted link): no table id yet (16 zero bytes), seat -1"
         " (asking for one), its name, the port it listens on, its public key and a fresh"
         " nonce."),
        ("hello-host", shake.host, "The host of a private table answers: the table id, its"
         " seat 0, its key and nonce, its Ed25519 signature of the answerer's statement over"
         " the golden link's handshake hash (SPEC 2.8) and its passphrase MAC of it (2.9),"
         " as in the passphrase vector."),
        ("proof", shake.proof, "The newcomer proves its key and that it knows the"
         " passphrase, over the opener's statement."),
        ("welcome", Welcome(TABLE, 1, 2, options, "Kitchen table"), "The host gives the"
         " newcomer seat 1 at a table of 2 playing 3 rounds (the options as the terms vector"
         " lays them out), the table's name, and that it commits by acknowledgement."),
        ("welcome-majority", Welcome(TABLE, 1, 2, options, "Kitchen table", True), "The"
         " same at a table whose host chose to commit by a majority: the newcomer commits"
         " so too."),
        ("roster", Roster(seats, True), "Who sits where, with their keys: the table is full"
         " and play begins."),
        ("hello-seat", Hello(TABLE, 1, "Bea", 4001, NEWCOMER_KEY.public, bytes(range(32, 48)),
         terms=terms), "Seat 1 opens a link to seat 0 once play began: its Hello says the"
         " table's terms (SPEC 2.8)."),
        ("refuse", Refuse("that is not a seat of this table"), "The answer to a Hello that"
         " cannot be taken; the connection then closes."),
    ]  # fmt: skip


def spectator_frames() -> list[tuple[str, LinkMessage, str]]:
    """A spectator's frames (SPEC §2.10): its opening, and what the seat streams to it."""
    by_name = {name: message for name, message, _ in FRAMES}
    play, ack = by_name["play-to-foundation"], by_name["ack"]
    sight = TableauSight(
        12,
        (card_code(Card(1, 9, S)),),
        ((card_code(Card(1, 13, D)),), (), (), ()),
        30,
        5,
        (card_code(Card(1, 4, C)),),
    )
    scene = Scene(
        TABLE, 0, ("Ann", "Bea"), TableOptions(rounds=3), 1, 42, (17, 16), (0, 120), (0, 0),
        (0, -4), (card_code(Card(0, 2, H)),), 0, (sight, sight), 0,
    )  # fmt: skip
    return [
        ("watch", Watch(ZERO, "Prof", SPECTATOR_KEY.public, bytes(range(48, 64))), "A"
         " spectator opens a connection to the host: any table (16 zero bytes), its name, a"
         " key made for this watch and a fresh nonce. The host answers as to a newcomer (its"
         " Hello, proven; SPEC 2.8 with opener seat -2), then the spectator's Proof."),
        ("scene", scene, "The host shows its table to the spectator: a table of two, round"
         " 1, 42 messages committed; clocks, ms since heard, health and totals per seat; a"
         " foundation topped by Ann's 2 of hearts; both tableaux alike (12 in the Nerts pile"
         " under the 9 of spades, a king of diamonds in work pile 0, 30 in the stock, 5 in the"
         " waste under the 4 of clubs)."),
        ("seen", Seen(1234, False, 2, encode_payload(ack)), "The host received the ack"
         " frame's payload from seat 2, 1.234 s after it began to play."),
        ("decided", Decided(43, play.clock, 0, play.sender, encode_payload(play), 2, 1,
         "foundation 3 needs the 8 of hearts"), "The host's 43rd commit: the play-to-foundation"
         " frame's payload at key (clock, 0, rank), returned: seat 1's play took the spot."),
    ]  # fmt: skip
