"""Fault mixes and the schedules a seed draws from them."""

from __future__ import annotations

import itertools
import random
from dataclasses import replace

import pytest

from p2pnerts.bots import SimpleBots
from p2pnerts.sim import (
    MIXES,
    Crash,
    Fault,
    FaultMix,
    LinkDrop,
    Partition,
    SimConfig,
    Simulation,
    SlowPeer,
    fault_schedule,
)
from p2pnerts.sim._faults import KIND, OPENING
from p2pnerts.sim._workload import setting


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


def _named(mix: FaultMix) -> set[str]:
    rates = {LinkDrop: mix.drops, SlowPeer: mix.slow, Partition: mix.partitions, Crash: mix.crashes}
    return {KIND[kind] for kind, rate in rates.items() if rate}


FAULTY = [name for name, mix in MIXES.items() if _named(mix)]


@pytest.mark.parametrize("mix", FAULTY)
def test_a_schedule_opens_with_every_kind_its_mix_names_in_the_first_seconds(mix: str) -> None:
    for peers, seed in itertools.product((2, 3, 4, 6, 9, 14), range(20)):
        opening = _faults(mix, peers, seed, until=OPENING[1] + 2.5)
        assert {KIND[type(f)] for f in opening} >= _named(MIXES[mix]), (peers, seed)
        assert all(f.at >= OPENING[0] for f in opening)


def test_without_its_opening_a_schedule_is_the_one_the_regression_seeds_were_found_with() -> None:
    quiet = SimConfig(6, 1, replace(MIXES["heavy"], opening=False))
    assert list(itertools.islice(setting(quiet, 8).faults, 2)) == [
        LinkDrop(at=5.972373552405706, peers=(0, 2), down_for=3.478889979998692),
        LinkDrop(at=7.975722345798497, peers=(0, 3), down_for=3.902925179971512),
    ]


SEEDS = range(1, 5)


@pytest.mark.parametrize("peers", [4, 6])
@pytest.mark.parametrize("mix", FAULTY)
def test_every_kind_of_fault_a_mix_names_strikes_within_the_first_round(
    mix: str, peers: int
) -> None:
    """At every seed, each kind the mix names strikes (the run does not refuse it) before
    the first round ends: the run is stepped until they all have."""
    named = _named(MIXES[mix])
    for seed in SEEDS:
        run = Simulation(SimConfig(peers, 1, MIXES[mix]), seed, SimpleBots())
        run.begin()
        while not named <= set(run.ledger.tally.faults):
            assert run.scheduler.step()
            assert not run.ledger.tally.rounds, f"seed {seed}: {run.ledger.tally.faults}"
        assert not run.ledger.tally.refused


def test_drops_and_slow_peers_name_real_seats() -> None:
    for fault in _faults("heavy", 5, 1, until=3600.0):
        if isinstance(fault, LinkDrop):
            a, b = fault.peers
            assert 0 <= a < b < 5
        elif isinstance(fault, SlowPeer):
            assert 0 <= fault.seat < 5 and fault.extra > 0 and fault.lasts > 0


def _end(fault: Partition | Crash) -> float:
    return fault.at + (fault.heal_after if isinstance(fault, Partition) else fault.down_for)
