"""Witnesses: each seat says what it was told, so a seat that tells two peers two things
is caught, and proven to have done so.

Theory of operation
-------------------
Every ordered message is signed (`_signing`), yet a seat could sign two messages under
one view and number with different words and send one to some peers, the other to the
rest: each is genuine where it arrives, and the peers would commit different plays. So
an Ack names, for every signed ordered message of another seat that its sender took
since its previous Ack, that message's *witness* (`witness`: a hash of the message as
signed, its signature included; Ed25519 signs one message one way only). A replica
compares each witness with the message it holds under that seat and number, now or when
the message arrives.

A message commits only once every member vouched for holding it, and a member vouches
for a message first in the Ack that witnesses it; so a replica never commits a message
that another member was told otherwise. On a mismatch the message is *disputed*: it does
not commit, and the replica shows its copy to every seat (an Evidence). A seat holding
the other copy then holds two messages signed by one seat under one view and number with
different words: the *proof*. It keeps it, refuses that seat, and shows both messages to
every seat, each of which checks both signatures itself and refuses the seat alike. The
seat is left out as any refused seat is, and the view change hands every member the
coordinator's copy (`_base.take_carried`), so the table goes on as one.

At a table that commits by a majority (`_majority`) no Ack witnesses a play: a Ballot or a
Tally names the copy each voter held (`_commits.Commits.other_copies`). A seat that learns
so that another copy of a play it holds exists shows its own copy (`show`), and compares
what others show with the copy it holds of the play the shown message names
(`Host.held_copy`); there the number that places a message is also its play's number, its
own entry in its ``below`` (`conflict`).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence
from typing import Protocol

from p2pnerts.protocol import _host
from p2pnerts.protocol._codec import decode_payload, encode_payload
from p2pnerts.protocol._messages import Ack, Evidence, Leave, Ordered, Play, Ready, Reveal
from p2pnerts.protocol._wire import HEARD_MOST

CLAIMS_KEPT = 4096
"""Per seat, how many witnesses of its messages not yet arrived a replica keeps."""


@functools.lru_cache(maxsize=1 << 14)
def witness(message: Ordered) -> bytes:
    """The hash that stands for ``message`` in an Ack: of its payload, signature included."""
    return hashlib.blake2b(encode_payload(message), digest_size=16).digest()


def conflict(a: Ordered, b: Ordered) -> bool:
    """Whether two messages, each signed by its sender, prove that sender equivocated: one
    seat, one view, one number, different bytes (an honest seat numbers every message
    afresh, and its deterministic signature makes a message sent again the same bytes).
    The number is its ``seq``, or the play's number its ``below`` names (`play_number`):
    an honest seat at a majority's table numbers its plays afresh in each view too, and a
    cheat could else send one copy after a message more on one link than on another."""
    if (a.sender, a.view) != (b.sender, b.view) or witness(a) == witness(b):
        return False
    return a.seq == b.seq or play_number(a) == play_number(b) != 0


def play_number(message: Ordered) -> int:
    """The number ``message`` names itself in its ``below`` at a table that commits by a
    majority: its place among its sender's plays (0: it names none)."""
    below = message.below
    return below[message.sender] if message.sender < len(below) else 0


def shown(evidence: Evidence) -> list[Ordered]:
    """The messages an Evidence shows (checked ordered and signed at the gate)."""
    messages = [decode_payload(p) for p in evidence.messages]
    return [m for m in messages if isinstance(m, Ready | Play | Reveal | Leave)]


class Host(_host.Host, Protocol):
    """What the witness needs of the replica it serves."""

    @property
    def clock(self) -> int: ...
    def held_copy(self, message: Ordered) -> Ordered | None:
        """At a table that commits by a majority, the copy held here of the play that
        ``message`` names (`play_number`), if any."""
        ...


class Witness:
    """The messages of other seats held and not yet committed, what other seats witnessed
    of them, the disputed ones, and the proofs kept."""

    def __init__(self, host: Host, players: int) -> None:
        self._host = host
        self._held: list[dict[int, Ordered]] = [{} for _ in range(players)]
        """Per seat, its signed ordered messages held and not committed, by number."""
        self._claims: list[dict[int, list[bytes]]] = [{} for _ in range(players)]
        """Per seat, witnesses of its messages that have not arrived here yet, by number."""
        self.heard: list[tuple[int, int, bytes]] = []
        """What the next Ack witnesses."""
        self.disputed: set[tuple[int, int]] = set()
        """(seat, number) of the messages some member witnessed otherwise: they wait."""
        self._shown: set[tuple[int, int]] = set()
        self.proofs: dict[int, tuple[Ordered, Ordered]] = {}
        """Per seat caught equivocating, the two messages that prove it."""

    def took(self, message: Ordered) -> None:
        """Hold a message just taken from its sender, to witness it in the next Ack."""
        sender, seq = message.sender, message.seq
        self._held[sender][seq] = message
        mark = witness(message)
        self.heard.append((sender, seq, mark))
        if any(w != mark for w in self._claims[sender].pop(seq, ())):
            self._dispute(message)

    def take_ack(self, ack: Ack, lives: Sequence[int], have: Sequence[int]) -> None:
        """Compare what an Ack witnesses with what this replica holds (or will)."""
        for seat, seq, mark in ack.heard:
            if seat in (self._host.seat, ack.sender) or ack.view < lives[seat]:
                continue  # of this seat's own words, its own, or an earlier life
            held = self._held[seat].get(seq)
            if held is not None:
                if witness(held) != mark:
                    self._dispute(held)
            elif seq > have[seat] and len(self._claims[seat]) < CLAIMS_KEPT:
                self._claims[seat].setdefault(seq, []).append(mark)

    def take_evidence(self, evidence: Evidence) -> None:
        """Look for a proof in what another seat shows, against itself and what is held."""
        messages = [m for m in shown(evidence) if m.sender != self._host.seat]
        for i, message in enumerate(messages):
            held = [self._held[message.sender].get(message.seq), self._host.held_copy(message)]
            for other in [*messages[:i], *(h for h in held if h is not None)]:
                self.caught(other, message)

    def caught(self, first: Ordered, second: Ordered) -> None:
        """Two messages of one seat that came here by different ways (its link, a Poll,
        an Evidence): if they prove it equivocated, refuse it and show the proof to every
        seat."""
        if conflict(first, second):
            self._convict(first, second)

    def show(self, message: Ordered) -> None:
        """Show this seat's copy of another seat's ``message`` to every seat, once: at a
        majority's table a genuine Ballot or Tally named another copy of its play (the
        seat that holds that one then holds the proof)."""
        place = (message.sender, message.seq)
        if place not in self._shown:
            self._shown.add(place)
            self._show(message)

    def again(self) -> list[Evidence]:
        """The proofs kept, shown again (stamped now) on a new connection: a seat whose
        link was down when they were first shown learns of them too."""
        return [self._evidence(*proof) for proof in self.proofs.values()]

    def take_heard(self) -> tuple[tuple[int, int, bytes], ...]:
        """The witnesses for the Ack about to go (at most `HEARD_MOST`; more wait)."""
        heard, self.heard = self.heard[:HEARD_MOST], self.heard[HEARD_MOST:]
        return tuple(heard)

    def release(self, message: Ordered) -> bool:
        """Whether ``message``, held by every member, may commit: not if it is disputed.
        If it may, it is forgotten here: every member vouched for it, witnesses compared."""
        if (message.sender, message.seq) in self.disputed:
            return False
        self._held[message.sender].pop(message.seq, None)
        return True

    def forget(self, seat: int) -> None:
        """Forget ``seat``'s messages: it left or (re)joins, and a StartView settles them."""
        self._held[seat].clear()
        self._claims[seat].clear()
        self.disputed = {d for d in self.disputed if d[0] != seat}

    def _dispute(self, message: Ordered) -> None:
        place = (message.sender, message.seq)
        self.disputed.add(place)
        if place not in self._shown:
            self._shown.add(place)
            self._show(message)

    def _convict(self, first: Ordered, second: Ordered) -> None:
        seat = first.sender
        if seat in self.proofs:
            return
        self.proofs[seat] = (first, second)
        host = self._host
        number = f"message {first.seq}" if first.seq == second.seq else f"play {play_number(first)}"
        why = (
            f"seat {seat} signed two different messages as its {number} of view"
            f" {first.view} (equivocation: both kept as proof and shown to every seat)"
        )
        host.gate.refuse(seat, why)
        host.events += host.gate.news()
        self._show(first, second)

    def _show(self, *messages: Ordered) -> None:
        self._host.outbox.pass_on(self._evidence(*messages))

    def _evidence(self, *messages: Ordered) -> Evidence:
        host = self._host
        payloads = tuple(encode_payload(m) for m in messages)
        return Evidence(host.seat, host.view, max(host.clock, 1), 1, payloads)
