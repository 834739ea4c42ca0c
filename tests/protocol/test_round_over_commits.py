"""A round of Nerts played to its end over version 3's commit (`_commits.Commits`), with
the real rules: bots at every seat make their moves on the table they see (what committed
there, their own plays in the air on top), each move a play on its spots
(`_spots.spots_of`), its frames carried in random order, and every seat applies the plays
in the order they resolve there, a play the rules refuse on that table returned as a lost
race. Seats apply plays of different spots in different orders; at every play on the
whole table (a stuck declaration, a call) and at the end every seat holds the same table,
and the round's scores are the same everywhere. A seat left out mid-round changes none of
that for the others: the change of members is a place where they hold one table too."""

from __future__ import annotations

import hashlib
import heapq
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import pytest

from p2pnerts.bots import SimpleBot
from p2pnerts.protocol import RemoteProtocolError, Signer, encode_payload
from p2pnerts.protocol._codec import decode_commit_frame
from p2pnerts.protocol._commits import Commits
from p2pnerts.protocol._messages import CommitFrame, Tally
from p2pnerts.protocol._spots import ALL, Key, PlayId, Spot, Spotted, Vote, Voter, spots_of
from p2pnerts.rules import (
    DeclareStuck,
    IllegalMove,
    Move,
    Rotate,
    State,
    TableOptions,
    ToFoundation,
    TurnStock,
    apply,
    deal,
    legal_moves,
    public_digest,
    score_round,
)

Mark = tuple[str, int]
"""A Ready or a Reveal of a round (`Match`): what it is and the round's number."""


def _witness(seat: int, number: int, move: Move | Mark) -> bytes:
    """What tells two plays a seat sent under one number apart (the replica's: a hash of
    the message as signed)."""
    return hashlib.blake2b(repr((seat, number, move)).encode(), digest_size=16).digest()


@dataclass
class Seat:
    """One seat: its share of the commit, the table committed there, its plays in the air."""

    commits: Commits
    table: State
    bot: SimpleBot
    air: list[PlayId] = field(default_factory=list)
    barriers: list[bytes] = field(default_factory=list)
    """The public table's digest after each play on the whole table applied here."""
    applied: list[PlayId] = field(default_factory=list)


class Round:
    """A round at a table of ``players`` seats, dealt from ``seed``."""

    def __init__(self, options: TableOptions, players: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.decks = options.seating(players)
        start = deal(options, self.decks, rng=self.rng)
        self.clocks = [0] * players
        self.seats = [
            Seat(
                Commits(s, players, Signer.computed(s, players), range(players), self._stamp(s)),
                start,
                SimpleBot(random.Random(seed * 100 + s)),
            )
            for s in range(players)
        ]
        self.moves: dict[bytes, Move | Mark] = {}
        """Every play's move, by the play's witness (a cheat's two plays under one number
        are two)."""
        self.events: list[tuple[float, int, int, int, Spotted | bytes]] = []
        self.cheat: int | None = None
        """A seat that sends its first foundation play as two plays under one number: to
        the seats in `fooled` another legal move, to the rest the play."""
        self.fooled: set[int] = set(range(0, players, 2))
        self.two_faced: Spotted | None = None
        self.cheated_at = 0.0
        self.told: dict[int, dict[PlayId, bytes]] = {}
        """Per seat, the plays it knew another copy of when the members last changed."""
        self.refused: list[tuple[int, int]] = []
        """(seat, sender) of every frame refused."""
        self.view = 0
        self.out: set[int] = set()
        """Seats a change of members left out: they send and take nothing more."""
        self.gone: set[int] = set()
        """Seats whose going every seat counts (`_away_stuck`): those left out, from once
        every play their change settled is applied."""
        self.last: dict[tuple[int, int], float] = {}
        self.now, self._sent = 0.0, 0
        self.returned_by_rules = 0
        self.late_barriers = 0
        self.changes = 0
        self.looks = (0.02, 0.12)
        """How long a seat's player takes between two looks at the table, at least and at
        most (seconds)."""
        self.made: dict[bytes, float] = {}
        """When each play was made, by its witness."""
        self.settle_after: float | None = None
        """How long a play may stay open at a seat before the members change, all of them
        staying, to settle it (None: never)."""

    def _stamp(self, seat: int) -> Callable[[], int]:
        def stamp() -> int:
            self.clocks[seat] += 1
            return self.clocks[seat]

        return stamp

    def _put(self, at: float, to: int, what: Spotted | bytes) -> None:
        self._sent += 1
        heapq.heappush(self.events, (at, self._sent, to, self.view, what))

    def _delay(self) -> float:
        """A few milliseconds, or now and then far longer (so that seats poll)."""
        slow = self.rng.random() < 0.03
        return self.rng.uniform(0.15, 0.4) if slow else self.rng.uniform(0.0005, 0.006)

    def display(self, seat: int) -> State:
        """What ``seat``'s player sees: its table, its own plays in the air on top."""
        me = self.seats[seat]
        state = me.table
        for play in me.air:
            try:
                move = self.moves[me.commits.order.held[play].witness]
                if not isinstance(move, tuple):
                    state, _ = apply(state, move)
            except IllegalMove:
                continue
        return state

    def look(self, seat: int) -> None:
        """The seat's bot moves, if nothing of its is in the air (one hand, kept simple)."""
        me = self.seats[seat]
        view = self.display(seat)
        if me.air or view.ended is not None or seat in self.out:
            return
        move = me.bot.choose(view, seat)
        if move is None:
            return
        if isinstance(move, TurnStock):
            move = replace(move, rotation=view.rotations)
        self.send(seat, move, self._spots(seat, move), view)

    def send(
        self, seat: int, move: Move | Mark, spots: tuple[Spot, ...], view: State | None = None
    ) -> Spotted:
        """``seat`` makes ``move``, a play on ``spots``, and sends it to every other seat
        (the cheat, once, another move under its number to the seats it fools)."""
        me = self.seats[seat]
        self.clocks[seat] += 1
        number = me.commits.voter.have[seat] + 1
        key = (self.clocks[seat], seat)
        play = me.commits.make(number, key, spots, _witness(seat, number, move), self.now)
        self.moves[play.witness] = move
        self.made[play.witness] = self.now
        me.air.append(play.id)
        cheats = seat == self.cheat and view is not None
        other = None
        if cheats and view is not None and not isinstance(move, tuple):
            other = self._other_move(seat, view, move)
        if other is not None:
            witness = _witness(seat, number, other)
            self.moves[witness] = other
            self.two_faced = Spotted(
                seat, number, key, self._spots(seat, other), play.below, witness
            )
            self.cheated_at = self.now
        for dst in range(len(self.seats)):
            if dst != seat:
                at = max(self.now + self._delay(), self.last.get((seat, dst), 0.0))
                self.last[seat, dst] = at
                two_faced = other is not None and dst in self.fooled
                self._put(at, dst, self.two_faced if two_faced and self.two_faced else play)
        self._flush(seat)
        return play

    def _waited_too_long(self) -> bool:
        """Whether a play has stayed open at a seat longer than `settle_after`."""
        if self.settle_after is None:
            return False
        oldest = self.now - self.settle_after
        return any(
            self.made[play.witness] < oldest
            for i, seat in enumerate(self.seats)
            if i not in self.out
            for play in seat.commits.order.unresolved.values()
        )

    def over(self, playing: list[Seat]) -> bool:
        """Whether the play is over at every seat still ``playing``."""
        return all(seat.table.ended for seat in playing)

    def _spots(self, seat: int, move: Move) -> tuple[Spot, ...]:
        return spots_of(move, self.decks[seat])

    def _other_move(self, seat: int, view: State, move: Move) -> Move | None:
        """The cheat's second play under one number: another legal move, once."""
        if self.two_faced is not None or not isinstance(move, ToFoundation):
            return None
        others = [m for m in legal_moves(view, seat) if m != move and not isinstance(m, Rotate)]
        return others[0] if others else None

    def _flush(self, seat: int) -> None:
        for frame, to in self.seats[seat].commits.take_outgoing():
            if seat in self.out:
                continue
            for dst in [to] if to is not None else range(len(self.seats)):
                if dst != seat:
                    self._put(self.now + self._delay(), dst, encode_payload(frame))
        self._resolve(seat)

    def _resolve(self, seat: int) -> None:
        """Apply what resolved at ``seat``, in that order; all stuck, the stocks rotate."""
        me = self.seats[seat]
        for play, ok in me.commits.resolved():
            if play in me.air:
                me.air.remove(play)
            self.take(seat, me.commits.order.held[play], ok)

    def take(self, seat: int, play: Spotted, ok: bool) -> None:
        """``play`` resolved at ``seat``: applied if it committed and the rules allow it
        there."""
        me = self.seats[seat]
        move, barrier = self.moves[play.witness], ALL in play.spots
        assert not isinstance(move, tuple)
        if not ok:
            self.late_barriers += barrier and play.seat == seat
            return
        try:
            me.table, _ = apply(me.table, move)
        except IllegalMove:
            self.returned_by_rules += 1
            return
        me.applied.append(play.id)
        self._rotate(me)
        if barrier:
            me.barriers.append(public_digest(me.table))

    def _rotate(self, me: Seat) -> None:
        """What every seat does by itself after a play (`InPlay.settle`): a deck with no
        seat left counts as stuck; all stuck, the stocks rotate."""
        self._away_stuck(me)
        while me.table.ended is None and all(t.stuck for t in me.table.tableaux):
            me.table, _ = apply(me.table, Rotate(0))
            self._away_stuck(me)

    def _away_stuck(self, me: Seat) -> None:
        for gone in self.gone:
            deck = self.decks[gone]
            away = all(s in self.gone for s, d in enumerate(self.decks) if d == deck)
            if away and not me.table.tableaux[deck].stuck and me.table.ended is None:
                me.table, _ = apply(me.table, DeclareStuck(gone))

    def leave_out(self, out: int | None) -> None:
        """A change of members leaves ``out`` out (None: nobody, a change that only settles
        what waits): every other seat brings what it holds, installs the next view and
        applies what it settles; then, and not among those plays, the decks with no seat
        left count as stuck, and the table is compared there, a barrier like any other."""
        if out is not None:
            self.out.add(out)
        self.view += 1
        self.changes += 1
        members = [s for s in range(len(self.seats)) if s not in self.out]
        self.told = {s: dict(self.seats[s].commits.other_copies) for s in members}
        holdings = [self.seats[s].commits.holding() for s in members]
        clock = max(self.clocks[s] for s in members)
        for seat in members:
            me = self.seats[seat]
            me.commits.install(self.view, members, holdings)
            self.clocks[seat] = clock
            gone = set(self.gone)
            self.gone.discard(out)  # (not yet gone among what the change settles)
            self._resolve(seat)
            self.gone = gone | ({out} if out is not None else set())
            self._rotate(me)
            me.barriers.append(public_digest(me.table))

    def _land(self, dst: int, what: Spotted | bytes) -> None:
        me = self.seats[dst]
        if isinstance(what, Spotted):
            self.clocks[dst] = max(self.clocks[dst], what.key[0])
            me.commits.hold(what, self.now)
        else:
            frame = decode_commit_frame(what)
            self.clocks[dst] = max(self.clocks[dst], frame.clock)
            try:
                me.commits.take(frame, self.now)
            except RemoteProtocolError:  # (the replica refuses its sender from then on)
                self.refused.append((dst, frame.sender))
        self._flush(dst)

    def play(self, until: float = 120.0, leave: tuple[float, int] | None = None) -> None:
        """Every seat looks every 20 to 120 ms; the commit's clocks tick every 10 ms; once
        the round is over everywhere, 2 s more for what is still in flight.
        ``leave``: at that time, that seat is left out."""
        looks = [(self.rng.uniform(*self.looks), s) for s in range(len(self.seats))]
        heapq.heapify(looks)
        tick = 0.01
        playing, over = [s for s in self.seats], until
        while self.now < min(until, over + 2.0):
            if over == until and self.over(playing):
                over = self.now
            if self.two_faced is not None and leave is None and self.cheat not in self.out:
                leave = (self.cheated_at + 0.5, self.two_faced.seat)  # (its proof told)
            if leave is not None and self.now >= leave[0]:
                self.leave_out(leave[1])
                playing, leave = [s for i, s in enumerate(self.seats) if i not in self.out], None
            soonest = min(looks[0][0], tick, self.events[0][0] if self.events else until)
            self.now = soonest
            if self.events and self.events[0][0] == soonest:
                _, _, dst, view, what = heapq.heappop(self.events)
                if view == self.view and dst not in self.out:
                    self._land(dst, what)
            elif tick == soonest:
                for seat in range(len(self.seats)):
                    if seat in self.out:
                        continue
                    self.seats[seat].commits.tick(self.now)
                    self._flush(seat)
                tick += 0.01
                if self._waited_too_long():
                    self.leave_out(None)
            else:
                _, seat = heapq.heappop(looks)
                self.look(seat)
                heapq.heappush(looks, (self.now + self.rng.uniform(*self.looks), seat))


@pytest.mark.parametrize(
    ("options", "players", "seed"),
    [
        (TableOptions(nerts_pile=6), 4, 1),
        (TableOptions(nerts_pile=6), 4, 2),
        (TableOptions(nerts_pile=6, jokers=True), 3, 3),
        (TableOptions(nerts_pile=6, teams=(2, 2)), 4, 4),
        (TableOptions(nerts_pile=4), 6, 5),
    ],
)
def test_a_round_over_the_commit_ends_on_one_table_and_one_score_everywhere(
    options: TableOptions, players: int, seed: int
) -> None:
    game = Round(options, players, seed)
    game.play()
    tables = [seat.table for seat in game.seats]
    assert all(t.ended is not None for t in tables)
    assert len({public_digest(t) for t in tables}) == 1
    assert len({tuple(score_round(t)) for t in tables}) == 1
    first = game.seats[0].barriers
    assert first and all(seat.barriers == first for seat in game.seats)
    assert all(not seat.commits.order.unresolved and not seat.air for seat in game.seats)
    orders = {tuple(seat.applied) for seat in game.seats}
    assert len(orders) > 1  # the seats applied the plays in different orders


@pytest.mark.parametrize(("players", "seed"), [(2, 24), (3, 16), (3, 21)])
def test_rotations_and_calls_that_come_back_late_leave_one_table_everywhere(
    players: int, seed: int
) -> None:
    """Full piles: every seat stuck, the stocks rotated at every seat at the same place;
    a stuck declaration or a call that came back late, and the bot that made it making
    it again."""
    game = Round(TableOptions(), players, seed)
    game.play(until=300)
    tables = [seat.table for seat in game.seats]
    assert all(t.ended is not None for t in tables)
    assert tables[0].rotations + game.late_barriers >= 2
    assert all(t == tables[0] for t in tables)
    assert all(seat.barriers == game.seats[0].barriers for seat in game.seats)


@pytest.mark.parametrize(
    ("options", "players", "seed", "at"),
    [
        (TableOptions(nerts_pile=6), 4, 1, 0.8),
        (TableOptions(nerts_pile=6), 4, 2, 0.7),
        (TableOptions(nerts_pile=6), 4, 6, 0.7),
        (TableOptions(nerts_pile=6), 5, 2, 0.5),
        (TableOptions(), 3, 21, 4.0),
        (TableOptions(nerts_pile=6, teams=(1, 1, 2)), 4, 4, 0.8),
    ],
)
def test_a_seat_left_out_mid_round_and_the_rest_end_it_on_one_table(
    options: TableOptions, players: int, seed: int, at: float
) -> None:
    """The last seat is left out mid-round, its frames and the others' then in flight
    dropped: the change settles every open play alike, each seat of the new view holds the
    same table once it has applied what the change settled (its deck, with no seat left,
    counted stuck), and the round ends on one table everywhere."""
    game = Round(options, players, seed)
    game.play(leave=(at, players - 1))
    assert game.out == {players - 1}
    seats = [seat for i, seat in enumerate(game.seats) if i not in game.out]
    tables = [seat.table for seat in seats]
    assert all(t.ended is not None for t in tables)
    assert all(t == tables[0] for t in tables)
    assert all(seat.barriers == seats[0].barriers for seat in seats)
    assert len({tuple(seat.applied) for seat in seats}) > 1
    assert all(not seat.commits.order.unresolved and not seat.air for seat in seats)


@pytest.mark.parametrize(
    ("players", "seed", "fooled"),
    [(4, 1, "even"), (5, 2, "even"), (6, 3, "even"), (7, 5, "even"), (5, 1, "one"), (6, 2, "one")],
)
def test_a_seat_that_sent_two_plays_under_one_number_is_left_out_and_the_rest_hold_one(
    players: int, seed: int, fooled: str
) -> None:
    """The last seat sends its first foundation play to some seats and another legal move
    under the same number to the others: the even seats, or seat 0 alone. No seat takes a
    Tally of the one it does not hold (with seat 0 alone fooled, the cheat's Tally of the
    play reaches it and is refused); half a second later the cheat is left out, and every
    other seat resolves the play alike (committed, it holds the same version of it: the
    one the change settled) and ends the round on one table."""
    game = Round(TableOptions(nerts_pile=6), players, seed)
    game.cheat = players - 1
    game.fooled = set(range(0, players, 2)) if fooled == "even" else {0}
    game.play()
    if fooled == "one":
        assert (0, game.cheat) in game.refused
    two_faced = game.two_faced
    assert two_faced is not None and game.out == {game.cheat}
    # A seat fooled learnt of the other play before the change: what it asks for, the proof.
    told = [game.told.get(s, {}).get(two_faced.id) for s in game.fooled]
    assert game.moves.get(next(w for w in told if w)) is not None
    seats = [seat for i, seat in enumerate(game.seats) if i != game.cheat]
    assert all(not seat.commits.other_copies for seat in seats)  # settled by the change
    held = {seat.commits.order.held[two_faced.id].witness for seat in seats}
    resolved = {seat.commits.order.resolved[two_faced.id] for seat in seats}
    assert len(resolved) == 1 and (len(held) == 1 or resolved == {False})
    assert {sender for _, sender in game.refused} <= {game.cheat}
    tables = [seat.table for seat in seats]
    assert all(t.ended is not None for t in tables) and all(t == tables[0] for t in tables)
    assert all(seat.barriers == seats[0].barriers for seat in seats)
    assert all(not seat.commits.order.unresolved and not seat.air for seat in seats)


@pytest.mark.parametrize(("players", "seed"), [(4, 1), (5, 2), (6, 3)])
def test_a_seat_that_names_plays_nobody_sent_below_its_own_holds_up_no_one(
    players: int, seed: int
) -> None:
    """The last seat names, below every play it makes, 50 plays more of every other seat
    than it holds: plays nobody sent, which no seat will ever hold. Its plays are decided in
    with that in their outcome; a play waits for a named play it does not hold only while
    that seat's plays still to come could sort before it, so the round ends on one table
    (it stalled, every seat waiting for ever, when it waited regardless)."""
    game = Round(TableOptions(nerts_pile=6), players, seed)
    voter = game.seats[players - 1].commits.voter
    make = voter.make

    def inflated(seq: int, key: Key, spots: tuple[Spot, ...], witness: bytes = b"") -> Spotted:
        play = make(seq, key, spots, witness)
        more = tuple(b if s == play.seat else b + 50 for s, b in enumerate(play.below))
        return replace(play, below=more)

    voter.make = inflated  # type: ignore[method-assign]
    game.play(until=60.0)
    tables = [seat.table for seat in game.seats[:-1]]
    assert all(t.ended is not None for t in tables) and all(t == tables[0] for t in tables)
    assert all(not seat.commits.order.unresolved for seat in game.seats[:-1])


@pytest.mark.parametrize(("players", "seed"), [(4, 1), (5, 2)])
def test_a_seat_that_keeps_the_outcomes_of_its_own_plays_to_itself_holds_up_no_one_for_long(
    players: int, seed: int
) -> None:
    """The last seat never sends the Tally of its own plays. A play of its that a seat
    voted late (polled before the play reached it) splits the votes so that no poll can
    decide it, and every play after it on its spots waits, the call that ends the round
    among them: the round never ends. A change of members, every seat staying, once a play
    has been open a second, settles it from the holdings, and the round ends on one table."""
    game = Round(TableOptions(nerts_pile=6), players, seed)
    commits = game.seats[players - 1].commits
    take = commits.take_outgoing

    def no_tallies() -> list[tuple[CommitFrame, int | None]]:
        return [(f, to) for f, to in take() if not (isinstance(f, Tally) and f.seat == f.sender)]

    commits.take_outgoing = no_tallies  # type: ignore[method-assign]
    game.settle_after = 1.0
    game.play(until=60.0)
    assert game.changes > 0 and not game.out
    tables = [seat.table for seat in game.seats[:-1]]
    assert all(t.ended is not None for t in tables) and all(t == tables[0] for t in tables)


def _votes_bent(voter: Voter, bend: Callable[[Spotted, Vote], Vote]) -> None:
    """Have ``voter`` vote as ``bend`` says on every play of another seat, and keep that
    vote, so that it says the same to whoever asks."""
    hold = voter.hold

    def bent(play: Spotted) -> Vote:
        vote = hold(play)
        if play.seat != voter.seat:
            vote = voter.votes[play.id] = bend(play, vote)
        return vote

    voter.hold = bent  # type: ignore[method-assign]


CHEAT_VOTES: dict[str, Callable[[Spotted, Vote], Vote]] = {
    "for every play, conflicts or not": lambda play, vote: Vote(
        play.id, vote.voter, True, vote.below or (0,) * len(play.below), play.witness
    ),
    "late on every play": lambda play, vote: Vote(play.id, vote.voter, False),
    "naming nothing below": lambda play, vote: replace(
        vote, below=tuple(b if s == play.seat else 0 for s, b in enumerate(vote.below))
    ),
}


@pytest.mark.parametrize(
    ("how", "players", "seed"),
    [
        ("for every play, conflicts or not", 5, 1),
        ("for every play, conflicts or not", 7, 3),
        ("naming nothing below", 5, 5),
        ("late on every play", 5, 1),
        ("late on every play", 7, 3),
    ],
)
def test_a_seat_that_votes_as_it_likes_parts_no_table(how: str, players: int, seed: int) -> None:
    """The last seat votes for every play whatever it conflicts with, or late on every
    play, or names nothing below what it votes for, at players looking every 1 to 10 ms (so
    that plays race): every two quorums share two members, one of them honest, so the
    others end the round on one table all the same. (With a plain majority for a quorum
    at these odd tables the first three part the table.)"""
    game = Round(TableOptions(nerts_pile=6), players, seed)
    game.looks = (0.001, 0.01)
    _votes_bent(game.seats[players - 1].commits.voter, CHEAT_VOTES[how])
    game.play(until=60.0)
    seats = game.seats[:-1]
    tables = [seat.table for seat in seats]
    assert all(t.ended is not None for t in tables) and all(t == tables[0] for t in tables)
    assert all(seat.barriers == seats[0].barriers for seat in seats)
    assert {sender for _, sender in game.refused} <= {players - 1}
