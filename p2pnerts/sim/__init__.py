"""The deterministic network simulator: many replicas, one process, one seed.

`run` plays a configured table over several seeds and returns a `Report`; `Simulation`
is one seed's run, and `SequencerRun` the same workload under a central sequencer, the
baseline the peer-to-peer protocol is measured against.

It imports `rules`, `protocol`, `driver`, `logs` and `fanout`, never `net` (it is
the network, simulated) nor the bots, which whoever runs it hands in through `driver`.
"""

from p2pnerts.sim._batch import run, run_seed
from p2pnerts.sim._faults import (
    MIXES,
    Crash,
    Fault,
    FaultMix,
    LinkDrop,
    Partition,
    SlowPeer,
    fault_schedule,
)
from p2pnerts.sim._invariants import (
    Invariants,
    Verdict,
    Violation,
    check_cut_off,
    check_progress,
    check_round_over,
    check_round_time,
    misplaced_cards,
    replay_round,
)
from p2pnerts.sim._links import RTO, TRANSPORTS, Links, LinkStall, Transport, Wifi, laptop
from p2pnerts.sim._network import LinkModel, Network, Scheduler
from p2pnerts.sim._report import Report, SeedResult, Tally, ViolationReport
from p2pnerts.sim._run import Simulation
from p2pnerts.sim._sequencer import SequencerRun
from p2pnerts.sim._watcher import Watcher
from p2pnerts.sim._workload import Lineup, SimConfig, commit_floors

__all__ = [
    "MIXES",
    "RTO",
    "TRANSPORTS",
    "Crash",
    "Fault",
    "FaultMix",
    "Invariants",
    "Lineup",
    "LinkDrop",
    "LinkModel",
    "LinkStall",
    "Links",
    "Network",
    "Partition",
    "Report",
    "Scheduler",
    "SeedResult",
    "SequencerRun",
    "SimConfig",
    "Simulation",
    "SlowPeer",
    "Tally",
    "Transport",
    "Verdict",
    "Violation",
    "ViolationReport",
    "Watcher",
    "Wifi",
    "check_cut_off",
    "check_progress",
    "check_round_over",
    "check_round_time",
    "commit_floors",
    "fault_schedule",
    "laptop",
    "misplaced_cards",
    "replay_round",
    "run",
    "run_seed",
]
