"""Version 3's commit at one seat (`_commits.Commits`), run at tables of 2 to 14 seats over
real frames (encoded, decoded, signed and checked) delivered in random order: every honest
seat resolves every play alike, commits the plays that conflict in key order, and refuses
every forged Tally of a cheat; plays whose sender falls silent are decided by polls."""

from __future__ import annotations

import hashlib
import heapq
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import pytest
from test_spots import some_spots

from p2pnerts.protocol import RemoteProtocolError, Signer, encode_payload
from p2pnerts.protocol._codec import decode_commit_frame
from p2pnerts.protocol._commits import AHEAD, Commits
from p2pnerts.protocol._messages import Ballot, CommitFrame, Poll, Tally
from p2pnerts.protocol._spots import PlayId, Spotted, conflict, decide

SLOW = 0.05
"""The share of frames that take a slow way (150 to 400 ms), so that seats poll."""


def delay(rng: random.Random) -> float:
    """How long a frame takes: a few milliseconds, or now and then far longer."""
    return rng.uniform(0.15, 0.4) if rng.random() < SLOW else rng.uniform(0.0005, 0.006)


@dataclass
class Table:
    seats: int
    rng: random.Random
    cheat: int | None = None
    """A seat that sends each of its plays out as decided in, on no Ballots, and answers
    every poll with a Ballot that says the opposite of its vote."""
    silent: int | None = None
    """A seat whose frames stop, from the middle of the run to its end."""
    lossy: int | None = None
    """A seat whose Tallies reach one other seat only (the next), whatever they decide."""
    relayed: int = 0
    """Tallies handed on by a seat other than the one that counted them."""
    now: float = 0.0
    seats_: list[Commits] = field(init=False)
    clocks: list[int] = field(init=False)
    plays: dict[PlayId, Spotted] = field(default_factory=dict)
    events: list[tuple[float, int, int, Spotted | bytes]] = field(default_factory=list)
    """What is in flight, by when it lands: (time, order, to, a play or a frame's payload)."""
    last_play: dict[tuple[int, int], float] = field(default_factory=dict)
    """Per sender and receiver, when its last play lands there (plays keep their order)."""
    refused: list[tuple[int, int]] = field(default_factory=list)
    """(receiver, sender) of every frame refused."""
    committed: list[list[PlayId]] = field(init=False)
    outcomes: dict[PlayId, bool] = field(default_factory=dict)
    muted: bool = False
    _sent: int = 0
    _ticks: int = 0

    def __post_init__(self) -> None:
        self.clocks = [0] * self.seats
        signers = [Signer.computed(s, self.seats) for s in range(self.seats)]
        self.seats_ = [
            Commits(s, self.seats, signers[s], range(self.seats), self._stamp(s))
            for s in range(self.seats)
        ]
        self.committed = [[] for _ in range(self.seats)]

    def _stamp(self, seat: int) -> Callable[[], int]:
        def stamp() -> int:
            self.clocks[seat] += 1
            return self.clocks[seat]

        return stamp

    @property
    def honest(self) -> list[int]:
        return [s for s in range(self.seats) if s != self.cheat]

    def _put(self, at: float, to: int, what: Spotted | bytes) -> None:
        self._sent += 1
        heapq.heappush(self.events, (at, self._sent, to, what))

    def play(self, seat: int) -> None:
        me = self.seats_[seat]
        self.clocks[seat] += 1
        seq = me.voter.have[seat] + 1
        witness = hashlib.blake2b(b"%d/%d" % (seat, seq), digest_size=16).digest()
        spots = some_spots(self.rng, seat)
        play = me.make(seq, (self.clocks[seat], seat), spots, witness, self.now)
        self.plays[play.id] = play
        for other in range(self.seats):
            if other != seat:
                at = max(self.now + delay(self.rng), self.last_play.get((seat, other), 0.0))
                self.last_play[seat, other] = at
                self._put(at, other, play)
        if seat == self.cheat:
            clock, (of, number) = self.clocks[seat], play.id  # in, on no Ballots at all:
            forged = Tally(seat, 0, clock, 1, of, number, witness, True, play.below, ())
            forged = me.box.signer.sign(forged)
            for other in range(self.seats):
                if other != seat:
                    self._put(self.now + delay(self.rng), other, encode_payload(forged))
        self._flush(seat)

    def _flush(self, seat: int) -> None:
        for frame, to in self.seats_[seat].take_outgoing():
            if seat == self.silent and self.muted:
                continue
            if seat == self.cheat and isinstance(frame, Ballot) and frame.to != frame.seat:
                # to a seat that polled: the opposite of its vote (late for for, and back)
                below = () if frame.ok else (0,) * self.seats
                bent = replace(frame, ok=not frame.ok, below=below, sig=b"")
                frame = self.seats_[seat].box.signer.sign(bent)
            targets = [to] if to is not None else range(self.seats)
            if seat == self.lossy and isinstance(frame, Tally):
                targets = [(seat + 1) % self.seats]
            self.relayed += isinstance(frame, Tally) and frame.sender != seat
            for dst in targets:
                if dst != seat:
                    self._put(self.now + delay(self.rng), dst, encode_payload(frame))

    def _resolve(self, seat: int) -> None:
        for play, ok in self.seats_[seat].resolved():
            if seat in self.honest:
                assert self.outcomes.setdefault(play, ok) == ok, f"{play} resolved two ways"
            if ok:
                self.committed[seat].append(play)

    def run_until(self, end: float) -> None:
        """Land what is in flight, and let the seats' clocks tick every 10 ms, up to ``end``."""
        while True:
            tick = (self._ticks + 1) * 0.01
            if self.events and self.events[0][0] <= min(tick, end):
                at, _, dst, what = heapq.heappop(self.events)
                self.now = max(self.now, at)
                self._land(dst, what)
            elif tick <= end:
                self.now, self._ticks = tick, self._ticks + 1
                for seat in range(self.seats):
                    self.seats_[seat].tick(self.now)
                    self._flush(seat)
                    self._resolve(seat)
            else:
                self.now = end
                return

    def _land(self, dst: int, what: Spotted | bytes) -> None:
        if isinstance(what, Spotted):
            self.seats_[dst].hold(what, self.now)
        else:
            frame: CommitFrame = decode_commit_frame(what)
            try:
                self.seats_[dst].take(frame, self.now)
            except RemoteProtocolError:
                self.refused.append((dst, frame.sender))
        self._flush(dst)
        self._resolve(dst)


def run(
    seed: int,
    seats: int,
    plays: int,
    *,
    cheat: int | None = None,
    silent: int | None = None,
    lossy: int | None = None,
) -> Table:
    """``plays`` plays at random seats, one every 20 ms or so, then 10 s more to settle."""
    rng = random.Random(seed)
    table = Table(seats, rng, cheat, silent, lossy)
    for made in range(plays):
        if made == plays // 2 and table.silent is not None:
            table.play(table.silent)  # its last words: its Ballots and Tallies go no further
            table.muted = True
        seat = rng.randrange(seats)
        if not (table.muted and seat == table.silent):
            table.play(seat)
        table.run_until(table.now + rng.expovariate(1 / 0.02))
    table.run_until(table.now + 10.0)
    return table


def assert_agreed(table: Table, *, everywhere: bool = True) -> None:
    """Every honest seat resolved each play as every other did (``everywhere``: every
    play, at every honest seat), and committed the plays that conflict in key order."""
    for seat in table.honest:
        held = table.seats_[seat].order
        for play in table.plays:
            resolved = held.resolved.get(play)
            if everywhere or resolved is not None:
                assert resolved == table.outcomes.get(play), (seat, play)
        order = table.committed[seat]
        place = {p: i for i, p in enumerate(order)}
        for a in order:
            for b in order:
                pa, pb = table.plays[a], table.plays[b]
                related = a[0] == b[0] or conflict(pa.spots, pb.spots)
                if related and pa.key < pb.key:
                    assert place[a] < place[b], f"seat {seat} committed {b} before {a}"


@pytest.mark.parametrize(("seats", "seed"), [(2, 1), (3, 2), (4, 3), (6, 4), (14, 5)])
def test_every_seat_resolves_every_play_alike_in_key_order_where_plays_conflict(
    seats: int, seed: int
) -> None:
    table = run(seed, seats, 40 if seats > 8 else 60)
    assert_agreed(table)
    assert set(table.outcomes) == set(table.plays)  # every play resolved
    assert not table.refused


@pytest.mark.parametrize(("seats", "seed"), [(4, 3), (5, 0), (6, 4), (7, 5)])
def test_a_cheats_forged_tallies_and_two_faced_ballots_are_refused_and_the_rest_agree(
    seats: int, seed: int
) -> None:
    table = run(seed, seats, 60, cheat=seats - 1)
    assert_agreed(table)
    cheat_plays = [p for p in table.plays if p[0] == table.cheat]
    assert cheat_plays and all(p in table.outcomes for p in cheat_plays)
    refused_senders = {sender for _, sender in table.refused}
    assert refused_senders == {table.cheat}
    assert {dst for dst, _ in table.refused} == set(table.honest)


@pytest.mark.parametrize(("seats", "seed"), [(4, 21), (6, 23), (14, 24)])
def test_the_plays_of_a_seat_gone_silent_are_decided_by_polls_unless_their_votes_split(
    seats: int, seed: int
) -> None:
    table = run(seed, seats, 40 if seats > 8 else 60, silent=0)
    assert_agreed(table, everywhere=False)
    silent = sorted((p for p in table.plays if p[0] == table.silent), key=lambda p: p[1])
    for seat in range(1, seats):
        order = table.seats_[seat].order
        open_plays = [p for p in silent if p not in order.resolved]
        if open_plays:  # the first waits because a poller's count of every vote is a split
            first = open_plays[0]
            votes = {s: me.voter.votes[first] for s, me in enumerate(table.seats_)}
            assert decide(table.plays[first], votes, range(seats), seats, polled=True) is None
    # Its last play, made as it fell silent, which no Tally of its own decided: polls did.
    last = silent[-1]
    assert all(last in table.seats_[s].order.resolved for s in range(1, seats))


@pytest.mark.parametrize(("seats", "seed"), [(4, 31), (6, 32)])
def test_a_tally_lost_on_its_way_is_handed_on_to_the_seats_that_poll(seats: int, seed: int) -> None:
    """Seat 0's Tallies reach seat 1 alone; the others poll, and seat 1 hands them on, so
    every play is resolved everywhere, the split ones too, which no poll could decide."""
    table = run(seed, seats, 60, lossy=0)
    assert_agreed(table)
    assert table.relayed > 0


def test_frames_on_plays_not_asked_about_or_far_ahead_are_refused() -> None:
    """A seated cheat cannot make a seat count a Ballot it never asked for, nor keep Tallies
    and votes on plays far past any it holds; a Tally a little ahead of its play waits."""
    table = Table(4, random.Random(0))
    table.play(0)
    table.run_until(1.0)
    me, cheat = table.seats_[1], table.seats_[3]
    signer = cheat.box.signer
    held = table.plays[(0, 1)]
    vote = cheat.voter.votes[held.id]
    unasked = cheat.box.cast(vote, 1, 0, 99)  # to seat 1, which polled on nothing
    ahead = me.order.have[0] + AHEAD + 1
    far = signer.sign(Tally(3, 0, 99, 1, 0, ahead, bytes(16), True, (ahead, 0, 0, 0), ()))
    for frame in (unasked, far, Poll(3, 0, 99, 1, 0, ahead), Poll(3, 0, 99, 1, 9, 1)):
        with pytest.raises(RemoteProtocolError):
            me.take(frame, table.now)
    assert (0, ahead) not in me.voter.votes and not me._early
    table.play(0)  # seat 0's next play: its Tally may come to seat 2 before the play does
    table.run_until(table.now + 1.0)
    tally = next(t for t in table.seats_[0]._tallies.values() if t.number == 2)
    early = Commits(2, 4, Signer.computed(2, 4), range(4), lambda: 1)
    early.hold(held, table.now)
    early.take(tally, table.now)  # its play not held yet: kept
    early.hold(table.plays[(0, 2)], table.now)
    assert (0, 2) in early.order.outcomes
