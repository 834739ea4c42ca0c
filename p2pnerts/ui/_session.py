"""The seam between a seat's peer (trio) and the front end's model (the screen's loop).

The peer's watchers and traffic hooks run in trio: they refresh the model and ask for a
redraw. The model's moves come from key handlers outside trio: they go to the peer
through the trio token, so `TablePeer.intend` runs inside trio as it must.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Sequence

import trio

from p2pnerts.net import Player, TablePeer
from p2pnerts.protocol import Event, LocalProtocolError, Message
from p2pnerts.rules import IllegalMove, Move
from p2pnerts.ui._model import Liveness, Snapshot, TableModel

BETWEEN_ROUNDS = 30.0
"""Seconds a person has to read the round's scores before their seat deals anyway."""


def snapshot(peer: TablePeer) -> Snapshot:
    """What the front end shows of ``peer`` now (call it inside trio)."""
    r = peer.replica
    now = trio.current_time()
    seats = range(len(peer.roster))
    totals = tuple(sum(row[deck] for row in r.match_scores) for deck in seats)
    result = peer.result
    return Snapshot(
        display=r.display,
        in_the_air=r.in_the_air,
        status=r.status.value,
        clock=r.clock,
        committed=r.committed,
        pending=len(r.pending),
        own_pending=sum(1 for p in r.pending if p.message.sender == r.seat),
        view=r.view,
        liveness=tuple(Liveness(now - r.heard[s], s in r.suspected, s in r.members) for s in seats),
        totals=totals,
        over=result is not None,
        winners=() if result is None else result.winners,
    )


class Session:
    """Plays one seat from the front end: the `Player` to seat, and the wiring once seated."""

    def __init__(self, model: TableModel, invalidate: Callable[[], None]) -> None:
        self.model = model
        self.invalidate = invalidate
        self.peer: TablePeer | None = None
        self._token: trio.lowlevel.TrioToken | None = None

    def player(self, name: str, rng: random.Random) -> Player:
        """The person's seat: no bot plays it, and the scores stay up a while."""
        return Player(
            name,
            rng,
            None,
            lambda _: None,
            seated=self.seated,
            between_rounds=BETWEEN_ROUNDS,
        )

    def seated(self, peer: TablePeer) -> None:
        """Play begins (inside trio): show this peer's table and send it the moves."""
        self.peer, self._token = peer, trio.lowlevel.current_trio_token()
        model = self.model
        model.seat, model.options = peer.seat, peer.options
        model.names = tuple(seat.name for seat in peer.roster)
        model.send, model.deal_next = self._send, self._deal_next
        peer.watchers.append(self._changed)
        peer.traffic.append(self._traffic)
        self._changed(())

    def _changed(self, events: Sequence[Event]) -> None:
        assert self.peer is not None
        self.model.refresh(snapshot(self.peer), events)
        if events or self.model.classroom:
            self.invalidate()

    def _traffic(self, outgoing: bool, seat: int | None, message: Message) -> None:
        self.model.note_message(outgoing, seat, message)

    def _send(self, move: Move) -> None:
        assert self._token is not None
        self._token.run_sync_soon(self._intend, move)

    def _intend(self, move: Move) -> None:
        assert self.peer is not None
        try:
            self.peer.intend(move)
        except (IllegalMove, LocalProtocolError) as exc:
            self.model.refused(str(exc))
        self._changed(())
        self.invalidate()

    def _deal_next(self) -> None:
        assert self._token is not None and self.peer is not None
        self._token.run_sync_soon(self.peer.deal_next_round)


class TickerLog(logging.Handler):
    """Warnings from the network layer, onto the ticker instead of over the screen."""

    def __init__(self, model: TableModel) -> None:
        super().__init__(logging.WARNING)
        self.model = model

    def emit(self, record: logging.LogRecord) -> None:
        self.model.tell(record.getMessage())
