"""Seats that lie on the wire, for demonstrations and tests: ``p2pnerts bot --cheat KIND``.

A cheating seat plays with a real replica, honestly, and lies only in what it sends: after
its first few messages it rewrites them as one attack. Each kind is an attack the protocol
detects: every honest peer names the seat ("broke the protocol and is refused from now
on"), leaves it out, and finishes the match without it, all alike; a headless peer that saw
it ends with exit status 3. See protocol/SECURITY.md for what each check defends.
"""

from __future__ import annotations

from dataclasses import replace

from p2pnerts.protocol import Ack, Message, Play, Ready, StartView

CHEATS: dict[str, str] = {
    "clock-bomb": "an Ack stamped with the largest clock the codec allows",
    "view-bomb": "an Ack stamped with a view far beyond the table's",
    "backdate": "every play stamped with clock 1, to sort before plays already agreed",
    "overclaim": "Acks that claim messages no seat has sent",
    "forge-view": "a StartView that leaves a seat out, from a seat that may not start it",
    "no-ack": "talks on, but its Acks never acknowledge anything new: no play can commit",
    "replay": "sends its first Ready again in place of an Ack, as a new message",
    "impersonate": "sends Acks in another seat's name on its own connection",
    "garbage": "a frame of bytes that decode to no message, in place of an Ack",
    "flood": "every Ack sent a thousand times over",
}
"""Every kind of cheat, with what it does."""

HONEST_FIRST = 12
"""How many messages a cheat sends honestly first (its Ready, and play under way)."""
FLOOD = 1000
"""How many times over the flood sends each Ack."""
GARBAGE = len(b"\xc1" * 16).to_bytes(4, "big") + b"\xc1" * 16
"""A whole frame whose bytes are no msgpack at all (0xc1 is never used)."""


class Cheat:
    """Rewrites what one seat's replica sends, as the attack ``kind`` (one of `CHEATS`)."""

    def __init__(self, kind: str, honest_first: int = HONEST_FIRST) -> None:
        if kind not in CHEATS:
            raise ValueError(f"no cheat {kind!r}: one of {', '.join(CHEATS)}")
        self.kind = kind
        self._honest = honest_first
        self.lies = 0
        """How many messages it has lied in so far."""
        self._frozen: tuple[int, ...] | None = None
        self._first: Ready | None = None

    def __call__(self, message: Message) -> list[Message | bytes]:
        """What goes on the wire in place of ``message``."""
        if isinstance(message, Ready) and self._first is None:
            self._first = message
        if self._honest > 0:
            self._honest -= 1
            return [message]
        match self.kind, message:
            case "garbage", Ack():
                self.lies += 1
                return [GARBAGE]
            case "flood", Ack():
                self.lies += 1
                return [message] * FLOOD
        forged = self._forge(message)
        if forged is not message:
            self.lies += 1
        return [forged]

    def _forge(self, message: Message) -> Message:
        match self.kind, message:
            case "clock-bomb", Ack():
                return replace(message, clock=2**63 - 1)
            case "view-bomb", Ack():
                return replace(message, view=2**62)
            case "backdate", Play():
                return replace(message, clock=1)
            case "overclaim", Ack():
                return replace(message, have=tuple(n + 1000 for n in message.have))
            case "forge-view", Ack():
                return _forged_start(message)
            case "no-ack", Ack():
                if self._frozen is None:
                    self._frozen = message.have
                return replace(message, have=self._frozen)
            case "replay", Ack() if self._first is not None:
                return replace(self._first, view=message.view, seq=message.seq)
            case "impersonate", Ack():
                return replace(message, sender=(message.sender + 1) % len(message.have))
        return message


def _forged_start(ack: Ack) -> StartView:
    """A StartView in place of an Ack: the next view, started by a seat that is not its
    coordinator, leaving out the seat after the sender."""
    players, me = len(ack.have), ack.sender
    view = ack.view + 1
    while view % players == me:
        view += 1
    dropped = (me + 1) % players
    return StartView(
        me,
        view,
        ack.clock,
        ack.seq,
        voted_in=ack.view,
        members=tuple(s for s in range(players) if s != dropped),
        quorums=(),
        cuts=ack.have,
        joined=(),
        joined_from=(),
        lives=(0,) * players,
        seated=tuple(range(players)),
        round=1,
        base_committed=0,
        base_digest=bytes(16),
        carried=(),
        scores=(),
    )
