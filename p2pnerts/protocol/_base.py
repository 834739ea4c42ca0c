"""What a view change rebuilds the table from: the base, and the messages a StartView carries.

The *base* is the committed state just before the first Ready of the round in play (the
number of messages committed, the running digest, who was seated and the match's scores
so far). A StartView names the base and carries every ordered message committed since
and held, so that a seat coming back replays the round from its start; to the members
that stay it carries only the messages of the seats that leave or rejoin.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from p2pnerts.protocol import _deal
from p2pnerts.protocol._acks import Acks
from p2pnerts.protocol._codec import decode_payload, encode_payload
from p2pnerts.protocol._errors import KeptStateError
from p2pnerts.protocol._log import Log, Pending
from p2pnerts.protocol._messages import (
    Leave,
    Message,
    Ordered,
    Play,
    Ready,
    Reveal,
    StartView,
    bare,
)
from p2pnerts.protocol._rounds import Disk
from p2pnerts.rules import TableOptions, card_code


@dataclass(slots=True)
class Base:
    """The committed state a StartView rebuilds the round in play from."""

    committed: int
    digest: bytes
    seated: frozenset[int]
    scores: tuple[tuple[int, ...], ...] = ()
    round: int = 0
    since: list[Ordered | StartView] = field(default_factory=list)
    """Every ordered message committed since the base, in order."""

    @classmethod
    def of(cls, start: StartView) -> Base:
        """The base a StartView names: where a seat that rejoins by it starts from."""
        seated = frozenset(start.seated)
        return cls(
            start.base_committed, start.base_digest, seated, tuple(start.scores), start.round
        )

    def to_carry(
        self, pending: list[Pending], departed: frozenset[int], joined: tuple[int, ...]
    ) -> tuple[bytes, ...]:
        """What a StartView carries: for a seat coming back, everything of the round; for
        members only, the messages of the seats that leave (the rest they hold already).
        A StartView carried again is carried without what it carried itself."""
        messages = [*self.since, *(p.message for p in pending)]
        if not joined:
            messages = [m for m in messages if m.sender in departed]
        return tuple(encode_payload(bare(m)) for m in messages)


def take_view(start: StartView, acks: Acks, log: Log, changed: set[int]) -> None:
    """A member's log on installing a StartView: the held messages of the seats that left
    or rejoin, ``changed``, beyond the view's cut of them dropped (committed nowhere), the
    rest of theirs handed over by the StartView; what it carries held; and the StartView
    itself held, as an ordered message (SPEC §6.5 steps 2 to 4)."""
    carrier = (start.sender, start.seq)
    kept = []
    for entry in log.pending:
        sender, seq = entry.message.sender, entry.message.seq
        if sender in changed:
            if seq > start.cuts[sender] and acks.this_life(entry.message):
                continue  # committed nowhere: the view drops it
            entry = Pending(entry.key, entry.message, carrier)
        kept.append(entry)
    log.keep(kept)
    take_carried(start, acks, log, changed)
    log.add(start, None)


def take_carried(start: StartView, acks: Acks, log: Log, changed: set[int] | None) -> None:
    """Hold what a StartView carries: a rejoining replica (``changed`` None) takes all of
    it; a member only the messages of seats that left or rejoin, ``changed`` (the rest
    reach it on their own FIFO links)."""
    carrier = (start.sender, start.seq)
    for payload in start.carried:
        message = decode_payload(payload)  # ordered, or a Rejoin: `check_start_view`
        if not isinstance(message, Ready | Play | Leave | Reveal | StartView):
            continue  # the Rejoin of a seat let in: checked at the gate
        sender = message.sender
        by: tuple[int, int] | None = carrier
        if changed is None:
            if log.holds(message):
                continue
            if _held_on_its_own(start, message):
                by = None
        elif sender not in changed or not acks.this_life(message):
            continue  # (of an earlier life: handed over when its sender rejoined)
        elif message.seq <= acks.have[sender]:
            if not isinstance(message, StartView):
                # The coordinator's copy stands (an equivocation), in place of this life's.
                log.settle(message, by, acks.lives[sender])
            continue
        acks.have[sender] = max(acks.have[sender], message.seq)
        log.add(message, by)


def check_kept(disk: Disk, start: StartView, seat: int, deck: int, options: TableOptions) -> None:
    """Raise `KeptStateError` unless ``disk``, what ``seat`` kept to come back, fits the
    StartView that lets it back in: a deck of a round the table has reached (or of the
    next, dealt just before a crash), and, if the StartView carries this seat's Ready of
    that round, the very deck that Ready showed, with the secret it pledged."""
    readies = [m for m in map(decode_payload, start.carried) if isinstance(m, Ready)]
    reached = max([start.round, *(r.round for r in readies)])
    if disk.round > reached + 1:
        raise KeptStateError(
            f"it holds seat {seat}'s deck of round {disk.round}, and the table is in round"
            f" {reached}: not this table's, or edited"
        )
    for ready in (r for r in readies if r.sender == seat and r.round == disk.round):
        size = _deal.SECRET_BYTES
        kept = len(disk.secrets) == 2 * size and ready.pledge == _deal.pledge(
            disk.round + 1, deck, disk.secrets[size:]
        )
        shown = _deal.face_up(disk.order, options) if disk.order else ()
        if not kept or ready.face_up != tuple(map(card_code, shown)):
            raise KeptStateError(
                f"its deck of round {disk.round} is not the one seat {seat} dealt and pledged"
                " at the table: another table's, or edited"
            )


def _held_on_its_own(start: StartView, message: Message) -> bool:
    """Whether a rejoining replica must wait for every member to acknowledge a carried
    message by its own sender and number, not just through the StartView.

    The members took from the StartView only the messages of seats that leave or
    rejoin; a continuing member's message the coordinator held may still be on its
    way to another member, which holds the StartView without it. A message from an
    earlier life of its sender (numbered afresh since) every member holds already.
    """
    sender = message.sender
    continuing = sender in start.members and sender not in start.joined
    return continuing and message.view >= start.lives[sender]
