"""A seat's connections to the other seats: one each, adopted, dialled again, counted.

Seats dial every seat with a lower number and accept the others (`_seating`), so each
pair has one connection. `Links` holds the one in use for each seat, replaces it when a
newer one is adopted, dials a lower seat again with backoff when its connection drops,
and counts what every connection wrote. It moves no protocol state: the table's peer
decides what an adopted connection is sent first (`Replica.resend_to`) and what to do
with what it carries.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterator, Mapping

import trio

from p2pnerts.net._handshake import Refused, dial_seat
from p2pnerts.net._link import Connection, Received
from p2pnerts.net._result import PeerStats
from p2pnerts.net._shaper import LinkShaper, Shaper
from p2pnerts.protocol import (
    Ack,
    CommitFrame,
    Hello,
    Leave,
    Message,
    Play,
    Ready,
    Reveal,
    Seat,
    SeatKey,
    StartView,
    ViewChange,
    addressed_to,
    encode,
)

log = logging.getLogger("p2pnerts.net")

FRAME_RATE = 2000.0
"""Frames a second a seat's connection may carry for long (far above an honest seat's:
an Ack each few milliseconds, and its plays)..."""
FRAME_BURST = 20_000.0
"""...and at once (all a seat resends on a new connection after a long silence): a seat
past either is refused (`Links.adopt`). A seat's allowance is one, across reconnects: a
seat that floods until its own connection breaks finds it no fuller when it dials again."""

FIRST_REDIAL = 0.05
"""Seconds before a failed dial is tried again; doubled after each failure..."""
LAST_REDIAL = 0.4
"""...up to this: a refused dial costs a peer on the LAN nothing, and a seat whose peer
is back (restarted, or its link returned) should be heard again at once."""

PROBE_AFTER = 0.75
"""Seconds a lower seat's connection may bring nothing (a seat says something at least
every 0.25 s) before this seat dials that seat afresh beside it (a probe)..."""
PROBE_EVERY = 0.25
"""...and again every this many seconds while it stays silent, each attempt given up
after that long. After a link has been gone for a few seconds, TCP on the old connection
sends again only when its doubling retransmission timer next fires, up to as long again
after the link returned; a new connection carries at once, and replaces the old one."""


class Links(Mapping[int, Connection]):
    """The connection in use for each other seat, by seat number."""

    def __init__(
        self,
        stats: PeerStats,
        *,
        refuses: Callable[[int], bool],
        hear: Callable[[int, Received], None],
        broken: Callable[[int, str], None],
        shaper: Shaper | None = None,
    ) -> None:
        self._conns: dict[int, Connection] = {}
        self._heard: dict[int, float] = {}
        """When each seat's connection last brought anything."""
        self._shaper = shaper
        """How this peer's links are shaped (slow motion, a Wi-Fi test), if at all."""
        self._lost: dict[int, trio.Event] = {}
        self._buckets: dict[int, Bucket] = {}
        """Per seat, the frames its connections may still carry (`FRAME_RATE`)."""
        self._stats = stats
        self._refuses = refuses
        """Whether a seat broke the protocol here: it gets no connection again."""
        self._hear = hear
        """Takes what a seat's connection carries, in order."""
        self._broken = broken
        """Told when a seat's connection breaks the protocol: what it carried, or its rate."""

    def __getitem__(self, seat: int) -> Connection:
        return self._conns[seat]

    def __iter__(self) -> Iterator[int]:
        return iter(self._conns)

    def __len__(self) -> int:
        return len(self._conns)

    def adopt(self, seat: int, conn: Connection) -> bool:
        """Use ``conn`` (already being served) for ``seat``, closing any other, and hear
        what arrived on it so far; False (and ``conn`` closed) for a seat refused, or
        refused now for what arrived."""
        if self._refuses(seat):
            conn.close()
            return False
        old = self._conns.get(seat)
        if old is not None and old is not conn:
            old.close()
        self._conns[seat] = conn
        self._heard[seat] = trio.current_time()  # its handshake was just heard
        bucket = self._buckets.get(seat)
        if bucket is None:  # one for the seat, whatever connection it comes by
            bucket = self._buckets[seat] = Bucket(FRAME_RATE, FRAME_BURST, trio.current_time())

        copies = Copies()

        def hear(message: Received) -> None:
            now = self._heard[seat] = trio.current_time()
            if not bucket.take(now):
                why = f"seat {seat} sent over {FRAME_RATE:.0f} messages a second"
            elif (seq := copies.flood(message)) is not None:
                why = f"seat {seat} sent its message {seq} over {COPIES_IN_A_ROW} times in a row"
            else:
                self._hear(seat, message)
                return
            if not self._refuses(seat):
                self._broken(seat, why)
                conn.close()

        conn.hand_over(hear, lambda why: self._broken(seat, why))
        return not conn.closed  # (closed: what arrived first broke the protocol)

    def lost(self, seat: int, conn: Connection) -> None:
        """A connection ended (whoever served it): count it, and forget it if in use."""
        self._count(conn)
        if self._conns.get(seat) is conn:
            del self._conns[seat]
            self._lost.setdefault(seat, trio.Event()).set()

    def send(self, message: Message) -> None:
        """Queue ``message`` on the connection of every seat it is addressed to."""
        frame = encode(message)
        for seat, conn in list(self._conns.items()):
            if addressed_to(message, seat):
                conn.send_encoded(frame)

    def send_to(self, message: CommitFrame, seat: int | None) -> None:
        """Queue a commit frame on the connection of ``seat`` (None: of every seat)."""
        frame = encode(message)
        for to, conn in list(self._conns.items()):
            if seat is None or to == seat:
                conn.send_encoded(frame)

    def send_frame(self, frame: bytes) -> None:
        """Put ``frame`` on every connection as it is (a cheat's garbage)."""
        for conn in list(self._conns.values()):
            conn.send_frame(frame)

    def close(self) -> None:
        """Close every connection, counting what each wrote."""
        for conn in self._conns.values():
            self._count(conn)
            conn.close()

    async def keep_dialled(
        self,
        other: Seat,
        hello: Callable[[], Hello],
        key: SeatKey,
        nursery: trio.Nursery,
        adopt: Callable[[int, Connection], None],
    ) -> None:
        """Keep a connection to a lower seat: dial, dial again when it drops, and probe
        with a new connection while it brings nothing (`PROBE_AFTER`); each new connection
        is served in ``nursery`` and handed to ``adopt``, which puts it in the old one's
        place. Raises `Refused` when the host (seat 0) refuses this seat; another seat
        that refuses it is not dialled again."""
        delay = FIRST_REDIAL
        seat = other.seat
        while not self._refuses(seat):  # none again to a seat refused
            current = self._conns.get(seat)
            connected = current is not None and not current.closed
            if connected:
                quiet_at = self._heard[seat] + PROBE_AFTER
                if trio.current_time() < quiet_at:
                    lost = self._lost[seat] = trio.Event()
                    with trio.move_on_at(quiet_at):
                        await lost.wait()
                    continue
            conn = None
            try:
                with trio.move_on_after(PROBE_EVERY if connected else math.inf):
                    conn = await dial_seat(other, hello(), key, self._shape())
            except Refused as exc:
                if seat == 0:
                    raise  # the host's answer is the table's: this seat cannot play it
                # Another seat's refusal does not stop this one: which of the two is wrong
                # the host's answer says, and a seat must not be able to stop another by
                # refusing it. No link to that seat from now on (SPEC §2.8).
                log.warning("%s; playing on without a link to it", exc)
                return
            if conn is None:
                if not connected:
                    await trio.sleep(delay)
                    delay = min(delay * 2, LAST_REDIAL)
                continue
            delay = FIRST_REDIAL
            if connected:
                self._stats.probed += 1
            nursery.start_soon(self._serve, seat, conn)
            adopt(seat, conn)

    async def _serve(self, seat: int, conn: Connection) -> None:
        try:
            await conn.serve()
        finally:
            self.lost(seat, conn)

    def _shape(self) -> LinkShaper | None:
        return None if self._shaper is None else self._shaper.link()

    def _count(self, conn: Connection) -> None:
        self._stats.frames_sent += conn.frames_sent
        self._stats.bytes_sent += conn.bytes_sent
        conn.frames_sent = conn.bytes_sent = 0


NUMBERED = (Ready, Play, Ack, Reveal, Leave, ViewChange, StartView)
"""The kinds of message a seat numbers in its sequence (the others all carry ``seq`` 1)."""
COPIES_IN_A_ROW = 8
"""How many times in a row one connection may carry one numbered message. An honest seat
sends one at most twice in a row (resent when the connection is adopted, then again from
the queue it was waiting in); a flood of copies is refused however slowly the receiver
reads it, where the token bucket alone lets it through to a receiver too slow to take
`FRAME_RATE` frames a second."""


class Copies:
    """Counts one connection's copies in a row of a numbered message."""

    def __init__(self) -> None:
        self._last: Received | None = None
        self._count = 0

    def flood(self, message: Received) -> int | None:
        """The number of ``message`` if it is one copy too many in a row, else None."""
        if isinstance(message, NUMBERED) and message == self._last:
            self._count += 1
            return message.seq if self._count > COPIES_IN_A_ROW else None
        self._last, self._count = message, 1
        return None


class Bucket:
    """A token bucket: ``rate`` a second, holding at most ``burst``; starts full."""

    def __init__(self, rate: float, burst: float, now: float) -> None:
        self._rate, self._burst = rate, burst
        self._tokens, self._at = burst, now

    def take(self, now: float) -> bool:
        """Take one token; False if there is none."""
        self._tokens = min(self._burst, self._tokens + (now - self._at) * self._rate)
        self._at = now
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True
