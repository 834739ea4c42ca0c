"""Independent seeded work fanned out over this machine's cores or a Dask cluster, merged in
seed order, so that any fan-out reports exactly what a serial run reports.

A *task* is a module-level function ``task(job, seed) -> record`` on plain picklable data:
``job`` is a frozen configuration shared by every seed, ``record`` what one seed gives. The
seeds go out in chunks (one chunk is one call on a worker, to pay the overhead of a call
once per chunk rather than once per seed); a bounded number of chunks is in flight, and
each chunk's completion drives the progress callback. The records come back in the order
the seeds were given, whatever order the chunks finished in.

Where the work runs is a `Where`: one process (``jobs=1``, no pool at all), a process pool
of ``jobs`` workers, or a Dask distributed scheduler (``cluster="HOST:PORT"``, through
``Client.get_executor()``, the same ``concurrent.futures.Executor`` interface as the pool).
Both go through one path, `fan_out`.

A seed whose task raises stops the fan-out: the chunks not started are cancelled and
`TaskFailed` names the seed. Every chunk's result carries the worker's package version and
a hash of its source; a worker running other code than this process is refused
(`VersionMismatch`), since its records could not be merged with ours.
"""

from __future__ import annotations

import concurrent.futures as cf
import hashlib
import logging
import multiprocessing
import os
import platform
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Generic, TypeVar

from p2pnerts import __version__
from p2pnerts.errors import Error, UsageError, in_one_line
from p2pnerts.system import interrupts_held, leave_interrupts

J = TypeVar("J")
R = TypeVar("R")

IN_FLIGHT_PER_WORKER = 2
"""Chunks queued per worker: one running, one ready to start the moment it ends."""
WAKE = 0.1
"""Seconds the fan-out waits on its workers before it looks whether Ctrl-C came."""
CHUNKS_PER_WORKER = 8
"""Chunks a fan-out aims for per worker when no chunk size is given: small enough that
the last chunks do not leave workers idle, large enough that the per-call cost fades."""


class FanOutError(Error):
    """The fan-out cannot run as asked, or its work failed."""


class TaskFailed(FanOutError):
    """A seed's task raised; the rest of the work was cancelled."""

    def __init__(self, seed: int, detail: str) -> None:
        super().__init__(f"seed {seed} failed: {detail}")
        self.seed, self.detail = seed, detail


class VersionMismatch(FanOutError):
    """A worker runs another version of p2pnerts than this process."""


class ClusterUnavailable(FanOutError, UsageError):
    """The cluster cannot be used: the optional extra is missing or the scheduler is not
    there."""


@dataclass(frozen=True, slots=True)
class Where:
    """Where a fan-out runs: ``jobs`` worker processes here, or the Dask scheduler at
    ``cluster`` (the two are exclusive)."""

    jobs: int = 1
    cluster: str | None = None

    def __post_init__(self) -> None:
        if self.jobs < 1:
            raise FanOutError(f"--jobs takes 1 or more workers, not {self.jobs}")
        if self.cluster is not None and self.jobs != 1:
            raise FanOutError("--jobs and --cluster are exclusive: name one")


SERIAL = Where()
"""One process: this one."""


@dataclass(frozen=True, slots=True)
class Fanned(Generic[R]):
    """The records of a fan-out in seed order, and what ran them."""

    records: tuple[R, ...]
    workers: frozenset[str]
    """One name per worker process that ran a chunk (host and process id)."""
    chunks: int


@dataclass(frozen=True, slots=True)
class _Stamped(Generic[R]):
    """A chunk's records as a worker returns them, stamped with what the worker runs."""

    version: str
    source: str
    worker: str
    records: tuple[R, ...]
    failed: tuple[int, str] | None = None


def fan_out(
    task: Callable[[J, int], R],
    job: J,
    seeds: Sequence[int],
    where: Where = SERIAL,
    *,
    chunk: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Fanned[R]:
    """Run ``task(job, seed)`` for every seed where ``where`` says, and return the records
    in the order of ``seeds``; ``progress(done, total)`` hears each chunk finish."""
    chunks = _chunks(seeds, chunk or _chunk_size(len(seeds), where))
    if where.cluster is None and (where.jobs == 1 or len(chunks) == 1):
        return _merge(chunks, _serially(task, job, chunks), progress, len(seeds))
    with _executor(where) as (executor, workers):
        done = _in_flight(executor, workers, task, job, chunks)
        try:
            return _merge(chunks, done, progress, len(seeds))
        finally:
            done.close()  # cancels the chunks not started, before the pool shuts down


def source_hash() -> str:
    """A hash of this process's p2pnerts source: workers must run the same code."""
    return _source_hash(Path(__file__).parent.parent)


@cache
def _source_hash(package: Path) -> str:
    whole = hashlib.blake2b(digest_size=8)
    for path in sorted(package.rglob("*.py")):
        whole.update(path.relative_to(package).as_posix().encode() + b"\0")
        whole.update(path.read_bytes())
    return whole.hexdigest()


def run_chunk(task: Callable[[J, int], R], job: J, seeds: tuple[int, ...]) -> _Stamped[R]:
    """What a worker runs: the task for each seed of a chunk, stopping at the first that
    raises (named, with the error in one line, for the process that asked)."""
    records = []
    failed = None
    for seed in seeds:
        try:
            records.append(task(job, seed))
        except Exception as exc:
            failed = (seed, _one_line(exc))
            break
    worker = f"{platform.node()}:{os.getpid()}"
    return _Stamped(__version__, source_hash(), worker, tuple(records), failed)


def _one_line(exc: Exception) -> str:
    """The exception as one line, with where it was raised (the deepest frame); an error
    written for a person (`Error`) says all in its words."""
    return " ".join(str(exc).split()) if isinstance(exc, Error) else in_one_line(exc)


def _chunk_size(seeds: int, where: Where) -> int:
    workers = where.jobs if where.cluster is None else 16
    return max(1, -(-seeds // (workers * CHUNKS_PER_WORKER)))


def _chunks(seeds: Sequence[int], size: int) -> list[tuple[int, ...]]:
    return [tuple(seeds[i : i + size]) for i in range(0, len(seeds), size)]


def _serially(
    task: Callable[[J, int], R], job: J, chunks: list[tuple[int, ...]]
) -> Iterator[tuple[int, _Stamped[R]]]:
    for index, seeds in enumerate(chunks):
        yield index, run_chunk(task, job, seeds)


def _in_flight(
    executor: cf.Executor,
    workers: int,
    task: Callable[[J, int], R],
    job: J,
    chunks: list[tuple[int, ...]],
) -> Generator[tuple[int, _Stamped[R]]]:
    """Keep a bounded number of chunks submitted; yield each as it completes."""
    waiting = iter(enumerate(chunks))
    running: dict[cf.Future[_Stamped[R]], int] = {}
    limit = max(1, workers * IN_FLIGHT_PER_WORKER)
    # Ctrl-C raised inside the futures' locks could leave one held (`interrupts_held`).
    with interrupts_held() as interrupted:
        try:
            while True:
                for index, seeds in waiting:
                    running[executor.submit(run_chunk, task, job, seeds)] = index
                    if len(running) >= limit:
                        break
                if not running:
                    return
                finished: set[cf.Future[_Stamped[R]]] = set()
                while not finished:
                    interrupted()
                    finished, _ = cf.wait(running, WAKE, return_when=cf.FIRST_COMPLETED)
                for future in finished:
                    yield running.pop(future), _result(future)
        finally:
            for future in running:
                future.cancel()


def _result(future: cf.Future[_Stamped[R]]) -> _Stamped[R]:
    try:
        return future.result()
    except cf.process.BrokenProcessPool as exc:
        raise FanOutError(f"a worker process died: {exc}") from None


def _merge(
    chunks: list[tuple[int, ...]],
    done: Iterator[tuple[int, _Stamped[R]]],
    progress: Callable[[int, int], None] | None,
    total: int,
) -> Fanned[R]:
    """Check each chunk's stamp and failure as it comes, and put the records in seed order.

    A failure is told once every chunk before it is in: the lowest seed that fails is the
    one named, whichever worker finished first, so a run names the same seed every time.
    """
    ours = source_hash()
    by_chunk: dict[int, tuple[R, ...]] = {}
    workers: set[str] = set()
    failed: tuple[int, tuple[int, str]] | None = None
    finished = 0
    for index, stamped in done:
        _check_stamp(stamped, ours)
        if stamped.failed is not None:
            if failed is None or index < failed[0]:
                failed = (index, stamped.failed)
        else:
            by_chunk[index] = stamped.records
            workers.add(stamped.worker)
            finished += len(chunks[index])
            if progress is not None:
                progress(finished, total)
        if failed is not None and all(i in by_chunk for i in range(failed[0])):
            raise TaskFailed(*failed[1])
    records = tuple(r for index in range(len(chunks)) for r in by_chunk[index])
    return Fanned(records, frozenset(workers), len(chunks))


def _check_stamp(stamped: _Stamped[R], ours: str) -> None:
    if (stamped.version, stamped.source) != (__version__, ours):
        raise VersionMismatch(
            f"worker {stamped.worker} runs p2pnerts {stamped.version} "
            f"(source {stamped.source}), this machine {__version__} (source {ours}): "
            "install the same code on every worker"
        )


@contextmanager
def _executor(where: Where) -> Iterator[tuple[cf.Executor, int]]:
    """The executor a `Where` names, and how many workers it has."""
    if where.cluster is not None:
        with _dask_client(where.cluster) as client:
            workers = max(1, len(client.scheduler_info()["workers"]))
            # pure=False: the same chunk submitted twice is two runs, as a seed's work is.
            yield client.get_executor(pure=False), workers
        return
    # spawn everywhere: the default on Windows and macOS, and on Linux it keeps a worker
    # from inheriting this process's threads (trio's, zeroconf's).
    spawn = multiprocessing.get_context("spawn")
    pool = cf.ProcessPoolExecutor(where.jobs, mp_context=spawn, initializer=leave_interrupts)
    try:
        yield pool, where.jobs
    except BaseException:
        # Ctrl-C, SIGTERM or a failed chunk: the work in flight is of no use any more, and
        # waiting for it could take minutes. The workers go now; the first error is told.
        _stop(pool)
        raise
    pool.shutdown()


def _stop(pool: cf.ProcessPoolExecutor) -> None:
    """End the pool's workers at once, whatever they are running (the pool keeps them in a
    private table; Python 3.14's ``terminate_workers`` is the public way)."""
    workers = list((getattr(pool, "_processes", None) or {}).values())
    for worker in workers:
        worker.terminate()
    pool.shutdown(wait=False, cancel_futures=True)


@contextmanager
def _dask_client(address: str) -> Iterator[Any]:
    try:
        from distributed import Client
    except ImportError:
        raise ClusterUnavailable(
            "--cluster needs Dask distributed: pip install 'p2pnerts[cluster]'"
        ) from None
    _quiet_dask()
    try:
        connect: Any = Client  # distributed is not typed
        client = connect(address, timeout=10, set_as_default=False)
    except OSError as exc:
        raise ClusterUnavailable(f"no Dask scheduler answers at {address}: {exc}") from None
    with client:
        yield client


@contextmanager
def loopback_cluster(workers: int) -> Iterator[str]:
    """A Dask scheduler and ``workers`` worker processes on 127.0.0.1 with no dashboard, for
    trying ``--cluster`` on one machine; yields the scheduler's address."""
    try:
        from distributed import LocalCluster
    except ImportError:
        raise ClusterUnavailable(
            "a Dask cluster needs Dask distributed: pip install 'p2pnerts[cluster]'"
        ) from None
    _quiet_dask()
    start: Any = LocalCluster  # distributed is not typed
    with start(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        worker_dashboard_address=None,
        # Its HTTP server (health and metrics, with no dashboard) on a port of its own:
        # left alone it takes 8787, and a second cluster on the machine warns and moves.
        scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"},
    ) as cluster:
        yield cluster.scheduler_address


def _quiet_dask() -> None:
    """Dask's loggers speak of every worker coming and going; a command shows errors only."""
    for name in ("distributed", "tornado"):
        logging.getLogger(name).setLevel(logging.ERROR)
