"""The fan-out: seeds run in worker processes or on a Dask cluster come back exactly as a
serial run gives them, and a failing seed or a foreign worker stops it with a clear error."""

from __future__ import annotations

import contextlib
import json
import random
import socket
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from p2pnerts import __version__
from p2pnerts.arena import ladder_entries, play_ladder
from p2pnerts.bots import SimpleBots
from p2pnerts.cli import main
from p2pnerts.fanout import (
    FanOutError,
    TaskFailed,
    VersionMismatch,
    Where,
    fan_out,
    loopback_cluster,
    run_chunk,
    source_hash,
)
from p2pnerts.fanout._fanout import _merge, _Stamped
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


def test_the_lowest_failing_seed_is_named_whichever_chunk_finishes_first() -> None:
    chunks: list[tuple[int, ...]] = [(0, 1), (2, 3), (4, 5)]
    stamped = [(i, run_chunk(square_unless, 3 if i == 1 else 5, c)) for i, c in enumerate(chunks)]
    finishing = [stamped[2], stamped[1], stamped[0]]  # the last chunk first
    with pytest.raises(TaskFailed, match="seed 3 failed"):
        _merge(chunks, iter(finishing), None, 6)


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """A real Dask scheduler and two worker processes on loopback, no dashboard."""
    pytest.importorskip(
        "distributed", reason="Dask distributed is the optional extra p2pnerts[cluster]"
    )
    with loopback_cluster(2) as address:
        yield address


def test_a_loopback_cluster_starts_while_another_holds_the_dashboards_port() -> None:
    pytest.importorskip(
        "distributed", reason="Dask distributed is the optional extra p2pnerts[cluster]"
    )
    with socket.socket() as taken:
        with contextlib.suppress(OSError):  # (already taken: by another cluster, say)
            taken.bind(("127.0.0.1", 8787))
            taken.listen()
        # A warning that the port moved would fail the test (warnings are errors here).
        with loopback_cluster(1) as address:
            assert address.startswith("tcp://127.0.0.1:")


def test_a_cluster_of_two_workers_reports_what_one_process_reports(cluster: str) -> None:
    serial = run(LIGHT, range(1, 5), BOTS)
    fanned = fan_out(run_seed_of_light, None, range(1, 5), Where(cluster=cluster), chunk=1)
    assert tuple(r.digest for r in fanned.records) == tuple(r.digest for r in serial.results)
    assert len(fanned.workers) == 2
    clustered = run(LIGHT, range(1, 5), BOTS, where=Where(cluster=cluster))
    assert clustered.digest == serial.digest


def test_a_failing_seed_on_the_cluster_is_named(cluster: str) -> None:
    with pytest.raises(TaskFailed, match="seed 5 failed"):
        fan_out(square_unless, 5, range(10), Where(cluster=cluster), chunk=2)


def run_seed_of_light(_job: None, seed: int) -> SeedResult:
    """One seed of the light table, as a task of its own."""
    return Simulation(LIGHT, seed, BOTS).run()


SIM = ["sim", "--peers", "3", "--rounds", "1", "--seed", "4", "--seeds", "4", "--json"]
ARENA = ["arena", "--policies", "simple,baseline", "--rounds", "6", "--seed", "2", "--json"]
ARENA += ["--players", "2"]
FAST = ["arena", "--fast", "--policies", "simple,baseline", "--rounds", "8", "--seed", "3"]
FAST += ["--json"]
EAGER = Path(__file__).resolve().parents[1] / "examples" / "eager.py"
LADDER = ["arena", "--ladder", "--policies", f"{EAGER}:Eager", "--rounds", "1"]
LADDER += ["--seed", "3", "--json", "--jobs", "2"]


def _json_of(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert main(args) == 0
    report: dict[str, object] = json.loads(capsys.readouterr().out)
    report.pop("timing", None)  # measured, not simulated: the one thing that varies
    return report


@pytest.mark.parametrize("command", [SIM, ARENA, FAST], ids=["sim", "arena", "fast"])
def test_one_job_or_two_the_command_reports_the_same(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    one = _json_of([*command, "--jobs", "1"], capsys)
    two = _json_of([*command, "--jobs", "2"], capsys)
    assert one == two


def test_one_job_or_two_the_ladder_rates_the_same() -> None:
    # Three entries, not the command's sixteen: the same pairs fanned out, in far less time.
    entries = ["simple", "L10", f"{EAGER}:Eager"]
    one, two = (play_ladder(entries, 2, 3, where=Where(jobs=n)).to_json() for n in (1, 2))
    assert one.pop("timing") and two.pop("timing")
    assert one == two


def test_the_ladder_command_in_two_processes_rates_every_entry(
    capsys: pytest.CaptureFixture[str],
) -> None:
    report = _json_of(LADDER, capsys)
    rated = [r["entry"] for r in report["ratings"]]  # type: ignore[attr-defined]
    assert sorted(rated) == sorted(ladder_entries([f"{EAGER}:Eager"]))


def test_the_commands_on_a_cluster_report_what_one_process_reports(
    cluster: str, capsys: pytest.CaptureFixture[str]
) -> None:
    for command in (SIM, ARENA):
        serial = _json_of([*command, "--jobs", "1"], capsys)
        assert _json_of([*command, "--cluster", cluster], capsys) == serial


BOOM = """
class Boom:
    def choose(self, view, seat):
        raise RuntimeError("this policy always fails")
"""


def test_a_round_that_fails_in_a_worker_ends_the_arena_with_its_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "boom.py").write_text(BOOM)
    policies = f"{tmp_path / 'boom.py'}:Boom,baseline"
    args = ["arena", "--policies", policies, "--rounds", "4", "--players", "2", "--jobs", "2"]
    assert main(args) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("p2pnerts: arena: round 0 failed")
    assert "this policy always fails" in err[-1]


def test_a_policy_file_is_refused_on_a_cluster_before_any_round(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "boom.py").write_text(BOOM)
    args = ["arena", "--policies", f"{tmp_path / 'boom.py'}:Boom", "--cluster", "127.0.0.1:9"]
    assert main(args) == 2
    assert "cannot load it" in capsys.readouterr().err
