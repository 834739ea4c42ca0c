"""Fault mixes and the schedules a seed draws from them."""

from __future__ import annotations

import itertools
import random

import pytest

from p2pnerts.sim import MIXES, Crash, Fault, LinkDrop, Partition, SlowPeer, fault_schedule


def _faults(mix: str, peers: int, seed: int, until: float = 600.0) -> list[Fault]:
    schedule = fault_schedule(MIXES[mix], peers, random.Random(seed))
    return list(itertools.takewhile(lambda f: f.at < until, schedule))


def test_the_same_seed_draws_the_same_schedule() -> None:
    assert _faults("heavy", 6, 3) == _faults("heavy", 6, 3)
    assert _faults("heavy", 6, 3) != _faults("heavy", 6, 4)


def test_no_faults_in_the_quiet_mix() -> None:
    assert _faults("none", 4, 1) == []


@pytest.mark.parametrize("mix", list(MIXES))
def test_a_mix_strikes_only_with_the_kinds_it_names(mix: str) -> None:
    rates = MIXES[mix]
    kinds = {type(f) for seed in range(5) for f in _faults(mix, 5, seed)}
    named = {
        LinkDrop: rates.drops,
        SlowPeer: rates.slow,
        Partition: rates.partitions,
        Crash: rates.crashes,
    }
    assert kinds == {kind for kind, rate in named.items() if rate}


@pytest.mark.parametrize("mix", ["partition", "crash", "churn", "heavy"])
@pytest.mark.parametrize("peers", [2, 3, 4, 7, 14])
def test_large_faults_come_one_at_a_time_and_never_down_a_majority(mix: str, peers: int) -> None:
    for seed in range(5):
        faults = _faults(mix, peers, seed, until=1800.0)
        large = [f for f in faults if isinstance(f, Partition | Crash)]
        assert large
        for one, following in itertools.pairwise(large):
            assert _end(one) < following.at
        for fault in large:
            if isinstance(fault, Crash):
                assert 2 * len(fault.seats) < peers or len(fault.seats) == 1
            else:
                assert 1 <= len(fault.group) <= peers // 2


def test_drops_and_slow_peers_name_real_seats() -> None:
    for fault in _faults("heavy", 5, 1, until=3600.0):
        if isinstance(fault, LinkDrop):
            a, b = fault.peers
            assert 0 <= a < b < 5
        elif isinstance(fault, SlowPeer):
            assert 0 <= fault.seat < 5 and fault.extra > 0 and fault.lasts > 0


def _end(fault: Partition | Crash) -> float:
    return fault.at + (fault.heal_after if isinstance(fault, Partition) else fault.down_for)
