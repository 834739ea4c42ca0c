"""A bot at a seat on the network (`net._seatbot.play_seat`): when it looks at the table."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import cast

import pytest
import trio

from p2pnerts.driver import Look
from p2pnerts.net._pace import Pacing
from p2pnerts.net._seatbot import NEWS_WAIT, Seated, play_seat
from p2pnerts.protocol import Event, PlayCommitted, Status, Timing
from p2pnerts.rules import Move, State, TableOptions, TurnStock, deal

PAUSE = 0.003
"""The top level's pause between two looks, about."""


class _Replica:
    """What `play_seat` reads of a replica, its play in the air until told otherwise;
    counting how often its table is read (twice a look)."""

    def __init__(self) -> None:
        self._display = deal(TableOptions(), (0, 1), rng=random.Random(1))
        self.in_the_air: object | None = object()
        self.status, self.blind, self.team, self.timing = Status.NORMAL, False, (0,), Timing()
        self.read: list[float] = []
        """When its table was read."""

    @property
    def display(self) -> State:
        self.read.append(trio.current_time())
        return self._display

    def sitting_out(self) -> tuple[int, ...]:
        return ()


@dataclass
class _Peer:
    replica: _Replica
    pacing: Pacing = field(default_factory=lambda: Pacing(person=False))
    seat: int = 0
    roster: tuple[object, ...] = ()
    moved: dict[int, float] = field(default_factory=dict)
    watchers: list[Callable[[Sequence[Event]], None]] = field(default_factory=list)
    intended: list[Move] = field(default_factory=list)

    def intend(self, move: Move) -> Move:
        self.intended.append(move)
        self.replica.in_the_air = move
        return move


class _Turner:
    """Looks every `PAUSE` seconds, and turns the stock."""

    def next_look(self, rng: random.Random) -> float:
        return PAUSE

    def choose(self, look: Look) -> Move | None:
        return TurnStock(look.seat, rotation=0)


async def test_a_bot_whose_play_is_in_the_air_looks_again_once_news_comes_not_every_pause(
    autojump_clock: trio.abc.Clock,
) -> None:
    # (It looked every pause: 300 times a second at the top level, a tenth of a peer's CPU
    # at a table of 14 such bots.)
    replica = _Replica()
    peer = _Peer(replica)
    async with trio.open_nursery() as nursery:
        seated = cast(Seated, peer)  # (what it reads of a peer, and no more)
        nursery.start_soon(play_seat, seated, _Turner(), random.Random(1), print)
        await trio.sleep(2.0)
        assert len(replica.read) <= 2 * (2.0 / NEWS_WAIT + 1), "it looks now and then, for news"
        assert not peer.intended
        replica.in_the_air, told = None, trio.current_time()  # its play landed: news comes
        for hear in list(peer.watchers):
            hear([PlayCommitted(0, TurnStock(0, rotation=0), 1, False)])
        await trio.sleep(2 * PAUSE)
        after = [t - told for t in replica.read if t > told]
        assert after == pytest.approx([PAUSE, PAUSE]), "told, it looks again after its pause"
        for _ in range(1_000_000):  # (its choice is made in a thread, the clock standing still)
            if peer.intended:
                break
            await trio.lowlevel.checkpoint()
        assert len(peer.intended) == 1, "and moves"
        nursery.cancel_scope.cancel()
    assert not peer.watchers
