"""The replica a seat plays on the network: signing with the seat's key and checking the
others' by the roster, new at a table or coming back from a state file's `Disk`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from p2pnerts.protocol import Disk, Replica, Seat, SeatKey, Signer, Timing
from p2pnerts.rules import TableOptions

NETWORK_TIMING = Timing(ack_at_once=True)
"""A seat on the network acknowledges an arrival at once, unless an Ack went out within
`Timing.ack_delay` (SPEC §4.5), where the simulator's replicas wait the delay (the
simulator's runs, digests and regression seeds stay as they were; `python tools/bench.py sim
--ack-at-once` measures the other there). Nothing on the wire changes. On loopback, 14 seats
of level 8 by acknowledgement, five runs of each interleaved: commit p99 55.4 ms (median)
waiting the delay, 48.9 at once; p50 24.7 and 19.4; CPU a peer the same (SPEC's notes, "Acks
at once on the network")."""


def seat_replica(
    table: bytes,
    seat: int,
    roster: Sequence[Seat],
    options: TableOptions,
    key: SeatKey,
    *,
    now: float,
    timing: Timing | None,
    disk: Disk | None,
    tamper: Callable[..., Any] | None,
    majority: bool = False,
) -> Replica:
    """``seat``'s replica at the table ``table`` (its id): a new one, or (given its
    ``disk``) one that asks to rejoin. A cheat that stacks its own deck
    (`p2pnerts.cheats.Cheat.shuffle`) shuffles with it."""
    players = len(roster)
    timing = timing or NETWORK_TIMING
    stacker = getattr(tamper, "shuffle", None)
    shuffle = stacker(options, options.seating(players)[seat]) if stacker else None
    signer = Signer(key, [s.key for s in roster], table)
    if disk is None:
        return Replica(
            seat,
            options,
            players,
            timing=timing,
            now=now,
            shuffle=shuffle,
            signer=signer,
            majority=majority,
        )
    return Replica.restart(
        seat,
        options,
        players,
        disk=disk,
        now=now,
        timing=timing,
        shuffle=shuffle,
        signer=signer,
        majority=majority,
    )
