"""The round in play at one seat: the public and private tables, and its one hand.

The *public* table is what every replica agrees on, every face-down card hidden; the
*private* table is the same with this seat's own deck known. What the player sees, the
*display*, is the private table with their own plays still in the air applied on top; it
is worked out again only after one of those two changes (a cache with one owner).

A player's move goes into the air at once (`InPlay.intend`); a foundation play, a stuck
declaration or a Nerts call — on a team's tableau, any move — holds the player's one
hand until it commits: a next move its verdict could change waits for it (`_hand`). At
its place in the agreed order a play gets its verdict from the arbiter
(`_arbiter.decide`) and lands, ties or returns (`InPlay.commit_play`); then what follows
by itself is applied alike everywhere (`InPlay.settle`): seats sitting out are declared
stuck, all stuck means the rotation, and an ended round is scored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

from p2pnerts.protocol import _host
from p2pnerts.protocol._arbiter import Outcome, Race, Verdict, decide, told
from p2pnerts.protocol._errors import LocalProtocolError
from p2pnerts.protocol._events import AuditFailed, AutoApplied, PlayInTheAir, RoundOver
from p2pnerts.protocol._hand import Hand
from p2pnerts.protocol._log import PENDING_LIMIT
from p2pnerts.protocol._messages import Play
from p2pnerts.protocol._rounds import Round
from p2pnerts.protocol._status import Status
from p2pnerts.rules import (
    CallNerts,
    Card,
    CardPlayed,
    CardsRevealed,
    DeclareStuck,
    Foundation,
    IllegalMove,
    Move,
    Rotate,
    SlideUnder,
    State,
    Tableau,
    ToFoundation,
    ToWork,
    TurnStock,
    apply,
    is_stuck,
    public_digest,
    score_round,
)


class _Dealt(Protocol):
    """What the round in play reads and drives of the rounds dealt (`Dealing`)."""

    @property
    def rounds(self) -> dict[int, Round]: ...
    @property
    def blind(self) -> bool: ...
    def round_ended(self, this: Round, now: float) -> None: ...
    def maybe_start_play(self) -> None: ...


PLAYS_WAITING = PENDING_LIMIT - 4
"""How many of its own plays a seat lets wait to commit before it makes no more: below
`PENDING_LIMIT`, leaving room for its Ready and Leave."""


class Host(_host.Host, Protocol):
    """What the round in play reads and drives of the replica that holds it."""

    auto_stuck: bool
    leaving: bool
    by_majority: bool

    @property
    def dealing(self) -> _Dealt: ...
    def team_of(self, seat: int) -> tuple[int, ...]: ...
    def crowded(self) -> bool: ...


class Holder(Protocol):
    """What holds the round in play (the replica), as dealing and membership reach it."""

    inplay: InPlay


class InPlay:
    """The round on the table at this seat, with the plays this seat has in the air."""

    def __init__(self, host: Host, number: int = 0) -> None:
        self._host = host
        self.number = number
        """The round on the table (0 before the first is dealt in)."""
        self.public: State | None = None
        self._private: State | None = None
        self._mine: list[Play] = []
        self._held: list[Play] = []
        self.placed: dict[int, tuple[int, int]] = {}
        """Per foundation, the seat and clock of the play that last put a card there."""
        self.started: dict[int, tuple[int, int]] = {}
        """Per foundation, the seat and clock of the ace that started it."""
        self.stuck_while_away: set[int] = set()
        """The decks declared stuck for their seats while none was at the table, and not
        by a seat of theirs since: such a seat, back, is told why it is stuck."""
        self.stuck_for_idle = False
        """This seat's peer declared its tableau stuck for its idle player, and no seat of
        it has since: the player, back, is told why, likewise."""
        self._display: State | None = None
        self._free: tuple[Tableau, tuple[Foundation, ...]] | None = None
        """The tableau and foundations this seat was last found not stuck with (`is_stuck`
        reads nothing else of a state in play): while both are the same objects, it still
        is not, and the look is not taken again."""

    def begin(self, number: int, public: State, private: State) -> None:
        """Deal round ``number`` in: every foundation empty."""
        self.number, self.placed, self.started = number, {}, {}
        self.stuck_while_away = set()
        self.stuck_for_idle = False
        self.public, self.private = public, private

    @property
    def private(self) -> State | None:
        return self._private

    @private.setter
    def private(self, state: State | None) -> None:
        self._private, self._display = state, None

    @property
    def mine(self) -> Sequence[Play]:
        """This seat's plays sent and not yet committed, in the order sent."""
        return self._mine

    @property
    def hand(self) -> Hand:
        """This seat's plays in the air that hold its one hand: a next move that depends
        on one waits for it."""
        agreed = 0 if self._private is None else len(self._private.foundations)
        held = tuple(play.move for play in self._held)
        return Hand(held, agreed)

    def throw(self, play: Play, *, holds_hand: bool) -> None:
        """A play of this seat's goes into the air (holding its one hand, if it must)."""
        self._mine.append(play)
        if holds_hand:
            self._held.append(play)
        self._display = None

    def in_the_air(self, play: Play) -> bool:
        """A play of this seat's is sent (or, back from a crash, carried back to it): in
        the air until it commits. Returns whether it holds this seat's one hand: on a
        tableau of its own a player's moves cannot collide, but a foundation play, a
        stuck declaration or a call can; on a team's, each move may race a teammate's, so
        every move holds it (`Hand.waits_for` says which next moves wait). So does every
        move where any play may come back late (`by_majority`: a majority's commit,
        where a move on this seat's own tableau comes back when a quorum voted first for
        another seat's call, stuck declaration or rotation that sorts after it)."""
        move = play.move
        holds_hand = (
            isinstance(move, ToFoundation | CallNerts | DeclareStuck)
            or len(self._host.team) > 1
            or self._host.by_majority
        )
        self.throw(play, holds_hand=holds_hand)
        return holds_hand

    def come_down(self, play: Play) -> None:
        """A play of this seat's has committed: it is in the air no more."""
        if play in self._mine:
            self._mine.remove(play)
            self._display = None
        if play in self._held:
            self._held.remove(play)

    @property
    def display(self) -> State | None:
        """The table this seat's player sees: committed, plus their own plays in the air."""
        if self._display is None and self._private is not None:
            state = self._private
            for play in self._mine:
                try:
                    state, _ = apply(state, play.move)
                except IllegalMove:
                    continue  # it will be returned when it commits
            self._display = state
        return self._display

    def intend(self, move: Move, now: float, *, idle: bool = False) -> Move:
        """Make a move for this seat: sent at once, shown in the air until it commits.

        Returns the move as sent (with the cards it turns face up). Raises `IllegalMove`
        if the rules forbid it on the table this player sees, `LocalProtocolError` if the
        protocol does (no round, another seat, one hand busy, the table regrouping).
        """
        display = self.display
        if self._host.status is not Status.NORMAL:
            raise LocalProtocolError(f"the table is {self._host.status.value}: wait")
        if self._host.leaving:
            raise LocalProtocolError("you are leaving the table")
        if display is None or display.ended is not None:
            raise LocalProtocolError("no round is being played")
        if self.sits_out(self._host.seat):
            raise LocalProtocolError("you sit this round out: you were not dealt in")
        if self._host.dealing.blind:
            raise LocalProtocolError("your deck's order is not here: you cannot play it")
        if move.seat != self._host.seat:
            raise LocalProtocolError(f"seat {self._host.seat} cannot move for seat {move.seat}")
        if self.hand.waits_for(move) is not None:
            raise LocalProtocolError("one hand: wait until your last play lands or returns")
        if self._host.log.waiting[self._host.seat] >= PLAYS_WAITING:
            raise LocalProtocolError("too many of your plays wait to commit: wait a moment")
        if self._host.crowded():
            why = "the table holds too many plays while a seat is silent: wait a moment"
            raise LocalProtocolError(why)
        if isinstance(move, Rotate):
            raise LocalProtocolError("the rotation happens by itself once everyone is stuck")
        if isinstance(move, TurnStock) and not self.turns_though_stuck(display):
            raise LocalProtocolError(
                "stuck: nothing your stock turns up can go anywhere yet; play a card, or wait"
                " for the others"
            )
        if isinstance(move, TurnStock):
            move = replace(move, rotation=display.rotations)  # what it is made after
        _, events = apply(display, move)
        shown = tuple(c for e in events if isinstance(e, CardsRevealed) for c in e.cards)
        if shown:
            assert isinstance(move, TurnStock | ToFoundation | ToWork | SlideUnder)
            move = replace(move, revealed=shown)
        number = self.number
        play = self._host.send(
            now, lambda c, s: Play(self._host.seat, self._host.view, c, s, number, move)
        )
        assert isinstance(play, Play)
        if self.in_the_air(play):
            self._host.events.append(PlayInTheAir(move))
        self.stuck_for_idle = idle and isinstance(move, DeclareStuck)
        return move

    def turns_though_stuck(self, display: State) -> bool:
        """Whether this seat may turn its stock on ``display`` (SPEC §4.9): its tableau is
        not declared stuck, or no longer provably cannot make progress — whoever declared
        it, a play has opened up since (another seat's card went up), or there was one all
        along (it was declared for an idle or absent player, or by a player in a hurry)."""
        seat = self._host.seat
        return not display.tableau_of(seat).stuck or not is_stuck(display, seat)

    def sitting_out(self) -> list[int]:
        """The seats sitting this round out, that cannot move in it: not seated, or not
        dealt in."""
        playing = self._playing()
        return [s for s in range(self._host.players) if s not in playing]

    def sits_out(self, seat: int) -> bool:
        """Whether ``seat`` is `sitting_out` this round."""
        return seat not in self._playing()

    def _playing(self) -> set[int]:
        """The seats playing this round: seated, and their deck dealt in."""
        dealt, seats = self._dealt_in(), self._host.seats
        return {s for s in self._host.seated if seats[s] in dealt}

    def _dealt_in(self) -> dict[int, tuple[Card, ...]]:
        """The decks dealt in this round: a Ready in when play started. One that commits
        later (its seat was not at the table when the round's first Ready committed) deals
        nothing in."""
        this = self._host.dealing.rounds.get(self.number)
        return this.shown if this is not None else {}

    def keep_sitting_out_stuck(self) -> None:
        """Tableaux with none of their seats at the table count as stuck, so the others
        can still rotate."""
        public = self.public
        if public is None or public.ended is not None:
            return
        away = self.sitting_out()
        for seat in away:
            if (
                all(s in away for s in self._host.team_of(seat))
                and not public.tableau_of(seat).stuck
            ):
                self.apply_everywhere(DeclareStuck(seat))
                self.stuck_while_away.add(self._host.seats[seat])
                public = self.public
                assert public is not None

    def commit_play(self, play: Play, now: float) -> int:
        if play.sender == self._host.seat:
            self.come_down(play)
        verdict = decide(play, self.public, self.number, self._race(play))
        if verdict.stays:
            self._land(play, verdict)
        self._host.events.append(told(play, verdict))
        if verdict.stays:
            self.settle(now)
        return verdict.outcome

    def _land(self, play: Play, verdict: Verdict) -> None:
        """Put a play that stays on the public and the private table."""
        after, tie = verdict.table, verdict.outcome is Outcome.TIED
        assert self.private is not None and after is not None
        try:
            self.private, _ = apply(self.private, play.move, tie=tie)
        except IllegalMove as exc:
            # Only a teammate can show a card of this seat's deck that this seat knows is
            # elsewhere: the table took it, so this seat plays on blind.
            self._host.events.append(AuditFailed(self.number, play.sender, f"it showed {exc}"))
            self._host.dealing.rounds[self.number].order = ()
            self.private = after
        self.public = after
        if isinstance(play.move, DeclareStuck) or not after.tableau_of(play.move.seat).stuck:
            self.stuck_while_away.discard(self._host.seats[play.move.seat])
            if play.sender != self._host.seat and play.move.seat in self._host.team:
                self.stuck_for_idle = False  # a teammate declared it, or moved
        self._host.dealing.rounds[self.number].log.append((play.move, tie))
        for effect in verdict.effects:
            if isinstance(effect, CardPlayed):
                self.placed[effect.foundation] = (play.sender, play.clock)
                self.started.setdefault(effect.foundation, (play.sender, play.clock))

    def _race(self, play: Play) -> Race:
        """What the arbiter reads of this replica to decide ``play``: the same everywhere."""
        seat = play.move.seat
        return Race(
            tie_rule=self._host.options.tie_rule,
            placed=self.placed,
            deck=self._host.seats[seat],
            shared=len(self._host.team_of(seat)) > 1,
            sitting_out=self.sits_out(play.sender),
        )

    def settle(self, now: float) -> None:
        """What follows a commit by itself, the same at every replica: seats away count as
        stuck; all stuck means the rotation (or the round's end); an ended round is scored."""
        public = self.public
        this = self._host.dealing.rounds.get(self.number)
        if public is None or this is None or this.ended:
            return
        if public.ended is None:
            self.keep_sitting_out_stuck()
            # A rotation that leaves every tableau stuck again (no seat can move: none is
            # dealt in, or every dealt seat is gone) is followed by another, which ends the
            # round, rather than waiting for a commit that may never come.
            while self._all_stuck():
                self.apply_everywhere(Rotate(min(self._host.members, default=0)))
                self.keep_sitting_out_stuck()
        if self.public is not None and self.public.ended is not None:
            self._end_round(now)

    def _all_stuck(self) -> bool:
        public = self.public
        return public is not None and public.ended is None and all(t.stuck for t in public.tableaux)

    def apply_everywhere(self, move: Move) -> None:
        """Apply a move every replica applies at this same place in the order."""
        assert self.public is not None and self.private is not None
        self.public, _ = apply(self.public, move)
        self.private, _ = apply(self.private, move)
        self._host.dealing.rounds[self.number].log.append((move, False))
        self._host.events.append(AutoApplied(move))

    def _end_round(self, now: float) -> None:
        public = self.public
        assert public is not None and public.ended is not None
        scores = score_round(public)
        self._host.match_scores.append(tuple(s.points for s in scores))
        this = self._host.dealing.rounds[self.number]
        self._host.events.append(
            RoundOver(
                self.number,
                public.ended.reason,
                public.ended.caller,
                scores,
                public_digest(public),
                dealt=tuple(sorted(this.shown)),
            )
        )
        this.ended = True
        self._host.dealing.round_ended(this, now)

    def maybe_stuck(self, now: float) -> None:
        display = self.display
        if not self._host.auto_stuck or display is None or display.ended is not None:
            return
        if self._host.leaving:
            return  # it makes no move after its Leave, a declaration neither
        if self._host.status is not Status.NORMAL or self.mine:
            return
        if self._host.crowded():
            return  # (it makes no play until it lets go of some: it declares then)
        if display.tableau_of(self._host.seat).stuck:
            return
        if self.sits_out(self._host.seat):
            return  # not dealt in: the others count this seat as stuck already
        blind = not self._host.dealing.rounds[self.number].order  # dealt, but the deck was lost
        if blind:
            away = self.sitting_out()
            if not any(s not in away for s in self._host.team if s != self._host.seat):
                self._declare_blind_stuck(now)  # (a teammate who sees the deck plays it)
            return
        seen = (display.tableau_of(self._host.seat), display.foundations)
        free = self._free
        if free is not None and seen[0] is free[0] and seen[1] is free[1]:
            return  # (most looks: only another seat's tableau changed since the last)
        if is_stuck(display, self._host.seat):
            self.intend(DeclareStuck(self._host.seat), now)
        else:
            self._free = seen

    def _declare_blind_stuck(self, now: float) -> None:
        number = self.number
        play = self._host.send(
            now,
            lambda c, s: Play(
                self._host.seat, self._host.view, c, s, number, DeclareStuck(self._host.seat)
            ),
        )
        assert isinstance(play, Play)
        self.throw(play, holds_hand=True)
