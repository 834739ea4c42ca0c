"""Links made slow, lossy or cut on purpose, in user space: for slow motion in a classroom
and for testing a table on bad Wi-Fi where the kernel has no traffic shaping.

One `Shaper` shapes every connection of one peer (`Connection(shape=shaper.link())`):

- **Delay, jitter and loss** act on what this peer *sends*, as a shaping queue on its own
  network interface does: each frame leaves ``delay`` seconds late, give or take up to
  ``jitter`` at random; a frame is lost with chance ``loss`` and, as TCP would, sent again
  after a retransmission timeout (`RTO`, doubling each time it is lost again). A
  connection is one ordered stream, so no frame overtakes an earlier one: a frame held
  back holds back those behind it.
- **A stall** cuts every link of this peer, both ways, for a while (`Stall`). *Hold*: what
  is sent meanwhile arrives when it ends (an access point that buffers). *Drop*: what is
  sent meanwhile is lost, and comes only when TCP's retransmission timer next fires after
  the link is back: `RTO` after the first loss, then doubling (a new connection's first
  segment waits `SYN_RTO` instead, as a connection attempt does); so a stall of a few
  seconds costs its length and up to as much again on an old connection, and nothing on
  a connection opened after it ended (the reason for `Links`' probes).

The figures are TCP's on Linux (RFC 6298's minimum RTO as Linux sets it, RFC 6298's
initial SYN timeout); nothing here sends a real segment: frames are held in this process,
and the kernel underneath carries them on loopback or the LAN unshaped.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass

import trio

RTO = 0.2
"""Seconds before TCP sends a lost segment again on a connection with a short round trip
(Linux's minimum)."""
SYN_RTO = 1.0
"""Seconds before a lost first segment of a connection (its SYN) is sent again."""


@dataclass(frozen=True, slots=True)
class Stall:
    """Every link of a peer cut for ``seconds``, ``at`` seconds after play began."""

    at: float
    seconds: float
    drop: bool = True
    """True: what is sent meanwhile is lost and retransmitted (a link that went away);
    False: it is held and arrives at the end (a link that froze)."""

    @property
    def end(self) -> float:
        return self.at + self.seconds


@dataclass(frozen=True, slots=True)
class Shape:
    """How a peer's links are shaped; the default shapes nothing."""

    delay: float = 0.0
    """Seconds added to every frame this peer sends."""
    jitter: float = 0.0
    """Up to this many seconds more or fewer, at random (never below no delay)."""
    loss: float = 0.0
    """The chance that a frame this peer sends is lost (and retransmitted)."""
    stalls: tuple[Stall, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.delay or self.jitter or self.loss or self.stalls)

    def describe(self) -> str:
        """In words, for the peer's first lines (``links shaped: 15 ± 25 ms, 2% lost``)."""
        parts = []
        if self.delay or self.jitter:
            delay = f"{self.delay * 1000:g} ms"
            parts.append(f"{delay} ± {self.jitter * 1000:g} ms" if self.jitter else delay)
        if self.loss:
            parts.append(f"{self.loss * 100:g}% lost")
        for stall in self.stalls:
            how = "cut" if stall.drop else "frozen"
            parts.append(f"{how} for {stall.seconds:g} s at {stall.at:g} s")
        return "links shaped: " + ", ".join(parts)


class Shaper:
    """The shape of one peer's links, and the clock its stalls are counted on."""

    def __init__(self, shape: Shape, rng: random.Random) -> None:
        self.shape = shape
        self._rng = rng
        self._began: float | None = None
        """When play began (`begin`): stalls are counted from then."""

    def begin(self, now: float) -> None:
        """Play begins now (the first time only): the stalls' clock starts."""
        if self._began is None:
            self._began = now

    async def tell(self, report: Callable[[str], None]) -> None:
        """Say when each stall begins and ends (once play has begun)."""
        assert self._began is not None
        for stall in sorted(self.shape.stalls, key=lambda stall: stall.at):
            await trio.sleep_until(self._began + stall.at)
            report(f"links {'cut' if stall.drop else 'frozen'} for {stall.seconds:g} s (--stall)")
            await trio.sleep_until(self._began + stall.end)
            report("links back (--stall)")

    def link(self) -> LinkShaper:
        """The shaping of one new connection."""
        return LinkShaper(self)

    def stall_at(self, now: float) -> tuple[float, Stall] | None:
        """The stall in force at ``now``, with the time it ends, if any."""
        if self._began is None:
            return None
        for stall in self.shape.stalls:
            if self._began + stall.at <= now < self._began + stall.end:
                return self._began + stall.end, stall
        return None

    def travel(self) -> float:
        """Seconds one frame takes to leave: delay and jitter, and retransmissions of it
        while it keeps being lost."""
        shape = self.shape
        seconds = shape.delay
        if shape.jitter:
            seconds = max(0.0, seconds + self._rng.uniform(-shape.jitter, shape.jitter))
        timeout = RTO
        while shape.loss and self._rng.random() < shape.loss:
            seconds += timeout
            timeout *= 2
        return seconds


class LinkShaper:
    """One connection's shaping, each way: when the next frame may go or be taken."""

    def __init__(self, shaper: Shaper) -> None:
        self._shaper = shaper
        self._out = _Way()
        self._in = _Way()
        self.carried = False
        """Whether anything went either way yet: the connection is open at TCP's level
        (until then a loss costs `SYN_RTO`, as a connection attempt's does)."""

    def leaves_at(self, sent: float) -> float:
        """When a frame queued at ``sent`` leaves (after everything queued before it)."""
        return self._release(self._out, sent, sent + self._shaper.travel())

    def taken_at(self, arrived: float) -> float:
        """When data read at ``arrived`` may be taken (only a stall holds it)."""
        return self._release(self._in, arrived, arrived)

    def _release(self, way: _Way, now: float, due: float) -> float:
        """When a frame sent at ``now`` one way, due at ``due`` but for stalls, is released."""
        stalled = self._shaper.stall_at(now)
        if stalled is None:
            way.lost_at = None
        else:
            end, stall = stalled
            if not stall.drop:
                due = max(due, end)
            else:
                if way.lost_at is None:
                    way.lost_at = now
                due = max(due, _retransmitted(way.lost_at, end, self.carried))
        way.last = max(way.last, due)
        self.carried = True
        return way.last


class _Way:
    """One direction of a connection."""

    def __init__(self) -> None:
        self.last = -math.inf
        """When the latest frame this way was released: none goes before it."""
        self.lost_at: float | None = None
        """When the first frame lost in the stall in force was sent."""


def _retransmitted(lost: float, back: float, connected: bool) -> float:
    """When a segment first lost at ``lost`` is sent again for the first time at or after
    ``back``: at ``lost`` plus the timeout, then doubling."""
    timeout = RTO if connected else SYN_RTO
    at = lost + timeout
    while at < back:
        timeout *= 2
        at += timeout
    return at


async def hold_until(when: float) -> None:
    """Wait until ``when`` if it is still to come (trio's clock)."""
    if when > trio.current_time():
        await trio.sleep_until(when)
