"""A bot at a seat on the network: it looks at the table now and then, and moves."""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Sequence
from typing import Protocol

import trio

from p2pnerts.driver import Driver, Look
from p2pnerts.net import _waits
from p2pnerts.net._pace import Pacing
from p2pnerts.protocol import Event, LocalProtocolError, Replica, Seat, Timing
from p2pnerts.rules import IllegalMove, Move
from p2pnerts.system import cpu_seconds

SWITCH_INTERVAL = 0.001
"""Seconds a thread may hold the interpreter while another waits for it (Python's default
is 0.005): the longest a bot's thinking holds up its peer's next frame."""
NEWS_WAIT = 0.25
"""Seconds a bot whose seat is not free to move waits for news of the table at most, before
it looks again all the same."""


class Seated(Protocol):
    """What `play_seat` reads of the peer whose seat it plays (a `TablePeer`), so that
    the peer may start it without the two modules importing each other."""

    seat: int
    roster: tuple[Seat, ...]
    replica: Replica
    pacing: Pacing
    moved: dict[int, float]
    watchers: list[Callable[[Sequence[Event]], None]]

    def intend(self, move: Move) -> Move: ...


async def play_seat(
    peer: Seated, driver: Driver, rng: random.Random, report: Callable[[str], None]
) -> None:
    """Play ``peer``'s seat with ``driver`` for as long as this runs: after each look's
    pause (`Driver.next_look`), the move it chooses, if the seat is free to move.

    The bot chooses in a worker thread, on its own copy of what it looks at, so that the
    peer answers the table while it thinks: a bot thinking 40 ms a move on the trio thread
    held up every frame its peer had to answer meanwhile, and raised the other seats'
    commit p50 from 7 to 45 ms (`tools/bench.py net --thinking 40`). The interpreter then
    hands the trio thread the lock every `SWITCH_INTERVAL` at the latest.

    A choice that takes longer than a heartbeat is told (once): the table does not wait
    for it. (Its CPU time must say so too: a process the machine did not run for a while
    is not a slow bot.)

    While its seat is not free to move (its play in the air, the countdown on, the table
    regrouping), it looks again only after its pause once news has come (an event of the
    table), the countdown has ended, or `NEWS_WAIT` has passed: a bot of the top level,
    which pauses 2 to 4 ms, looked 300 times a second while its play was in the air, and
    a tenth of its peer's CPU went to looking (14 such peers on loopback)."""
    sys.setswitchinterval(SWITCH_INTERVAL)
    news = [trio.Event()]

    def heard(events: Sequence[Event]) -> None:
        if events:
            news[0].set()

    peer.watchers.append(heard)
    try:
        await _play(peer, driver, rng, report, news)
    finally:
        peer.watchers.remove(heard)


async def _play(
    peer: Seated,
    driver: Driver,
    rng: random.Random,
    report: Callable[[str], None],
    news: list[trio.Event],
) -> None:
    told_slow, waits = False, False
    while True:
        pause = driver.next_look(rng)
        if waits:  # (for news, the countdown's end or NEWS_WAIT, whichever comes first)
            counting = peer.pacing.starts_in(trio.current_time())
            with trio.move_on_after(counting if counting > 0 else NEWS_WAIT):
                await news[0].wait()
        await trio.sleep(pause)
        news[0] = trio.Event()
        replica, now = peer.replica, trio.current_time()
        display = replica.display
        waits = display is None or not _waits.free_to_move(replica, peer.pacing, now)
        if waits or display is None:  # (the second for the type checker: said in the first)
            continue
        moved = dict(peer.moved)  # (the peer goes on writing its own while the bot thinks)
        look = Look(display, peer.seat, replica.team, replica.sitting_out(), now, moved)
        busy = cpu_seconds()
        move = await trio.to_thread.run_sync(driver.choose, look, abandon_on_cancel=True)
        # (The table went on meanwhile: a move it no longer allows is refused below.)
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
        f"{name} took {took:.1f} s to choose a move: its peer answers the others while it "
        f"thinks, but the table plays on without its moves (a bot that chooses within "
        f"{timing.heartbeat:g} s keeps up)"
    )
