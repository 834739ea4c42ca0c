"""The seam between a seat's peer (trio) and the front end's model (the screen's loop).

The peer's watchers and traffic hooks run in trio: they refresh the model and ask for a
redraw. The model's moves (and the lobby's choices) come from key handlers outside trio:
they go through the trio token (`Session.soon`), so `TablePeer.intend` runs inside trio
as it must.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

import trio

from p2pnerts.net import IDLE_AFTER, MatchResult, Player, TablePeer
from p2pnerts.protocol import CommitFrame, Event, LocalProtocolError, Message, Seat, Welcome
from p2pnerts.rules import IllegalMove, Move
from p2pnerts.ui._lobby import LobbyModel
from p2pnerts.ui._model import TableModel
from p2pnerts.ui._snapshot import Liveness, Snapshot
from p2pnerts.ui._waiting import waiting
from p2pnerts.words import apart, marked

T = TypeVar("T")


def snapshot(peer: TablePeer) -> Snapshot:
    """What the front end shows of ``peer`` now (call it inside trio)."""
    r = peer.replica
    now = trio.current_time()
    seats = range(len(peer.roster))
    result = peer.result
    return Snapshot(
        display=r.display,
        hand=r.hand,
        status=r.status.value,
        clock=r.clock,
        committed=r.committed,
        pending=len(r.pending),
        own_pending=sum(1 for p in r.pending if p.message.sender == r.seat),
        view=r.view,
        majority=r.by_majority,
        liveness=tuple(Liveness(now - r.heard[s], s in r.suspected, s in r.members) for s in seats),
        totals=peer.match.totals,
        over=result is not None,
        winners=() if result is None else result.winners,
        blind=r.blind,
        stuck_while_away=r.stuck_while_away,
        stuck_for_idle=r.stuck_for_idle,
        turns_though_stuck=r.turns_though_stuck,
        starts_in=peer.pacing.starts_in(now),
        unready=peer.unready(),
        idle=peer.idle(),
        stranded=tuple(sorted(peer.stranded)),
        forsaken=peer.forsaken,
        ended="" if result is None else result.ended,
    )


class Session:
    """Plays one seat from the front end: the `Player` to seat, the lobby while the table
    fills, and the wiring of the seat's peer to the model once play begins."""

    def __init__(
        self,
        model: TableModel,
        invalidate: Callable[[], None],
        name: str,
        rng: random.Random,
        lobby: LobbyModel | None = None,
        idle_after: float = IDLE_AFTER,
    ) -> None:
        self.model = model
        self.invalidate = invalidate
        self.lobby = lobby
        self.peer: TablePeer | None = None
        self._token: trio.lowlevel.TrioToken | None = None
        self.player = Player(
            name,
            rng,
            None,
            self.report,
            on_screen=True,  # the model tells the events, and the peer its own news
            seated=self.seated,
            lobby=self._roster,
            welcomed=self._welcomed,
            idle_after=idle_after,
        )
        """The person's seat: no bot plays it; it deals a round once the person is ready."""

    async def run(self, start: Callable[[Session], Awaitable[T]]) -> T:
        """Run ``start`` in trio with this session (keys reach trio from here on)."""
        self._token = trio.lowlevel.current_trio_token()
        return await start(self)

    def soon(self, action: Callable[..., None]) -> Callable[..., None]:
        """``action`` made callable from the screen's side: it runs in trio, then redraws."""

        def call(*args: object) -> None:
            assert self._token is not None
            self._token.run_sync_soon(self._then_redraw, action, *args)

        return call

    def _then_redraw(self, action: Callable[..., None], *args: object) -> None:
        action(*args)
        self.invalidate()

    def report(self, line: str) -> None:
        """A line for the person: in the lobby while it shows, else on the ticker."""
        if self.lobby is not None and self.lobby.active:
            self.lobby.tell(line)
        else:
            self.model.tell(line)
        self.invalidate()

    def _roster(self, seats: tuple[Seat, ...]) -> None:
        if self.lobby is not None:
            self.lobby.roster = apart(seat.name for seat in seats)
            self.invalidate()

    def _welcomed(self, welcome: Welcome) -> None:
        if self.lobby is not None:  # a joiner learns the table's size, teams and name here
            self.lobby.welcomed(welcome.seat, welcome.players, welcome.options.teams, welcome.name)
            self.invalidate()

    def seated(self, peer: TablePeer) -> None:
        """Play begins (inside trio): show this peer's table and send it the moves."""
        self.peer = peer
        self._token = self._token or trio.lowlevel.current_trio_token()
        if self.lobby is not None:
            self.lobby.active = False
        model = self.model
        model.seat, model.options = peer.seat, peer.options
        model.names = marked(apart(seat.name for seat in peer.roster), peer.seat)
        model.send, model.deal_next = self.soon(self._intend), self.soon(self._deal_next)
        model.end_match = self.soon(self._end_match)
        peer.watchers.append(self._changed)
        peer.traffic.append(self._traffic)
        peer.frame_traffic.append(self._traffic)
        if model.ready:  # Enter came while the screen showed the table still filling up
            peer.ready()
        self._changed(())

    def _changed(self, events: Sequence[Event]) -> None:
        assert self.peer is not None
        before = waiting(self.model)
        self.model.refresh(snapshot(self.peer), events)
        if events or self.model.classroom or waiting(self.model) != before:
            self.invalidate()

    def _traffic(self, outgoing: bool, seat: int | None, message: Message | CommitFrame) -> None:
        self.model.note_message(outgoing, seat, message)

    def _intend(self, move: Move) -> None:
        assert self.peer is not None
        try:
            self.peer.intend(move)
        except (IllegalMove, LocalProtocolError) as exc:
            self.model.refused(str(exc))
        self._changed(())

    def standing(self) -> MatchResult | None:
        """How the match stood as the person left the screen (`TablePeer.standing`); None
        if they left before play began (from the lobby or the waiting room)."""
        return None if self.peer is None else self.peer.standing()

    async def farewell(self) -> None:
        """The person quits mid-match: tell the table, and wait until it has heard (the
        caller bounds the wait), so the others play on at once without this seat."""
        peer = self.peer
        if peer is None or peer.result is not None or not peer.leave():
            return
        gone = trio.Event()
        peer.watchers.append(lambda _: gone.set() if peer.left else None)
        await gone.wait()

    def _deal_next(self) -> None:
        assert self.peer is not None
        self.peer.ready()

    def _end_match(self) -> None:
        assert self.peer is not None
        if self.peer.forsaken:
            self.peer.end_match("no other seat answered; the player stopped waiting", linger=False)
        elif self.peer.stranded:
            self.peer.end_match("the player did not wait for a silent seat", linger=False)


class TickerLog(logging.Handler):
    """Warnings (from the network layer, zeroconf...), told to the person instead."""

    def __init__(self, session: Session) -> None:
        super().__init__(logging.WARNING)
        self.session = session

    def emit(self, record: logging.LogRecord) -> None:
        self.session.report(record.getMessage())
