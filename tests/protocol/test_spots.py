"""Version 3's commit rule (a majority's order per spot), seat by seat, over every order of
delivery a seeded scheduler makes: the seats agree on every outcome and apply the plays of
a spot in one order, whoever decides; a view change returns only what it cannot know."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import pytest

from p2pnerts.protocol._order import Order, settle
from p2pnerts.protocol._spots import (
    ALL,
    Decision,
    PlayId,
    Spot,
    Spotted,
    Vote,
    Voter,
    conflict,
    decide,
    foundation_spot,
    grounds,
    proven,
    quorum,
    spots_of,
)
from p2pnerts.rules import (
    ACE,
    NEW_FOUNDATION,
    CallNerts,
    Card,
    Rotate,
    Suit,
    ToFoundation,
    ToWork,
    TurnStock,
)

Decide = Callable[..., Decision | None]


@dataclass
class Run:
    """A table of seats running the rule: plays broadcast, votes to the sender, outcomes
    broadcast with the votes that decide them, and now and then a seat that asks every
    member for its vote on a play it waits on and decides it itself.

    ``cheat``: a seat that sends two plays under one number to two halves of the table
    (now and then), names nothing in its own votes, votes for or late at random (the same
    to every asker), and sends out whatever its votes let it decide of either play; with
    ``forges``, it also sends each play of its own (one under its number) out as decided
    in at once, naming nothing below it, with no votes. The others take an outcome only
    with the votes that decide it, or, with ``trusts``, on its word where nothing they know
    goes against it (their own vote was for, no conflicting play of another seat open)."""

    seats: int
    rng: random.Random
    decide: Decide = decide
    cheat: int | None = None
    forges: bool = False
    trusts: bool = False
    resends: bool = False
    """An honest seat sends a play on the whole table again, at once, when it comes back
    late (as the build is to: SPEC's notes, "The round on a majority's order")."""
    voters: list[Voter] = field(init=False)
    orders: list[Order] = field(init=False)
    plays: dict[PlayId, Spotted] = field(default_factory=dict)
    """Every play, as its sender holds it."""
    decided: dict[PlayId, tuple[bool, bytes]] = field(default_factory=dict)
    """Every outcome an honest seat took; a second one otherwise fails the run."""
    committed: list[list[Spotted]] = field(init=False)
    """Per seat, the plays it committed, in the order it did."""
    decided_by_others: int = 0
    """Plays decided by a seat that asked for the votes, not by their sender."""
    sent_again: int = 0
    """Plays on the whole table sent again (``resends``)."""
    twins: set[PlayId] = field(default_factory=set)
    """Numbers under which the cheat sent two plays."""
    canon: list[list[tuple[PlayId, bool]]] = field(init=False)
    """Per seat, the plays in the canonical order as far as it has settled them."""

    def __post_init__(self) -> None:
        self.voters = [Voter(s, self.seats) for s in range(self.seats)]
        self.orders = [Order(self.seats) for _ in range(self.seats)]
        self.committed = [[] for _ in range(self.seats)]
        self.canon = [[] for _ in range(self.seats)]
        self._clock = [0] * self.seats
        self._sent = [0] * self.seats
        self._plays_to: list[list[list[Spotted]]] = [
            [[] for _ in range(self.seats)] for _ in range(self.seats)
        ]
        """Per receiver and sender, the plays in flight, in the sender's order."""
        self._bag: list[tuple[int, Vote | tuple[Decision, Spotted, tuple[Vote, ...], int]]] = []
        """Votes and outcomes (each with the play and the votes) in flight, in any order."""
        self._votes: list[dict[PlayId, dict[int, Vote]]] = [{} for _ in range(self.seats)]
        self._made: list[Spotted] = []
        """Every play the cheat made, twins included."""

    @property
    def members(self) -> range:
        return range(self.seats)

    @property
    def honest(self) -> list[int]:
        return [s for s in self.members if s != self.cheat]

    def play(self, seat: int, spots: tuple[Spot, ...]) -> None:
        self._clock[seat] += 1
        self._sent[seat] += 1
        seq, key = self._sent[seat], (self._clock[seat], seat)
        play = self.voters[seat].make(seq, key, spots, witness=b"%d" % seq)
        to = {other: play for other in self.members if other != seat}
        if seat == self.cheat:
            nothing = tuple(seq if s == seat else 0 for s in self.members)
            play = Spotted(seat, seq, key, spots, nothing, b"a")
            to = dict.fromkeys(to, play)
            if self.rng.random() < 0.5:
                twin = Spotted(seat, seq, key, some_spots(self.rng, seat), nothing, b"b")
                for other in self.rng.sample(sorted(to), len(to) // 2):
                    to[other] = twin
                self.twins.add(play.id)
                self._made.append(twin)
            self._made.append(play)
        self.plays[play.id] = play
        self._hold(seat, play)
        for other, sent in to.items():
            self._plays_to[other][seat].append(sent)
        if seat == self.cheat and self.forges and play.id not in self.twins:
            forged = Decision(play.id, True, play.below, play.witness)
            for other in to:
                self._bag.append((other, (forged, play, (), seat)))

    def _hold(self, seat: int, play: Spotted) -> None:
        self._clock[seat] = max(self._clock[seat], play.key[0])
        voter = self.voters[seat]
        voted = play.id in voter.votes  # (asked about it before it came)
        vote = voter.hold(play)
        if seat == self.cheat and play.seat != seat and not voted:
            nothing = (0,) * self.seats
            vote = voter.votes[play.id] = Vote(
                play.id, seat, self.rng.random() < 0.5, nothing, play.witness
            )
        self.orders[seat].hold(play)
        if play.seat == seat:
            self._count(seat, vote)
        else:
            self._bag.append((play.seat, vote))

    def _count(self, seat: int, vote: Vote) -> None:
        votes = self._votes[seat].setdefault(vote.play, {})
        votes[vote.voter] = vote
        if vote.play in self.orders[seat].outcomes:
            return
        held = self.orders[seat].held.get(vote.play)
        versions = [held] if held is not None else []
        if seat == self.cheat and vote.play[0] == seat:  # it decides whatever it can
            versions = [p for p in self._made if p.id == vote.play]
        polled = seat != vote.play[0]  # a seat that asked the members: `decide`'s stricter count
        for version in versions:
            outcome = self.decide(version, votes, self.members, self.seats, polled=polled)
            if outcome is not None:
                self.decided_by_others += seat != vote.play[0]
                self._decided(seat, outcome, version, dict(votes))

    def _decided(
        self, seat: int, outcome: Decision, version: Spotted, votes: dict[int, Vote]
    ) -> None:
        """Send the outcome out with the votes it rests on (a rule under test other than
        `decide`, with every vote counted)."""
        self._learn(seat, outcome)
        polled = seat != version.seat
        carried = (
            grounds(version, votes, self.members, self.seats, polled=polled)
            if self.decide is decide
            else tuple(votes.values())
        )
        for other in self.members:
            if other != seat:
                self._bag.append((other, (outcome, version, carried, seat)))

    def _learn(self, seat: int, outcome: Decision) -> None:
        if seat != self.cheat:
            took = self.decided.setdefault(outcome.play, (outcome.ok, outcome.witness))
            assert took == (outcome.ok, outcome.witness), f"{outcome.play} decided two ways"
        order = self.orders[seat]
        if outcome.play in order.outcomes:
            return
        order.learn(outcome)
        self.committed[seat].extend(order.held[p] for p, ok in order.ready() if ok)
        play = self.plays.get(outcome.play)
        late = play is not None and play.spots == (ALL,) and not outcome.ok
        if self.resends and late and outcome.play[0] == seat != self.cheat:
            self.sent_again += 1
            self.play(seat, (ALL,))

    def _take(self, seat: int, what: tuple[Decision, Spotted, tuple[Vote, ...], int]) -> None:
        """An outcome from another seat, taken if the votes it carries decide it so (as its
        sender would count them, or a seat that asked, by who decided it)."""
        outcome, version, votes, decider = what
        polled = decider != version.seat
        if self.trusts and not self._contested(seat, version):
            taken = True
        elif self.decide is decide:
            taken = proven(version, outcome, votes, self.members, self.seats, polled=polled)
        else:
            by_voter = {vote.voter: vote for vote in votes}
            decided = self.decide(version, by_voter, self.members, self.seats, polled=polled)
            taken = decided == outcome
        if seat == self.cheat or taken:
            self._learn(seat, outcome)

    def _contested(self, seat: int, play: Spotted) -> bool:
        """Whether what ``seat`` knows goes against any outcome of ``play``: its own vote on
        it was late, or it holds a play of another seat that conflicts and is open."""
        vote = self.voters[seat].votes.get(play.id)
        open_plays = self.orders[seat].unresolved.values()
        return (vote is not None and not vote.ok) or any(
            other.seat != play.seat and other.id != play.id and conflict(other.spots, play.spots)
            for other in open_plays
        )

    def _ask(self, seat: int) -> None:
        """``seat`` asks every member for its vote on a play it holds without an outcome,
        and counts the answers as they come (here at once)."""
        waiting = [p for p in self.orders[seat].held if p not in self.orders[seat].outcomes]
        if not waiting:
            return
        play = self.rng.choice(waiting)
        for voter in self.members:
            self._count(seat, self.voters[voter].unseen(play))

    def step(self) -> bool:
        """Deliver one thing in flight (or ask, now and then); False once nothing is."""
        streams = [
            (dst, src) for dst in self.members for src in self.members if self._plays_to[dst][src]
        ]
        if not streams and not self._bag:
            return False
        if self.rng.random() < 0.05:
            self._ask(self.rng.choice(self.members))
        if self._bag and (not streams or self.rng.random() < 0.5):
            dst, what = self._bag.pop(self.rng.randrange(len(self._bag)))
            if isinstance(what, Vote):
                self._count(dst, what)
            else:
                self._take(dst, what)
        else:
            dst, src = self.rng.choice(streams)
            self._hold(dst, self._plays_to[dst][src].pop(0))
        self._settle(dst)
        return True

    def _settle(self, seat: int, *, ended: bool = False) -> None:
        """What ``seat`` can place in the canonical order: each member's plays to come sort
        after its last one held here (once the run has ended, after everything)."""
        order = self.orders[seat]
        last = [order.held.get((s, order.have[s])) for s in self.members]
        bounds = [(END,) if ended else p.key if p else (0, s) for s, p in enumerate(last)]
        self.canon[seat].extend(order.settled(bounds))

    def end(self) -> None:
        for seat in self.members:
            self._settle(seat, ended=True)


END = 1 << 62
"""A clock beyond every play of a run."""


def onto(deck: int, foundation: int | None = None) -> tuple[Spot, ...]:
    """A move on a deck's tableau; with ``foundation``, a card from it up there (-1: an ace
    that starts one)."""
    home: Spot = ("deck", deck)
    if foundation is None:
        return (home,)
    return (home, foundation_spot(foundation))


def some_spots(rng: random.Random, deck: int) -> tuple[Spot, ...]:
    """Where a random play acts: now and then the whole table, often its own tableau, else
    up onto one of three foundations, or starting one."""
    roll = rng.random()
    if roll < 0.03:
        return (ALL,)
    if roll < 0.45:
        return onto(deck)
    return onto(deck, -1 if roll < 0.52 else rng.randrange(3))


def played(
    seed: int,
    seats: int,
    plays: int,
    decide_with: Decide = decide,
    *,
    teams: bool = False,
    cheat: int | None = None,
    forges: bool = False,
    trusts: bool = False,
    resends: bool = False,
) -> Run:
    """A run: ``plays`` plays made at random seats and moments (``teams``: two seats to a
    deck; ``cheat``: that seat cheats, ``forges`` and ``trusts`` as `Run` says)."""
    rng = random.Random(seed)
    run = Run(seats, rng, decide_with, cheat, forges, trusts, resends)
    made = 0
    while made < plays or run.step():
        if made < plays and rng.random() < 0.3:
            seat = rng.randrange(seats)
            run.play(seat, some_spots(rng, seat // 2 if teams else seat))
            made += 1
        else:
            run.step()
    run.end()
    return run


def _meet(a: tuple[Spot, ...], b: tuple[Spot, ...]) -> bool:
    """Whether a path of ``a`` and one of ``b`` meet (one leads to the other): the test's
    own word for two plays that must be ordered, beside the rule's `conflict`."""
    return any(x[: min(len(x), len(y))] == y[: min(len(x), len(y))] for x in a for y in b)


def misordered(
    run: Run, orders: dict[int, list[Spotted]] | None = None
) -> tuple[int, PlayId, PlayId] | None:
    """An honest seat that committed a play before one that conflicts with it and sorts
    before it (or before an earlier play of its sender): (seat, the one first, the one
    after). ``orders``: per seat, its commits in order (the run's, unless given)."""
    given = orders or {seat: run.committed[seat] for seat in run.honest}
    for seat, order in given.items():
        for i, b in enumerate(order):
            for a in order[i + 1 :]:
                related = a.seat == b.seat or _meet(a.spots, b.spots)
                if related and a.key < b.key:
                    return seat, b.id, a.id
    return None


@pytest.mark.parametrize(
    ("seats", "teams"), [(2, False), (3, False), (4, False), (4, True), (6, True), (14, False)]
)
def test_every_seat_resolves_every_play_alike_and_each_spot_in_key_order(
    seats: int, teams: bool
) -> None:
    for seed in range(40 if seats < 14 else 8):
        run = played(seed, seats, plays=60, teams=teams)
        verdicts = [order.resolved for order in run.orders]
        assert all(len(v) == len(run.plays) for v in verdicts), (seed, "a play never resolved")
        assert all(v == verdicts[0] for v in verdicts), (seed, "seats resolved plays apart")
        assert misordered(run) is None, (seed, misordered(run))
        committed = {p for p, ok in verdicts[0].items() if ok}
        assert all({p.id for p in c} == committed for c in run.committed)
        # One canonical order at every seat: every play, in key order.
        in_order = sorted(run.plays.values(), key=lambda p: p.key)
        assert run.canon[0] == [(p.id, verdicts[0][p.id]) for p in in_order], seed
        assert all(canon == run.canon[0] for canon in run.canon), seed


@pytest.mark.parametrize(("seats", "teams"), [(4, False), (6, True), (7, False), (14, False)])
def test_a_play_on_the_whole_table_sent_again_when_late_lands_with_the_same_plays_before_it(
    seats: int, teams: bool
) -> None:
    """A Nerts call, a stuck or a rotation (`ALL`) conflicts with every play, so it comes
    back late wherever a quorum voted first for some play that sorts after it (in these
    runs, with many plays in the air at once, each is sent 2.3 to 2.6 times on average).
    Sent again at once until it lands, each lands, and
    what every seat committed before it is the same set: a barrier, so each seat holds the
    same table there, whatever order it committed the plays between two barriers in (SPEC's
    notes, "The round on a majority's order")."""
    returns = barriers = 0
    for seed in range(20 if seats < 14 else 6):
        run = played(seed, seats, plays=80, teams=teams, resends=True)
        landed = [p for p in run.plays.values() if p.spots == (ALL,) and run.decided[p.id][0]]
        assert len(landed) + run.sent_again == sum(p.spots == (ALL,) for p in run.plays.values())
        before: dict[PlayId, frozenset[PlayId]] = {}
        for order in run.committed:
            for at, play in enumerate(order):
                if play.spots == (ALL,):
                    earlier = frozenset(p.id for p in order[:at])
                    assert before.setdefault(play.id, earlier) == earlier, (seed, play.id)
        assert before.keys() == {p.id for p in landed}, seed
        assert misordered(run) is None, (seed, misordered(run))
        returns += run.sent_again
        barriers += len(landed)
    assert barriers > 10
    assert returns > 0


@pytest.mark.parametrize("seats", [3, 4, 5, 6, 7])
def test_a_cheat_gets_no_two_plays_in_under_one_number_nor_the_others_out_of_order(
    seats: int,
) -> None:
    """One seat sends two plays under one number to two halves of the others, names nothing
    in its votes and votes at random: the honest seats never take two outcomes for one
    number (the run fails at once if they do), never commit two plays under one, and keep
    every spot in key order. With an odd number of others, the larger half and the cheat
    make a quorum: one play gets in, and the seats that hold the other hold the proof. With
    an even number, the halves are equal and neither gets in (a majority would let both)."""
    twins = proofs = 0
    for seed in range(30):
        run = played(seed, seats, plays=60, cheat=seats - 1)
        twins += len(run.twins)
        proofs += sum(len(run.orders[seat].disputed) for seat in run.honest)
        assert misordered(run) is None, (seed, misordered(run))
        committed: dict[PlayId, bytes] = {}
        for seat in run.honest:
            for play in run.committed[seat]:
                assert committed.setdefault(play.id, play.witness) == play.witness, seed
        if seats % 2:
            assert not run.twins & committed.keys(), seed
        canons = sorted((run.canon[seat] for seat in run.honest), key=len)
        assert all(longer[: len(canons[0])] == canons[0] for longer in canons), seed
    assert twins > 100
    assert proofs > 0 if seats % 2 == 0 else proofs == 0


def test_the_runs_race_return_plays_and_decide_some_by_asking() -> None:
    """The runs above are worth something: plays onto one spot race and some are returned
    as late, and seats that asked for the votes decided plays beside their senders."""
    runs = [played(seed, 5, plays=60) for seed in range(20)]
    assert sum(not ok for run in runs for ok in run.orders[0].resolved.values()) > 0
    assert sum(run.decided_by_others for run in runs) > 0


def _forgets_what_its_voters_held(
    play: Spotted, votes: dict[int, Vote], members: range, seats: int, *, polled: bool = False
) -> Decision | None:
    outcome = decide(play, votes, members, seats, polled=polled)
    if outcome is None or not outcome.ok:
        return outcome
    return dataclasses.replace(
        outcome, below=tuple(play.seq * (s == play.seat) for s in range(seats))
    )


def test_the_order_check_catches_a_rule_that_forgets_what_sorts_before() -> None:
    """Without what the deciding voters held, some seat commits a play of a spot before one
    that sorts before it: the check above can fail."""
    found = [misordered(played(s, 5, 60, _forgets_what_its_voters_held)) for s in range(40)]
    assert any(found)


def _play(
    seat: int,
    seq: int,
    clock: int,
    spots: tuple[Spot, ...],
    seats: int = 3,
    witness: bytes = b"",
) -> Spotted:
    """A play made by a seat that held nothing of the others'."""
    below = tuple(seq if s == seat else 0 for s in range(seats))
    return Spotted(seat, seq, (clock, seat), spots, below, witness)


def test_a_plays_spots_say_what_it_must_be_ordered_with() -> None:
    ace = Card(0, ACE, Suit.HEARTS)
    two = Card(1, 2, Suit.HEARTS)
    start = spots_of(ToFoundation(0, ace, -1, NEW_FOUNDATION), deck=0)
    up = spots_of(ToFoundation(1, two, -1, 4), deck=1)
    assert not conflict(start, up)  # foundation 4's ace landed before its sender played
    assert conflict(start, spots_of(ToFoundation(2, ace, -1, NEW_FOUNDATION), deck=2))
    assert not conflict(up, spots_of(ToFoundation(2, two, -1, 5), deck=2))
    assert conflict(up, spots_of(ToFoundation(2, two, -1, 4), deck=2))  # a race
    home = spots_of(ToWork(0, ace, -1, 2), deck=0)
    assert not conflict(home, up) and not conflict(home, spots_of(TurnStock(1), deck=1))
    assert conflict(home, spots_of(TurnStock(3), deck=0))  # a teammate's, on one tableau
    for everything in (CallNerts(2), Rotate(2)):
        assert conflict(spots_of(everything, deck=2), home)
        assert conflict(spots_of(everything, deck=2), up)


def test_a_vote_is_cast_once_and_a_play_never_held_is_late_for_good() -> None:
    voter = Voter(1, 3)
    late = voter.unseen((0, 1))
    assert not late.ok
    assert voter.hold(_play(0, 1, 1, onto(0, 1))) is late
    assert voter.hold(_play(0, 1, 1, onto(0, 1))) is late
    assert voter.hold(_play(0, 2, 2, onto(0, 1))).ok
    with pytest.raises(ValueError, match="out of its sender's order"):
        voter.hold(_play(2, 2, 3, onto(2, 1)))


def test_a_play_is_late_where_a_conflicting_later_one_was_voted_for_first() -> None:
    voter = Voter(2, 3)
    assert voter.hold(_play(1, 1, 5, onto(1, 1))).ok
    assert not voter.hold(_play(0, 1, 4, onto(0, 1))).ok  # the same foundation: late
    assert voter.hold(_play(0, 2, 4, onto(0, 2))).ok  # another: no race
    assert voter.hold(_play(0, 3, 4, onto(0, -1))).ok  # an ace below a play up: no race
    assert not voter.hold(_play(0, 4, 3, (ALL,))).ok  # a call below what it voted for
    assert voter.hold(_play(0, 5, 9, onto(0))).ok
    assert voter.hold(_play(2, 1, 2, onto(2, 1))).ok  # its own, whatever it voted for
    assert voter.hold(_play(1, 2, 8, onto(1, -1))).ok  # an ace above all it voted for
    assert not voter.hold(_play(0, 6, 7, onto(0, -1))).ok  # an ace below an ace: late


def test_a_quorum_is_a_majority_at_an_even_table_and_one_more_at_an_odd_one() -> None:
    assert [quorum(n) for n in range(1, 15)] == [1, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8]
    for n in range(3, 15):  # any two quorums share two members: one is honest, were one not
        assert 2 * quorum(n) - n >= 2


def test_votes_decide_one_way_only_and_the_senders_own_vote_is_its_play() -> None:
    members = range(5)  # four votes decide a play in
    play = _play(0, 1, 1, onto(0, 1), seats=5)
    yes = {v: Vote(play.id, v, True, (1, v, 0, 0, 0)) for v in (1, 2, 3)}
    no = {v: Vote(play.id, v, False) for v in (3, 4)}
    # The sender and the lower-numbered voters decide, and their holdings are what sorts below.
    assert decide(play, yes, members, 5) == Decision(play.id, True, (1, 3, 0, 0, 0))
    assert decide(play, {**yes, 4: no[4]}, members, 5) == Decision(play.id, True, (1, 3, 0, 0, 0))
    assert decide(play, {1: yes[1], 2: yes[2], 4: no[4]}, members, 5) is None  # 3 for, 1 late
    assert decide(play, {1: yes[1], **no}, members, 5) == Decision(play.id, False)  # 2 late
    # A seat that is not a member does not count: four members, three needed.
    assert decide(play, {1: yes[1], 2: yes[2], 4: no[4]}, range(4), 5) == Decision(
        play.id, True, (1, 2, 0, 0, 0)
    )


@pytest.mark.parametrize(("seats", "seed"), [(4, 2), (5, 0), (6, 2), (7, 0)])
def test_an_outcome_taken_on_trust_where_nothing_contests_it_lets_a_forger_part_the_table(
    seats: int, seed: int
) -> None:
    """Proof on demand (SPEC's notes, (i)) is not enough: a cheat that sends its plays out
    as decided in, with no votes, gets some honest seat to take one on its word (it knew
    nothing against it) that the votes return elsewhere. Every outcome proven, the same
    cheat parts nothing and the order holds."""
    with pytest.raises(AssertionError, match="decided two ways"):
        played(seed, seats, plays=60, cheat=seats - 1, forges=True, trusts=True)
    run = played(seed, seats, plays=60, cheat=seats - 1, forges=True)
    assert misordered(run) is None


def test_a_voter_that_tells_the_sender_and_a_poller_two_things_cannot_part_their_outcomes() -> None:
    """Seat 3 votes seat 2's play late to its sender and for it to seat 1, which polled
    (tests/protocol/test_commits.py found it). Counted alike, the sender returns
    the play on two late votes while the poller puts it in on three for: the table parts. A
    poller needs one vote more for, or a quorum of late votes: it decides nothing here."""
    members, seats = range(4), 4
    play = _play(2, 1, 5, onto(2, 0), seats=seats)
    held = (0, 0, 1, 0)
    to_sender = {
        0: Vote(play.id, 0, False),
        1: Vote(play.id, 1, True, held),
        3: Vote(play.id, 3, False),
    }
    to_poller = {**to_sender, 3: Vote(play.id, 3, True, held)}
    assert decide(play, to_sender, members, seats) == Decision(play.id, False)
    assert decide(play, to_poller, members, seats) == Decision(play.id, True, held)  # alike
    assert decide(play, to_poller, members, seats, polled=True) is None
    everyone_for = {v: Vote(play.id, v, True, held) for v in (0, 1, 3)}
    assert decide(play, everyone_for, members, seats, polled=True) == Decision(play.id, True, held)
    all_late = {v: Vote(play.id, v, False) for v in (0, 1, 3)}
    assert decide(play, all_late, members, seats, polled=True) == Decision(play.id, False)
    claimed = Decision(play.id, True, held)
    assert not proven(play, claimed, to_poller.values(), members, seats, polled=True)


def test_a_decision_is_taken_only_on_the_votes_that_decide_it_so() -> None:
    """What a decision carries (`grounds`) proves it (`proven`); a decider that claims a
    quorum it never had, counts a late vote as for, names less below than its votes did,
    or brings a vote on another play, a stranger's or one voter twice, proves nothing."""
    members, seats = range(5), 5  # four votes decide a play in: the sender's and three
    play = _play(0, 1, 1, onto(0, 1), seats=seats)
    yes = {v: Vote(play.id, v, True, (1, v, 0, 0, 0)) for v in (1, 2, 3, 4)}
    late = {v: Vote(play.id, v, False) for v in (1, 2, 3, 4)}
    decided = decide(play, yes, members, seats)
    assert decided is not None and decided.ok
    carried = grounds(play, yes, members, seats)
    assert [v.voter for v in carried] == [1, 2, 3]  # a quorum, no more
    assert proven(play, decided, carried, members, seats)
    assert not proven(play, decided, carried[:2], members, seats)  # short of a quorum
    # Seat 3's vote late in a quorum's place (that it was for, only its signature, which
    # the caller checks, could say).
    assert not proven(play, decided, (*carried[:2], late[3]), members, seats)
    understated = replace(decided, below=(1, 0, 0, 0, 0))
    assert not proven(play, understated, carried, members, seats)
    elsewhere = replace(yes[3], play=(0, 2))
    assert not proven(play, decided, (*carried[:2], elsewhere), members, seats)
    assert not proven(play, decided, (*carried[:2], yes[1]), members, seats)  # seat 1 twice
    of_four = decide(play, yes, range(4), seats)  # seat 4 no member: three votes decide
    assert of_four is not None and proven(play, of_four, carried[:2], range(4), seats)
    assert not proven(play, of_four, (*carried[:2], yes[4]), range(4), seats)
    sender = Vote(play.id, 0, True, play.below)
    assert not proven(play, decided, (sender, *carried[:2]), members, seats)
    # Returned: only so many late votes that no quorum can be; for-votes prove no return.
    returned = decide(play, {1: late[1], 2: late[2]}, members, seats)
    assert returned == Decision(play.id, False)
    assert proven(play, returned, grounds(play, late, members, seats), members, seats)
    assert not proven(play, returned, (late[1],), members, seats)
    assert not proven(play, returned, carried, members, seats)
    assert grounds(play, {1: yes[1]}, members, seats) == ()  # nothing decided yet


def test_a_vote_counts_only_for_the_play_it_was_cast_on() -> None:
    """A sender that sent two plays under one number gets neither in on the other's votes,
    and neither is returned while the other may still get in."""
    first = _play(0, 1, 1, onto(0, 1), seats=4, witness=b"first")
    other = _play(0, 1, 1, onto(0, 2), seats=4, witness=b"other")
    votes = {v: Voter(v, 4).hold(first if v == 1 else other) for v in (1, 2, 3)}
    assert decide(first, votes, range(4), 4) is None  # 2 of 3 for it, but "other" is in
    assert decide(other, votes, range(4), 4) == Decision(other.id, True, (1, 0, 0, 0), b"other")
    late = {**votes, 2: Vote(first.id, 2, False), 3: Vote(first.id, 3, False)}
    assert decide(first, late, range(4), 4) == Decision(first.id, False)  # no play can be
    order = Order(4)
    order.hold(first)
    order.learn(Decision(first.id, True, (1, 0, 0, 0), b"other"))
    assert order.ready() == [] and order.disputed == [first.id]


def test_a_view_change_returns_what_its_seats_cannot_know_and_only_a_seat_left_out_loses_it() -> (
    None
):
    """Six seats. Seat 0's play onto F1 gets votes for from seats 1, 2 and 3, so seat 0
    decides it in, and then falls silent with seat 1. Seats 4 and 5 had voted for seat 5's
    later play onto F1 first, so seat 0's is late there. Seats 2 to 5 form the next view:
    their votes (three for, counting the sender's own, two late, one unknown) decide
    nothing, nobody among them learnt the outcome, so the play is returned. Seat 0 had
    committed it: it is left out, and takes the new view's table when it comes back."""
    seats, members = 6, range(6)
    ours = _play(0, 1, 3, onto(0, 1), seats)
    theirs = _play(5, 1, 4, onto(5, 1), seats)
    voters = [Voter(s, seats) for s in members]
    for seat in (4, 5):
        voters[seat].hold(theirs)
    votes = {s: voters[s].hold(ours) for s in range(1, 6)}
    assert [votes[s].ok for s in range(1, 6)] == [True, True, True, False, False]
    at_zero = decide(ours, {s: votes[s] for s in (1, 2, 3)}, members, seats)
    assert at_zero is not None and at_zero.ok
    gathered = {ours.id: {s: votes[s] for s in (2, 3, 4, 5)}}
    assert settle([ours], gathered, {}, members, seats) == {ours.id: Decision(ours.id, False)}
    # Had one of them learnt the outcome, the view keeps it.
    kept = settle([ours], gathered, {ours.id: at_zero}, members, seats)
    assert kept == {ours.id: at_zero}


@pytest.mark.parametrize("seats", [3, 5, 7])
def test_no_seat_of_the_new_view_ever_resolved_a_play_the_view_change_settles_otherwise(
    seats: int,
) -> None:
    """Runs cut short at a random moment; a random majority forms the next view from what
    its seats hold: no seat of it had resolved a play the other way, and the plays the
    view commits, committed after what each of its seats committed, keep every spot in
    key order."""
    checked = 0
    for seed in range(60):
        rng = random.Random(seed)
        run = Run(seats, rng)
        for _ in range(rng.randrange(20, 400)):
            if rng.random() < 0.4:
                seat = rng.randrange(seats)
                run.play(seat, some_spots(rng, seat))
            elif not run.step():
                break
        view = rng.sample(range(seats), seats // 2 + 1)
        known = {p: o for s in view for p, o in run.orders[s].outcomes.items()}
        gathered: dict[PlayId, dict[int, Vote]] = {}
        for s in view:
            for p, vote in run.voters[s].votes.items():
                gathered.setdefault(p, {})[s] = vote
        settled = settle(run.plays.values(), gathered, known, range(seats), seats)
        then: dict[int, list[Spotted]] = {}
        for s in view:
            resolved = run.orders[s].resolved
            for play, ok in resolved.items():
                assert settled[play].ok == ok, (seed, s, play)
                checked += 1
            after = [run.plays[p] for p, o in settled.items() if o.ok and p not in resolved]
            then[s] = run.committed[s] + sorted(after, key=lambda p: p.key)
        assert misordered(run, then) is None, (seed, misordered(run, then))
    assert checked > 100


def test_a_named_play_that_sorts_before_waits_whatever_the_copy_held_here_acts_on() -> None:
    """Seat 0 sent its ace onto a new foundation to the voters, and to this seat a move on
    its own tableau under the same number. Seat 1's later ace is decided in, its voters
    naming seat 0's play below it: this seat waits for seat 0's play, though its copy
    conflicts with nothing of seat 1's, as every other seat waits for the ace (else its
    foundations would be numbered otherwise)."""
    ace = _play(0, 1, 3, onto(0, -1), seats=4, witness=b"ace")
    other = _play(0, 1, 3, onto(0), seats=4, witness=b"home")
    later = _play(1, 1, 5, onto(1, -1), seats=4, witness=b"later")
    voters = [Voter(s, 4) for s in range(4)]
    votes = {s: (voters[s].hold(ace), voters[s].hold(later))[1] for s in (2, 3)}
    decided = decide(later, votes, range(4), 4)
    assert decided is not None and decided.ok and decided.below[0] == 1
    order = Order(4)
    order.hold(other)
    order.hold(later)
    order.learn(decided)
    assert order.ready() == []  # waits for seat 0's play 1
    order.learn(Decision(ace.id, True, ace.below, ace.witness))
    assert order.ready() == []  # its copy is not the one decided: a change of members settles it
    order.take_instead(ace)
    assert order.ready() == [(ace.id, True), (later.id, True)]
