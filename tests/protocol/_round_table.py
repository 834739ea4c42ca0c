"""A table of seats playing Nerts over version 3's commit (`_commits.Commits`), with the
real rules: bots at every seat make their moves on the table they see (what committed
there, their own plays in the air on top), each move a play on its spots
(`_spots.spots_of`), its frames carried in random order, and every seat applies the plays
in the order they resolve there, a play the rules refuse on that table returned as a lost
race; members may change (`Round.leave_out`), and a seat may cheat. The table of
`test_round_over_commits`, `test_round_cheats` and `test_match_over_commits`."""

from __future__ import annotations

import hashlib
import heapq
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from p2pnerts.bots import SimpleBot
from p2pnerts.protocol import RemoteProtocolError, Signer, encode_payload
from p2pnerts.protocol._codec import decode_commit_frame
from p2pnerts.protocol._commits import Commits
from p2pnerts.protocol._spots import ALL, PlayId, Spot, Spotted, conflict, spots_of
from p2pnerts.rules import (
    NEW_FOUNDATION,
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
)

Mark = tuple[str, int]
"""A Ready or a Reveal of a round (`Match`): what it is and the round's number."""


@dataclass(frozen=True)
class Beat:
    """What a seat says beside its plays on its link to another (a replica's Ack, as
    `Commits.hear` takes it): its clock, how far it has passed the canonical order, and how
    many plays it has made."""

    seat: int
    clock: int
    passed: tuple[int, ...]
    made: int


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
    waiting: list[Spotted] = field(default_factory=list)
    """Plays resolved in and not applied yet: a card onto a foundation whose ace has not
    landed here, and the plays after it on its spots (as `_applying.Applying` keeps them)."""


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
        self.events: list[tuple[float, int, int, int, Spotted | bytes | Beat]] = []
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
        self.beat: float | None = None
        """How often each seat tells every other its clock, as a replica's Ack does
        (`Beat`, sent on the link its plays take, behind them), and bounds its own plays
        still to come by it (`Commits.canonical`). None: never, and the seats tell their
        clocks by their plays alone, so that a round whose honest seats all wait, with no
        play to make, can stall where a replica would not."""

    def _stamp(self, seat: int) -> Callable[[], int]:
        def stamp() -> int:
            self.clocks[seat] += 1
            return self.clocks[seat]

        return stamp

    def _put(self, at: float, to: int, what: Spotted | bytes | Beat) -> None:
        self._sent += 1
        heapq.heappush(self.events, (at, self._sent, to, self.view, what))

    def _behind(self, seat: int, dst: int) -> float:
        """When what ``seat`` sends ``dst`` now lands: after a `_delay`, and behind what it
        sent there before (its ordered link)."""
        at = max(self.now + self._delay(), self.last.get((seat, dst), 0.0))
        self.last[seat, dst] = at
        return at

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
                two_faced = other is not None and dst in self.fooled
                what = self.two_faced if two_faced and self.two_faced else play
                self._put(self._behind(seat, dst), dst, what)
        self._flush(seat)
        return play

    def _tell_clocks(self) -> None:
        """Every seat still in says its clock to every other, behind its plays (`beat`)."""
        for seat, me in enumerate(self.seats):
            if seat in self.out:
                continue
            me.commits.canonical(self.clocks[seat], self.now)
            beat = Beat(seat, self.clocks[seat], me.commits.told(), me.commits.voter.have[seat])
            for dst in range(len(self.seats)):
                if dst != seat:
                    self._put(self._behind(seat, dst), dst, beat)
            self._flush(seat)

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
        """Apply what resolved at ``seat``, in that order, but a card onto a foundation not
        started there yet, which waits for its ace, and what comes after it on its spots;
        all stuck, the stocks rotate."""
        me = self.seats[seat]
        for play, ok in me.commits.resolved():
            if play in me.air:
                me.air.remove(play)
            if ok:
                me.waiting.append(me.commits.order.held[play])
            else:
                self.take(seat, me.commits.order.held[play], ok)
        progress = True
        while progress:
            progress, still = False, list[Spotted]()
            for held in me.waiting:
                move = self.moves[held.witness]
                unstarted = (
                    isinstance(move, ToFoundation)
                    and move.foundation != NEW_FOUNDATION
                    and move.foundation >= me.table.next_foundation
                )
                if unstarted or any(conflict(held.spots, w.spots) for w in still):
                    still.append(held)
                    continue
                self.take(seat, held, True)
                progress = True
            me.waiting = still

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
        except IllegalMove:  # (returned by the rules, as a lost race)
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

    def _land(self, dst: int, what: Spotted | bytes | Beat) -> None:
        me = self.seats[dst]
        if isinstance(what, Beat):
            self.clocks[dst] = max(self.clocks[dst], what.clock)
            me.commits.hear(what.seat, what.clock, what.passed, what.made)
        elif isinstance(what, Spotted):
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
        beat = self.beat or until
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
                if self.now >= beat and self.beat is not None:
                    self._tell_clocks()
                    beat += self.beat
                if self._waited_too_long():
                    self.leave_out(None)
            else:
                _, seat = heapq.heappop(looks)
                self.look(seat)
                heapq.heappush(looks, (self.now + self.rng.uniform(*self.looks), seat))
