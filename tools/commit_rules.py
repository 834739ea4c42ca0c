"""Commit rules evaluated over simulated Wi-Fi timings, beside the replica (issue 45's study).

This is a model of each rule's frames, not a replica: a workload of plays (who plays
when, taken from a replica's run) is sent over `p2pnerts.sim.Links`, and each seat keeps
only what its rule needs to decide when each play commits, counting every frame it sends.

- ``today``: version 2's rule (SPEC §4.4, §4.5). A play is broadcast; every seat
  broadcasts an Ack 5 ms after what it received; a play commits, first in key order, once
  every member's `have` holds it.
- ``sender``: acknowledgements to the play's sender alone; the sender, holding every
  member's, broadcasts the play's stability once with its `have` (what sorts below it).
- ``majority``: a member votes for a play unless it already voted for one that sorts after
  it (then the play is late), with the plays below it it holds unresolved; the sender
  decides on a majority's votes and broadcasts the outcome once; a play commits once its
  outcome is known and every play its voters named below it is resolved. A late play is
  returned to its sender. A seat that waits on a play's outcome too long polls the members
  for their votes and decides it itself (recovery; the ballots that make two deciders
  safe are not modelled, and `Result.conflicts` counts plays two deciders decided apart).
- ``spot``: the majority's rule with votes, deps and lateness kept to plays that conflict:
  two plays onto one foundation, any play and a Nerts call, a stuck or a rotation (a
  workload names each play's spot); a play to a seat's own tableau conflicts with none.

Over ``datagram`` links a lost play, vote or outcome is sent again when a later frame of its
sender shows the gap (the receiver asks at once) or after twice the link's usual round
trip; Acks and heartbeats are not sent again (the next one says more). Under ``today`` and
``sender`` a seat takes a sender's frames only once it holds that sender's earlier plays
(the FIFO their argument needs); over ``tcp`` the link keeps that order itself.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from p2pnerts.sim import Links, Scheduler

RULES = ("today", "sender", "majority", "spot")
PlayId = tuple[int, int]
"""A play's seat and number."""
ALL = "*"
"""The spot of a play that conflicts with every other (a Nerts call, stuck, rotate)."""
HEARTBEAT = 0.25
ACK_DELAY = 0.005
TICK = 0.05
RECOVER_AFTER = 0.1
RELIABLE = frozenset({"play", "vote", "stable", "outcome", "recover", "reply"})


@dataclass(frozen=True, slots=True)
class Sizes:
    """Bytes of each kind of frame at a table (from the codec; see `commit_study.sizes`)."""

    play: int
    ack: int
    heartbeat: int
    small: int
    """A frame that names one play (a vote, a request): a header and a witness."""
    per_dep: int = 4

    def of(self, kind: str, deps: int = 0) -> int:
        match kind:
            case "play":
                return self.play
            case "ack":
                return self.ack
            case "heartbeat" | "stable" | "outcome":
                return self.heartbeat + self.per_dep * deps
            case _:
                return self.small + self.per_dep * deps


@dataclass(frozen=True, slots=True)
class Frame:
    kind: str
    src: int
    clock: int
    plays_sent: int
    """How many plays the sender had sent with this frame (the FIFO prerequisite)."""
    play: PlayId | None = None
    have: tuple[int, ...] = ()
    ok: bool = True
    deps: frozenset[PlayId] = frozenset()


@dataclass
class Result:
    """One rule's run: commit latency of each seat's own plays, and frames sent."""

    latencies: dict[int, list[float]] = field(default_factory=dict)
    returned: Counter[int] = field(default_factory=Counter)
    sent: Counter[int] = field(default_factory=Counter)
    frames: Counter[str] = field(default_factory=Counter)
    bytes: Counter[str] = field(default_factory=Counter)
    handled: int = 0
    plays: int = 0
    conflicts: int = 0

    def unfinished(self, seat: int) -> int:
        """``seat``'s plays that neither committed nor returned there by the end."""
        return self.sent[seat] - len(self.latencies.get(seat, ()))


@dataclass
class _Seat:
    peers: int
    clock: int = 0
    sent_plays: int = 0
    last_sent: float = 0.0
    ack_due: bool = False
    have: list[int] = field(default_factory=list)
    acked: list[list[int]] = field(default_factory=list)
    pending: set[PlayId] = field(default_factory=set)
    waiting: dict[int, list[Frame]] = field(default_factory=dict)
    stable: dict[PlayId, tuple[int, ...]] = field(default_factory=dict)
    acks: dict[PlayId, set[int]] = field(default_factory=dict)
    frontier: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Per spot, the highest key voted for (``ALL``: of every spot)."""
    votes: dict[PlayId, dict[int, Frame]] = field(default_factory=dict)
    my_votes: dict[PlayId, Frame] = field(default_factory=dict)
    outcome: dict[PlayId, tuple[bool, frozenset[PlayId]]] = field(default_factory=dict)
    open: dict[PlayId, tuple[bool, frozenset[PlayId]]] = field(default_factory=dict)
    """Outcomes known whose plays are not resolved here yet."""
    resolved: set[PlayId] = field(default_factory=set)
    asked: dict[PlayId, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.have = [0] * self.peers
        self.acked = [[0] * self.peers for _ in range(self.peers)]


class Table:
    """One rule's run of a workload over `Links`; `run` returns its `Result`."""

    def __init__(
        self,
        rule: str,
        links: Links,
        workload: Sequence[tuple[float, int, str]],
        sizes: Sizes,
        peers: int,
        away: dict[int, tuple[float, float]] | None = None,
    ) -> None:
        self.rule, self.links, self.sizes, self.peers = rule, links, sizes, peers
        self.scheduler = Scheduler()
        self.seats = [_Seat(peers) for _ in range(peers)]
        self.workload = workload
        self.away = away or {}
        """Per seat left out of the table, from when to when (a stall's view change)."""
        self.result = Result()
        self.clocks: dict[PlayId, int] = {}
        self.sent_at: dict[PlayId, float] = {}
        self.spots: dict[PlayId, str] = {}
        self.decided: dict[PlayId, bool] = {}
        self._lost: dict[tuple[int, int], list[Frame]] = {}
        self._fifo = rule in ("today", "sender") or links.transport == "tcp"
        self._ticker = random.Random(len(workload))

    @property
    def now(self) -> float:
        return self.scheduler.now

    def run(self) -> Result:
        for at, seat, spot in self.workload:
            self.scheduler.at(at, functools.partial(self._intend, seat, spot))
        end = (self.workload[-1][0] if self.workload else 0.0) + 5.0
        for seat in range(self.peers):
            self.scheduler.at(self._ticker.random() * TICK, functools.partial(self._tick, seat))
        while self.scheduler.next_time <= end and self.scheduler.step():
            pass
        return self.result

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
        deps: frozenset[PlayId] = frozenset(),
    ) -> Frame:
        me = self.seats[seat]
        me.clock += 1
        me.last_sent = self.now
        return Frame(kind, seat, me.clock, me.sent_plays, play, have, ok, deps)

    def _send(self, frame: Frame, dst: int) -> None:
        src = frame.src
        self.result.frames[frame.kind] += 1
        self.result.bytes[frame.kind] += self.sizes.of(frame.kind, len(frame.deps))
        arrive = self.links.arrival(src, dst, self.now)
        if arrive is None:
            if frame.kind in RELIABLE:
                self._lost.setdefault((src, dst), []).append(frame)
                shape, back = self.links.shape(src, dst), self.links.shape(dst, src)
                wait = max(0.02, 2 * (shape.usual_max + back.usual_max))
                self.scheduler.at(self.now + wait, functools.partial(self._resend, src, dst, frame))
            return
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
            self.result.bytes["nack"] += self.sizes.of("nack")
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
            if frame.play[1] <= me.have[src] or (self._fifo and frame.play[1] > me.have[src] + 1):
                if frame.play[1] > me.have[src]:
                    me.waiting.setdefault(src, []).append(frame)
                return
            me.have[src] = frame.play[1]
        me.clock = max(me.clock, frame.clock)
        me.acked[src][src] = max(me.acked[src][src], frame.plays_sent)
        self._HANDLERS[frame.kind](self, dst, frame)
        if frame.kind == "play" and me.waiting.get(src):
            ready = sorted(me.waiting.pop(src), key=lambda f: f.clock)
            for later in ready:
                if later.kind == "play" or later.plays_sent <= me.have[src]:
                    self._take(dst, later)
                else:
                    me.waiting.setdefault(src, []).append(later)
        self._commit(dst)

    # --- plays -----------------------------------------------------------------------------

    def _intend(self, seat: int, spot: str) -> None:
        if self._left_out(seat, self.now):
            return
        me = self.seats[seat]
        me.sent_plays += 1
        play = (seat, me.sent_plays)
        frame = self._frame(seat, "play", play=play)
        self.clocks[play] = frame.clock
        self.spots[play] = spot if self.rule == "spot" else ALL
        self.sent_at[play] = self.now
        self.result.plays += 1
        self.result.sent[seat] += 1
        me.have[seat] = me.sent_plays
        me.acked[seat][seat] = me.sent_plays
        me.pending.add(play)
        if self.rule in ("majority", "spot"):
            self._count(seat, self._my_vote(seat, play))
        self._broadcast(frame)
        self._commit(seat)

    def key(self, play: PlayId) -> tuple[int, int]:
        return (self.clocks[play], play[0])

    def _on_play(self, dst: int, frame: Frame) -> None:
        me = self.seats[dst]
        assert frame.play is not None
        if frame.play not in me.resolved:  # (its outcome may have come first)
            me.pending.add(frame.play)
        if self.rule == "today":
            me.acked[dst][frame.src] = me.have[frame.src]
            if not me.ack_due:
                me.ack_due = True
                self.scheduler.at(self.now + ACK_DELAY, functools.partial(self._ack, dst))
        elif self.rule == "sender":
            self._send(self._frame(dst, "vote", play=frame.play), frame.src)
        else:
            vote = self._my_vote(dst, frame.play)
            self._send(self._frame(dst, "vote", frame.play, ok=vote.ok, deps=vote.deps), frame.src)

    def _ack(self, seat: int) -> None:
        me = self.seats[seat]
        me.ack_due = False
        if not self._left_out(seat, self.now):
            self._broadcast(self._frame(seat, "ack", have=tuple(me.have)))

    def _on_ack(self, dst: int, frame: Frame) -> None:
        row = self.seats[dst].acked[frame.src]
        for s, q in enumerate(frame.have):
            row[s] = max(row[s], q)

    def _tick(self, seat: int) -> None:
        me = self.seats[seat]
        if not self._left_out(seat, self.now) and self.now - me.last_sent >= HEARTBEAT:
            self._broadcast(self._frame(seat, "heartbeat", have=tuple(me.have)))
        self._recover(seat)
        if self.rule == "sender":
            for play in [p for p in me.pending if p[0] == seat]:
                self._check_stable(seat, play)
        elif self.rule in ("majority", "spot"):
            for play in [p for p in me.votes if p not in me.outcome]:
                self._tally(seat, play)
        self._commit(seat)
        self.scheduler.at(self.now + TICK, functools.partial(self._tick, seat))

    # --- the sender's rule -------------------------------------------------------------------

    def _on_sender_ack(self, dst: int, frame: Frame) -> None:
        play = frame.play
        assert play is not None
        self.seats[dst].acks.setdefault(play, set()).add(frame.src)
        self._check_stable(dst, play)

    def _check_stable(self, seat: int, play: PlayId) -> None:
        """Broadcast a play's stability once every member (a member left out no longer
        counts) has acknowledged it to its sender."""
        me = self.seats[seat]
        if play not in me.stable and set(self.members()) - {seat} <= me.acks.get(play, set()):
            me.stable[play] = tuple(me.have)
            self._broadcast(self._frame(seat, "stable", play=play, have=tuple(me.have)))

    def _on_stable(self, dst: int, frame: Frame) -> None:
        assert frame.play is not None
        self.seats[dst].stable[frame.play] = frame.have

    # --- the majority's rule -----------------------------------------------------------------

    def _my_vote(self, seat: int, play: PlayId) -> Frame:
        """This seat's vote on a play it holds: cast on first sight, the same ever after."""
        me = self.seats[seat]
        vote = me.my_votes.get(play)
        if vote is None:
            key, spot = self.key(play), self.spots[play]
            ok = key > self._highest(me, spot)
            below = frozenset(
                p
                for p in me.pending
                if p != play and self.key(p) < key and self._conflict(spot, self.spots[p])
            )
            vote = Frame("vote", seat, 0, 0, play=play, ok=ok, deps=below if ok else frozenset())
            me.my_votes[play] = vote
            for name in {spot, ALL} | ({"call"} if spot == ALL else set()):
                me.frontier[name] = max(me.frontier.get(name, (0, -1)), key)
        return vote

    def _highest(self, me: _Seat, spot: str) -> tuple[int, int]:
        """The highest key this seat voted for among plays that conflict with ``spot``."""
        if spot == ALL:
            return me.frontier.get(ALL, (0, -1))
        return max(me.frontier.get(spot, (0, -1)), me.frontier.get("call", (0, -1)))

    @staticmethod
    def _conflict(a: str, b: str) -> bool:
        return a == b or ALL in (a, b)

    def _on_vote(self, dst: int, frame: Frame) -> None:
        if self.rule == "sender":
            self._on_sender_ack(dst, frame)
        else:
            self._count(dst, frame)

    def _count(self, seat: int, vote: Frame) -> None:
        me, play = self.seats[seat], vote.play
        assert play is not None
        if play in me.outcome:
            return
        me.votes.setdefault(play, {})[vote.src] = vote
        self._tally(seat, play)

    def _tally(self, seat: int, play: PlayId) -> None:
        """Decide a play on the votes in, if a majority of the members' votes decide it (a
        member left out no longer counts: the view change that left it out says so)."""
        members = self.members()
        majority = len(members) // 2 + 1
        ballots = [v for src, v in self.seats[seat].votes.get(play, {}).items() if src in members]
        oks = [v for v in ballots if v.ok]
        if len(oks) >= majority:
            deps = frozenset().union(*(v.deps for v in oks[:majority]))
            self._decide(seat, play, True, deps)
        elif len(ballots) - len(oks) > len(members) - majority:
            self._decide(seat, play, False, frozenset())

    def _decide(self, seat: int, play: PlayId, ok: bool, deps: frozenset[PlayId]) -> None:
        if self.decided.setdefault(play, ok) != ok:
            self.result.conflicts += 1
        me = self.seats[seat]
        me.outcome[play] = me.open[play] = (ok, deps)
        self._broadcast(self._frame(seat, "outcome", play=play, ok=ok, deps=deps))

    def _on_outcome(self, dst: int, frame: Frame) -> None:
        me, play = self.seats[dst], frame.play
        assert play is not None
        if play not in me.outcome:
            me.outcome[play] = me.open[play] = (frame.ok, frame.deps)

    def _recover(self, seat: int) -> None:
        """Poll the members for the votes on a play this seat has waited on too long."""
        if self.rule not in ("majority", "spot"):
            return
        me = self.seats[seat]
        for play in list(me.pending) + [d for _, deps in me.outcome.values() for d in deps]:
            if play in me.outcome or play[0] == seat:
                continue
            first = me.asked.setdefault(play, self.now)
            if first >= 0 and self.now - first >= RECOVER_AFTER:
                me.asked[play] = -1.0
                me.votes.pop(play, None)
                self._broadcast(self._frame(seat, "recover", play=play))
                self._on_recover(seat, Frame("recover", seat, 0, 0, play=play))

    def _on_recover(self, dst: int, frame: Frame) -> None:
        me, play = self.seats[dst], frame.play
        assert play is not None
        if play not in me.my_votes and play not in me.pending:
            # Never held: a vote against it, kept (the play arrives too late, if at all).
            me.my_votes[play] = Frame("vote", dst, 0, 0, play=play, ok=False)
        vote = self._my_vote(dst, play)
        if frame.src == dst:
            self._count(dst, vote)
        else:
            reply = self._frame(dst, "reply", play=play, ok=vote.ok, deps=vote.deps)
            self._send(reply, frame.src)

    def _on_reply(self, dst: int, frame: Frame) -> None:
        self._count(dst, frame)

    # --- commits ---------------------------------------------------------------------------

    def _commit(self, seat: int) -> None:
        me = self.seats[seat]
        while me.pending or me.open:
            done = self._next(seat, me)
            if done is None:
                return
            play, landed = done
            me.pending.discard(play)
            me.open.pop(play, None)
            me.resolved.add(play)
            if play[0] == seat:
                latency = self.now - self.sent_at[play]
                self.result.latencies.setdefault(seat, []).append(latency)
                if not landed:
                    self.result.returned[seat] += 1

    def _next(self, seat: int, me: _Seat) -> tuple[PlayId, bool] | None:
        """The play that commits (or is returned) at ``seat`` now, if any."""
        if self.rule in ("majority", "spot"):
            for play, (ok, deps) in me.open.items():
                if not ok or deps <= me.resolved:
                    return play, ok
            return None
        first = min(me.pending, key=self.key)
        if self.rule == "today":
            members = self.members()
            if all(me.acked[r][first[0]] >= first[1] for r in members if r != seat):
                return first, True
            if first[0] not in members:
                return first, False
            return None
        below = me.stable.get(first)
        if below is not None and all(h >= b for h, b in zip(me.have, below, strict=True)):
            return first, True
        if first[0] not in self.members():
            return first, False
        return None

    _HANDLERS: ClassVar[dict[str, Callable[[Table, int, Frame], None]]] = {
        "play": _on_play,
        "ack": _on_ack,
        "heartbeat": _on_ack,
        "vote": _on_vote,
        "stable": _on_stable,
        "outcome": _on_outcome,
        "recover": _on_recover,
        "reply": _on_reply,
    }
