"""Closing a round: the reveals, the next round's common seed, the audit and its verdict.

Theory of operation
-------------------
After a round ends (round 0, which deals no cards, ends once every seated deck has
pledged), each seat that holds its deck's secret for the round reveals it, in an
*ordered* Reveal. The round *closes* at the first place in the order where every deck
dealt in (for round 0: every deck that pledged) has a Reveal committed, or has no seat
left at the table (SPEC §5.5). There, at every replica alike:

- the next round's common seed is made of the secrets revealed (for round 1 and later,
  only those that match their deck's pledge);
- the round is audited: each deck dealt in must have revealed the secret it pledged, its
  shuffle from that secret and the round's seed must show the cards its Ready showed, and
  the round replayed with those decks known must refuse no committed move;
- each deck that fails is voided: its points for the round become the round's lowest,
  and never above 0 (`rules.void_points`), and `AuditFailed` says so.

Because the place is in the agreed order, every replica voids the same decks at the same
commit, and the match's scores stay equal everywhere.
"""

from __future__ import annotations

from p2pnerts.protocol import _deal
from p2pnerts.protocol._events import AuditFailed, AuditPassed
from p2pnerts.protocol._host import Host
from p2pnerts.protocol._log import order_key
from p2pnerts.protocol._messages import Reveal
from p2pnerts.protocol._rounds import Round
from p2pnerts.rules import Card, void_points


class Closing:
    """The reveals a replica sends and commits, and the rounds it closes."""

    def __init__(self, host: Host, rounds: dict[int, Round]) -> None:
        self._host = host
        self._rounds = rounds
        self.known_from = 0
        """The first round whose every Ready this replica saw (a replica let back in sees
        those of the round its StartView rebuilds it from on)."""
        self.kept: tuple[int, dict[int, bytes]] | None = None
        """A replica let back in while it ran: the round before ``known_from`` and the
        pledges of it that it had committed itself. Those are the table's (what it
        committed, every replica committed in the same order), but it may have been left out
        before the last of them: they check a round's shares only if they name every deck
        dealt in it."""

    def whole(self, number: int) -> Round | None:
        """Round ``number``, if this replica saw all of its Readies (and so its pledges)."""
        return self._rounds.get(number) if number >= self.known_from else None

    def reveal(self, this: Round, secret: bytes, now: float) -> None:
        """Reveal this seat's deck's secret for a round that ended here."""
        host, number = self._host, this.number
        host.send(now, lambda c, s: Reveal(host.seat, host.view, c, s, number, secret))

    def commit_reveal(self, reveal: Reveal) -> None:
        """A Reveal at its place in the order: the first of each deck counts, until the
        round closes (one for a round this replica does not keep is nothing to it)."""
        this = self._rounds.get(reveal.round)
        if this is None:
            return
        key = order_key(reveal, self._host.players, self._host.options.tie_rule)
        this.first_reveal = key if this.first_reveal is None else min(this.first_reveal, key)
        if not this.closed:
            deck = self._host.seats[reveal.sender]
            this.shares.setdefault(deck, (reveal.sender, reveal.secret))

    def expected(self, this: Round) -> set[int]:
        """The decks whose secret the round waits for: those dealt in (round 0: those
        that pledged)."""
        return set(this.pledges) if this.number == 0 else set(this.shown)

    def withholding(self) -> set[int]:
        """The members whose deck's Reveal the closing of a round that ended here waits
        for, none of it held here (SPEC §5.5)."""
        host = self._host
        missing = {
            (this.number, deck)
            for this in self._rounds.values()
            if this.ended and not this.closed
            for deck in self.expected(this) - set(this.shares)
        }
        if not missing:
            return set()
        for entry in host.log.pending:
            if isinstance(entry.message, Reveal):
                missing.discard((entry.message.round, host.seats[entry.message.sender]))
        decks = {deck for _, deck in missing}
        return {s for s in host.members & host.seated if host.seats[s] in decks}

    def maybe_close(self) -> None:
        """Close, in order, every ended round whose expected reveals are in (or whose
        seats have all left the table)."""
        for this in sorted(self._rounds.values(), key=lambda r: r.number):
            if not this.closed and this.ended and self._all_in(this):
                self._close(this)

    def _all_in(self, this: Round) -> bool:
        seated = {self._host.seats[s] for s in self._host.seated}
        return all(d in this.shares or d not in seated for d in self.expected(this))

    def _close(self, this: Round) -> None:
        this.closed = True
        following = self._rounds.setdefault(this.number + 1, Round(this.number + 1))
        following.seed = self._seed_after(this)
        if this.number > 0:
            self._audit(this)

    def _seed_after(self, this: Round) -> bytes | None:
        """The next round's common seed: the secrets revealed for this round (from round
        1 on, those that match their pledge); None where this replica cannot check them
        (it came back after the pledges were made, and had not committed them all)."""
        expected = self.expected(this)
        shares = {d: s for d, (_, s) in this.shares.items() if d in expected}
        if this.number > 0:
            pledges = self._pledges_for(this.number, expected)
            if pledges is None:
                return None
            shares = {
                d: s for d, s in shares.items() if pledges.get(d) == _deal.pledge(this.number, d, s)
            }
        return _deal.common_seed(this.number + 1, shares)

    def _pledges_for(self, number: int, decks: set[int]) -> dict[int, bytes] | None:
        """Per deck, its pledge for round ``number``, made in the round before, if this
        replica knows every one that ``decks`` made (None: it cannot check them)."""
        seen = self.pledges_seen(number - 1)
        whole = self.whole(number - 1) is not None
        return seen if seen is not None and (whole or decks <= seen.keys()) else None

    def pledges_seen(self, number: int) -> dict[int, bytes] | None:
        """The pledges made in round ``number`` that this replica committed: all of them if
        it saw the round whole, else those it `kept` (None: none)."""
        before = self.whole(number)
        if before is not None:
            return before.pledges
        return self.kept[1] if self.kept is not None and self.kept[0] == number else None

    def _audit(self, this: Round) -> None:
        host, number = self._host, this.number
        before = self.whole(number - 1)
        if before is None or this.seed is None:
            # It came back since the pledges were made: it cannot check the secrets that
            # came against them. A deck whose secret never came fails without a pledge,
            # here as at every other replica (the round closed at the same place).
            missing = {
                deck: (this.dealers[deck], _deal.NEVER_REVEALED)
                for deck in sorted(this.shown)
                if deck not in this.shares
            }
            if missing:
                self._void(number, missing)
            else:
                seats = tuple(s for s in range(host.players) if host.seats[s] in this.shown)
                host.events.append(AuditPassed(number, seats))
            return
        failures: dict[int, tuple[int, str]] = {}
        decks: dict[int, tuple[Card, ...]] = {}
        for deck in sorted(this.shown):
            seat, why, order = self._check(this, before, deck)
            if why:
                failures[deck] = (seat, why)
            else:
                decks[deck] = order
        public = _deal.public_deal(host.options, host.seats, this.shown)
        for deck, flagged in _deal.replay(public, decks, this.log).items():
            failures.setdefault(deck, flagged)
        self._void(number, failures)

    def _check(self, this: Round, before: Round, deck: int) -> tuple[int, str, tuple[Card, ...]]:
        """Who answers for one deck's deal, why it fails (empty: it passes) and its order."""
        assert this.seed is not None
        seat, secret = this.shares.get(deck, (this.dealers[deck], None))
        order, why = _deal.check_deck(
            self._host.options,
            self._host.shuffle,
            deck,
            this.number,
            this.seed,
            before.pledges.get(deck),
            secret,
            this.shown[deck],
        )
        zero = before.shares.get(deck) if this.number == 1 else None
        if zero is not None and secret is not None and not why:
            mate, share = zero
            if share != _deal.derived(secret, 0):
                seat, why = mate, "its share of round 0's seed did not follow from its secret"
        return seat, why, order

    def _void(self, number: int, failures: dict[int, tuple[int, str]]) -> None:
        host = self._host
        if not failures:
            host.events.append(AuditPassed(number, ()))
            return
        points: tuple[int, ...] = ()
        if 0 < number <= len(host.match_scores):
            points = void_points(host.match_scores[number - 1], failures)
            host.match_scores[number - 1] = points
        for deck, (seat, why) in sorted(failures.items()):
            after = points[deck] if points else None
            host.events.append(AuditFailed(number, seat, why, after))
