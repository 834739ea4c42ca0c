"""Independent seeded work fanned out over this machine's cores or a Dask cluster, merged
in seed order, so that any fan-out reports exactly what a serial run reports.

`fan_out` runs a module-level ``task(job, seed) -> record`` for every seed where a `Where`
says: in this process, a process pool of ``jobs`` workers, or a Dask distributed scheduler
(``cluster="HOST:PORT"``); the records come back in the seeds' order. The simulator's
sweeps, the arena and the tools all go through it: the project's one fan-out. It imports
nothing of p2pnerts but `errors` and `system`.
"""

from p2pnerts.fanout._fanout import (
    SERIAL,
    ClusterUnavailable,
    Fanned,
    FanOutError,
    TaskFailed,
    VersionMismatch,
    Where,
    fan_out,
    loopback_cluster,
    run_chunk,
    source_hash,
)

__all__ = [
    "SERIAL",
    "ClusterUnavailable",
    "FanOutError",
    "Fanned",
    "TaskFailed",
    "VersionMismatch",
    "Where",
    "fan_out",
    "loopback_cluster",
    "run_chunk",
    "source_hash",
]
