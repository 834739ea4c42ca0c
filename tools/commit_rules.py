"""Commit rules evaluated over simulated Wi-Fi timings, beside the replica (issue 45's study).

This is a model of each rule's frames, not a replica: a workload of plays (who plays
when, taken from a replica's run) is sent over `p2pnerts.sim.Links`, and each seat keeps
only what its rule needs to decide when each play commits, counting every frame it sends.

- ``today``: version 2's rule (SPEC §4.4, §4.5). A play is broadcast; every seat
  broadcasts an Ack 5 ms after what it received; a play commits, first in key order, once
  every member's `have` holds it.
- ``sender``: acknowledgements to the play's sender alone; the sender, holding every
  member's, broadcasts the play's stability once with its `have` (what sorts below it).
- ``majority``: version 3's rule as built (`p2pnerts.protocol._spots` and `_order`, whose
  docstrings say it all), with every play conflicting with every other: votes to the
  sender, which decides on a quorum and broadcasts the outcome once; a seat that waits on
  an outcome too long asks the members for their votes and decides itself.
  `Result.conflicts` counts plays decided apart (only a change of the members can make
  one).
- ``spot``: the same rule, with plays ordered only where they conflict (`spots_of`).
  `Result.misordered` counts pairs of conflicting plays (or of one seat's) a seat
  committed out of key order.
- ``signed``: ``spot`` with the proof SPEC's notes ask for against a seat that would claim
  what its voters never said: every vote signed (it may be carried to a third seat), and
  every outcome carrying the votes that decide it, for a receiver to check (`decide`)
  before it takes it. The same frames and latencies as ``spot``: only the bytes differ.
- ``asked``: ``spot`` with signed votes and bare outcomes; a seat asks the decider for the
  votes (`grounds`) before it takes an outcome that goes against what it knows (its own
  vote was late, or it holds a conflicting play of another seat not resolved), and takes
  it once they come.
- ``accountable``: ``spot`` with votes signed, and every outcome naming its deciding voters
  and signed by its decider, so that a lie is caught after the fact, not refused (the
  same frames and latencies as ``spot``: only the bytes differ).
- ``broadcast``: ``spot`` with every vote sent to every seat, not to the sender alone, and
  every seat deciding each play itself from the votes it holds (`decide`): no outcome
  frames and nothing to prove, the links being authenticated; (N - 1)² votes a play.
- ``built``: not a model but the part as built (`p2pnerts.protocol._commits`), one per
  seat, its real frames (Ballots, signed Tallies, Polls) carried over the same links and
  priced as encoded. Its members never change: with a seat left out (``stall``) the others
  go on polling it.

Over ``datagram`` links a lost play, vote or outcome is sent again when a later frame of its
sender shows the gap (the receiver asks at once) or after twice the link's usual round
trip; Acks and heartbeats are not sent again (the next one says more). A seat takes a
sender's plays in the sender's order; under ``today`` and ``sender`` it takes the sender's
other frames only once it holds the plays before them (the FIFO their argument needs);
over ``tcp`` the link keeps that order itself.

Under the majority rules a play on the whole table (a Nerts call, a stuck) that comes back
late (a quorum voted first for some play that sorts after it) is sent again by its sender
at once, with a new clock, until it lands: `Result.barriers_late` counts the returns, and
`Result.barrier_waits` the time from its first sending to its landing.
"""

from __future__ import annotations

import functools
import hashlib
import random
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import ClassVar

from commit_frames import (  # beside this
    Frame,
    Result,
    Sizes,
    misordered,
    proof_carries,
    vote_carries,
)
from commit_wire import Seat, Wire

from p2pnerts.protocol import Signer, encode
from p2pnerts.protocol._commits import Commits
from p2pnerts.protocol._messages import Ballot, Poll, Tally
from p2pnerts.protocol._polling import POLL_AFTER, POLL_MOST
from p2pnerts.protocol._spots import (
    ALL,
    Decision,
    PlayId,
    Spot,
    Spotted,
    Vote,
    conflict,
    decide,
    grounds,
)
from p2pnerts.sim import Links

RULES = (
    "today", "sender", "majority", "spot", "signed", "asked", "accountable", "broadcast", "built"
)  # fmt: skip
MAJORITY = frozenset({"majority", "spot", "signed", "asked", "accountable", "broadcast"})
"""The rules that run version 3's rule (`p2pnerts.protocol._spots`)."""
SAME_FRAMES = {"signed": "spot", "accountable": "spot"}
"""A rule that sends another's frames (with more in them): the study draws its links'
timings alike, so that the two differ in bytes alone."""
HEARTBEAT = 0.25
ACK_DELAY = 0.005
TICK = 0.05


class Table(Wire):
    """One rule's run of a workload over `Links`; `run` returns its `Result`."""

    def __init__(
        self,
        rule: str,
        links: Links,
        workload: Sequence[tuple[float, int, tuple[Spot, ...]]],
        sizes: Sizes,
        peers: int,
        away: dict[int, tuple[float, float]] | None = None,
        heartbeat: float = HEARTBEAT,
    ) -> None:
        fifo = rule in ("today", "sender") or links.transport == "tcp"
        super().__init__(links, sizes, peers, fifo, away)
        self.rule = rule
        self.heartbeat = heartbeat
        """A seat that has sent nothing for so long sends a heartbeat."""
        self.workload = workload
        self.clocks: dict[PlayId, int] = {}
        self.sent_at: dict[PlayId, float] = {}
        self.spots: dict[PlayId, tuple[Spot, ...]] = {}
        self.plays: dict[PlayId, Spotted] = {}
        self.decided: dict[PlayId, bool] = {}
        self._ticker = random.Random(len(workload))
        self._barriers: dict[PlayId, float] = {}
        """Per play on the whole table in the air, when the first of its sendings went."""

    def run(self) -> Result:
        for at, seat, spots in self.workload:
            self.scheduler.at(at, functools.partial(self._intend, seat, spots))
        end = (self.workload[-1][0] if self.workload else 0.0) + 5.0
        for seat in range(self.peers):
            self.scheduler.at(self._ticker.random() * TICK, functools.partial(self._tick, seat))
        while self.scheduler.next_time <= end and self.scheduler.step():
            pass
        self.result.misordered = self.misordered()
        return self.result

    # --- plays -----------------------------------------------------------------------------

    def _intend(self, seat: int, spots: tuple[Spot, ...], first: float | None = None) -> None:
        if self._left_out(seat, self.now):
            return
        me = self.seats[seat]
        me.sent_plays += 1
        play = (seat, me.sent_plays)
        if spots == (ALL,) and (self.rule in MAJORITY or self.rule == "built"):
            self.result.barriers += first is None
            self._barriers[play] = self.now if first is None else first
        frame = self._frame(seat, "play", play=play)
        self.clocks[play] = frame.clock
        self.spots[play] = spots if self.rule != "majority" else (ALL,)
        self.sent_at[play] = self.now
        self.result.plays += 1
        self.result.sent[seat] += 1
        me.have[seat] = me.sent_plays
        me.acked[seat][seat] = me.sent_plays
        if self.rule == "built":
            witness = hashlib.blake2b(b"%d/%d" % play, digest_size=16).digest()
            self.plays[play] = built(me, self).make(
                me.sent_plays, self.key(play), self.spots[play], witness, self.now
            )
            self._flush(seat)
        elif self.rule in MAJORITY:
            spotted = me.voter.make(me.sent_plays, self.key(play), self.spots[play])
            self.plays[play] = spotted
            self._hold(seat, spotted)
        else:
            me.pending.add(play)
        self._broadcast(frame)
        self._commit(seat)

    def key(self, play: PlayId) -> tuple[int, int]:
        return (self.clocks[play], play[0])

    def _on_play(self, dst: int, frame: Frame) -> None:
        me = self.seats[dst]
        assert frame.play is not None
        if self.rule == "built":
            built(me, self).hold(self.plays[frame.play], self.now)
            self._flush(dst)
            return
        if self.rule in MAJORITY:
            self._hold(dst, self.plays[frame.play])
            return
        me.pending.add(frame.play)
        if self.rule == "today":
            me.acked[dst][frame.src] = me.have[frame.src]
            if not me.ack_due:
                me.ack_due = True
                self.scheduler.at(self.now + ACK_DELAY, functools.partial(self._ack, dst))
        else:
            self._send(self._frame(dst, "vote", play=frame.play), frame.src)

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
        if not self._left_out(seat, self.now) and self.now - me.last_sent >= self.heartbeat:
            self._broadcast(self._frame(seat, "heartbeat", have=tuple(me.have)))
        self._recover(seat)
        if self.rule == "built":
            built(me, self).tick(self.now)
            self._flush(seat)
        elif self.rule == "sender":
            for play in [p for p in me.pending if p[0] == seat]:
                self._check_stable(seat, play)
        elif self.rule in MAJORITY:
            for play in [p for p in me.votes if p not in me.order.outcomes]:
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

    # --- the majority's rules (version 3's, `p2pnerts.protocol._spots`) -------------------

    def _hold(self, seat: int, play: Spotted) -> None:
        """``seat`` holds ``play`` (its own, or a sender's next): it votes, to the sender."""
        me = self.seats[seat]
        vote = me.voter.hold(play)
        me.order.hold(play)
        if play.seat == seat:
            self._count(seat, vote)
        elif self.rule == "broadcast":
            self._broadcast(self._frame(seat, "vote", play.id, vote.below, vote.ok))
            self._count(seat, vote)
        else:
            signed = vote_carries(self.rule)
            vote_frame = self._frame(seat, "vote", play.id, vote.below, vote.ok, signed)
            self._send(vote_frame, play.seat)

    def _on_vote(self, dst: int, frame: Frame) -> None:
        if self.rule == "sender":
            self._on_sender_ack(dst, frame)
        else:
            assert frame.play is not None
            self._count(dst, Vote(frame.play, frame.src, frame.ok, frame.have))

    def _count(self, seat: int, vote: Vote) -> None:
        me = self.seats[seat]
        if vote.play in me.order.outcomes:
            return
        me.votes.setdefault(vote.play, {})[vote.voter] = vote
        self._tally(seat, vote.play)

    def _tally(self, seat: int, play: PlayId) -> None:
        """Decide a play if the members' votes in decide it (a member left out no longer
        counts: the view change that left it out says so)."""
        votes = self.seats[seat].votes.get(play, {})
        # A seat other than the sender counts as a poller does (`decide`), except under
        # ``broadcast``, whose every seat decides alone: there the stricter count would
        # leave split votes undecided (at 6 seats with the bad laptop, seed 1, 258 of the
        # healthy seats' plays then never resolved).
        polled = seat != play[0] and self.rule != "broadcast"
        outcome = decide(self.plays[play], votes, self.members(), self.peers, polled=polled)
        if outcome is not None:
            self._decide(seat, outcome)

    def _decide(self, seat: int, outcome: Decision) -> None:
        if self.decided.setdefault(outcome.play, outcome.ok) != outcome.ok:
            self.result.conflicts += 1
        self._learn(seat, outcome)
        if self.rule == "broadcast":
            return  # every seat decides for itself
        proof = self._proof(seat, outcome.play) if self.rule != "asked" else 0
        self.seats[seat].proofs[outcome.play] = proof
        self._broadcast(
            self._frame(seat, "outcome", outcome.play, outcome.below, outcome.ok, proof)
        )

    def _proof(self, seat: int, play: PlayId) -> int:
        """The bytes an outcome of ``seat``'s carries to prove itself (`proof_carries`)."""
        votes = self.seats[seat].votes.get(play, {})
        polled = seat != play[0]
        on = grounds(self.plays[play], votes, self.members(), self.peers, polled=polled)
        return proof_carries(self.rule, on)

    def _on_outcome(self, dst: int, frame: Frame) -> None:
        assert frame.play is not None
        outcome = Decision(frame.play, frame.ok, frame.have)
        self.seats[dst].proofs.setdefault(frame.play, frame.carried)
        if self.rule == "asked" and self._contested(dst, frame.play):
            self.seats[dst].doubted[frame.play] = outcome
            self._send(self._frame(dst, "ask", frame.play), frame.src)
            return
        self._learn(dst, outcome)

    def _contested(self, seat: int, play: PlayId) -> bool:
        """Whether an outcome for ``play`` goes against what ``seat`` knows: its own vote on
        it was late, or it holds a play of another seat that conflicts and is not resolved."""
        me = self.seats[seat]
        vote = me.voter.votes.get(play)
        if vote is not None and not vote.ok:
            return True
        spots = self.spots[play]
        return any(
            other[0] != play[0] and conflict(self.spots[other], spots)
            for other in me.order.unresolved
            if other != play
        )

    def _on_ask(self, dst: int, frame: Frame) -> None:
        """The decider sends the votes its outcome rests on to a seat that asks."""
        assert frame.play is not None
        reply = self._frame(dst, "proof", frame.play, carried=self._proof(dst, frame.play))
        self._send(reply, frame.src)

    def _on_proof(self, dst: int, frame: Frame) -> None:
        assert frame.play is not None
        outcome = self.seats[dst].doubted.pop(frame.play, None)
        if outcome is not None:
            self._learn(dst, outcome)

    def _learn(self, seat: int, outcome: Decision) -> None:
        order = self.seats[seat].order
        known = order.outcomes.get(outcome.play)
        if known is None:
            order.learn(outcome)
        elif known.ok != outcome.ok:  # decided apart across a change of members: counted
            self.result.conflicts += 1

    def _recover(self, seat: int) -> None:
        """Ask the members for their votes on a play this seat has waited on too long."""
        if self.rule not in MAJORITY:
            return
        me = self.seats[seat]
        for play in me.order.held:
            if play in me.order.outcomes or play[0] == seat:
                continue
            due = me.asked.setdefault(play, self.now + POLL_AFTER)
            if self.now >= due:  # again while it waits, each wait twice the last (`_commits`)
                wait = min(2 * me.poll_wait.get(play, POLL_AFTER / 2), POLL_MOST)
                me.poll_wait[play], me.asked[play] = wait, self.now + wait
                self._broadcast(self._frame(seat, "recover", play=play))
                self._count(seat, me.voter.unseen(play))

    def _on_recover(self, dst: int, frame: Frame) -> None:
        """A member polled answers with its vote, and with the play's outcome if it knows
        it (handed on as it came, `_commits`)."""
        assert frame.play is not None
        me = self.seats[dst]
        vote = me.voter.unseen(frame.play)
        reply = self._frame(dst, "reply", frame.play, vote.below, vote.ok, vote_carries(self.rule))
        self._send(reply, frame.src)
        known = me.order.outcomes.get(frame.play)
        if known is not None and self.rule != "broadcast":
            carried = me.proofs.get(frame.play, 0)
            again = self._frame(dst, "outcome", frame.play, known.below, known.ok, carried)
            self._send(again, frame.src)

    def _on_reply(self, dst: int, frame: Frame) -> None:
        assert frame.play is not None
        self._count(dst, Vote(frame.play, frame.src, frame.ok, frame.have))

    # --- the rule as built (`p2pnerts.protocol._commits`, real frames) ---------------------

    def _flush(self, seat: int) -> None:
        """Send what ``seat``'s `Commits` has to send, each frame priced as encoded."""
        for wire, to in built(self.seats[seat], self).take_outgoing():
            kind = BUILT_KINDS[type(wire)]
            frame = self._frame(seat, kind, (wire.seat, wire.number), carried=len(encode(wire)))
            frame = replace(frame, wire=wire)
            if to is None:
                self._broadcast(frame)
            else:
                self._send(frame, to)

    def _on_built(self, dst: int, frame: Frame) -> None:
        assert isinstance(frame.wire, Ballot | Tally | Poll)
        built(self.seats[dst], self).take(frame.wire, self.now)
        self._flush(dst)

    # --- commits ---------------------------------------------------------------------------

    def _commit(self, seat: int) -> None:
        me = self.seats[seat]
        if self.rule == "built":
            done = built(me, self).resolved()
        elif self.rule in MAJORITY:
            done = me.order.ready()
        else:
            done = []
            while me.pending and (next_one := self._next(seat, me)) is not None:
                me.pending.discard(next_one[0])
                done.append(next_one)
        for play, landed in done:
            if landed:
                me.committed.append(play)
            if play[0] == seat:
                latency = self.now - self.sent_at[play]
                self.result.latencies.setdefault(seat, []).append(latency)
                if not landed:
                    self.result.returned[seat] += 1
                first = self._barriers.pop(play, None)
                if first is not None and landed:
                    self.result.barrier_waits.append(self.now - first)
                elif first is not None:  # late: the sender sends it again at once
                    self.result.barriers_late += 1
                    again = functools.partial(self._intend, seat, (ALL,), first)
                    self.scheduler.at(self.now, again)

    def _next(self, seat: int, me: Seat) -> tuple[PlayId, bool] | None:
        """Today's or the sender's rule: the play that commits (or is returned) at ``seat``
        now, if any."""
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

    def misordered(self) -> int:
        """Pairs of plays a seat committed out of key order that conflict (or are one seat's)."""
        return sum(misordered(me.committed, self.spots, self.key) for me in self.seats)

    def _handle(self, dst: int, frame: Frame) -> None:
        self._HANDLERS[frame.kind](self, dst, frame)

    _HANDLERS: ClassVar[dict[str, Callable[[Table, int, Frame], None]]] = {
        "play": _on_play,
        "ack": _on_ack,
        "heartbeat": _on_ack,
        "vote": _on_vote,
        "stable": _on_stable,
        "outcome": _on_outcome,
        "recover": _on_recover,
        "reply": _on_reply,
        "ask": _on_ask,
        "proof": _on_proof,
        "ballot": _on_built,
        "tally": _on_built,
        "poll": _on_built,
    }


BUILT_KINDS: dict[type, str] = {Ballot: "ballot", Tally: "tally", Poll: "poll"}
"""The frame kinds the study counts the rule as built's frames under."""


def built(seat: Seat, table: Table) -> Commits:
    """``seat``'s share of the rule as built, made when first needed (every seat a member,
    signing with a key computed for the study)."""
    if seat.commits is None:

        def stamp() -> int:
            seat.clock += 1
            return seat.clock

        signer = Signer.computed(seat.seat, table.peers)
        seat.commits = Commits(seat.seat, table.peers, signer, range(table.peers), stamp)
    return seat.commits
