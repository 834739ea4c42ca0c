"""Wi-Fi links: TCP's retransmissions and head-of-line blocking, datagrams without them."""

from __future__ import annotations

import functools
import random

from p2pnerts.sim import (
    RTO,
    Links,
    LinkStall,
    Network,
    Scheduler,
    SimConfig,
    Transport,
    Wifi,
    laptop,
)
from p2pnerts.sim._workload import setting

LOSSY = Wifi(delay=0.01, jitter=0.005, loss=0.3)


def _arrivals(links: Links, sends: int, gap: float = 0.001) -> list[float | None]:
    return [links.arrival(0, 1, n * gap) for n in range(sends)]


def test_a_lost_tcp_segment_holds_every_later_one_behind_it() -> None:
    links = Links(random.Random(3), "tcp", default=LOSSY)
    got = _arrivals(links, 400)
    times = [t for t in got if t is not None]
    assert len(times) == 400, "TCP loses nothing: it sends again"
    assert times == sorted(times), "nothing overtakes an earlier segment"
    _, lost = links.counts(0, 1)
    assert lost > 0
    # A segment sent well after a lost one still waited for its retransmission.
    held = [t - n * 0.001 for n, t in enumerate(times)]
    assert max(held) >= RTO
    assert sum(h >= RTO for h in held) > lost, "segments behind a lost one wait too"


def test_tcp_doubles_the_timeout_when_a_segment_is_lost_again() -> None:
    links = Links(random.Random(1), "tcp", default=Wifi(delay=0.0, jitter=0.0, loss=0.5))
    # One segment on each of many links, so that none waits behind another.
    times = [links.arrival(0, n, 0.0) for n in range(1, 200)]
    waits = {round(t, 4) for t in times if t is not None}
    # Every wait is a sum of the doubling timeouts: 0, 0.2, 0.6, 1.4, 3.0, ...
    allowed = {round(RTO * (2**k - 1), 4) for k in range(30)}
    assert waits <= allowed
    assert len(waits) > 3


def test_datagrams_are_lost_alone_and_hold_nothing_back() -> None:
    links = Links(random.Random(3), "datagram", default=LOSSY)
    got = _arrivals(links, 400)
    lost = [t for t in got if t is None]
    assert 0 < len(lost) < 400
    assert all(t - n * 0.001 <= LOSSY.usual_max + 1e-9 for n, t in enumerate(got) if t is not None)
    times = [t for t in got if t is not None]
    assert times != sorted(times), "datagrams keep no order"


def test_a_stall_loses_datagrams_and_holds_tcp_segments_until_after_it() -> None:
    stalled = Wifi(stalls=(LinkStall(at=1.0, seconds=2.0),))
    for transport in ("tcp", "datagram"):
        links = Links(random.Random(5), transport, default=stalled)
        before = links.arrival(0, 1, 0.5)
        during = [links.arrival(0, 1, 1.0 + n * 0.1) for n in range(20)]
        after = links.arrival(0, 1, 3.5)
        assert before is not None and before < 1.0
        assert after is not None
        if transport == "datagram":
            assert during == [None] * 20
            assert after < 3.6
        else:
            # Lost at 1.0, sent again at 1.2, 1.6, 2.4 (all in the stall), then 4.0.
            assert all(t is not None and 4.0 <= t < 4.1 for t in during)
            assert after >= max(t for t in during if t is not None)


def test_the_same_seed_gives_the_same_deliveries() -> None:
    def run(seed: int, transport: Transport) -> list[float | None]:
        links = Links(random.Random(seed), transport, laptop(4, 3, LOSSY))
        return [links.arrival(n % 4, (n + 1) % 4, n * 0.002) for n in range(300)]

    for transport in ("tcp", "datagram"):
        assert run(11, transport) == run(11, transport)
        assert run(11, transport) != run(12, transport)


def test_a_laptop_shapes_only_its_own_directions() -> None:
    shapes = laptop(3, 2, LOSSY)
    assert shapes[2, 0] == shapes[2, 1] == LOSSY
    assert shapes[0, 2] == shapes[0, 1] == shapes[1, 0] == Wifi()


def test_a_network_without_wifi_draws_what_it_always_drew() -> None:
    def deliveries(wifi: bool) -> list[tuple[float, int, int, int]]:
        config = SimConfig(peers=3)
        scheduler, got = Scheduler(), []
        network: Network[int] = Network(
            scheduler,
            random.Random(4),
            setting(config, 1).links,
            lambda s, d, p: got.append((scheduler.now, s, d, p)),
        )
        if wifi:
            network.wifi = Links(random.Random(9), "tcp", default=LOSSY)
        for n in range(50):
            scheduler.at(n * 0.003, functools.partial(network.send, n % 3, (n + 1) % 3, n))
        while scheduler.step():
            pass
        return got

    plain = deliveries(False)
    assert plain == deliveries(False)
    shaped = deliveries(True)
    assert len(shaped) == len(plain) == 50
    assert [t for t, *_ in shaped] != [t for t, *_ in plain]
