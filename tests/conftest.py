"""Settings for the whole suite.

No test may send multicast out of this machine: every discovery call in the tests names
its interface, and as a second guard ``P2PNERTS_INTERFACES`` makes a call that forgot
(``interfaces=None``) use loopback instead of every interface. Child processes inherit
it; the LAN lab gives the processes it starts their own namespace's address.
"""

import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from p2pnerts._platform import DATA_DIR_ENV
from p2pnerts.net import INTERFACES_ENV

# The suite runs on every core at once (pytest-xdist), beside real processes and other
# runs: how long an example or its generation takes measures the machine's load, not the
# code, so Hypothesis asserts nothing about time here.
settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("suite")


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook: no error when it is not installed
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: two workers a core. Most tests wait (for processes playing at a set
    pace, tmux screens, mDNS, countdowns): with one worker a core, the cores stayed more
    than half idle."""
    return 2 * (os.cpu_count() or 1)


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
