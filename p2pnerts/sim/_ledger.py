"""What the replicas of a run send and report, counted and checked as it comes.

Per seat, the ledger keeps the round its replica is in and the plays it committed there,
its own plays not yet committed (for commit latency), and whether it is cut off on a side
without a majority. Per round, it keeps the rules engine's verdict, replayed from the real
decks, that every replica's round end must match. It holds the tally and the run's digest.

At a table of teams each seat is handed a shuffle of its team's deck, and the round deals
the one behind the deck's first committed Ready (`Round.dealers`, the same at every
replica): the replay deals each deck from its dealing seat's shuffle.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from p2pnerts.protocol import (
    NEVER_REVEALED,
    Ack,
    AuditFailed,
    AuditPassed,
    AutoApplied,
    Diverged,
    Event,
    Leave,
    Message,
    PeerStalled,
    Play,
    PlayCommitted,
    PlayInTheAir,
    PlayReturned,
    Ready,
    Replica,
    Reveal,
    RoundMissed,
    RoundOver,
    RoundStarted,
    ShutOut,
    SitOut,
)
from p2pnerts.rules import Card, Move
from p2pnerts.sim._faults import KIND, Fault
from p2pnerts.sim._invariants import (
    Invariants,
    Verdict,
    Violation,
    check_cut_off,
    check_round_over,
    replay_round,
)
from p2pnerts.sim._network import Link, LinkModel
from p2pnerts.sim._report import HEARTBEAT, Tally
from p2pnerts.sim._workload import SimConfig, mean_rtt, rtt_to_slowest

ORDERED = (Ready, Play, Reveal, Leave)


@dataclass(slots=True)
class _Seat:
    up: bool = True
    checked: int = 0
    """The replica's commit count when the invariants last looked."""
    fresh: bool = False
    """An ordered message arrived since this seat last sent an Ack."""
    round: int = 0
    plays: list[tuple[Move, bool]] | None = None
    """The moves this round took, in order, since this replica started the round (again,
    if it was shut out or restarted: let back in, it rebuilds the round from its Readies
    with what the others carry to it): the plays committed, and the moves every replica
    makes by itself at a place in the order — a rotation when every tableau is stuck, a
    stuck declaration for a seat no longer at the table."""
    finished: bool = False
    cut_at: float | None = None
    """When this seat was cut off on a side without a majority, while it is."""
    in_flight: dict[int, float] = field(default_factory=dict)
    """This seat's plays not yet committed at its own replica, by clock: when sent."""


class Ledger:
    """The counts and checks of one seed's run."""

    def __init__(self, config: SimConfig, links: dict[Link, LinkModel]) -> None:
        self.config = config
        self.peers = config.peers
        self.tally = Tally()
        self.invariants = Invariants(tables=not config.majority)
        self.seats = [_Seat() for _ in range(config.peers)]
        self.decks: dict[tuple[int, int], tuple[Card, ...]] = {}
        """Every deck order handed out, by (seat, round): a shuffle of the seat's deck."""
        seating = config.seating
        self._mates = [
            frozenset(s for s, d in enumerate(seating) if d == deck) - {seat}
            for seat, deck in enumerate(seating)
        ]
        self.round_ended = [0.0]
        """When each round ended at a majority (the start of the run for round 0)."""
        self.done_at: float | None = None
        """Once the last round ended at every seat that is up: when to stop."""
        self._unit = mean_rtt(links)
        self._slowest = [rtt_to_slowest(links, s) for s in range(config.peers)]
        self._sent: dict[tuple[int, int], float] = {}
        self._ready_sent: dict[tuple[int, int], float] = {}
        """When each Ready was first sent, by its sender and clock."""
        self._verdicts: dict[int, Verdict] = {}
        self._dealt: dict[int, tuple[int, ...]] = {}
        """Per round, the decks dealt in (a deck whose Ready came too late sits it out)."""
        self.dealers: dict[int, dict[int, int]] = {}
        """Per round, by deck dealt in, the seat whose shuffle dealt it."""
        self._overs: dict[int, list[RoundOver]] = {}
        self._voided: dict[int, dict[int, set[int]]] = {}
        """Per round, per seat that audited it, the decks its audit voided."""
        self._digest = hashlib.blake2b(digest_size=16)

    # --- messages -----------------------------------------------------------------------------

    def arrived(self, seat: int, message: Message) -> None:
        if isinstance(message, ORDERED):
            self.seats[seat].fresh = True

    def sent(self, seat: int, message: Message, now: float) -> str:
        """How the tally files a message a seat sends; notes when plays were sent."""
        record = self.seats[seat]
        match message:
            case Ack():
                kind = "ack" if record.fresh else HEARTBEAT
                record.fresh = False
                return kind
            case Play():
                self._sent.setdefault((seat, message.clock), now)
                record.in_flight[message.clock] = now
                return "ordered"
            case Ready():
                self._ready_sent.setdefault((seat, message.clock), now)
                return "ordered"
            case Leave():
                return "ordered"
            case Reveal():
                return "reveal"
        return "membership"

    # --- replicas ------------------------------------------------------------------------------

    def check(self, seat: int, replica: Replica) -> None:
        """The per-step invariants, for what ``seat`` committed since the last look."""
        record = self.seats[seat]
        if replica.committed != record.checked:
            record.checked = self.invariants.after_step(seat, replica, record.checked)

    def event(self, seat: int, replica: Replica, event: Event, now: float) -> None:
        record = self.seats[seat]
        match event:
            case RoundStarted():
                # The Readies this seat started the round on: a seat let back in during
                # the round says Ready for it too, later, and the start waits for no such.
                readies = replica.dealing.rounds[event.round].readies.values()
                sent = max(
                    (self._ready_sent.get((r.sender, r.clock), 0.0) for r in readies), default=0.0
                )
                what = f"the start of round {event.round} on a Ready"
                check_cut_off(seat, record.cut_at, sent, what)
                record.round, record.plays = event.round, []
                order = replica.dealing.order_of(event.round)
                if order:
                    self.decks.setdefault((seat, event.round), order)
                self._dealt.setdefault(event.round, event.dealt)
                self._dealt_by(seat, event.round, replica.dealt_by(event.round))
            case PlayCommitted():
                self._check_cut(seat, event.seat, event.clock)
                if record.plays is not None:
                    record.plays.append((event.move, event.tie))
                if event.seat == seat:
                    self.tally.plays += 1
                    self.tally.ties += event.tie
                    self.tally.races += event.tie
                    self._landed(seat, event.clock, now)
            case PlayReturned():
                self._check_cut(seat, event.seat, event.clock)
                if event.seat == seat:
                    self.tally.returns += 1
                    self.tally.races += event.winner not in (None, seat)
                    self.tally.team_races += self._lost_to_a_teammate(event)
                    self._landed(seat, event.clock, now)
            case RoundOver():
                self._round_over(seat, replica, event, now)
            case AuditPassed():
                self.tally.audits += 1
                self._voided.setdefault(event.round, {}).setdefault(seat, set())
            case AuditFailed() if event.reason == NEVER_REVEALED:
                # It left (crashed, or was left out) before its Reveal: voided, as a seat
                # that withholds its secret is (SPEC §5.5); no bot lies.
                self.tally.membership["NotRevealed"] += 1
                voided = self._voided.setdefault(event.round, {}).setdefault(seat, set())
                voided.add(self.config.seating[event.seat])
            case AuditFailed():
                raise Violation(
                    f"seat {seat}'s audit of round {event.round} failed seat {event.seat}: "
                    f"{event.reason}"
                )
            case PeerStalled(passed=False):
                raise Violation(
                    f"seat {seat} took seat {event.seat} for one that talks on but "
                    "acknowledges nothing: every bot acknowledges what it holds"
                )
            case PeerStalled():
                raise Violation(
                    f"seat {seat} took seat {event.seat} for one that talks on but never "
                    "says it passed more of the order: every bot says how far it passed"
                )
            case Diverged():
                raise Violation(
                    f"seat {seat} saw seat {event.seat} diverge at commit {event.index}"
                )
            case AutoApplied():
                if record.plays is not None:
                    record.plays.append((event.move, False))
            case ShutOut():
                record.plays = None  # until it starts the round again, back in
                self.tally.membership[type(event).__name__] += 1
            case PlayInTheAir() | RoundMissed() | SitOut():
                pass  # a play not yet placed; what a seat back in learns of the rounds
            case _:
                self.tally.membership[type(event).__name__] += 1

    def check_voids(self) -> None:
        """Every seat that audited a round voided the same decks in it (the round closes
        at the same place in the order everywhere, a seat let back in too): else their
        match totals differ."""
        for number, by_seat in sorted(self._voided.items()):
            verdicts = {seat: sorted(decks) for seat, decks in sorted(by_seat.items())}
            if len({tuple(v) for v in verdicts.values()}) > 1:
                said = "; ".join(f"seat {s}: {v or 'none'}" for s, v in verdicts.items())
                raise Violation(f"the seats' audits of round {number} voided other decks: {said}")

    def _dealt_by(self, seat: int, number: int, found: dict[int, int]) -> None:
        """Every replica deals each deck of a round from the same seat's Ready, one of the
        deck's seats."""
        agreed = self.dealers.setdefault(number, found)
        if found != agreed:
            raise Violation(
                f"seat {seat} dealt round {number} from the Readies of seats "
                f"{_by_deck(found)}, another seat from {_by_deck(agreed)}"
            )
        seating = self.config.seating
        for deck, dealer in found.items():
            if seating[dealer] != deck:
                raise Violation(f"seat {seat} dealt deck {deck + 1} from seat {dealer}'s Ready")

    def _lost_to_a_teammate(self, returned: PlayReturned) -> bool:
        """Whether a play on a team's tableau was returned for a teammate's move ordered
        before it: one that named the teammate, or no one, for a reason that is a race."""
        mates = self._mates[returned.seat]
        if returned.winner is None:
            return bool(mates) and returned.raced
        return returned.winner in mates

    def _check_cut(self, seat: int, sender: int, clock: int) -> None:
        sent = self._sent.get((sender, clock), 0.0)
        check_cut_off(seat, self.seats[seat].cut_at, sent, f"seat {sender}'s play")

    def _landed(self, seat: int, clock: int, now: float) -> None:
        sent = self.seats[seat].in_flight.pop(clock, None)
        if sent is None:
            return
        latency = now - sent
        self.tally.latency.append(latency)
        self.tally.latency_rtt.append(latency / self._unit)
        if latency <= self._slowest[seat] + self.config.timing.ack_delay:
            self.tally.within_target += 1

    def _round_over(self, seat: int, replica: Replica, over: RoundOver, now: float) -> None:
        record, number = self.seats[seat], over.round
        verdict = self._verdicts.get(number)
        orders = self._orders(number) if record.round == number else None
        if verdict is None and orders is not None and record.plays is not None:
            verdict = replay_round(self.config.options, orders, record.plays)
            self._verdicts[number] = verdict
            self.tally.replayed += 1
        if verdict is not None:
            check_round_over(seat, over, verdict)
        overs = self._overs.setdefault(number, [])
        if overs and (overs[0].scores, overs[0].digest) != (over.scores, over.digest):
            raise Violation(f"seat {seat}'s end of round {number} differs from another seat's")
        overs.append(over)
        record.plays = None
        self._digest.update(b"over %d %d " % (seat, number) + over.digest + replica.digest)
        # A round's end is committed, so with every member of a view: the first seat to
        # see it is enough (a view may be down to a few seats of the table).
        if len(overs) == 1 and len(self.round_ended) == number:
            self.tally.rounds += 1
            self.round_ended.append(now)
        if number == self.config.rounds:
            record.finished = True
            if all(s.finished or not s.up for s in self.seats):
                self.done_at = now + self.config.drain

    def _orders(self, number: int) -> list[tuple[Card, ...] | None] | None:
        """Every deck's order as round ``number`` dealt it (None for a deck not dealt in),
        if the run knows them all."""
        dealt, dealers = self._dealt.get(number), self.dealers.get(number, {})
        if dealt is None:
            return None
        keys = [(dealers.get(deck, -1), number) for deck in dealt]
        if any(key not in self.decks for key in keys):
            return None
        return [
            self.decks[dealers[deck], number] if deck in dealt else None
            for deck in range(self.config.decks)
        ]

    # --- faults -------------------------------------------------------------------------------

    def struck(self, fault: Fault) -> None:
        self.tally.faults[KIND[type(fault)]] += 1
        self._digest.update(repr(fault).encode())

    def refused(self, fault: Fault) -> None:
        """The schedule's ``fault`` did not strike: the run refused it."""
        self.tally.refused[KIND[type(fault)]] += 1

    def cut(self, seats: tuple[int, ...], now: float) -> None:
        """A partition or a crash left ``seats`` on a side without a majority."""
        for seat in seats:
            self.seats[seat].cut_at = now

    def healed(self) -> None:
        for record in self.seats:
            record.cut_at = None

    def crashed(self, seat: int) -> None:
        record = self.seats[seat]
        record.up, record.cut_at = False, None
        record.in_flight.clear()

    def restarted(self, seat: int) -> None:
        record = self.seats[seat]
        record.up, record.checked, record.fresh, record.plays = True, 0, False, None

    def digest(self, replicas: list[Replica]) -> bytes:
        """The run's digest: every round end seen, every fault, and how every replica ended."""
        for seat, replica in enumerate(replicas):
            self._digest.update(b"end %d %d " % (seat, replica.committed) + replica.digest)
        return self._digest.digest()


def _by_deck(dealers: dict[int, int]) -> str:
    return ", ".join(f"{seat} (deck {deck + 1})" for deck, seat in sorted(dealers.items()))
