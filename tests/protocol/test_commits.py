"""Version 3's commit at one seat (`_commits.Commits`), run at tables of 2 to 14 seats over
real frames (encoded, decoded, signed and checked) delivered in random order: every honest
seat resolves every play alike, commits the plays that conflict in key order, reaches one
canonical order, and refuses every forged Tally of a cheat; plays whose sender falls silent
are decided by polls; what every seat has passed is let go of everywhere."""

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
from p2pnerts.protocol._spots import Key, PlayId, Spotted, Vote, conflict, decide

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
    events: list[tuple[float, int, int, int, Spotted | bytes | tuple[int, int, Key]]] = field(
        default_factory=list
    )
    """What is in flight, by when it lands: (time, order, to, the sender's view, and a play,
    a frame's payload or a report: its seat, clock and how far it has passed)."""
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

    def _put(self, at: float, to: int, what: Spotted | bytes | tuple[int, int, Key]) -> None:
        self._sent += 1
        heapq.heappush(self.events, (at, self._sent, to, self._from, what))

    def _sending(self, seat: int) -> bool:
        """Whether ``seat``'s frames go anywhere now (with its view noted), or none do."""
        self._from = self.views[seat]
        return seat not in self.out and not (seat == self.silent and self.muted)

    def change(self, out: int) -> None:
        """Leave ``out`` out: the others bring what they hold and each installs the next
        view from it, their clocks caught up with all of theirs (the StartView's)."""
        self.out.add(out)
        members = [s for s in range(self.seats) if s not in self.out]
        holdings = [self.seats_[s].holding() for s in members]
        clock = max(self.clocks[s] for s in members)
        for seat in members:
            self.views[seat] += 1
            self.seats_[seat].install(self.views[seat], members, holdings)
            self.clocks[seat] = clock
        # What a seat left out resolved no longer counts: it takes the new view's table.
        self.outcomes = {p: ok for s in members for p, ok in self.resolutions[s].items()}
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
            assert play not in self.resolutions[seat], f"seat {seat} resolved {play} twice"
            self.resolutions[seat][play] = ok
            if ok:
                self.committed[seat].append(play)

    def _report(self, seat: int) -> None:
        """Settle the canonical order as far as ``seat`` can, and tell the others."""
        me = self.seats_[seat]
        self.canon[seat] += me.canonical(self.clocks[seat])
        self.kept_most = max(self.kept_most, len(me.order.held))
        if not self._sending(seat):
            return
        said = (seat, self.clocks[seat], me.order.passed)
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

    def _land(self, dst: int, what: Spotted | bytes | tuple[int, int, Key]) -> None:
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
) -> Table:
    """``plays`` plays at random seats, one every 20 ms or so, then 10 s more to settle.
    ``left_out``: the others leave the ``silent`` seat out so many seconds after it falls
    silent; ``cut``: the others leave that seat out halfway, all at once, every frame in
    flight then of the old view."""
    rng = random.Random(seed)
    table = Table(seats, rng, cheat, silent, lossy)
    muted_at = 0.0
    for made in range(plays):
        if made == plays // 2 and table.silent is not None:
            table.play(table.silent)  # its last words: its Ballots and Tallies go no further
            table.muted, muted_at = True, table.now
        if made == plays // 2 and cut is not None:
            table.change(cut)
        if table.muted and left_out is not None and table.now >= muted_at + left_out:
            assert table.silent is not None
            if table.silent not in table.out:
                table.change(table.silent)
        seat = rng.randrange(seats)
        if not (table.muted and seat == table.silent) and seat not in table.out:
            table.play(seat)
        table.run_until(table.now + rng.expovariate(1 / 0.02))
    table.run_until(table.now + 10.0)
    return table


def assert_agreed(table: Table, *, everywhere: bool = True) -> None:
    """Every honest seat resolved each play as every other did (``everywhere``: every
    play, at every honest seat), and committed the plays that conflict in key order."""
    for seat in table.honest:
        for play in table.plays:
            resolved = table.resolutions[seat].get(play)
            if everywhere or resolved is not None:
                assert resolved == table.outcomes.get(play), (seat, play)
        longest = max((table.canon[s] for s in table.honest), key=len)
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


@pytest.mark.parametrize(("seats", "seed"), [(2, 1), (3, 2), (4, 3), (6, 4), (14, 5)])
def test_every_seat_resolves_every_play_alike_in_key_order_where_plays_conflict(
    seats: int, seed: int
) -> None:
    table = run(seed, seats, 40 if seats > 8 else 60)
    assert_agreed(table)
    assert set(table.outcomes) == set(table.plays)  # every play resolved
    assert all(len(canon) == len(table.plays) for canon in table.canon)  # and passed
    assert not table.refused


@pytest.mark.parametrize(("seats", "seed"), [(4, 3), (5, 0), (6, 4), (7, 1)])
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
        open_plays = [p for p in silent if p not in table.resolutions[seat]]
        if open_plays:  # the first waits because a poller's count of every vote is a split
            first = open_plays[0]
            votes = {s: me.voter.votes[first] for s, me in enumerate(table.seats_)}
            assert decide(table.plays[first], votes, range(seats), seats, polled=True) is None
    # Its last play, made as it fell silent, which no Tally of its own decided: polls did.
    last = silent[-1]
    assert all(last in table.resolutions[s] for s in range(1, seats))


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
    table = Table(4, random.Random(0), reports=False)  # (nothing let go of)
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


@pytest.mark.parametrize(("seats", "seed", "plays"), [(4, 41, 400), (14, 42, 150)])
def test_what_every_seat_has_passed_is_let_go_of_and_frames_on_it_after_are_dropped(
    seats: int, seed: int, plays: int
) -> None:
    """What a seat keeps follows the plays in the air, not the length of the match: at the
    end every seat has let go of every play, and a frame on one that comes after is dropped
    unread (asked again, a seat could not give the vote it gave)."""
    table = run(seed, seats, plays)
    assert_agreed(table)
    assert set(table.outcomes) == set(table.plays)
    assert table.kept_most < plays // 4, table.kept_most  # (kept all: every play)
    for me in table.seats_:
        assert not me.order.held and not me.order.resolved and not me.order.outcomes
        assert not me.voter.votes and not me.box._ballots and not me._tallies
        assert all(not keys for keys, _ in [*me.voter._at.values(), *me.voter._under.values()])
    me, other = table.seats_[1], table.seats_[2]
    vote = Vote((1, 1), 2, True, (0,) * seats, b"w")
    for late in (Poll(2, 0, 10**6, 1, 0, 1), other.box.cast(vote, 1, 0, 10**6)):
        me.take(late, table.now)
        assert not me.take_outgoing() and not me.voter.votes and not me.box._ballots


def assert_settled_alike(table: Table) -> None:
    """After a change of members: the seats of the new view resolved the same plays, alike
    and in key order where they conflict, every play of theirs among them."""
    assert_agreed(table, everywhere=False)
    members = table.honest
    resolved = [set(table.resolutions[s]) for s in members]
    assert all(r == resolved[0] for r in resolved)
    assert {p for p in table.plays if p[0] in members} <= resolved[0]


@pytest.mark.parametrize(("seats", "seed"), [(4, 21), (6, 23), (14, 24)])
def test_a_seat_gone_silent_is_left_out_and_its_open_plays_settle_alike_everywhere(
    seats: int, seed: int
) -> None:
    """The plays a silent seat left open, split votes included, which polls could not
    decide, are settled by the change of members alike at every seat of the new view, and
    the others play on: one canonical order, every play resolved."""
    table = run(seed, seats, 40 if seats > 8 else 60, silent=0, left_out=0.3)
    assert table.out == {0}
    assert_settled_alike(table)
    carried = [p for p in table.plays if p[0] == 0 and p in table.resolutions[1]]
    assert carried and max(carried) == max(p for p in table.plays if p[0] == 0)
    assert all(len(table.canon[s]) == len(table.resolutions[1]) for s in table.honest)


@pytest.mark.parametrize("seats", [3, 4, 5, 7])
def test_a_seat_cut_off_at_a_random_moment_changes_no_outcome_a_seat_of_the_new_view_knew(
    seats: int,
) -> None:
    """A random seat is left out halfway through, at once: every frame then in flight,
    Ballots and Tallies of the others included, is of the old view and dropped. No seat of
    the new view ever resolves a play two ways (`Table._resolve`, `_order.Order.learn`),
    they all resolve the same plays alike, and reach one canonical order."""
    settled = 0
    for seed in range(12):
        rng = random.Random(seed)
        table = run(seed, seats, rng.randrange(20, 60), cut=rng.randrange(seats))
        assert_settled_alike(table)
        settled += len(table.resolutions[table.honest[0]])
    assert settled > 200


def test_a_play_that_waits_on_one_none_of_the_new_view_held_commits_once_it_is_returned() -> None:
    """Three seats, seat 1 cut off: seat 2's play 6 was decided in on seat 1's vote, which
    named seat 1's play 7 below it, a play no other seat held. The change returns play 7
    with nothing to carry, so play 6 commits at seats 0 and 2, where it would wait for
    play 7 for ever."""
    rng = random.Random(65)
    table = run(65, 3, rng.randrange(20, 60), cut=rng.randrange(3))
    assert table.out == {1} and (1, 7) in table.plays
    assert all((1, 7) not in table.resolutions[s] for s in (0, 2))
    assert all(table.resolutions[s][2, 6] for s in (0, 2))
    assert_settled_alike(table)


def test_what_a_holding_carries_that_fails_its_check_counts_for_nothing() -> None:
    """Seat 0 falls silent with its play 6 held and voted for at every other seat, its
    outcome told nowhere. A holding that carries a Tally returning it on no Ballots, and
    seats 2's and 3's Ballots turned late (their signatures no longer theirs), settles it as
    the honest holdings do, in, at every seat; either alone, counted, would return it."""
    table = Table(5, random.Random(2), silent=0, reports=False)
    for _ in range(6):
        table.play(0)
    table.muted = True  # its outcomes go nowhere
    table.run_until(0.05)  # (before anyone polls)
    members = [1, 2, 3, 4]
    holdings = [table.seats_[s].holding() for s in members]
    play = table.plays[(0, 6)]
    mine = {b.sender: b for h in holdings for b in h.ballots if (b.seat, b.number) == play.id}
    assert sorted(mine) == members and all(b.ok for b in mine.values())
    signer = table.seats_[1].box.signer
    forged = signer.sign(Tally(1, 0, 99, 1, 0, 6, b"", False, (), ()))
    bent = tuple(replace(mine[s], ok=False, below=()) for s in (2, 3))
    honest = table.seats_[1].settlement(members, holdings)
    assert honest[1][play.id].ok
    for bad in (
        replace(holdings[0], tallies=(forged,)),
        replace(holdings[0], ballots=(*bent, *holdings[0].ballots)),
    ):
        for seat in members:
            assert table.seats_[seat].settlement(members, [bad, *holdings[1:]]) == honest
