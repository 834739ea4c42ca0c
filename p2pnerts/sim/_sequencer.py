"""The baseline: the same table under a central sequencer, one peer ordering every play.

Seat 0 is the server as well as a player. Every other seat sends its plays to it; it
applies them in the order they arrive and tells every other seat each verdict, landed or
returned. A play commits when its verdict reaches its player: one round trip to the
server, none for the server's own. The seed's network (its link latencies, without its
faults), bots and decks are the peer-to-peer run's, so commit latency and messages per
play compare on the same workload. Nothing is hidden from the server: this measures
latency and messages, not trust.

At a table of teams the server deals each team's deck from its first seat's shuffle, and a
seat on a team's tableau holds every move in its one hand, as a replica does; teammates'
moves are decided in the order they arrive, like everyone's.
"""

from __future__ import annotations

import functools
import hashlib
import random
from dataclasses import dataclass

from p2pnerts.driver import Driver, Drivers, Look
from p2pnerts.rules import (
    CallNerts,
    DeclareStuck,
    IllegalMove,
    Move,
    Rotate,
    State,
    ToFoundation,
    apply,
    deal,
    private_view,
    public_digest,
)
from p2pnerts.sim._network import Network, Scheduler
from p2pnerts.sim._report import SeedResult, Tally
from p2pnerts.sim._workload import SimConfig, deck_order, mean_rtt, setting

SERVER = 0
BETWEEN_ROUNDS = 0.3
"""Simulated seconds the server waits after a round before dealing the next."""


@dataclass(frozen=True, slots=True)
class _Submit:
    seat: int
    number: int
    move: Move


@dataclass(frozen=True, slots=True)
class _Verdict:
    seat: int
    number: int
    move: Move
    landed: bool


@dataclass(frozen=True, slots=True)
class _Deal:
    number: int
    table: State


_Wire = _Submit | _Verdict | _Deal


def commit(table: State, move: Move) -> State:
    """Apply a move; when it leaves everyone stuck, the stocks rotate too (as at a replica)."""
    table, _ = apply(table, move)
    if isinstance(move, DeclareStuck) and all(t.stuck for t in table.tableaux):
        table, _ = apply(table, Rotate(move.seat))
    return table


@dataclass(slots=True)
class _Seat:
    bot: Driver
    number: int = 0
    table: State | None = None
    """The table as this seat last heard it from the server."""
    mine: list[tuple[Move, float]] | None = None
    """This seat's plays not yet decided, with when each was sent."""
    hand: Move | None = None


class SequencerRun:
    """One seed's run of the table with a central sequencer, ``bots`` at its seats."""

    def __init__(self, config: SimConfig, seed: int, bots: Drivers) -> None:
        self.config, self.seed = config, seed
        fixed = setting(config, seed)
        self.scheduler = Scheduler()
        self.network: Network[_Wire] = Network(
            self.scheduler, random.Random(fixed.network), fixed.links, self._arrive
        )
        self._pace = random.Random(fixed.pace)
        self._deals = fixed.deals
        self._unit = mean_rtt(fixed.links)
        self._rtt = [0.0] + [2 * fixed.links[SERVER, s].usual_max for s in range(1, config.peers)]
        self.seats = [_Seat(bots(s, random.Random(b))) for s, b in enumerate(fixed.bots)]
        seating = config.seating
        self._shared = [seating.count(deck) > 1 for deck in seating]
        """Whether each seat plays a team's tableau."""
        self._mates = [[s for s, d in enumerate(seating) if d == deck] for deck in seating]
        """Each seat's team, itself included, in seat order: bots share its tableau out."""
        self.table: State | None = None
        self.number = 0
        self.tally = Tally()
        self._done = False

    def run(self) -> SeedResult:
        self._deal()
        for seat in range(self.config.peers):
            self._look_later(seat)
        limit = self.config.round_limit * self.config.rounds
        while not self._done and self.scheduler.now < limit and self.scheduler.step():
            pass
        digest = public_digest(self.table) if self.table is not None else b""
        digest = hashlib.blake2b(digest, digest_size=16).digest()
        return SeedResult(self.seed, self.tally, digest, self.scheduler.now)

    # --- the server ----------------------------------------------------------------------

    def _deal(self) -> None:
        """Deal every deck, a team's from its first seat's shuffle (as a team deals when
        every seat is there)."""
        self.number += 1
        seating = self.config.seating
        firsts = [seating.index(deck) for deck in range(self.config.decks)]
        orders = [deck_order(self._deals, self.number, s, self.config) for s in firsts]
        self.table = deal(self.config.options, seating, orders=orders)
        self._tell(_Deal(self.number, self.table), "deal")

    def _decide(self, submit: _Submit) -> None:
        assert self.table is not None
        landed = submit.number == self.number and self.table.ended is None
        if landed:
            try:
                self.table = commit(self.table, submit.move)
            except IllegalMove:
                landed = False
        self._tell(_Verdict(submit.seat, submit.number, submit.move, landed), "from-sequencer")
        if landed and self.table.ended is not None:
            self.tally.rounds += 1
            if self.number < self.config.rounds:
                self.scheduler.at(self.scheduler.now + BETWEEN_ROUNDS, self._deal)
            else:
                self.scheduler.at(self.scheduler.now + self.config.drain, self._finish)

    def _finish(self) -> None:
        self._done = True

    def _tell(self, wire: _Deal | _Verdict, kind: str) -> None:
        """Send to every seat; the server's own seat hears it at once."""
        for seat in range(1, self.config.peers):
            self.tally.messages[kind] += 1
            self.network.send(SERVER, seat, wire)
        self._hear(SERVER, wire)

    # --- the players -----------------------------------------------------------------------

    def _arrive(self, src: int, dst: int, wire: _Wire) -> None:
        if isinstance(wire, _Submit):
            self._decide(wire)
        else:
            self._hear(dst, wire)

    def _hear(self, seat: int, wire: _Deal | _Verdict) -> None:
        me = self.seats[seat]
        if isinstance(wire, _Deal):
            me.number, me.table, me.mine, me.hand = wire.number, wire.table, [], None
            return
        if wire.number != me.number or me.table is None or me.mine is None:
            return
        if wire.landed:
            me.table = self.table if seat == SERVER else commit(me.table, wire.move)
        if wire.seat != seat:
            return
        sent = next(t for move, t in me.mine if move is wire.move)
        me.mine = [(move, t) for move, t in me.mine if move is not wire.move]
        if me.hand is wire.move:
            me.hand = None
        if wire.landed:
            self.tally.plays += 1
        else:
            self.tally.returns += 1
        latency = self.scheduler.now - sent
        self.tally.latency.append(latency)
        self.tally.latency_rtt.append(latency / self._unit)
        self.tally.within_target += latency <= self._rtt[seat]

    def _look_later(self, seat: int) -> None:
        action = functools.partial(self._look, seat)
        delay = self.seats[seat].bot.next_look(self._pace)
        self.scheduler.at(self.scheduler.now + delay, action)

    def _look(self, seat: int) -> None:
        me = self.seats[seat]
        display = self._display(me)
        if display is not None and display.ended is None and me.hand is None:
            mates = tuple(self._mates[seat])
            move = me.bot.choose(Look(private_view(display, seat), seat, mates))
            if move is not None:
                self._intend(seat, move)
        self._look_later(seat)

    def _display(self, me: _Seat) -> State | None:
        """The table as it was last heard, with this seat's own undecided plays made."""
        display = me.table
        if display is None:
            return None
        for move, _ in me.mine or ():
            try:
                display = commit(display, move)
            except IllegalMove:
                continue
        return display

    def _intend(self, seat: int, move: Move) -> None:
        me = self.seats[seat]
        assert me.mine is not None
        me.mine.append((move, self.scheduler.now))
        if isinstance(move, ToFoundation | CallNerts | DeclareStuck) or self._shared[seat]:
            me.hand = move  # one hand, as at a replica (on a team's tableau, every move)
        submit = _Submit(seat, me.number, move)
        if seat == SERVER:
            self._decide(submit)
        else:
            self.tally.messages["to-sequencer"] += 1
            self.network.send(seat, SERVER, submit)
