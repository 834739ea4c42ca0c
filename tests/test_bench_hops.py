"""Where a play's milliseconds go (python tools/bench.py net --hops), read from game logs
whose clocks all differ."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

from benchmarks.hops import hops

from p2pnerts.logs import GameLog
from p2pnerts.protocol import Ack, Ballot, Play, Seat
from p2pnerts.rules import TurnStock

ROSTER = [Seat(s, f"S{s}", "127.0.0.1", 4000 + s) for s in range(4)]
CLOCKS = (10.0, 500.0, 7.5, 1234.0)
"""Each seat's clock when seat 0 sends its play: no two agree."""


def _logs(tmp_path: Path, majority: bool) -> list[Path]:
    """Seat 0 sends a play; seat s (1-3) takes it s ms later by seat 0's clock, answers 1 ms
    after by its own, and its answer comes back 2 * s + 1 ms after the play went out."""
    logs = [
        GameLog.start(
            tmp_path,
            table=bytes(16),
            name=f"S{s}",
            seat=s,
            roster=ROSTER,
            options="",
            now=CLOCKS[s],
            majority=majority,
        )
        for s in range(4)
    ]
    move = TurnStock(0, rotation=0)
    play = Play(0, 0, 5, 3, 1, move, below=(1, 0, 0, 0) if majority else ())
    logs[0].frame(True, None, play, CLOCKS[0])
    for s in (1, 2, 3):
        took = CLOCKS[s] + s / 1000
        logs[s].frame(False, 0, play, took)
        if majority:
            answer: Ballot | Ack = Ballot(s, 0, 6, 1, 0, 0, 1, bytes(16), True, (1, 0, 0, 0))
        else:
            answer = Ack(s, 0, 6, 2, (3, 1, 1, 1), 0, bytes(16))
        logs[s].frame(True, 0 if majority else None, answer, took + 0.001)
        logs[0].frame(False, s, answer, CLOCKS[0] + (2 * s + 1) / 1000)
    for log in logs:
        log.close()
    return [log.path for log in logs]


@pytest.mark.parametrize("majority", [True, False])
def test_a_play_s_round_trips_are_told_apart_into_the_answering_seat_s_time_and_the_links(
    tmp_path: Path, majority: bool
) -> None:
    figures = hops(_logs(tmp_path, majority))
    assert figures["majority"] is majority
    assert figures["trip"]["plays"] == 3
    assert figures["trip"]["p50"] == pytest.approx(5.0)  # 3, 5 and 7 ms
    assert figures["answer"]["p90"] == pytest.approx(1.0)
    assert figures["links"]["p50"] == pytest.approx(4.0)  # 2, 4 and 6 ms
    # By a majority the second answer decides it (with the sender's own vote, 3 of 4); by
    # acknowledgement, the third.
    assert figures["decided"]["p50"] == pytest.approx(5.0 if majority else 7.0)
