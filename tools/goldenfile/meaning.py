"""How protocol/golden.json (python tools/golden.py) writes a frame's fields readably.

`NOTATION`, written into the file, explains it: cards as ``7H@2``, piles by name, bytes
in hex, carried payloads with their own meaning.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from p2pnerts.protocol import CommitFrame, LinkMessage, Message, decode_carried, decode_payload
from p2pnerts.protocol._messages import Tally
from p2pnerts.rules import (
    NERTS,
    NEW_FOUNDATION,
    WASTE,
    Card,
    Move,
    SlideUnder,
    TableOptions,
    ToFoundation,
    ToWork,
    TurnStock,
    card_from_code,
)

_RANKS = ("Jk", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
_BYTES = {
    "pledge",
    "secret",
    "next",
    "seed",
    "digest",
    "base_digest",
    "votes_digest",
    "sig",
    "holding",
    "witness",
}
_CODES = {"face_up", "order"}

NOTATION = {
    "frame": "hex of the whole frame: the 4-byte big-endian length, then the msgpack payload",
    "card": "rank, suit letter, @deck: 7H@2 is the 7 of hearts of deck 2 (decks and seats"
    " count from 0); ranks A 2 3 4 5 6 7 8 9 10 J Q K; suits S H D C (suit bits 0 1 2 3); a"
    " joker is Jk with suit bits 0 (JkS) or 1 (JkH)",
    "face_up, order": "card codes on the wire (deck*64 + rank*4 + suit), shown as cards",
    "pile": "nerts (-1 on the wire), waste (-2), work N (N, counting from 0)",
    "foundation": "new (-1 on the wire) or the foundation's number",
    "declare": "null (nil), or what a joker stands for: AS is [1, 0] on the wire",
    "bytes": "pledge, secret, next, seed, digest, base_digest, votes_digest, holding, witness: hex",
    "carried, votes, messages": "each payload as hex (no length prefix), with its own meaning",
    "play": "a Poll's: the payload as hex (no length prefix), with its own meaning (null where"
    " it is empty)",
    "ballots": "each as the Tally carries it, hex (the msgpack array [sender, clock, to, ok,"
    " below, sig], then the Ballot's witness where it is not the Tally's), with the meaning"
    " of the whole Ballot it stands for (its view, play and seq 1 the Tally's)",
    "ok": "true or false (msgpack true, false)",
    "pool": "each payload as hex (no length prefix)",
    "heard": "each witness as [seat, seq, hex]",
    "meaning": "kind, then every field in wire order",
    "options": "by name, in wire order: on the wire an array of the 10 values, and an 11th,"
    " the teams, only at a table of teams (teams [] is left out)",
    "foundations, tableaux": "a Scene's: as on the wire, cards as their codes (numbers),"
    " not shown as cards",
    "invalid": "error is a language-neutral class; message is text that the Python codec's"
    " RemoteProtocolError contains",
}


def card_text(card: Card) -> str:
    return f"{_RANKS[card.rank]}{card.suit.letter}@{card.deck}"


def _pile(pile: int) -> str:
    return {NERTS: "nerts", WASTE: "waste"}.get(pile, f"work {pile}")


def move_meaning(move: Move) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": type(move).__name__, "seat": move.seat}
    match move:
        case TurnStock():
            out["revealed"] = [card_text(c) for c in move.revealed]
            out["rotation"] = move.rotation
        case ToFoundation():
            declare = move.declare
            out["card"] = card_text(move.card)
            out["source"] = _pile(move.source)
            out["foundation"] = "new" if move.foundation == NEW_FOUNDATION else move.foundation
            out["declare"] = None if declare is None else _RANKS[declare[0]] + declare[1].letter
            out["revealed"] = [card_text(c) for c in move.revealed]
        case ToWork() | SlideUnder():
            out["card"] = card_text(move.card)
            out["source"] = _pile(move.source)
            out["dest"] = _pile(move.dest)
            out["revealed"] = [card_text(c) for c in move.revealed]
    return out


def meaning(message: Message | CommitFrame) -> dict[str, Any]:
    """A message's kind and every field, in declaration (and so wire) order, readably."""
    out: dict[str, Any] = {"kind": type(message).__name__}
    for field in fields(message):
        if isinstance(message, Tally) and field.name == "ballots":  # as carried, and whole
            out["ballots"] = [
                {"hex": p.hex(), "meaning": meaning(decode_carried(p, message))}
                for p in message.ballots
            ]
        else:
            out[field.name] = _value(field.name, getattr(message, field.name))
    return out


def _value(name: str, value: Any) -> Any:
    if name == "move":
        return move_meaning(value)
    if name in _BYTES:
        return value.hex()
    if name in _CODES:
        return [card_text(card_from_code(code)) for code in value]
    if name == "heard":
        return [[seat, seq, mark.hex()] for seat, seq, mark in value]
    if name == "pool":
        return [p.hex() for p in value]
    if name == "play":
        return {"hex": value.hex(), "meaning": meaning(decode_payload(value)) if value else None}
    if name in ("carried", "votes", "messages"):
        return [{"hex": p.hex(), "meaning": meaning(decode_payload(p))} for p in value]
    if name == "scores":
        return [list(row) for row in value]
    return list(value) if isinstance(value, tuple) else value


def link_meaning(message: LinkMessage) -> dict[str, Any]:
    """A link frame's kind and fields, readably: bytes in hex, the options by name, the
    roster's seats as [seat, name, host, port, key]."""
    out: dict[str, Any] = {"kind": type(message).__name__}
    for field in fields(message):
        value = getattr(message, field.name)
        if isinstance(value, bytes):
            value = value.hex()
        elif isinstance(value, TableOptions):
            value = {f.name: getattr(value, f.name) for f in fields(TableOptions)}
            value = {**value, "tie_rule": value["tie_rule"].value, "teams": list(value["teams"])}
        elif field.name == "seats":
            value = [[s.seat, s.name, s.host, s.port, s.key.hex()] for s in value]
        elif field.name == "tableaux":
            value = [[getattr(t, f.name) for f in fields(t)] for t in value]
        out[field.name] = value
    return out
