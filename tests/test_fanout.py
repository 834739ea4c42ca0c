"""The fan-out: seeds run in worker processes or on a Dask cluster come back exactly as a
serial run gives them, and a failing seed or a foreign worker stops it with a clear error."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator

import pytest

from p2pnerts import __version__
from p2pnerts.bots import SimpleBots
from p2pnerts.fanout import (
    FanOutError,
    TaskFailed,
    VersionMismatch,
    Where,
    _merge,
    _Stamped,
    fan_out,
    loopback_cluster,
    run_chunk,
    source_hash,
)
from p2pnerts.sim import MIXES, SeedResult, SimConfig, Simulation, run

LIGHT = SimConfig(3, 1, MIXES["light"])
BOTS = SimpleBots()


def square_unless(bad: int, seed: int) -> int:
    """A task that fails at one seed (module level, so that workers can import it)."""
    if seed == bad:
        raise ValueError(f"seed {seed} is the bad one")
    return seed * seed


def _hear(heard: list[int]) -> Callable[[int, int], None]:
    return lambda done, _total: heard.append(done)


def test_serial_fan_out_returns_one_record_per_seed_in_order() -> None:
    fanned = fan_out(square_unless, -1, [5, 3, 9, 1], chunk=3)
    assert fanned.records == (25, 9, 81, 1)
    assert fanned.chunks == 2


def test_chunks_finishing_in_any_order_merge_in_seed_order() -> None:
    seeds = list(range(20))
    chunks = [tuple(seeds[i : i + 3]) for i in range(0, 20, 3)]
    stamped = [(i, run_chunk(square_unless, -1, c)) for i, c in enumerate(chunks)]
    for shuffle_seed in range(5):
        random.Random(shuffle_seed).shuffle(stamped)
        heard: list[int] = []
        fanned = _merge(chunks, iter(stamped), _hear(heard), 20)
        assert fanned.records == tuple(s * s for s in seeds)
        assert heard == sorted(heard) and heard[-1] == 20


def test_a_failing_seed_is_named_and_stops_the_fan_out() -> None:
    with pytest.raises(TaskFailed, match="seed 7 failed") as caught:
        fan_out(square_unless, 7, range(20), chunk=4)
    assert "is the bad one" in caught.value.detail


def test_a_worker_running_other_code_is_refused() -> None:
    foreign = _Stamped("0.0.1", "0" * 16, "elsewhere:1", (4,))
    with pytest.raises(VersionMismatch, match=r"elsewhere:1 runs p2pnerts 0\.0\.1"):
        _merge([(2,)], iter([(0, foreign)]), None, 1)
    ours = run_chunk(square_unless, -1, (2,))
    assert (ours.version, ours.source) == (__version__, source_hash())


def test_jobs_and_cluster_are_exclusive_and_jobs_are_counted() -> None:
    with pytest.raises(FanOutError, match="exclusive"):
        Where(jobs=2, cluster="127.0.0.1:8786")
    with pytest.raises(FanOutError, match="1 or more"):
        Where(jobs=0)


def test_two_worker_processes_report_what_one_process_reports() -> None:
    serial = run(LIGHT, range(1, 7), BOTS)
    pooled = run(LIGHT, range(1, 7), BOTS, where=Where(jobs=2))
    assert json.dumps(pooled.to_json()) == json.dumps(serial.to_json())


def test_a_failing_seed_in_a_worker_process_is_named() -> None:
    with pytest.raises(TaskFailed, match="seed 3 failed"):
        fan_out(square_unless, 3, range(8), Where(jobs=2), chunk=2)


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """A real Dask scheduler and two worker processes on loopback, no dashboard."""
    pytest.importorskip(
        "distributed", reason="Dask distributed is the optional extra p2pnerts[cluster]"
    )
    with loopback_cluster(2) as address:
        yield address


def test_a_cluster_of_two_workers_reports_what_one_process_reports(cluster: str) -> None:
    serial = run(LIGHT, range(1, 9), BOTS)
    fanned = fan_out(run_seed_of_light, None, range(1, 9), Where(cluster=cluster), chunk=1)
    assert tuple(r.digest for r in fanned.records) == tuple(r.digest for r in serial.results)
    assert len(fanned.workers) == 2
    clustered = run(LIGHT, range(1, 9), BOTS, where=Where(cluster=cluster))
    assert clustered.digest == serial.digest


def test_a_failing_seed_on_the_cluster_is_named(cluster: str) -> None:
    with pytest.raises(TaskFailed, match="seed 5 failed"):
        fan_out(square_unless, 5, range(10), Where(cluster=cluster), chunk=2)


def run_seed_of_light(_job: None, seed: int) -> SeedResult:
    """One seed of the light table, as a task of its own."""
    return Simulation(LIGHT, seed, BOTS).run()
