"""Dealing: each round's deck from its pledged secret and the common seed, the team's deck,
the start of play.

Theory of operation
-------------------
No seat picks its deck (SPEC §5.1). A seat's Ready for round r shows the cards its deck
deals face up and *pledges* (by hash) the secret its deck will be shuffled from in round
r+1; the deck of round r is shuffled from the secret pledged in round r−1 and the
round's common seed, which is made of the secrets revealed after round r−1 (`Closing`).
So when a seat fixes its secret nobody knows the seed, and when the seed is known the
secret is fixed. Before the first round, round 0 deals no cards: its Readies pledge the
secrets of round 1, and the secrets its Reveals show (each derived from the seat's
round-1 secret, checked at round 1's audit) make round 1's seed.

A seat asked to deal (`start_round`) says Ready as soon as the round before has closed
here, so the player's "ready" and the last reveals overlap. A team deals one deck: its
first seat at the table deals and sends the deck's secrets to each teammate alone
(TeamDeal) before its Ready; a teammate deals in its stead, from those secrets, if it
is gone. Play starts at the place in the order where every participant still seated has
its deck's Ready committed (§5.2); a deck's first committed Ready that shows cards deals
it.

`Dealing` keeps what a replica knows of each round (`Round`) until it is audited, the
secrets to save on disk and the secrets teammates sent; it reaches the rest of the
replica through `Host`.
"""

from __future__ import annotations

from typing import Protocol

from p2pnerts.protocol import _deal, _host
from p2pnerts.protocol._closing import Closing
from p2pnerts.protocol._errors import LocalProtocolError
from p2pnerts.protocol._events import AuditFailed, RoundStarted
from p2pnerts.protocol._inplay import Holder
from p2pnerts.protocol._log import order_key
from p2pnerts.protocol._membership import Membership
from p2pnerts.protocol._messages import Ready, Reveal, TeamDeal
from p2pnerts.protocol._rounds import Disk, Round
from p2pnerts.protocol._status import Status
from p2pnerts.rules import Card, IllegalMove, apply, card_code, card_from_code

TEAM_DEALS_KEPT = 4
"""How many rounds' team secrets a seat keeps from each teammate: the one on the table
and the next are all an honest teammate sends; the lowest are kept."""


class Host(_host.Host, Holder, Protocol):
    """What dealing reads and drives of the replica that holds it."""

    membership: Membership


class Dealing:
    """The rounds a replica deals, starts and closes."""

    def __init__(self, host: Host) -> None:
        self._host = host
        self.round = 0
        """The last round this seat was asked to deal (its Ready may wait for the seed)."""
        self.rounds: dict[int, Round] = {}
        """The rounds kept until their audit is done, by number."""
        self.saved = Disk()
        """This seat's deck for the last round it dealt (the disk, but its view)."""
        self.closing = Closing(host, self.rounds)
        """The reveals, the seeds and the audits."""
        self._wanted: list[tuple[int, bytes]] = []
        """The rounds this seat is to say Ready for, each with the secret to pledge for the
        round after."""
        self._dealt: dict[int, tuple[bytes, bytes, bytes]] = {}
        """Per round this seat dealt its team's deck for: the secrets it sent teammates."""
        self._team_deals: dict[int, dict[int, tuple[bytes, bytes, bytes]]] = {}
        """Per round, the secrets teammates sent this seat: sender → (round's, next's, the
        round's seed)."""

    def restart(self, playing: int, first: int) -> None:
        """Forget every round but what the disk holds: a rejoining replica replays the
        table from the first Ready of round ``first``, its round in play ``playing``. What
        it made itself of the rounds before, it keeps: the pledges of round ``first``−1
        that it committed (`Closing.kept`; back from disk, those its disk kept for round
        ``first``), and round ``first``'s seed if it made it."""
        disk = self.saved
        pledges = self.closing.pledges_seen(first - 1)
        if pledges is None and disk.round == first and disk.pledges:
            pledges = dict(disk.pledges)  # back from disk, in the round it kept them for
        self.closing.kept = (first - 1, dict(pledges)) if pledges is not None else None
        made = self.rounds.get(first)
        seed = made.seed if made is not None else None
        self.rounds.clear()
        if seed is not None:
            self.round_data(first).seed = seed
        self._wanted = []
        self.closing.known_from = first
        self.round = max(disk.round, playing)
        if len(disk.secrets) != 2 * _deal.SECRET_BYTES:
            return
        if disk.round >= first and any(disk.secrets[: _deal.SECRET_BYTES]):
            this = self.round_data(disk.round)
            this.order, this.secret = disk.order, disk.secrets[: _deal.SECRET_BYTES]
        if disk.round + 1 >= first:
            self.round_data(disk.round + 1).secret = disk.secrets[_deal.SECRET_BYTES :]

    # --- dealing -------------------------------------------------------------------------

    def start_round(self, fresh: bytes, now: float) -> None:
        """Deal the next round: ``fresh`` is 32 random bytes, pledged for the round after.
        The Ready goes out once the round before has closed here (at once if it has)."""
        host = self._host
        if host.status is not Status.NORMAL:
            raise LocalProtocolError(f"the table is {host.status.value}")
        if host.inplay.public is not None and host.inplay.public.ended is None:
            raise LocalProtocolError("a round is still being played")
        if len(fresh) != _deal.SECRET_BYTES:
            raise LocalProtocolError(f"a secret is {_deal.SECRET_BYTES} random bytes")
        if self.round > host.inplay.number:
            # §5.1: no Ready for round r+1 before round r has ended here. Dealing twice in
            # one gap between rounds would commit a Ready for a round after the next one
            # before the next one is dealt in: the round base a StartView rebuilds a
            # rejoining seat from would then skip the next round's first Readies.
            raise LocalProtocolError(f"round {self.round} is dealt already: wait for it")
        for old in [
            r for r in self.rounds.values() if r.closed and r.number < host.inplay.number - 1
        ]:
            del self.rounds[old.number]
        self.round = max(self.round, host.inplay.number) + 1
        if self.round == 1 and not self.saved.secrets:
            # Round 0: pledge round 1's secret; reveal one derived from it (§5.1).
            first = _deal.derived(fresh, 1)
            self.round_data(0).secret = _deal.derived(first, 0)
            self._wanted = [(0, first), (1, _deal.derived(fresh, 2))]
        else:
            self._wanted = [(self.round, fresh)]
        self.try_deal(now)

    def try_deal(self, now: float) -> None:
        """Say the Readies this seat was asked for, each once the round before has closed
        here; at a table of teams, those its team's first seat at the table does not."""
        while self._wanted and self._host.status is Status.NORMAL:
            number, pledged = self._wanted[0]
            before = self.rounds.get(number - 1)
            if number > 0 and before is not None and not before.closed:
                return  # the round's seed is not known yet
            turn = self._team_turn(number) if len(self._host.team) > 1 else "me"
            if turn == "wait":
                return
            del self._wanted[0]
            if turn == "me":
                self._deal(self.round_data(number), pledged, now)

    def ready_again(self, now: float) -> None:
        """Let back in by a change of members at a table that commits by a majority, say
        again the Ready of the round this seat dealt last, if the round has not begun and
        its deck's Ready is not among those the table applied: the change dropped every
        message of this seat's that none of its voters held. (Seats 1 and 5 of six
        crashed 5 ms after their Readies of round 1 went out, came back from disk sure
        they had dealt it, and the round waited on their decks for good.)"""
        host, number = self._host, self.saved.round
        this = self.rounds.get(number)
        if this is None or not this.secret or host.inplay.number >= number:
            return
        if host.deck in {host.seats[seat] for seat in this.readies}:
            return
        pledged = self.rounds.get(number + 1)
        if pledged is not None and pledged.secret:
            self._deal(this, pledged.secret, now)

    def _deal(self, this: Round, pledged: bytes, now: float) -> None:
        host, number = self._host, this.number
        secret = self._secret(this)
        this.secret, this.order = secret, ()
        if number > 0 and secret and this.seed is not None:
            this.order = host.shuffle(host.deck, number, secret, this.seed)
        self.round_data(number + 1).secret = pledged
        secrets = (secret or bytes(_deal.SECRET_BYTES)) + pledged
        self.saved = Disk(number, this.order, secrets, pledges=self._pledges_kept(number))
        if len(host.team) > 1:
            none = bytes(_deal.SECRET_BYTES)
            self._dealt[number] = (secret or none, pledged, this.seed or none)
            for mate in host.team:
                if mate != host.seat:
                    host.outbox.pass_on(self.team_deal(mate, number))
        promise = _deal.pledge(number + 1, host.deck, pledged)
        shown = _deal.face_up(this.order, host.options) if this.order else ()
        codes = tuple(map(card_code, shown))
        host.send(now, lambda c, s: Ready(host.seat, host.view, c, s, number, promise, codes))

    def _pledges_kept(self, number: int) -> tuple[tuple[int, bytes], ...]:
        """The pledges for round ``number`` this replica committed, to keep on disk (none
        unless it committed every one: `Closing.pledges_seen`)."""
        seen = self.closing.pledges_seen(number - 1) if number > 0 else None
        return () if seen is None else tuple(sorted(seen.items()))

    def _secret(self, this: Round) -> bytes:
        """The secret this seat holds for its deck in a round: one whose hash its deck
        pledged (its own, where it does not know the pledge yet); empty: none. Round 0's
        follows from the round-1 secret that the deck's Ready of round 0 pledged."""
        if this.number == 0:
            return self._first_share(this)
        before = self.closing.whole(this.number - 1)
        offers = [this.secret] if this.secret else []
        offers += [s for s, _, _ in self._team_deals.get(this.number, {}).values()]
        offers += [n for _, n, _ in self._team_deals.get(this.number - 1, {}).values()]
        if before is None:
            return offers[0] if offers else b""
        return self._pledged(this.number, before, offers)

    def _first_share(self, zero: Round) -> bytes:
        if self._host.deck not in zero.pledges:
            return zero.secret  # dealing round 0 now: its own
        following = self.rounds.get(1)
        offers = [following.secret] if following is not None and following.secret else []
        offers += [n for _, n, _ in self._team_deals.get(0, {}).values()]
        first = self._pledged(1, zero, offers)
        return _deal.derived(first, 0) if first else b""

    def _pledged(self, number: int, before: Round, offers: list[bytes]) -> bytes:
        """The one of ``offers`` whose hash this seat's deck pledged for round ``number``."""
        promised = before.pledges.get(self._host.deck)
        for secret in offers:
            if _deal.pledge(number, self._host.deck, secret) == promised:
                return secret
        return b""

    def reveal_on_leaving(self, now: float) -> None:
        """This seat is leaving: reveal its deck's secret for the round in play now, with
        the Leave, if the deck is dealt in and no teammate stays to reveal it at the round's
        end, so that the round is audited and the deck scored as played (SPEC §6.10)."""
        host = self._host
        this = self.rounds.get(host.inplay.number)
        if this is None or this.closed or host.deck not in this.shown:
            return
        if host.deck in this.shares or self._reveal_held(this):
            return  # revealed already (at the round's end)
        if any(s != host.seat and s in host.seated for s in host.team):
            return  # a teammate plays the deck on, and reveals it
        secret = self._secret(this)
        if secret:
            self.closing.reveal(this, secret, now)

    def _reveal_held(self, this: Round) -> bool:
        """Whether a Reveal of this seat's deck for round ``this`` waits to commit."""
        host = self._host
        return any(
            isinstance(m, Reveal) and m.round == this.number and host.seats[m.sender] == host.deck
            for m in (p.message for p in host.log.pending)
        )

    def team_deal(self, mate: int, number: int) -> TeamDeal:
        host = self._host
        secret, pledged, seed = self._dealt[number]
        clock = max(host.acks.clock, 1)
        return TeamDeal(host.seat, host.view, clock, 1, mate, number, secret, pledged, seed)

    def _team_turn(self, number: int) -> str:
        """Who deals the team's deck in round ``number``: a "mate" whose Ready for it is
        held or committed, or who is still at the table and sent its secrets; else "me"
        if this seat is the first of the team at the table, or "wait" for that one."""
        host = self._host
        this = self.round_data(number)
        here = [s for s in host.team if s in host.membership.seated and s in host.members]
        pending = (p.message for p in host.log.pending)
        readies = [
            *this.readies,
            *(m.sender for m in pending if isinstance(m, Ready) and m.round == number),
        ]
        if any(s in host.team and s != host.seat for s in this.readies):
            return "mate"  # that teammate's Ready deals the team
        dealing = [*readies, *(s for s in self._team_deals.get(number, {}) if s in here)]
        if any(s in host.team and s != host.seat for s in dealing):
            return "wait"  # for that teammate's Ready to commit (or for it to be gone)
        return "me" if not here or here[0] == host.seat else "wait"

    def team_deals_for(self, seat: int) -> list[TeamDeal]:
        """The team's secrets to send ``seat`` again on a new connection, if it is a
        teammate: of the round in play and the next (it may have restarted without them)."""
        host = self._host
        if seat not in host.team or seat == host.seat:
            return []
        for old in [r for r in self._dealt if r < host.inplay.number]:
            del self._dealt[old]
        return [self.team_deal(seat, number) for number in sorted(self._dealt)]

    def should_deal(self) -> bool:
        """Whether this seat should deal the next round now: the table is settled, between
        rounds (or before the first), and no deck is dealt for the next round yet (as a
        seat that came back finds itself, having missed the end of a round)."""
        if self._host.status is not Status.NORMAL:
            return False
        public = self._host.inplay.public
        fresh = self.round == 0 and public is None
        between = public is not None and public.ended is not None
        # Back in with no table, the next round being dealt (a deck's Ready for it held):
        # the round before ended while it was away, and it deals on with the others.
        dealt = public is None and any(
            this.readies for number, this in self.rounds.items() if number > self.round
        )
        return (fresh or between or dealt) and self.round <= self._host.inplay.number

    def round_data(self, number: int) -> Round:
        """What this replica keeps of round ``number`` (kept from now on)."""
        return self.rounds.setdefault(number, Round(number))

    # --- at commits -----------------------------------------------------------------------

    def commit_ready(self, ready: Ready) -> None:
        """A Ready at its place in the order: a deck's first one sorting before every
        Reveal of the round pledges for the deck (`Round.first_reveal`)."""
        this = self.round_data(ready.round)
        this.readies[ready.sender] = ready
        key = order_key(ready, self._host.players, self._host.options.tie_rule)
        if this.first_reveal is None or key < this.first_reveal:
            this.pledges.setdefault(self._host.seats[ready.sender], ready.pledge)

    def commit_reveal(self, reveal: Reveal) -> None:
        self.closing.commit_reveal(reveal)

    def settle(self, now: float) -> None:
        """What follows any commit here: round 0 ends once every seated deck pledged, a
        round whose reveals are all in closes, and a Ready that waited goes out."""
        zero = self.rounds.get(0)
        seated = {self._host.seats[s] for s in self._host.seated}
        if zero is not None and not zero.ended and seated <= set(zero.pledges):
            zero.ended = True
            self.round_ended(zero, now)
        self.closing.maybe_close()
        self.try_deal(now)

    def round_ended(self, this: Round, now: float) -> None:
        """The round ended here: reveal this seat's secret if its deck dealt in (round 0:
        pledged), and see what follows."""
        deck = self._host.deck
        if deck in self.closing.expected(this) and deck not in this.shares:
            secret = self._secret(this)
            if secret:
                self.closing.reveal(this, secret, now)
        self.closing.maybe_close()
        self.maybe_start_play()  # the next round's Readies may all be in already

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
            if deck not in this.shown and ready.face_up:
                this.shown[deck] = tuple(map(card_from_code, ready.face_up))
                this.dealers[deck] = ready.sender
        public = _deal.public_deal(self._host.options, self._host.seats, this.shown)
        if len(self._host.team) > 1:
            self._adopt_team_deck(this)
        dealt = this.order and self._host.deck in this.shown
        private = _deal.with_own_deck(public, self._host.deck, this.order) if dealt else public
        self._host.inplay.begin(this.number, public, private)
        self._host.events.append(RoundStarted(this.number, tuple(sorted(this.shown))))

    # --- teams ------------------------------------------------------------------------------

    def take_team_deal(self, deal: TeamDeal, now: float) -> None:
        kept = (deal.secret, deal.next, deal.seed)
        self._team_deals.setdefault(deal.round, {})[deal.sender] = kept
        for old in [r for r in self._team_deals if r < self._host.inplay.number - 1]:
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
        """Take the order the team's deck is dealt from, from the secret its dealer's
        pledge binds; without it this seat plays blind. A seat that came back with the
        order on its disk (`restart`) keeps it where the deal shows the same cards: a
        dealer of the team's deck has nobody to send it back."""
        host = self._host
        shown = this.shown.get(host.deck)
        if this.order and tuple(_deal.face_up(this.order, host.options)) == shown:
            return
        secret = self._secret(this)
        this.order = ()
        seeds = [s for _, _, s in self._team_deals.get(this.number, {}).values()]
        seed = this.seed or (seeds[0] if seeds else None)  # came back after it was made
        if host.deck not in this.shown or not secret or seed is None:
            return
        order = host.shuffle(host.deck, this.number, secret, seed)
        if tuple(_deal.face_up(order, host.options)) == this.shown[host.deck]:
            this.order, this.secret = order, secret
            mine = self._dealt.get(this.number)
            sent = [mine] if mine else list(self._team_deals.get(this.number, {}).values())
            after = [n for s, n, _ in sent if s == secret] or [bytes(len(secret))]
            kept = self._pledges_kept(this.number)
            self.saved = Disk(this.number, order, secret + after[0], pledges=kept)

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

    # --- what others read ---------------------------------------------------------------------

    def dealt_by(self, number: int) -> dict[int, int]:
        """Per deck dealt in round ``number``, the seat whose Ready dealt it (at a table of
        teams, the teammate whose secret the team plays); empty for a round not kept."""
        this = self.rounds.get(number)
        return {} if this is None else dict(this.dealers)

    def order_of(self, number: int) -> tuple[Card, ...]:
        """This seat's deck order in round ``number``, if it knows it."""
        this = self.rounds.get(number)
        return () if this is None else this.order

    @property
    def blind(self) -> bool:
        """Whether this seat is dealt in but does not know its deck's face-down order (it
        came back without it, or its team's deck has not reached it yet)."""
        this = self.rounds.get(self._host.inplay.number)
        return this is not None and self._host.deck in this.shown and not this.order
