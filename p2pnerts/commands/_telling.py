"""What a command that plays a match tells its person: the table's news as plain lines,
warnings, the lines that end the match, its exit status, and ``--stats``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from p2pnerts.commands._config import SeatConfig
from p2pnerts.net import MatchResult
from p2pnerts.system import cpu_seconds
from p2pnerts.words import shown


def warn(text: str) -> None:
    """A problem the person running this peer should see, on standard error (shown as
    text: it may carry a peer's words)."""
    print(shown(text), file=sys.stderr, flush=True)


def say(line: str) -> None:
    """A line of the table's news on standard output, shown as text (names and reasons
    come from the other peers)."""
    print(shown(line), flush=True)


def write_stats(path: Path | None, result: MatchResult) -> None:
    """``--stats FILE``: what this peer measured, as JSON (for tools/bench.py net)."""
    if path is None or result.stats is None:
        return
    s = result.stats
    figures = {
        "commit_latencies": s.commit_latencies,
        "silent_waits": s.silent_waits,
        "membership": s.comings.records,
        "away": s.comings.away,
        "frames_sent": s.frames_sent,
        "bytes_sent": s.bytes_sent,
        "probed": s.probed,
        "diverged": s.diverged,
        "refused": [f"seat {seat}: {why}" for seat, why in s.refused],
        "stalled": s.stalled,
        "audits_failed": [f"seat {seat}, round {round_}" for seat, round_ in s.audits_failed],
        "seconds": s.finished - s.started,
        "cpu_seconds": cpu_seconds(),
    }
    with open(path, "w", encoding="utf-8") as out:
        json.dump(figures, out)


ALARM_STATUS = 3
"""The exit status of a peer that saw the table diverge or refused a seat that broke the
protocol: the match may have finished, but not every seat could be trusted."""


def end_match(result: MatchResult | None, seat: SeatConfig) -> int:
    """How a command ends its match (`tell_end`, and ``--stats``); None (the player left
    the table screen before play began) ends it quietly. The exit status: 0, or
    `ALARM_STATUS` with one line on stderr when this peer saw something go wrong at the
    table."""
    if result is None:
        return 0
    tell_end(result)
    write_stats(seat.stats, result)
    alarms = result.stats.alarms(result.names) if result.stats is not None else None
    if alarms is None:
        return 0
    warn(f"p2pnerts: this table could not be trusted: {alarms}")
    return ALARM_STATUS


def tell_end(result: MatchResult) -> None:
    """The lines that end a seat's match, whichever way it ends (played out, ended early,
    left): the seats' comings and goings, the game log's path, and the summary last."""
    comings = None if result.stats is None else result.stats.comings.summary()
    if comings is not None:
        say(comings)
    if result.log is not None:
        say(f"game log: {result.log}")  # (`p2pnerts replay` steps through it, `trace` merges)
    say(result.summary())
