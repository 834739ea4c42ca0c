"""Wi-Fi links for the simulator: delay, jitter, loss and stalls per direction, over TCP or
datagrams (issue 45's study of the transport and the commit rule).

A `Links` answers one question for every message sent: when does it arrive, if ever.

- Each direction of a link has its own `Wifi`: a message takes ``delay`` seconds, give or
  take up to ``jitter`` (uniformly, never below nothing), and each transmission is lost
  with chance ``loss``. A `LinkStall` silences a direction for a while: whatever would be
  sent or would arrive meanwhile is lost.
- Over ``tcp`` a direction is one ordered stream. A lost segment is sent again after the
  retransmission timeout, `RTO` (Linux's floor, 200 ms) and then twice as long each time
  it is lost again; every later segment waits behind it (head-of-line blocking). Segments
  lost in a stall all come back with the first one retransmitted after it, as TCP's
  window follows its first segment.
- Over ``datagram`` each message arrives or is lost on its own, in no particular order,
  and nothing is sent again: resending is the protocol's business.

The draws come from the generator a `Links` is given and from no other, so a run that
uses no `Links` draws exactly what it drew before.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

RTO = 0.2
"""Seconds before TCP sends a lost segment again (Linux's minimum), doubling after that."""

Transport = Literal["tcp", "datagram"]
TRANSPORTS: tuple[Transport, ...] = ("tcp", "datagram")


@dataclass(frozen=True, slots=True)
class LinkStall:
    """A direction of a link silent from ``at`` for ``seconds`` (simulated time)."""

    at: float
    seconds: float

    def covers(self, time: float) -> bool:
        return self.at <= time < self.at + self.seconds

    @property
    def end(self) -> float:
        return self.at + self.seconds


@dataclass(frozen=True, slots=True)
class Wifi:
    """One direction of a Wi-Fi link: ``delay`` ± ``jitter`` seconds, ``loss`` per
    transmission, and its stalls. The default is good Wi-Fi: 3 ± 2 ms, nothing lost."""

    delay: float = 0.003
    jitter: float = 0.002
    loss: float = 0.0
    stalls: tuple[LinkStall, ...] = ()

    def travel(self, rng: random.Random) -> float:
        """Seconds one transmission takes, if it is not lost."""
        if not self.jitter:
            return self.delay
        return max(0.0, self.delay + rng.uniform(-self.jitter, self.jitter))

    def stall_at(self, time: float) -> LinkStall | None:
        return next((s for s in self.stalls if s.covers(time)), None)

    @property
    def usual_max(self) -> float:
        """The longest one-way delay short of a loss."""
        return self.delay + self.jitter


@dataclass(slots=True)
class _Direction:
    last: float = float("-inf")
    """When the latest segment this way arrived (TCP): none arrives before it."""
    lost_at: float | None = None
    """When the first segment lost in the stall in force was sent (TCP)."""
    sent: int = 0
    lost: int = 0
    """Transmissions lost (over TCP, each costs a retransmission)."""


@dataclass(slots=True)
class Links:
    """Every directed link ``(src, dst)``'s `Wifi` (``default`` where none is given), over
    one transport, with the generator its delays and losses are drawn from."""

    rng: random.Random
    transport: Transport = "tcp"
    shapes: Mapping[tuple[int, int], Wifi] = field(default_factory=dict)
    default: Wifi = field(default_factory=Wifi)
    _ways: dict[tuple[int, int], _Direction] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.transport not in TRANSPORTS:
            raise ValueError(f"a transport is tcp or datagram, not {self.transport!r}")

    def shape(self, src: int, dst: int) -> Wifi:
        return self.shapes.get((src, dst), self.default)

    def arrival(self, src: int, dst: int, now: float) -> float | None:
        """When a message ``src`` sends ``dst`` at ``now`` arrives; None if it never does
        (a datagram lost)."""
        way = self._ways.setdefault((src, dst), _Direction())
        way.sent += 1
        if self.transport == "datagram":
            return self._datagram(self.shape(src, dst), way, now)
        return self._segment(self.shape(src, dst), way, now)

    def counts(self, src: int, dst: int) -> tuple[int, int]:
        """Messages sent on a direction so far, and transmissions of them lost."""
        way = self._ways.get((src, dst), _Direction())
        return way.sent, way.lost

    def _datagram(self, shape: Wifi, way: _Direction, now: float) -> float | None:
        due = now + shape.travel(self.rng)
        if self._lost(shape, now, due):
            way.lost += 1
            return None
        return due

    def _segment(self, shape: Wifi, way: _Direction, now: float) -> float:
        stall = shape.stall_at(now)
        if stall is not None:
            # Lost in the stall: back when the first segment lost in it is sent again after
            # the stall (RTO, doubling, from when that one was lost).
            way.lost += 1
            if way.lost_at is None:
                way.lost_at = now
            sent, timeout = way.lost_at + RTO, RTO
            while sent < stall.end:
                timeout *= 2
                sent += timeout
        else:
            way.lost_at = None
            sent, timeout = now, RTO
        while True:
            due = sent + shape.travel(self.rng)
            if not self._lost(shape, sent, due):
                break
            way.lost += 1
            sent += timeout
            timeout *= 2
        way.last = max(way.last, due)
        return way.last

    def _lost(self, shape: Wifi, sent: float, due: float) -> bool:
        if shape.stalls and (shape.stall_at(sent) or shape.stall_at(due)):
            return True
        return bool(shape.loss) and self.rng.random() < shape.loss


def laptop(
    peers: int, seat: int, out: Wifi, into: Wifi | None = None, base: Wifi | None = None
) -> dict[tuple[int, int], Wifi]:
    """The shapes of a table where ``seat``'s laptop sends over ``out`` (and receives over
    ``into``, by default the table's ``base``) and every other direction is ``base``."""
    base = base or Wifi()
    into = into or base
    shapes = {(a, b): base for a in range(peers) for b in range(peers) if a != b}
    for other in range(peers):
        if other != seat:
            shapes[seat, other] = out
            shapes[other, seat] = into
    return shapes
