"""Dealing: each round's deck, the team's deck, the start of play, and the audit.

Theory of operation
-------------------
Before a round a seat shuffles its deck, commits to the order with a salted hash and
broadcasts Ready with the cards it deals face up (§5.1). A team deals one deck: the
team's first seat at the table shuffles and sends the order to each teammate alone
(TeamDeal) before its Ready, and each teammate keeps its own shuffle as a spare in case
that seat drops out first. Play starts at the place in the order where every
participant still seated has its deck's Ready committed (§5.2); a deck's first committed
Ready deals it. After the round each seat dealt in reveals its order and salt, and every
replica audits every deck against its commitment and the cards it showed (§5.5).

`Dealing` keeps what a replica knows of each round until that audit (`Round`), the deck
order to save on disk, and the team decks teammates sent; it reaches the rest of the
replica through `Host`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from p2pnerts.protocol import _deal
from p2pnerts.protocol._acks import Acks
from p2pnerts.protocol._errors import LocalProtocolError
from p2pnerts.protocol._events import AuditFailed, AuditPassed, RoundStarted
from p2pnerts.protocol._inplay import Disk, InPlay, Round
from p2pnerts.protocol._log import Log
from p2pnerts.protocol._membership import Membership
from p2pnerts.protocol._messages import Ready, Reveal, TeamDeal
from p2pnerts.protocol._outbox import Outbox
from p2pnerts.protocol._status import Seats, Status
from p2pnerts.rules import (
    Card,
    IllegalMove,
    apply,
    card_code,
    card_from_code,
    new_deck,
)

TEAM_DEALS_KEPT = 4
"""How many rounds' team decks a seat keeps from each teammate: the one on the table and
the next are all an honest teammate sends; the lowest are kept."""


class Host(Seats, Protocol):
    """What dealing reads and drives of the replica that holds it."""

    outbox: Outbox
    inplay: InPlay
    log: Log
    acks: Acks
    membership: Membership


class Dealing:
    """The rounds a replica deals, starts and audits."""

    def __init__(self, host: Host) -> None:
        self._host = host
        self.round = 0
        """The dealt round: the last round this seat dealt a deck for."""
        self.rounds: dict[int, Round] = {}
        """The rounds kept until their audit is done, by number."""
        self.saved = Disk()
        """This seat's deck order for the last round it dealt (the disk, but its view)."""
        self._team_deals: dict[int, dict[int, tuple[bytes, tuple[Card, ...]]]] = {}
        """Per round, the team decks teammates sent this seat: sender → (salt, order)."""

    def restart(self, playing: int, first: int) -> None:
        """Forget every round but what the disk holds: a rejoining replica replays the
        table from the first Ready of round ``first``, its round in play ``playing``."""
        self.rounds = {}
        disk = self.saved
        self.round = max(disk.round, playing)
        if disk.round >= first:
            this = self.round_data(disk.round)
            this.order, this.salt = disk.order, disk.salt

    def start_round(self, order: Sequence[Card], salt: bytes, now: float) -> None:
        """Deal this seat's deck from ``order`` (kept secret) and say Ready."""
        if self._host.status is not Status.NORMAL:
            raise LocalProtocolError(f"the table is {self._host.status.value}")
        if self._host.inplay.public is not None and self._host.inplay.public.ended is None:
            raise LocalProtocolError("a round is still being played")
        if sorted(order) != sorted(new_deck(self._host.deck, jokers=self._host.options.jokers)):
            raise LocalProtocolError(
                f"seat {self._host.seat} deals deck {self._host.deck + 1}, not that order"
            )
        if self.round > self._host.inplay.number:
            # §5.1: no Ready for round r+1 before round r has ended here. Dealing twice in
            # one gap between rounds would commit a Ready for a round after the next one
            # before the next one is dealt in: the round base a StartView rebuilds a
            # rejoining seat from would then skip the next round's first Readies.
            raise LocalProtocolError(f"round {self.round} is dealt already: wait for it")
        for old in [r for r in self.rounds.values() if r.number < self._host.inplay.number]:
            self.audit_if_complete(old, final=True)  # whoever never revealed: unchecked
            del self.rounds[old.number]
        self.round = max(self.round, self._host.inplay.number) + 1
        this = self.round_data(self.round)
        if len(self._host.team) == 1:
            self._deal(this, tuple(order), salt, now)
        else:
            # A team deals one deck: its first seat at the table shuffles and deals, and
            # the others keep their own shuffle in case that seat drops out first.
            this.spare = (tuple(order), salt)
            self.deal_for_team(now)

    def _deal(self, this: Round, order: tuple[Card, ...], salt: bytes, now: float) -> None:
        this.order, this.salt, this.spare = order, salt, None
        self.saved = Disk(this.number, order, salt)
        codes = tuple(map(card_code, order))
        for mate in self._host.team:
            if mate != self._host.seat:
                self._host.outbox.pass_on(self.team_deal(mate, this.number, salt, codes))
        shown = tuple(map(card_code, _deal.face_up(order, self._host.options)))
        commitment = _deal.commitment(salt, order)
        number = this.number
        self._host.send(
            now,
            lambda c, s: Ready(self._host.seat, self._host.view, c, s, number, commitment, shown),
        )

    def team_deal(self, mate: int, number: int, salt: bytes, codes: tuple[int, ...]) -> TeamDeal:
        return TeamDeal(
            self._host.seat,
            self._host.view,
            max(self._host.acks.clock, 1),
            1,
            mate,
            number,
            salt,
            codes,
        )

    def deal_for_team(self, now: float) -> None:
        """Deal the team's deck with this seat's spare shuffle unless a teammate deals it:
        one whose Ready for the round is held or committed, or one still at the table whose
        deck has come; otherwise the first of the team at the table deals."""
        this = self.rounds.get(self.round)
        if (
            this is None
            or this.spare is None
            or this.order
            or self._host.status is not Status.NORMAL
        ):
            return
        number = this.number
        here = [
            s
            for s in self._host.team
            if s in self._host.membership.seated and s in self._host.members
        ]
        pending = (p.message for p in self._host.log.pending)
        readies = [
            *this.readies,
            *(m.sender for m in pending if isinstance(m, Ready) and m.round == number),
        ]
        dealing = [*readies, *(s for s in self._team_deals.get(number, {}) if s in here)]
        if any(s in self._host.team and s != self._host.seat for s in dealing):
            return  # that teammate's deck deals the team (a dealer gone since has no say)
        if here and here[0] != self._host.seat:
            return
        self._deal(this, *this.spare, now)

    def team_deals_for(self, seat: int) -> list[TeamDeal]:
        """The team decks to send ``seat`` again on a new connection, if it is a teammate:
        of the round in play and the next (it may have restarted without them)."""
        host = self._host
        if seat not in host.team or seat == host.seat:
            return []
        return [
            self.team_deal(seat, r.number, r.salt, tuple(map(card_code, r.order)))
            for r in sorted(self.rounds.values(), key=lambda r: r.number)
            if r.order and r.number >= host.inplay.number
        ]

    def should_deal(self) -> bool:
        """Whether this seat should deal the next round now: the table is settled, between
        rounds (or before the first), and no deck is dealt for the next round yet (as a
        seat that came back finds itself, having missed the end of a round)."""
        if self._host.status is not Status.NORMAL:
            return False
        public = self._host.inplay.public
        fresh = self.round == 0 and public is None
        between = public is not None and public.ended is not None
        return (fresh or between) and self.round <= self._host.inplay.number

    def round_data(self, number: int) -> Round:
        """What this replica keeps of round ``number`` (kept from now on)."""
        """What this replica keeps of round ``number`` (kept from now on)."""
        return self.rounds.setdefault(number, Round(number))

    def maybe_start_play(self) -> None:
        """Deal the next round in once the last is over and every participant still seated
        has its Ready committed."""
        this = self.rounds.get(self._host.inplay.number + 1)
        if this is None or not this.participants:
            return
        if self._host.inplay.public is not None and self._host.inplay.public.ended is None:
            return
        decks = {self._host.seats[s] for s in this.readies}
        if {self._host.seats[s] for s in this.participants & self._host.membership.seated} <= decks:
            self._start_play(this)

    def _start_play(self, this: Round) -> None:
        this.shown, this.dealers = {}, {}
        for ready in this.readies.values():  # in commit order: a deck's first Ready deals it
            deck = self._host.seats[ready.sender]
            if deck not in this.shown:
                this.shown[deck] = tuple(map(card_from_code, ready.face_up))
                this.dealers[deck] = ready.sender
        public = _deal.public_deal(self._host.options, self._host.seats, this.shown)
        if len(self._host.team) > 1:
            self._adopt_team_deck(this)
        dealt = this.order and self._host.deck in this.shown
        private = _deal.with_own_deck(public, self._host.deck, this.order) if dealt else public
        self._host.inplay.begin(this.number, public, private)
        self._host.events.append(RoundStarted(this.number, tuple(sorted(this.shown))))

    def take_team_deal(self, deal: TeamDeal, now: float) -> None:
        order = tuple(map(card_from_code, deal.order))  # checked: this seat's deck
        self._team_deals.setdefault(deal.round, {})[deal.sender] = (deal.salt, order)
        for old in [r for r in self._team_deals if r < self._host.inplay.number]:
            del self._team_deals[old]
        from_sender = sorted(r for r, by in self._team_deals.items() if deal.sender in by)
        for extra in from_sender[TEAM_DEALS_KEPT:]:  # far ahead: a teammate misbehaving
            del self._team_deals[extra][deal.sender]
            if not self._team_deals[extra]:
                del self._team_deals[extra]
        this = self.rounds.get(deal.round)
        if this is not None and deal.round == self._host.inplay.number and not this.order:
            self._adopt_team_deck(this)
            if this.order and self._host.inplay.public is not None:
                self._see_own_deck(this)

    def _adopt_team_deck(self, this: Round) -> None:
        """Take the order behind the Ready that deals this seat's deck, from whichever
        teammate sent it (or this seat's own deal); without it this seat plays blind."""
        dealer = this.dealers.get(self._host.deck)
        if dealer is None:
            return
        want = this.readies[dealer].commitment
        offers = [(this.salt, this.order), *self._team_deals.get(this.number, {}).values()]
        for salt, order in offers:
            if order and _deal.commitment(salt, order) == want:
                this.order, this.salt = order, salt
                self.saved = Disk(this.number, order, salt)
                return
        this.order, this.salt = (), b""

    def _see_own_deck(self, this: Round) -> None:
        """The team's deck arrived after play began (this seat came back): replay the round
        so far with it known."""
        private = _deal.with_own_deck(
            _deal.public_deal(self._host.options, self._host.seats, this.shown),
            self._host.deck,
            this.order,
        )
        for move, tie in this.log:
            try:
                private, _ = apply(private, move, tie=tie)
            except IllegalMove as exc:  # a teammate showed a card the deck holds elsewhere
                self._host.events.append(AuditFailed(this.number, move.seat, f"it showed {exc}"))
                this.order = ()
                return
        self._host.inplay.private = private

    def take_reveal(self, reveal: Reveal) -> None:
        this = self.rounds.get(reveal.round)
        if this is None or reveal.sender in this.reveals:
            return  # a round this replica no longer audits (it rejoined since)
        this.reveals[reveal.sender] = (reveal.salt, tuple(map(card_from_code, reveal.order)))
        self.audit_if_complete(this)

    def audit_if_complete(self, this: Round, *, final: bool = False) -> None:
        # Every member dealt in reveals (each teammate the team's deck, so that each is
        # checked); at the next deal, the audit goes ahead with whatever has come.
        dealt_in = {s for s in self._host.members if self._host.seats[s] in this.shown}
        if this.audited or not this.ended or not (dealt_in <= set(this.reveals) or final):
            return
        this.audited = True
        commitments = {d: this.readies[s].commitment for d, s in this.dealers.items()}
        failures = _deal.audit(
            self._host.options, self._host.seats, this.reveals, commitments, this.shown, this.log
        )
        for seat, reason in failures:
            self._host.events.append(AuditFailed(this.number, seat, reason))
        if not failures:
            revealed = {self._host.seats[s] for s in this.reveals}
            unchecked = tuple(
                s for s in range(self._host.players) if self._host.seats[s] not in revealed
            )
            self._host.events.append(AuditPassed(this.number, unchecked))

    def dealt_by(self, number: int) -> dict[int, int]:
        """Per deck dealt in round ``number``, the seat whose Ready dealt it (at a table of
        teams, the teammate whose shuffle the team plays); empty for a round not kept."""
        this = self.rounds.get(number)
        return {} if this is None else dict(this.dealers)

    @property
    def blind(self) -> bool:
        """Whether this seat is dealt in but does not know its deck's face-down order (it
        came back without it, or its team's deck has not reached it yet)."""
        this = self.rounds.get(self._host.inplay.number)
        return this is not None and self._host.deck in this.shown and not this.order
