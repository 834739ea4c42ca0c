"""Version 3's commit at one seat (`_commits.Commits`), run at tables of 2 to 14 seats over
real frames (encoded, decoded, signed and checked) delivered in random order: every honest
seat resolves every play alike, commits the plays that conflict in key order, and refuses
every forged Tally of a cheat; plays whose sender falls silent are decided by polls."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import pytest
from test_spots import some_spots

from p2pnerts.protocol import RemoteProtocolError, Signer, encode_payload
from p2pnerts.protocol._codec import decode_commit_frame
from p2pnerts.protocol._commits import POLL_AFTER, Commits
from p2pnerts.protocol._messages import Ballot, CommitFrame, Tally
from p2pnerts.protocol._spots import PlayId, Spotted, conflict, decide


@dataclass
class Table:
    seats: int
    rng: random.Random
    cheat: int | None = None
    """A seat that sends each of its plays out as decided in, on no Ballots, and answers
    every poll with a Ballot that says the opposite of its vote."""
    silent: int | None = None
    """A seat whose frames stop, from the middle of the run to its end."""
    now: float = 0.0
    seats_: list[Commits] = field(init=False)
    clocks: list[int] = field(init=False)
    plays: dict[PlayId, Spotted] = field(default_factory=dict)
    streams: dict[tuple[int, int], list[Spotted]] = field(default_factory=dict)
    """Per sender and receiver, the plays in flight, in the sender's order."""
    bag: list[tuple[int, bytes]] = field(default_factory=list)
    """Commit frames in flight, each as its payload, to one seat, in any order."""
    refused: list[tuple[int, int]] = field(default_factory=list)
    """(receiver, sender) of every frame refused."""
    committed: list[list[PlayId]] = field(init=False)
    outcomes: dict[PlayId, bool] = field(default_factory=dict)
    muted: bool = False
    _next_tick: float = 0.0

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
                self.streams.setdefault((seat, other), []).append(play)
        if seat == self.cheat:
            forged = Tally(seat, 0, self.clocks[seat], 1, *play.id, witness, True, play.below, ())
            for other in range(self.seats):
                if other != seat:
                    self.bag.append((other, encode_payload(forged)))
        self._flush(seat)

    def _flush(self, seat: int) -> None:
        for frame in self.seats_[seat].take_outgoing():
            if seat == self.silent and self.muted:
                continue
            if seat == self.cheat and isinstance(frame, Ballot) and frame.to != frame.seat:
                key = Signer.computed(seat, self.seats)
                opposite = (not frame.ok, frame.below if not frame.ok else ())
                if opposite[0]:
                    opposite = (True, tuple(0 for _ in range(self.seats)))
                frame = key.sign(replace(frame, ok=opposite[0], below=opposite[1], sig=b""))
            targets = [frame.to] if isinstance(frame, Ballot) else range(self.seats)
            for dst in targets:
                if dst != seat:
                    self.bag.append((dst, encode_payload(frame)))

    def _resolve(self, seat: int) -> None:
        for play, ok in self.seats_[seat].resolved():
            if seat in self.honest:
                assert self.outcomes.setdefault(play, ok) == ok, f"{play} resolved two ways"
            if ok:
                self.committed[seat].append(play)

    def step(self) -> bool:
        streams = [k for k, v in self.streams.items() if v]
        if not streams and not self.bag:
            return False
        self.now += self.rng.expovariate(1 / 0.002)
        if self.bag and (not streams or self.rng.random() < 0.6):
            dst, payload = self.bag.pop(self.rng.randrange(len(self.bag)))
            frame: CommitFrame = decode_commit_frame(payload)
            try:
                self.seats_[dst].take(frame, self.now)
            except RemoteProtocolError:
                self.refused.append((dst, frame.sender))
        else:
            src, dst = self.rng.choice(streams)
            self.seats_[dst].hold(self.streams[src, dst].pop(0), self.now)
        self._flush(dst)
        self._resolve(dst)
        if self.now >= self._next_tick:  # the others' clocks, every 10 ms
            self._next_tick = self.now + 0.01
            self._tick()
        return True

    def _tick(self) -> None:
        for seat in range(self.seats):
            self.seats_[seat].tick(self.now)
            self._flush(seat)
            self._resolve(seat)

    def settle(self) -> None:
        """Let time run on until nothing is in flight and no poll is due."""
        for _ in range(50):
            while self.step():
                pass
            self.now += POLL_AFTER
            self._tick()
            if not self.bag:
                return


def run(
    seed: int, seats: int, plays: int, *, cheat: int | None = None, silent: int | None = None
) -> Table:
    rng = random.Random(seed)
    table = Table(seats, rng, cheat, silent)
    for made in range(plays):
        if made == plays // 2 and table.silent is not None:
            table.muted = True
        seat = rng.randrange(seats)
        if not (table.muted and seat == table.silent):
            table.play(seat)
        for _ in range(rng.randrange(4)):
            table.step()
    table.settle()
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


@pytest.mark.parametrize(("seats", "seed"), [(4, 11), (5, 12), (7, 13)])
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


@pytest.mark.parametrize(("seats", "seed"), [(4, 21), (6, 22), (14, 23)])
def test_the_plays_of_a_seat_gone_silent_are_decided_by_polls_unless_their_votes_split(
    seats: int, seed: int
) -> None:
    table = run(seed, seats, 40 if seats > 8 else 60, silent=0)
    assert_agreed(table, everywhere=False)
    silent = sorted((p for p in table.plays if p[0] == table.silent), key=lambda p: p[1])
    polled = 0
    for seat in range(1, seats):
        order = table.seats_[seat].order
        open_plays = [p for p in silent if p not in order.resolved]
        polled += len(silent) - len(open_plays)
        if open_plays:  # the first waits because a poller's count of every vote is a split
            first = open_plays[0]
            votes = {s: me.voter.votes[first] for s, me in enumerate(table.seats_)}
            assert decide(table.plays[first], votes, range(seats), seats, polled=True) is None
    assert polled  # (the silent seat's Tallies never went out: polls decided these)
