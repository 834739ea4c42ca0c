"""What one seat sends: numbered messages queued to broadcast and kept until every member
holds them, and when the next acknowledgement or heartbeat is due."""

from __future__ import annotations

from p2pnerts.protocol._messages import Message


class Outbox:
    """This seat's messages on their way out, and the ones kept to send again."""

    def __init__(self, now: float) -> None:
        self.queue: list[Message] = []
        """To broadcast to every other seat, in order."""
        self.kept: list[Message] = []
        """What this seat sent that some member may not hold yet, to send again."""
        self.last_sent = now
        self.ack_due: float | None = None
        """When an acknowledgement of what arrived is to go out, if one is."""
        self.last_ack = float("-inf")
        """When this seat last sent an Ack."""

    def push(self, message: Message, now: float, *, keep: bool = True) -> None:
        """Queue a message to broadcast; a numbered one is kept until every member holds it."""
        self.queue.append(message)
        if keep:
            self.kept.append(message)
        self.last_sent = now

    def pass_on(self, message: Message) -> None:
        """Queue a message that is neither numbered nor a sign of life (a team's deck)."""
        self.queue.append(message)

    def take(self) -> list[Message]:
        """The queue, emptied."""
        out, self.queue = self.queue, []
        return out

    def after(self, seq: int) -> list[Message]:
        """The kept messages numbered above ``seq``."""
        return [m for m in self.kept if m.seq > seq]

    def again(self, held: int, *, member: bool) -> list[Message]:
        """What to send again, on a new connection, to a seat that holds this seat's
        messages up to ``held``: nothing to a seat left out of this view (``member``
        false) that lacks more than was kept for it — what it lacks went once every
        member had it, the rest would leave it a gap, and it will find itself out."""
        kept = self.after(held)
        if not member and kept and kept[0].seq > held + 1:
            return []
        return kept

    def trim(self, held: int) -> None:
        """Forget the kept messages numbered up to ``held``: every member holds them.

        The replica trims only what every member acknowledged *in this view*: a view built
        from this one cuts this seat's messages at its coordinator's ``have``, which such an
        acknowledgement bounds from below; a seat let back in then needs every message
        after that cut, sent again when this seat installs the view (SPEC §6.5 step 6)."""
        while self.kept and self.kept[0].seq <= held:
            del self.kept[0]

    def ack_soon(self, now: float, delay: float, *, at_once: bool = False) -> None:
        """Acknowledge within ``delay`` (a burst that arrives meanwhile shares one Ack);
        ``at_once``: now, unless an Ack went out within ``delay``."""
        if self.ack_due is None:
            self.ack_due = max(now, self.last_ack + delay) if at_once else now + delay

    def quiet_for(self, now: float) -> float:
        """How long since this seat last sent anything."""
        return now - self.last_sent
