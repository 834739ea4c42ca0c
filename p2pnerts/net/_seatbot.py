"""A bot at a seat on the network: it looks at the table now and then, and moves."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

import trio

from p2pnerts.driver import Driver, Look
from p2pnerts.net import _waits
from p2pnerts.protocol import LocalProtocolError
from p2pnerts.rules import IllegalMove

if TYPE_CHECKING:
    from p2pnerts.net._peer import TablePeer


async def play_seat(peer: TablePeer, driver: Driver, rng: random.Random) -> None:
    """Play ``peer``'s seat with ``driver`` for as long as this runs: after each look's
    pause (`Driver.next_look`), the move it chooses, if the seat is free to move."""
    while True:
        await trio.sleep(driver.next_look(rng))
        replica, now = peer.replica, trio.current_time()
        display = replica.display
        if display is None or not _waits.free_to_move(replica, peer.pacing, now):
            continue
        look = Look(display, peer.seat, replica.team, replica.sitting_out(), now, peer.moved)
        move = driver.choose(look)
        if move is None:
            continue
        try:
            peer.intend(move)
        except (IllegalMove, LocalProtocolError):
            continue
