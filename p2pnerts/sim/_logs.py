"""``sim --log DIR``: every simulated peer writes the game log a live peer would (the format:
`p2pnerts.logs`), its times the simulated clock's, so that `p2pnerts trace` merges a
simulated run's logs as it does a real match's."""

from __future__ import annotations

import datetime
import hashlib
import sys
from collections.abc import Sequence
from pathlib import Path

from p2pnerts.logs import GameLog
from p2pnerts.protocol import CommitFrame, Event, Message, Replica, Seat
from p2pnerts.sim._workload import SimConfig


class SimLogs:
    """One game log per seat of one seed's run."""

    def __init__(self, directory: Path, config: SimConfig, seed: int) -> None:
        table = hashlib.blake2b(f"{config!r} {seed}".encode(), digest_size=16).digest()
        roster = [Seat(s, f"P{s + 1}", "sim", 0) for s in range(config.peers)]
        # One time of day for every seat's clock 0: trace aligns logs by it, and each log's
        # own (taken as it opened) put the seats some milliseconds apart on a loaded machine,
        # enough to move the StartView of the classroom guide's window out of it in one run.
        wall = datetime.datetime.now(datetime.UTC)
        self._logs = [
            GameLog.start(
                directory,
                table=table,
                name=f"sim seed {seed}",
                seat=seat,
                roster=roster,
                options=config.options.summary(),
                now=0.0,
                majority=config.majority,
                kept=sys.maxsize,  # a run's logs are never pruned
                wall=wall,
            )
            for seat in range(config.peers)
        ]
        self._followed: list[Replica | None] = [None] * config.peers

    def sent(self, seat: int, message: Message, now: float) -> None:
        self._logs[seat].frame(True, None, message, now)

    def arrived(self, src: int, dst: int, message: Message, now: float) -> None:
        self._logs[dst].frame(False, src, message, now)

    def framed(self, seat: int, frame: CommitFrame, to: int | None, now: float) -> None:
        self._logs[seat].frame(True, to, frame, now)

    def frame_arrived(self, src: int, dst: int, frame: CommitFrame, now: float) -> None:
        self._logs[dst].frame(False, src, frame, now)

    def stepped(self, seat: int, replica: Replica, events: Sequence[Event], now: float) -> None:
        log = self._logs[seat]
        if self._followed[seat] is not replica:  # (new, or back after a crash)
            self._followed[seat] = replica
            log.follow(replica)
        log.commits(replica.committed, replica.log.digests.get, now)

    def close(self) -> None:
        for log in self._logs:
            log.close()
