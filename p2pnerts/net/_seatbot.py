"""A bot at a seat on the network: it looks at the table now and then, and moves."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Protocol

import trio

from p2pnerts.driver import Driver, Look
from p2pnerts.net import _waits
from p2pnerts.net._pace import Pacing
from p2pnerts.protocol import LocalProtocolError, Replica, Seat, Timing
from p2pnerts.rules import IllegalMove, Move
from p2pnerts.system import cpu_seconds


class Seated(Protocol):
    """What `play_seat` reads of the peer whose seat it plays (a `TablePeer`), so that
    the peer may start it without the two modules importing each other."""

    seat: int
    roster: tuple[Seat, ...]
    replica: Replica
    pacing: Pacing
    moved: dict[int, float]

    def intend(self, move: Move) -> Move: ...


async def play_seat(
    peer: Seated, driver: Driver, rng: random.Random, report: Callable[[str], None]
) -> None:
    """Play ``peer``'s seat with ``driver`` for as long as this runs: after each look's
    pause (`Driver.next_look`), the move it chooses, if the seat is free to move.

    A choice that takes longer than a heartbeat is told (once): while the bot thinks, the
    peer answers nobody, and the table soon counts the seat silent. (Its CPU time must say
    so too: a process the machine did not run for a while is not a slow bot.)"""
    told_slow = False
    while True:
        await trio.sleep(driver.next_look(rng))
        replica, now = peer.replica, trio.current_time()
        display = replica.display
        if display is None or not _waits.free_to_move(replica, peer.pacing, now):
            continue
        look = Look(display, peer.seat, replica.team, replica.sitting_out(), now, peer.moved)
        busy = cpu_seconds()
        move = driver.choose(look)
        took, busy = trio.current_time() - now, cpu_seconds() - busy
        if min(took, busy) >= replica.timing.heartbeat and not told_slow:
            told_slow = True
            report(_slow_words(peer.roster[peer.seat].name, took, replica.timing))
        if move is None:
            continue
        try:
            peer.intend(move)
        except (IllegalMove, LocalProtocolError):
            continue


def _slow_words(name: str, took: float, timing: Timing) -> str:
    return (
        f"{name} took {took:.1f} s to choose a move: while a bot thinks, its peer answers "
        f"nobody, and the others count a seat silent after {timing.suspect_after:g} s "
        f"(a bot that chooses within {timing.heartbeat:g} s keeps the table waiting for nobody)"
    )
