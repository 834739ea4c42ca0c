"""The replica a seat plays on the network: signing with the seat's key and checking the
others' by the roster, new at a table or coming back from a state file's `Disk`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from p2pnerts.protocol import Disk, Replica, Seat, SeatKey, Signer, Timing
from p2pnerts.rules import TableOptions


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
