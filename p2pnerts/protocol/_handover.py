"""What a seat brings to a change of members at a table that commits by a majority, on the
wire: its `_changes.Holding`, in its ViewChange (``holding``, signed), its plays, Ballots
and Tallies named there by hash and carried beside it (``pool``), each signed by its own
author.

Theory of operation
-------------------
A holding is a msgpack array: the members of the view it was made in, its ``have`` (per
seat, the number of the last play held), its plays (each the signed message, which names
its own number in its ``below``: a holder cannot renumber another seat's play), its
Ballots and Tallies, each of these three as the 16-byte hashes of their payloads
(`name`), and the outcomes the last change settled (``[seat, number, ok, below,
witness]``). The payloads go in the ViewChange's ``pool``, which its signature does not
cover (`_messages.bare`): a payload is what its hash names, or nothing. A StartView
carries its votes without their pools and one pool for them all, in which a play or a
Tally that every voter holds, the same signed bytes, is carried once, not once a voter: what
the change carries grows with the plays in the air, not with the table's square.

Every seat reads the same StartView's holdings the same way (`read`): one that does not
decode, names a payload the pool lacks, or carries a play not signed by its sender,
counts for nothing at every seat alike, as `_changes.settlement` leaves out a Ballot or
a Tally that fails its check.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

import msgpack

from p2pnerts.protocol._changes import Holding
from p2pnerts.protocol._codec import decode_any, encode_payload
from p2pnerts.protocol._errors import RemoteProtocolError
from p2pnerts.protocol._messages import Ballot, Ordered, Tally, ViewChange
from p2pnerts.protocol._signing import Signer
from p2pnerts.protocol._spots import Decision, PlayId, Spotted
from p2pnerts.protocol._wire import MAX_SEATS, _array, _int

MOST = 100_000
"""The most plays, Ballots, Tallies or settled outcomes one holding names."""
_F = TypeVar("_F", Ballot, Tally)


def name(payload: bytes) -> bytes:
    """The hash a holding names a payload by."""
    return hashlib.blake2b(payload, digest_size=16).digest()


def write(holding: Holding, messages: Mapping[PlayId, Ordered]) -> tuple[bytes, list[bytes]]:
    """``holding`` on the wire, each of its plays as ``messages`` has it, and its pool: the
    payloads it names."""
    pool: list[bytes] = []

    def named(payloads: Iterable[bytes]) -> list[bytes]:
        payloads = list(payloads)
        pool.extend(payloads)
        return [name(p) for p in payloads]

    wire = [
        list(holding.members),
        list(holding.have),
        named(encode_payload(messages[play.id]) for play in holding.plays),
        named(encode_payload(ballot) for ballot in holding.ballots),
        named(encode_payload(tally) for tally in holding.tallies),
        [[d.play[0], d.play[1], d.ok, list(d.below), d.witness] for d in holding.settled],
    ]
    data: bytes = msgpack.packb(wire, use_bin_type=True)
    return data, pool


def pooled(pools: Iterable[Iterable[bytes]]) -> list[bytes]:
    """One pool for several holdings: each payload once, in the order first met."""
    return list(dict.fromkeys(p for pool in pools for p in pool))


def read(
    vote: ViewChange,
    pool: Mapping[bytes, bytes],
    signer: Signer,
    spotted: Callable[[Ordered], Spotted],
) -> tuple[Holding, list[tuple[Spotted, Ordered]]] | None:
    """The holding ``vote`` carries, its payloads looked up in ``pool`` (by `name`), and
    each of its plays with its message; None if it carries none, or one that breaks the
    protocol (it counts for nothing)."""
    if not vote.holding:
        return None
    try:
        return _read(vote, pool, len(signer.keys), signer, spotted)
    except (RemoteProtocolError, KeyError, ValueError, TypeError, msgpack.UnpackException):
        return None


def _read(
    vote: ViewChange,
    pool: Mapping[bytes, bytes],
    players: int,
    signer: Signer,
    spotted: Callable[[Ordered], Spotted],
) -> tuple[Holding, list[tuple[Spotted, Ordered]]]:
    items = _array(msgpack.unpackb(vote.holding, raw=False), "holding", 6, 6)
    members = tuple(_int(m, "members", 0, players - 1) for m in _array(items[0], "", 1, MAX_SEATS))
    have = tuple(_int(n, "have") for n in _array(items[1], "have", players, players))

    def payloads(value: Any) -> list[bytes]:
        return [pool[ref] for ref in _array(value, "holding", 0, MOST)]

    plays: list[tuple[Spotted, Ordered]] = []
    for payload in payloads(items[2]):
        message = decode_any(payload)
        if not isinstance(message, Ordered) or not 0 <= message.sender < players:
            raise RemoteProtocolError("a holding names what is no ordered message")
        if len(message.below) != players or not signer.genuine(message):
            raise RemoteProtocolError("a holding names a play not signed by its sender")
        plays.append((spotted(message), message))
    ballots = tuple(_frame(p, Ballot) for p in payloads(items[3]))
    tallies = tuple(_frame(p, Tally) for p in payloads(items[4]))
    settled = tuple(_decision(d, players) for d in _array(items[5], "settled", 0, MOST))
    spots = tuple(play for play, _ in plays)
    held = Holding(vote.sender, vote.view, members, have, spots, ballots, tallies, settled)
    return held, plays


def _frame(payload: bytes, kind: type[_F]) -> _F:
    frame = decode_any(payload)
    if not isinstance(frame, kind):
        raise RemoteProtocolError(f"a holding names a {type(frame).__name__}, not a {kind}")
    return frame


def _decision(item: Any, players: int) -> Decision:
    seat, number, ok, below, witness = _array(item, "settled", 5, 5)
    if type(ok) is not bool or type(witness) is not bytes:
        raise RemoteProtocolError("a holding's settled outcome is malformed")
    play: PlayId = (_int(seat, "seat", 0, players - 1), _int(number, "number", 1))
    below = tuple(_int(n, "below") for n in _array(below, "below", 0, players))
    return Decision(play, ok, below, witness)
