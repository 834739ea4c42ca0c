"""Settings for the whole suite.

No test may send multicast out of this machine: every discovery call in the tests names
its interface, and as a second guard ``P2PNERTS_INTERFACES`` makes a call that forgot
(``interfaces=None``) use loopback instead of every interface. Child processes inherit
it; the LAN lab gives the processes it starts their own namespace's address.
"""

import os
from collections.abc import Iterator
from itertools import chain, zip_longest

import pytest
from hypothesis import HealthCheck, settings

from p2pnerts.net import INTERFACES_ENV
from p2pnerts.system import DATA_DIR_ENV

# The suite runs on every core at once (pytest-xdist), beside real processes and other
# runs: how long an example or its generation takes measures the machine's load, not the
# code, so Hypothesis asserts nothing about time here.
settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("suite")


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook: no error when it is not installed
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: three workers a core. Most tests wait (for processes playing at a set
    pace, tmux screens, mDNS, countdowns): with one worker a core the cores stayed more
    than half idle, and with two a third idle (on 2 cores, 6 workers took the suite from
    13 min 31 s with 4 to 11 min 44 s). At most 16: each worker holds a Python process
    and starts more (whole tables of peers), which a large machine's memory would feel."""
    return min(3 * (os.cpu_count() or 1), 16)


SLOW = (
    "tests/net/test_processes.py",
    "tests/sim/test_sweep.py",
    "tests/sim/test_regressions.py",
    "tests/ui/test_watch_screen.py",
    "tests/ui/test_terminal.py",
    "tests/test_fanout.py",
    "tests/net/test_lanlab.py",
    "tests/arena/test_fast.py",
    "tests/test_exits.py",
    "tests/bots/test_commands.py",
    "tests/rules/test_properties.py",
)
"""The files whose tests take longest (10 to 60 s each, many of them real processes
playing at a set pace, the rest simulator sweeps)."""


def pytest_configure(config: pytest.Config) -> None:
    # pytest-xdist: a test at a time to whichever worker is free (by default each worker
    # first takes a quarter of its share in one run of the order, so that the slow tests,
    # first in it, went to a few workers and the run ended on them).
    if hasattr(config.option, "maxschedchunk") and config.option.maxschedchunk is None:
        config.option.maxschedchunk = 1


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slowest tests first, one of each slow file in turn, handed out one at a time to
    whichever worker is free: each worker gets a mix of waiting and computing, and the run
    does not end on one worker still busy with a long test while the others idle. Only
    the order changes: every test still runs."""
    slow: dict[str, list[pytest.Item]] = {path: [] for path in SLOW}
    rest: list[pytest.Item] = []
    for item in items:
        group = slow.get(item.nodeid.partition("::")[0])
        (rest if group is None else group).append(item)
    mixed = [item for item in chain(*zip_longest(*slow.values())) if item is not None]
    items[:] = mixed + rest


@pytest.fixture(scope="session")
def _data_dir(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("data"))


@pytest.fixture(autouse=True)
def _mdns_stays_on_loopback(monkeypatch: pytest.MonkeyPatch, _data_dir: str) -> Iterator[None]:
    monkeypatch.setenv(INTERFACES_ENV, "127.0.0.1")
    # What a peer keeps (game logs, remembered host keys) stays out of the person's own
    # data directory: in the test run's.
    monkeypatch.setenv(DATA_DIR_ENV, _data_dir)
    # A person is named by their login by default: here, the same name on every machine.
    monkeypatch.setenv("LOGNAME", "Player")
    yield
