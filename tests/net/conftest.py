"""Shared settings for the net tests.

No test may send multicast out of the machine: every discovery call in these tests names
its interface, and as a second guard ``P2PNERTS_INTERFACES`` makes a call that forgot
(``interfaces=None``) use loopback instead of every interface. Child processes inherit it.
"""

from collections.abc import Iterator

import pytest

from p2pnerts.net._discovery import INTERFACES_ENV


@pytest.fixture(autouse=True)
def _mdns_stays_on_loopback(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv(INTERFACES_ENV, "127.0.0.1")
    yield
