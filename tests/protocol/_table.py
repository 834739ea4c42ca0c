"""Replicas wired to each other directly: FIFO queues per link, time and delivery by hand.

Like h11's ConnectionPair: no sockets, no simulator, every message moved by the test.
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from _cards import order as order

from p2pnerts.protocol import (
    CommitFrame,
    Disk,
    Event,
    Message,
    Replica,
    StartView,
    Status,
    Timing,
    addressed_to,
    shuffle,
)
from p2pnerts.rules import Card, Move, TableOptions

SALT = b"0123456789abcdef0123456789abcdef"
E = TypeVar("E")


Lie = Message | bytes | tuple[int, Message]
"""What a seat puts on the wire: a message, a frame as it is, or (seat, message) for one."""


def _honest(message: Message) -> list[Lie]:
    return [message]


class Table:
    """``players`` replicas and a FIFO queue for every directed link between them."""

    def __init__(
        self,
        players: int,
        options: TableOptions,
        timing: Timing | None = None,
        auto_stuck: bool = False,
        *,
        majority: bool = False,
    ) -> None:
        self.options = options
        self.majority = majority
        self.timing = timing or Timing()
        self.now = 0.0
        self.decks: dict[tuple[int, int], tuple[Card, ...]] = {}
        """The orders the test deals, by (deck, round): the same at every replica."""
        self.replicas = [
            Replica(
                s,
                options,
                players,
                timing=self.timing,
                auto_stuck=auto_stuck,
                shuffle=self.shuffle,
                majority=majority,
            )
            for s in range(players)
        ]
        self.links: dict[tuple[int, int], deque[Message | CommitFrame]] = {
            (a, b): deque() for a in range(players) for b in range(players) if a != b
        }
        self.events: list[list[Event]] = [[] for _ in range(players)]
        self.down: set[int] = set()
        self.tamper: dict[int, Callable[[Message], Sequence[Lie]]] = {}
        """Per seat, what it puts on the wire in place of each message (a cheat): frames
        as they are are for a network (see `p2pnerts.net`), and are not carried here."""
        self.cut: set[frozenset[int]] = set()
        """Links that lose what is sent over them (a connection broken)."""
        self.held: set[frozenset[int]] = set()
        """Links that carry nothing for now: what is sent waits, and arrives after."""
        self.paused: set[int] = set()
        """Seats whose process is stopped (SIGSTOP, a closed lid): not ticked, and what is
        sent to them waits on their links until they run again."""

    @property
    def players(self) -> int:
        return len(self.replicas)

    def shuffle(self, deck: int, number: int, secret: bytes, seed: bytes) -> tuple[Card, ...]:
        """The order the test chose for a deck and round (else the protocol's shuffle)."""
        chosen = self.decks.get((deck, number))
        return chosen or shuffle(deck, number, secret, seed, options=self.options)

    def choose(self, number: int, orders: Sequence[Sequence[Card]]) -> None:
        """Deal round ``number`` from ``orders`` (by seat; a team's first seat's counts)."""
        seating = self.options.seating(self.players)
        for seat in reversed(range(len(orders))):
            self.decks[seating[seat], number] = tuple(orders[seat])

    def start(self, orders: Sequence[Sequence[Card]]) -> None:
        number = max(max(r.round, r.playing) for r in self.replicas) + 1
        self.choose(number, orders)
        for seat in range(self.players):
            self.deal(seat)
        self.flush()
        self.settle()

    def deal(self, seat: int) -> None:
        """``seat`` says it is ready for the next round (its secret fixed by the test)."""
        replica = self.replicas[seat]
        fresh = hashlib.sha256(b"%d:%d:%d" % (seat, replica.round, replica.playing)).digest()
        replica.start_round(fresh, self.now)

    def start_view(
        self,
        sender: int,
        members: tuple[int, ...],
        carried: tuple[bytes, ...] = (),
        votes: tuple[bytes, ...] = (),
    ) -> StartView:
        """A StartView of view 1, voted in view 0 in round 1, as ``sender`` would send it
        next (unsigned): for tests of what a receiver takes."""
        one = self.replicas[sender]
        return StartView(
            sender,
            1,
            one.clock + 1,
            one.have[sender] + 1,
            voted_in=0,
            members=members,
            quorums=(),
            cuts=tuple(one.have),
            joined=(),
            joined_from=(),
            lives=(0,) * self.players,
            seated=tuple(range(self.players)),
            round=1,
            base_committed=0,
            base_digest=bytes(16),
            carried=carried,
            scores=(),
            votes=votes,
        )

    def flush(self) -> None:
        """Move every replica's outgoing messages onto its links, and keep its events."""
        for seat, replica in enumerate(self.replicas):
            lie = self.tamper.get(seat, _honest)
            for message in [m for sent in replica.take_outgoing() for m in lie(sent)]:
                if seat in self.down or isinstance(message, bytes):
                    continue
                to, message = message if isinstance(message, tuple) else (None, message)
                if seat in self.tamper:  # a cheat signs its lies: with its own key, its only one
                    message = replica.signer.sign(message)
                # As the net ships it: a message for one seat goes there as addressed.
                dests = [d for d in range(self.players) if addressed_to(message, d)]
                for dest in dests if to is None else [to]:
                    if frozenset((seat, dest)) not in self.cut:
                        self.links[seat, dest].append(message)
            for frame, only in replica.take_frames():  # (version 3's commit, `_majority`)
                if seat in self.down:
                    continue
                for dest in range(self.players) if only is None else (only,):
                    if dest != seat and frozenset((seat, dest)) not in self.cut:
                        self.links[seat, dest].append(frame)
            self.events[seat] += replica.take_events()

    def deliver(self, src: int, dest: int, count: int | None = None) -> int:
        """Deliver up to ``count`` queued messages from src to dest (all by default)."""
        queue, done = self.links[src, dest], 0
        held = dest in self.paused or frozenset((src, dest)) in self.held
        while not held and queue and (count is None or done < count):
            message = queue.popleft()
            if dest not in self.down:
                self.replicas[dest].receive(message, self.now, via=src)
            done += 1
        self.flush()
        return done

    def settle(self, rounds: int = 200) -> None:
        """Deliver and tick (past the ack delay) until nothing more moves."""
        for _ in range(rounds):
            moved = sum(self.deliver(a, b) for a, b in list(self.links))
            self.advance(self.timing.ack_delay)
            waiting = any(
                q
                for (src, dest), q in self.links.items()
                if dest not in self.paused and frozenset((src, dest)) not in self.held
            )
            if not moved and not waiting:
                return

    def play(self, seat: int, move: Move) -> None:
        """``seat`` makes ``move``, and everything settles."""
        self.replicas[seat].intend(move, self.now)
        self.flush()
        self.settle()

    def run_for(self, seconds: float) -> None:
        """Let ``seconds`` pass a quarter second at a time, settling as it goes."""
        for _ in range(int(seconds / 0.25)):
            self.advance(0.25)
            self.settle(rounds=5)

    def cut_off(self, seat: int, seconds: float, *, lost: bool = False) -> None:
        """Cut every link of ``seat`` for ``seconds`` while every seat runs on: what is
        sent meanwhile is ``lost`` (a connection that broke), or waits and arrives after
        (TCP)."""
        links = {frozenset((seat, other)) for other in range(self.players) if other != seat}
        if lost:
            self.cut |= links
        else:
            self.held |= links
        self.run_for(seconds)
        self.cut -= links
        self.held -= links

    def agree(self) -> None:
        """Every seat that is up and has not left has the same digest at the shortest
        commit count (a table that commits by a majority starts its digest again at each
        change of members, `Majority.install`: a seat that left keeps the one before)."""
        live = [
            r
            for s, r in enumerate(self.replicas)
            if s not in self.down and r.status is not Status.LEFT
        ]
        shortest = min(r.committed for r in live)
        if all(r.committed == shortest for r in live):
            assert len({r.digest for r in live}) == 1  # (kept for no count, just begun)
        else:
            assert len({r.digest_at(shortest) for r in live}) == 1

    def advance(self, seconds: float) -> None:
        self.now += seconds
        for seat, replica in enumerate(self.replicas):
            if seat not in self.down and seat not in self.paused:
                replica.tick(self.now)
        self.flush()

    def level_clocks(self, seats: Iterable[int]) -> int:
        """Bring the clocks of ``seats`` level by having the laggards send heartbeats that
        are not delivered yet; returns the shared clock."""
        seats = list(seats)
        top = max(self.replicas[s].clock for s in seats)
        for s in seats:
            while self.replicas[s].clock < top:
                self.replicas[s].send_ack(self.now)
        self.flush()
        return top

    def crash(self, seat: int) -> Disk:
        disk = self.replicas[seat].disk
        self.down.add(seat)
        for key in self.links:
            if seat in key:
                self.links[key].clear()
        return disk

    def restart(self, seat: int, disk: Disk) -> None:
        self.down.discard(seat)
        self.replicas[seat] = Replica.restart(
            seat,
            self.options,
            self.players,
            disk=disk,
            now=self.now,
            timing=self.timing,
            shuffle=self.shuffle,
            majority=self.majority,
        )
        self.flush()

    def of(self, seat: int, kind: type[E]) -> list[E]:
        """The events of one kind a seat's replica reported so far."""
        return [e for e in self.events[seat] if isinstance(e, kind)]
