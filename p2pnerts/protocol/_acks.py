"""Acknowledgement bookkeeping: the Lamport clock, and who holds which messages.

Each seat numbers its messages 1, 2, 3 … from the view its current *life* began in
(``lives``: a seat that rejoins starts again at 1). ``have`` is the highest number this
replica holds from each seat, its own included. ``acked[r]`` is what seat ``r`` said it
holds in its latest Acks, from any view, which says what to resend it; ``vouched[r]``
counts only Acks sent in this replica's view, and is what the commit rule reads: a
message commits once every member of the view vouched for holding it.
"""

from __future__ import annotations

from collections.abc import Iterable
from operator import gt

from p2pnerts.protocol._log import Pending
from p2pnerts.protocol._messages import Ack, Message, StartView

CLOCKS_KEPT = 4096
"""Per seat, how many of its latest messages' clocks a replica keeps, to check the Acks
that claim them (`_checks.late_claim`)."""


class Acks:
    """What this replica holds from each seat, and what each seat says it holds."""

    def __init__(self, seat: int, players: int, *, clock: int = 0) -> None:
        self.seat = seat
        self.players = players
        self.clock = clock
        """The Lamport clock: the largest seen, one more for each message sent."""
        self.lives = [0] * players
        """Per seat, the view its current life began in (0 for a seat that never rejoined)."""
        self.have = [0] * players
        self.acked = [[0] * players for _ in range(players)]
        self.acked[seat] = self.have
        self.vouched = [[0] * players for _ in range(players)]
        """Like ``acked``, but only from acknowledgements sent in this view: the commit rule
        counts these (`install`)."""
        self.vouched[seat] = self.have
        self.last_clock = [0] * players
        """Per seat, the clock of the last message held of its current life: the next
        one must carry a larger one (`Gate.check_next`)."""
        self.clocks: list[dict[int, int]] = [{} for _ in range(players)]
        """Per seat, the clocks of its latest messages held, by number: an Ack may claim
        none stamped at or above its own clock (`_checks.late_claim`)."""

    @classmethod
    def for_rejoiner(cls, seat: int, start: StartView, clock: int) -> Acks:
        """A seat's bookkeeping coming back into a view from its StartView alone: every
        seat's life as the view says, and only the coordinator known to hold anything."""
        acks = cls(seat, len(start.lives), clock=max(clock, start.clock))
        acks.lives = list(start.lives)
        acks.vouched[start.sender][start.sender] = start.seq
        return acks

    def next_seq(self) -> int:
        """Number a message this seat sends, and count it held."""
        self.clock += 1
        self.have[self.seat] += 1
        self._note_clock(self.seat, self.have[self.seat], self.clock)
        return self.have[self.seat]

    def accept(self, message: Message, *, in_view: bool) -> bool:
        """SPEC §4.2 step 9, and for an Ack §4.5's bookkeeping: hold a message that came
        next from its sender (`hold`) and note what an Ack says its sender holds (`take`).
        Returns whether it is an Ack that claims no more of any other seat's messages than
        its sender's last one did (its sender may be stalling: `Liveness.hear`)."""
        self.hold(message, in_view=in_view)
        if not isinstance(message, Ack):
            return False
        stale = not self._claims_more(message)
        self.take(message, in_view=in_view)
        return stale

    def _claims_more(self, ack: Ack) -> bool:
        """Whether an Ack claims more of some other seat's messages than its sender's last."""
        row, have, sender = self.acked[ack.sender], ack.have, ack.sender
        after = sender + 1
        return any(map(gt, have[:sender], row[:sender])) or any(map(gt, have[after:], row[after:]))

    def hold(self, message: Message, *, in_view: bool) -> None:
        """Count a message just received as held, and its sender as holding it (vouched
        for in this view only if sent in it); the clock catches up with it."""
        sender = message.sender
        self.have[sender] = message.seq
        self.acked[sender][sender] = message.seq
        if in_view:
            self.vouched[sender][sender] = message.seq
        self.clock = max(self.clock, message.clock)
        self.last_clock[sender] = message.clock
        self._note_clock(sender, message.seq, message.clock)

    def clock_of(self, seat: int, seq: int) -> int | None:
        """The clock of message ``seq`` of ``seat``'s current life, if held lately."""
        return self.clocks[seat].get(seq)

    def _note_clock(self, seat: int, seq: int, clock: int) -> None:
        clocks = self.clocks[seat]
        clocks[seq] = clock
        if len(clocks) > 2 * CLOCKS_KEPT:
            self.clocks[seat] = {n: c for n, c in clocks.items() if n > seq - CLOCKS_KEPT}

    def take(self, ack: Ack, *, in_view: bool) -> None:
        """Note what an Ack says its sender holds (of each seat's current life)."""
        rows = [self.acked[ack.sender]]
        if in_view:
            rows.append(self.vouched[ack.sender])
        lives, have = self.lives, ack.have
        every_life = ack.view >= max(lives)  # the usual case: sent in every seat's life
        for row in rows:
            if every_life:
                row[:] = map(max, row, have)
                continue
            for seat, seq in enumerate(have):
                if ack.view >= lives[seat]:
                    row[seat] = max(row[seat], seq)

    def vouched_by(self, entry: Pending, members: Iterable[int]) -> bool:
        """Whether every one of ``members`` vouched for holding a pending message (or the
        StartView that carried it: whoever holds that holds what it carried)."""
        seat, seq = entry.carrier or (entry.message.sender, entry.message.seq)
        return self.held_by_all(seat, seq, members)

    def held_by_all(self, seat: int, seq: int, members: Iterable[int]) -> bool:
        """Whether every member vouched for holding message ``seq`` of ``seat``."""
        vouched = self.vouched
        # A loop, not all() over a generator, which costs a call a member: the commit rule
        # asks this for every message at the head of the order.
        for r in members:  # noqa: SIM110
            if vouched[r][seat] < seq:
                return False
        return True

    def lowest_vouched(self, members: Iterable[int]) -> int:
        """The highest of this seat's messages every other member vouched for holding."""
        vouched, me = self.vouched, self.seat
        return min([vouched[r][me] for r in members if r != me], default=self.have[me])

    def install(self, start: StartView) -> None:
        """Forget the other seats' acknowledgements for the commit rule: from a new view on,
        only those sent in it count (``acked`` keeps them all)."""
        for seat in range(self.players):
            if seat != self.seat:
                self.vouched[seat] = [0] * self.players
        if start.sender != self.seat:
            self.vouched[start.sender][start.sender] = start.seq  # it holds its StartView

    def reset_seat(self, seat: int, view: int) -> None:
        """A seat (re)joins in ``view``: its sequence numbers start again."""
        self.lives[seat] = view
        self.have[seat] = 0
        self.last_clock[seat] = 0
        self.clocks[seat] = {}
        for rows in (self.acked, self.vouched):
            for row in rows:
                row[seat] = 0
            if seat != self.seat:
                rows[seat] = [0] * self.players

    def this_life(self, message: Message) -> bool:
        """Whether a message is from its sender's current life, whose sequence numbers
        ``have`` and a StartView's cuts count: a seat that rejoins numbers its messages
        from 1 again, so one from an earlier life (sent before the view it rejoined in)
        can bear any number; the StartView it rejoined by handed those over."""
        return message.view >= self.lives[message.sender]
