"""How the study's commit rules send frames over simulated Wi-Fi (`commit_rules`'s base).

`Wire` carries a rule's frames over `p2pnerts.sim.Links`: each frame is counted and priced
(`Sizes`) as it goes, delayed or lost by the link model, sent again when lost if its kind
is `RELIABLE` (when a later frame shows the gap, or after twice the link's usual round
trip, each wait twice the last up to `RESEND_MOST`), and taken at its seat in its sender's
order where the rule needs that. What a seat then does with it is the rule's
(`commit_rules.Table`: `_handle` and `_commit`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from commit_frames import Frame, Result, Sizes  # beside this script

from p2pnerts.protocol._commits import Commits
from p2pnerts.protocol._order import Order
from p2pnerts.protocol._spots import Decision, PlayId, Vote, Voter
from p2pnerts.sim import Links, Scheduler

RELIABLE = frozenset(
    {
        "play",
        "vote",
        "stable",
        "outcome",
        "recover",
        "reply",
        "ask",
        "proof",
        "ballot",
        "tally",
        "poll",
    }
)
"""The kinds of frame sent again when lost (Acks and heartbeats: the next says more)."""
RESEND_MOST = 0.25
"""The longest wait before a lost frame is sent again: each wait doubles the last, from
twice the link's usual round trip (a gap a later frame shows asks for it at once)."""


@dataclass
class Seat:
    """What one seat of the model keeps: its link's state, and each rule's own."""

    peers: int
    seat: int
    clock: int = 0
    sent_plays: int = 0
    last_sent: float = 0.0
    ack_due: bool = False
    have: list[int] = field(default_factory=list)
    acked: list[list[int]] = field(default_factory=list)
    pending: set[PlayId] = field(default_factory=set)
    """Today's and the sender's rules: plays held, not resolved yet."""
    waiting: dict[int, list[Frame]] = field(default_factory=dict)
    stable: dict[PlayId, tuple[int, ...]] = field(default_factory=dict)
    acks: dict[PlayId, set[int]] = field(default_factory=dict)
    voter: Voter = field(init=False)
    """The majority's rules: this seat's votes, and its commits (`order`)."""
    order: Order = field(init=False)
    votes: dict[PlayId, dict[int, Vote]] = field(default_factory=dict)
    """The votes this seat counted, per play."""
    asked: dict[PlayId, float] = field(default_factory=dict)
    """When this seat next polls the members on each play it waits on."""
    poll_wait: dict[PlayId, float] = field(default_factory=dict)
    proofs: dict[PlayId, int] = field(default_factory=dict)
    """What each outcome taken carried besides, to hand on as it came."""
    doubted: dict[PlayId, Decision] = field(default_factory=dict)
    """Rule ``asked``: outcomes held until the votes they rest on come."""
    committed: list[PlayId] = field(default_factory=list)
    commits: Commits | None = None
    """The rule as built: this seat's share of it (`commit_rules.built`)."""

    def __post_init__(self) -> None:
        self.have = [0] * self.peers
        self.acked = [[0] * self.peers for _ in range(self.peers)]
        self.voter = Voter(self.seat, self.peers)
        self.order = Order(self.peers)


class Wire:
    """A table's seats and the frames between them, over `Links`."""

    def __init__(
        self,
        links: Links,
        sizes: Sizes,
        peers: int,
        fifo: bool,
        away: dict[int, tuple[float, float]] | None = None,
    ) -> None:
        self.links, self.sizes, self.peers = links, sizes, peers
        self.scheduler = Scheduler()
        self.seats = [Seat(peers, seat) for seat in range(peers)]
        self.away = away or {}
        """Per seat left out of the table, from when to when (a stall's view change)."""
        self.result = Result()
        self._lost: dict[tuple[int, int], list[Frame]] = {}
        self._tries: dict[tuple[int, Frame], int] = {}
        """How often each frame lost on its way to a seat was sent: its next wait doubles."""
        self._fifo = fifo
        """Whether a seat takes a sender's frames other than plays only after the plays
        before them (plays it always takes in their sender's order)."""

    @property
    def now(self) -> float:
        return self.scheduler.now

    def _handle(self, dst: int, frame: Frame) -> None:
        """What seat ``dst`` does with ``frame``, taken in its order (the rule's)."""
        raise NotImplementedError

    def _commit(self, seat: int) -> None:
        """What the rule commits at ``seat`` now (the rule's)."""
        raise NotImplementedError

    # --- membership ----------------------------------------------------------------------

    def members(self) -> list[int]:
        now = self.now
        return [s for s in range(self.peers) if not self._left_out(s, now)]

    def _left_out(self, seat: int, now: float) -> bool:
        span = self.away.get(seat)
        return span is not None and span[0] <= now < span[1]

    # --- sending ---------------------------------------------------------------------------

    def _frame(
        self,
        seat: int,
        kind: str,
        play: PlayId | None = None,
        have: tuple[int, ...] = (),
        ok: bool = True,
        carried: int = 0,
    ) -> Frame:
        me = self.seats[seat]
        me.clock += 1
        me.last_sent = self.now
        return Frame(kind, seat, me.clock, me.sent_plays, play, have, ok, carried)

    def _send(self, frame: Frame, dst: int) -> None:
        src = frame.src
        self.result.frames[frame.kind] += 1
        self.result.bytes[frame.kind] += self.sizes.of(frame)
        arrive = self.links.arrival(src, dst, self.now)
        if arrive is None:
            if frame.kind in RELIABLE:
                self._lost.setdefault((src, dst), []).append(frame)
                shape, back = self.links.shape(src, dst), self.links.shape(dst, src)
                tries = self._tries.get((dst, frame), 0)
                self._tries[dst, frame] = tries + 1
                wait = max(0.02, 2 * (shape.usual_max + back.usual_max)) * 2**tries
                wait = min(wait, RESEND_MOST)
                self.scheduler.at(self.now + wait, functools.partial(self._resend, src, dst, frame))
            return
        self._tries.pop((dst, frame), None)
        self.scheduler.at(arrive, functools.partial(self._arrive, dst, frame))

    def _broadcast(self, frame: Frame) -> None:
        for dst in range(self.peers):
            if dst != frame.src:
                self._send(frame, dst)

    def _resend(self, src: int, dst: int, frame: Frame) -> None:
        lost = self._lost.get((src, dst), [])
        if frame in lost:
            lost.remove(frame)
            self._send(frame, dst)

    def _arrive(self, dst: int, frame: Frame) -> None:
        src = frame.src
        if self._left_out(dst, self.now) or self._left_out(src, self.now):
            return
        lost = self._lost.get((src, dst))
        if lost:  # a gap shows: ask at once; the answer is the lost frames sent again
            self.result.frames["nack"] += 1
            self.result.bytes["nack"] += self.sizes.small
            back = self.links.arrival(dst, src, self.now)
            if back is not None:
                for old in list(lost):
                    self.scheduler.at(back, functools.partial(self._resend, src, dst, old))
        self.result.handled += 1
        me = self.seats[dst]
        if self._fifo and frame.kind != "play" and frame.plays_sent > me.have[src]:
            me.waiting.setdefault(src, []).append(frame)
            return
        self._take(dst, frame)

    def _take(self, dst: int, frame: Frame) -> None:
        me, src = self.seats[dst], frame.src
        if frame.kind == "play":
            assert frame.play is not None
            if frame.play[1] != me.have[src] + 1:
                if frame.play[1] > me.have[src]:
                    me.waiting.setdefault(src, []).append(frame)
                return
            me.have[src] = frame.play[1]
        me.clock = max(me.clock, frame.clock)
        me.acked[src][src] = max(me.acked[src][src], frame.plays_sent)
        self._handle(dst, frame)
        if frame.kind == "play" and me.waiting.get(src):
            ready = sorted(me.waiting.pop(src), key=lambda f: f.clock)
            for later in ready:
                if later.kind == "play" or later.plays_sent <= me.have[src]:
                    self._take(dst, later)
                else:
                    me.waiting.setdefault(src, []).append(later)
        self._commit(dst)
