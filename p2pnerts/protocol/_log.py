"""The agreed order: messages waiting to commit, and the running digest of those committed.

Ready, Play, Reveal, Leave and StartView messages are *ordered*: all of them, from every seat,
form one sequence sorted by (clock, tie class, tie rank) — `order_key`. The replica
commits the head of that sequence once every member holds it (`Acks.held_by_all`), and
folds each committed message, with its verdict's outcome, into a running digest that
every Ack carries: two replicas whose digests differ after the same number of commits
have diverged, and say so at once.
"""

from __future__ import annotations

import bisect
import hashlib
from dataclasses import dataclass

from p2pnerts.protocol._codec import encode_payload
from p2pnerts.protocol._events import Diverged
from p2pnerts.protocol._messages import Ack, Message, Ordered, Play, StartView, bare
from p2pnerts.rules import CallNerts, TieRule

DIGESTS_KEPT = 4096
"""How many recent running digests a replica keeps, to compare with others' Acks."""
AWAITED_AHEAD = DIGESTS_KEPT
"""How far ahead of this replica's commit count another seat's reported digest is kept
to compare later; one reported further ahead is not checked (its memory is bounded)."""
PENDING_LIMIT = 256
"""How many ordered messages of one seat may wait to commit at once (SPEC §4.2): a seat
sends no play past it, and a seat whose messages go past it is refused."""
Key = tuple[int, int, int]


def order_key(message: Ordered | StartView, seats: int, tie_rule: TieRule) -> Key:
    """Where a message stands in the agreed order: by clock, then the tie rule.

    A Nerts call sorts after every play with the same clock: those were in the air when
    it was called, and complete their move. Under `rotate`, the seat that goes first at
    equal clocks moves round with the clock value; otherwise the lower seat goes first.
    """
    calls = isinstance(message, Play) and isinstance(message.move, CallNerts)
    return key_for(message.sender, message.clock, calls, seats, tie_rule)


def key_for(sender: int, clock: int, calls: bool, seats: int, tie_rule: TieRule) -> Key:
    """The ordering key of a message of ``sender`` stamped ``clock`` (``calls``: a Nerts
    call), as `order_key` gives it."""
    rank = (sender - clock) % seats if tie_rule is TieRule.ROTATE else sender
    return (clock, int(calls), rank)


def order_reason(
    first: tuple[int, Key], later: tuple[int, Key], seats: int, tie_rule: TieRule
) -> str:
    """Why the agreed order puts one message before another (each given as its sender and
    its key), in the order's own words: the clocks, the Nerts call, or the tie rule's rank."""
    (a_seat, a), (b_seat, b) = first, later
    if a[0] != b[0]:
        return f"L={a[0]} < L={b[0]}"
    if a[1] != b[1]:
        return f"equal clocks L={a[0]}: the Nerts call sorts after the plays"
    if tie_rule is TieRule.ROTATE:
        return (
            f"equal clocks L={a[0]}: rank decides; rotate: rank = (seat - clock) mod {seats},"
            f" seat {a_seat + 1} has {a[2]}, seat {b_seat + 1} {b[2]}"
        )
    return (
        f"equal clocks L={a[0]}: rank decides; seat rule: seat {a_seat + 1} before seat"
        f" {b_seat + 1}"
    )


@dataclass(frozen=True, slots=True)
class Pending:
    """An ordered message waiting to commit.

    ``carrier`` is (coordinator, sequence number) of the StartView that carried it: every
    member that holds that StartView holds this message too.
    """

    key: Key
    message: Ordered | StartView
    carrier: tuple[int, int] | None


class Log:
    """The pending messages in order, the commit count and the running digest."""

    def __init__(
        self, players: int, tie_rule: TieRule, committed: int = 0, digest: bytes = bytes(16)
    ) -> None:
        self._players = players
        self.tie_rule = tie_rule
        self.pending: list[Pending] = []
        self.waiting = [0] * players
        """Per seat, how many of its messages are pending."""
        self.committed = committed
        self.digest = digest
        """The running digest after the first ``committed`` messages."""
        self.digests: dict[int, bytes] = {committed: digest}
        self._awaited: dict[int, list[tuple[int, bytes]]] = {}
        """Digests others reported for commit counts this replica has not reached yet."""

    def add(self, message: Ordered | StartView, carrier: tuple[int, int] | None) -> None:
        """Hold an ordered message at its place in the order."""
        key = order_key(message, self._players, self.tie_rule)
        bisect.insort(self.pending, Pending(key, message, carrier), key=lambda p: p.key)
        self.waiting[message.sender] += 1

    def pop_head(self) -> Pending:
        """Take the first pending message out, to commit it."""
        head = self.pending.pop(0)
        self.waiting[head.message.sender] -= 1
        return head

    def keep(self, kept: list[Pending]) -> None:
        """Keep only ``kept`` of the pending messages (a new view drops the others)."""
        self.pending = kept
        self.waiting = [0] * self._players
        for entry in kept:
            self.waiting[entry.message.sender] += 1

    def settle(self, message: Ordered, carrier: tuple[int, int] | None, life: int) -> None:
        """Hold ``message`` in place of a pending message of its sender and number with
        other bytes: a seat that signed both equivocated, and a StartView's copy stands.
        Only a message of the same life is in its place: ``life`` is the view its sender's
        life began in, and a message sent before it (an earlier life's, numbered before
        its sender came back and counted from 1 again) may bear the same number."""
        for entry in self.pending:
            held = entry.message
            place = (held.sender, held.seq) == (message.sender, message.seq)
            place = place and held.view >= life
            if place and held != message and not isinstance(held, StartView):
                self.pending.remove(entry)
                self.waiting[held.sender] -= 1
                self.add(message, carrier)
                return

    def rebase(self, committed: int, digest: bytes) -> None:
        """Go on from ``committed`` messages and ``digest`` (a table that commits by a
        majority starts each view so: `_majority.Majority.install`), folding the next
        message into it; what others reported no longer compares, and no digest is kept
        for ``committed`` itself (the view may never take hold: a sibling of it, built
        from the same votes, may go on instead, from the same count)."""
        self.committed, self.digest = committed, digest
        self.digests = {}
        self._awaited.clear()

    def holds(self, message: Message) -> bool:
        return any(p.message == message for p in self.pending)

    def fold(
        self, message: Ordered | StartView, outcome: int, *, content: bytes | None = None
    ) -> list[Diverged]:
        """Count a committed message into the running digest (as ``content``, if given: what
        of it every seat folds alike); returns the divergences the new digest shows against
        what others reported for it."""
        self.committed += 1
        folded = encode_payload(bare(message)) if content is None else content
        self.digest = hashlib.blake2b(
            self.digest + folded + bytes((outcome,)), digest_size=16
        ).digest()
        self.digests[self.committed] = self.digest
        self.digests.pop(self.committed - DIGESTS_KEPT, None)
        reported = self._awaited.pop(self.committed, ())
        return [Diverged(seat, self.committed) for seat, d in reported if d != self.digest]

    def compare(self, ack: Ack) -> Diverged | None:
        """Check an Ack's digest against this replica's at the same commit count (now, or
        once this replica gets there)."""
        mine = self.digests.get(ack.committed)
        if mine is not None and mine != ack.digest:
            return Diverged(ack.sender, ack.committed)
        if self.committed < ack.committed <= self.committed + AWAITED_AHEAD:
            self._awaited.setdefault(ack.committed, []).append((ack.sender, ack.digest))
        return None
