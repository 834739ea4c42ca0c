"""A table of seats each running version 3's commit (`_commits.Commits`) over real frames
(encoded, decoded, signed and checked) delivered in random order, on a simulated clock:
the test tables of `test_commits` and `test_commit_changes`, and what they check of a run."""

from __future__ import annotations

import hashlib
import heapq
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from test_spots import some_spots

from p2pnerts.protocol import RemoteProtocolError, Signer, encode_payload
from p2pnerts.protocol._codec import decode_commit_frame
from p2pnerts.protocol._commits import Commits
from p2pnerts.protocol._messages import Ballot, CommitFrame, Tally
from p2pnerts.protocol._spots import Key, PlayId, Spotted, conflict

SLOW = 0.05
"""The share of frames that take a slow way (150 to 400 ms), so that seats poll."""
REPORT = 0.05
"""How often each seat tells the others its clock and how far it has passed the canonical
order (as the replica's Acks will), on the link its plays take, 3 ms behind them."""


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
    events: list[tuple[float, int, int, int, Spotted | bytes | tuple[int, int, Key, int]]] = field(
        default_factory=list
    )
    """What is in flight, by when it lands: (time, order, to, the sender's view, and a play,
    a frame's payload or a report: its seat, clock, how far it has passed and how many
    plays it made)."""
    views: list[int] = field(init=False)
    """Per seat, its view: what comes from another is dropped, as a replica drops it."""
    out: set[int] = field(default_factory=set)
    """Seats a change of members left out: they send nothing more."""
    last_play: dict[tuple[int, int], float] = field(default_factory=dict)
    """Per sender and receiver, when its last play lands there (plays keep their order)."""
    refused: list[tuple[int, int]] = field(default_factory=list)
    """(receiver, sender) of every frame refused."""
    committed: list[list[PlayId]] = field(init=False)
    outcomes: dict[PlayId, bool] = field(default_factory=dict)
    muted: bool = False
    reports: bool = True
    """Seats tell one another how far they have passed (`REPORT`), and so let go."""
    resolutions: list[dict[PlayId, bool]] = field(init=False)
    """Per seat, every play it resolved, and whether it committed it."""
    canon: list[list[tuple[PlayId, bool]]] = field(init=False)
    """Per seat, the canonical order as far as it has settled it."""
    kept_most: int = 0
    """The most plays any seat kept at once."""
    last_report: dict[tuple[int, int], float] = field(default_factory=dict)
    made: dict[PlayId, float] = field(default_factory=dict)
    """When each play was made."""
    back_at: float = 0.0
    """When a seat left out last came back."""
    _from: int = 0
    """The view of the seat sending now."""
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
        self.resolutions = [{} for _ in range(self.seats)]
        self.views = [0] * self.seats
        self.canon = [[] for _ in range(self.seats)]

    def _stamp(self, seat: int) -> Callable[[], int]:
        def stamp() -> int:
            self.clocks[seat] += 1
            return self.clocks[seat]

        return stamp

    @property
    def honest(self) -> list[int]:
        return [s for s in range(self.seats) if s != self.cheat and s not in self.out]

    def _put(self, at: float, to: int, what: Spotted | bytes | tuple[int, int, Key, int]) -> None:
        self._sent += 1
        heapq.heappush(self.events, (at, self._sent, to, self._from, what))

    def _sending(self, seat: int) -> bool:
        """Whether ``seat``'s frames go anywhere now (with its view noted), or none do."""
        self._from = self.views[seat]
        return seat not in self.out and not (seat == self.silent and self.muted)

    def change(self, out: int) -> None:
        """Leave ``out`` out: the others bring what they hold and each installs the next
        view from it."""
        self.out.add(out)
        self._next_view()
        # What a seat left out resolved no longer counts: it takes the new view's table.
        members = [s for s in range(self.seats) if s not in self.out]
        self.outcomes = {p: ok for s in members for p, ok in self.resolutions[s].items()}

    def come_back(self, seat: int) -> None:
        """Let ``seat``, left out, back in: it starts afresh, what it resolved before
        forgotten, and every seat installs the next view from the others' holdings."""
        self.out.discard(seat)
        self.muted = self.muted and seat != self.silent  # it speaks again
        signer = Signer.computed(seat, self.seats)
        self.seats_[seat] = Commits(seat, self.seats, signer, range(self.seats), self._stamp(seat))
        self.resolutions[seat], self.canon[seat], self.committed[seat] = {}, [], []
        self.back_at = self.now
        self._next_view()

    def _next_view(self) -> None:
        """Every seat not out brings what it holds and installs the next view from it,
        its clock caught up with all of theirs (the StartView's)."""
        members = [s for s in range(self.seats) if s not in self.out]
        holdings = [self.seats_[s].holding() for s in members]
        clock = max(self.clocks[s] for s in members)
        view = max(self.views) + 1
        for seat in members:
            self.views[seat] = view
            self.seats_[seat].install(view, members, holdings)
            self.clocks[seat] = clock
        for seat in members:
            self._resolve(seat)

    def play(self, seat: int) -> None:
        me = self.seats_[seat]
        self.clocks[seat] += 1
        seq = me.voter.have[seat] + 1
        witness = hashlib.blake2b(b"%d/%d" % (seat, seq), digest_size=16).digest()
        spots = some_spots(self.rng, seat)
        play = me.make(seq, (self.clocks[seat], seat), spots, witness, self.now)
        self.plays[play.id] = play
        self.made[play.id] = self.now
        self._sending(seat)
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
        sending = self._sending(seat)
        for frame, to in self.seats_[seat].take_outgoing():
            if not sending:
                continue
            if seat == self.cheat and isinstance(frame, Ballot) and frame.to == to != frame.seat:
                # its own, to a seat that polled: the opposite of its vote (late for for, and
                # back; not one it hands on, which is not its own to sign)
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
            assert play not in self.resolutions[seat], f"seat {seat} resolved {play} twice"
            self.resolutions[seat][play] = ok
            if ok:
                self.committed[seat].append(play)

    def _report(self, seat: int) -> None:
        """Settle the canonical order as far as ``seat`` can, and tell the others."""
        me = self.seats_[seat]
        self.canon[seat] += me.canonical(self.clocks[seat], self.now)
        self.kept_most = max(self.kept_most, len(me.order.held))
        if not self._sending(seat):
            return
        said = (seat, self.clocks[seat], me.order.passed, me.voter.have[seat])
        for other in range(self.seats):
            if other != seat:
                behind = max(self.last_play.get((seat, other), 0.0), self.now + 0.003)
                at = self.last_report[seat, other] = max(
                    behind, self.last_report.get((seat, other), 0.0)
                )
                self._put(at, other, said)

    def run_until(self, end: float) -> None:
        """Land what is in flight, and let the seats' clocks tick every 10 ms, up to ``end``."""
        while True:
            tick = (self._ticks + 1) * 0.01
            if self.events and self.events[0][0] <= min(tick, end):
                at, _, dst, view, what = heapq.heappop(self.events)
                self.now = max(self.now, at)
                if view == self.views[dst]:
                    self._land(dst, what)
            elif tick <= end:
                self.now, self._ticks = tick, self._ticks + 1
                for seat in range(self.seats):
                    self.seats_[seat].tick(self.now)
                    self._flush(seat)
                    self._resolve(seat)
                    if self.reports and self._ticks % round(REPORT / 0.01) == 0:
                        self._report(seat)
            else:
                self.now = end
                return

    def _land(self, dst: int, what: Spotted | bytes | tuple[int, int, Key, int]) -> None:
        """Hand ``dst`` what reached it, its clock caught up with the sender's (Lamport)."""
        if isinstance(what, Spotted):
            self.clocks[dst] = max(self.clocks[dst], what.key[0])
            self.seats_[dst].hold(what, self.now)
        elif isinstance(what, tuple):
            self.clocks[dst] = max(self.clocks[dst], what[1])
            self.seats_[dst].hear(*what)
        else:
            frame: CommitFrame = decode_commit_frame(what)
            self.clocks[dst] = max(self.clocks[dst], frame.clock)
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
    left_out: float | None = None,
    cut: int | None = None,
    back: float | None = None,
    then_cut: int | None = None,
) -> Table:
    """``plays`` plays at random seats, one every 20 ms or so, then 10 s more to settle.
    ``left_out``: the others leave the ``silent`` seat out so many seconds after it falls
    silent; ``cut``: the others leave that seat out halfway, all at once, every frame in
    flight then of the old view; ``back``: the seat left out comes back so many seconds
    later; ``then_cut``: that seat is cut off three quarters of the way through."""
    rng = random.Random(seed)
    table = Table(seats, rng, cheat, silent, lossy)
    muted_at = 0.0
    for made in range(plays):
        if made == plays // 2 and table.silent is not None:
            table.play(table.silent)  # its last words: its Ballots and Tallies go no further
            table.muted, muted_at = True, table.now
        if made == plays // 2 and cut is not None:
            table.change(cut)
        if made == 3 * plays // 4 and then_cut is not None:
            table.change(then_cut)
        if table.muted and left_out is not None and table.now >= muted_at + left_out:
            assert table.silent is not None
            if table.silent not in table.out:
                table.change(table.silent)
                left_at = table.now
            elif back is not None and table.now >= left_at + back:
                table.come_back(table.silent)
        seat = rng.randrange(seats)
        if not (table.muted and seat == table.silent) and seat not in table.out:
            table.play(seat)
        table.run_until(table.now + rng.expovariate(1 / 0.02))
    table.run_until(table.now + 10.0)
    return table


def assert_agreed(table: Table, *, everywhere: bool = True, seats: list[int] | None = None) -> None:
    """Every honest seat (of ``seats``) resolved each play as every other did
    (``everywhere``: every play, at every one), and committed the plays that conflict in
    key order."""
    seats = table.honest if seats is None else seats
    for seat in seats:
        for play in table.plays:
            resolved = table.resolutions[seat].get(play)
            if everywhere or resolved is not None:
                assert resolved == table.outcomes.get(play), (seat, play)
        longest = max((table.canon[s] for s in seats), key=len)
        assert table.canon[seat] == longest[: len(table.canon[seat])], seat
        assert all(table.outcomes[play] == ok for play, ok in table.canon[seat])
        order = table.committed[seat]
        place = {p: i for i, p in enumerate(order)}
        for a in order:
            for b in order:
                pa, pb = table.plays[a], table.plays[b]
                related = a[0] == b[0] or conflict(pa.spots, pb.spots)
                if related and pa.key < pb.key:
                    assert place[a] < place[b], f"seat {seat} committed {b} before {a}"


def assert_settled_alike(table: Table) -> None:
    """After a change of members: the seats of the new view resolved the same plays, alike
    and in key order where they conflict, every play of theirs among them."""
    assert_agreed(table, everywhere=False)
    members = table.honest
    resolved = [set(table.resolutions[s]) for s in members]
    assert all(r == resolved[0] for r in resolved)
    assert {p for p in table.plays if p[0] in members} <= resolved[0]
