"""Many seeds of one simulated table, run here or fanned out: every seed is a task of its
own (`run_seed`), so a process pool or a cluster runs exactly what a serial run does."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from p2pnerts.driver import Drivers
from p2pnerts.fanout import SERIAL, Where, fan_out
from p2pnerts.sim._report import Report, SeedResult
from p2pnerts.sim._run import Simulation
from p2pnerts.sim._sequencer import SequencerRun
from p2pnerts.sim._workload import SimConfig


def run_seed(
    job: tuple[SimConfig, Drivers, bool], seed: int
) -> tuple[SeedResult, SeedResult | None]:
    """One seed's run, and with ``job``'s sequencer flag the baseline's on the same seed."""
    config, bots, sequencer = job
    baseline = SequencerRun(config, seed, bots).run() if sequencer else None
    return Simulation(config, seed, bots).run(), baseline


def run(
    config: SimConfig,
    seeds: Iterable[int],
    bots: Drivers,
    *,
    sequencer: bool = False,
    where: Where = SERIAL,
    progress: Callable[[int, int], None] | None = None,
) -> Report:
    """Run every seed on the configured table with ``bots`` at its seats (each seed stops
    at its first violation), and with ``sequencer`` the central-sequencer baseline on the
    same seeds too; ``where`` says which processes run them, and changes nothing in the
    report (``bots`` must then be picklable)."""
    job = (config, bots, sequencer)
    fanned = fan_out(run_seed, job, tuple(seeds), where, progress=progress)
    results = tuple(result for result, _ in fanned.records)
    baseline = tuple(b for _, b in fanned.records if b is not None)
    return Report(config, results, baseline)
