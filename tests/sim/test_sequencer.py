"""The central-sequencer baseline: one peer orders every play, on the same workload."""

from __future__ import annotations

import pytest

from p2pnerts.bots import SimpleBots
from p2pnerts.sim import MIXES, SequencerRun, SimConfig


@pytest.mark.parametrize("peers", [2, 4, 9])
def test_the_sequencer_plays_every_round_within_a_round_trip(peers: int) -> None:
    result = SequencerRun(SimConfig(peers, rounds=2), 3, SimpleBots()).run()
    t = result.tally
    assert t.rounds == 2 and t.plays > 50
    assert t.within_target == len(t.latency), "a verdict took longer than a round trip"
    per_play = t.messages["to-sequencer"] + t.messages["from-sequencer"]
    assert per_play <= peers * (t.plays + t.returns)


def test_the_same_seed_gives_the_same_baseline() -> None:
    config = SimConfig(5, rounds=1, faults=MIXES["slow"])
    assert (
        SequencerRun(config, 8, SimpleBots()).run() == SequencerRun(config, 8, SimpleBots()).run()
    )
