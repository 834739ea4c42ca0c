"""The modelled network: FIFO links with their own delays, drops, and slow peers."""

from __future__ import annotations

import functools
import random

from p2pnerts.sim import LinkModel, Network, Scheduler, SimConfig, commit_floors


def _network(
    model: LinkModel, peers: int = 3
) -> tuple[Scheduler, Network[int], list[tuple[float, int, int, int]]]:
    scheduler = Scheduler()
    got: list[tuple[float, int, int, int]] = []
    links = {(a, b): model for a in range(peers) for b in range(a + 1, peers)}

    def arrive(src: int, dst: int, payload: int) -> None:
        got.append((scheduler.now, src, dst, payload))

    return scheduler, Network(scheduler, random.Random(7), links, arrive), got


def _drain(scheduler: Scheduler) -> None:
    while scheduler.step():
        pass


def _send_at(network: Network[int], time: float, src: int, dst: int, payload: int) -> None:
    network.scheduler.at(time, functools.partial(network.send, src, dst, payload))


def test_a_link_never_lets_a_message_overtake_an_earlier_one() -> None:
    scheduler, network, got = _network(LinkModel(0.001, 0.05, spike_chance=0.3, spike=0.2))
    for n in range(200):
        _send_at(network, n * 0.001, 0, 1, n)
        _send_at(network, n * 0.001, 1, 0, n)
    _drain(scheduler)
    for src, dst in ((0, 1), (1, 0)):
        payloads = [p for _, s, d, p in got if (s, d) == (src, dst)]
        assert payloads == list(range(200))


def test_delays_stay_within_the_model() -> None:
    scheduler, network, got = _network(LinkModel(0.010, 0.005))
    for n in range(50):
        _send_at(network, n * 1.0, 0, 2, n)
    _drain(scheduler)
    assert all(0.010 <= t - p * 1.0 <= 0.015 for t, _, _, p in got)


def test_a_drop_loses_what_is_in_flight_and_what_is_sent_while_down() -> None:
    scheduler, network, got = _network(LinkModel(0.1, 0.0))
    network.send(0, 1, 1)
    network.send(0, 2, 2)
    network.hold_down(1, 0)
    assert not network.is_up(0, 1) and network.is_up(0, 2)
    assert not network.send(0, 1, 3)
    assert network.release(0, 1)
    assert network.send(0, 1, 4)
    _drain(scheduler)
    assert [p for _, _, _, p in got] == [2, 4]


def test_a_link_held_down_twice_comes_up_when_both_reasons_lift() -> None:
    _, network, _ = _network(LinkModel())
    network.hold_down(0, 1)  # a partition …
    network.hold_down(0, 1)  # … and a crash
    assert not network.release(0, 1)
    assert not network.is_up(0, 1)
    assert network.release(0, 1)
    assert network.is_up(0, 1)


def test_a_slow_peer_delays_what_it_sends_and_receives() -> None:
    scheduler, network, got = _network(LinkModel(0.001, 0.0))
    network.slow[1] = 0.5
    for n in range(100):
        _send_at(network, n, 0, 1, n)
        _send_at(network, n, 0, 2, n)
    _drain(scheduler)
    late = [t - p for t, _, d, p in got if d == 1]
    prompt = [t - p for t, _, d, p in got if d == 2]
    assert max(prompt) < 0.0011
    assert max(late) > 0.1 and all(d <= 0.5011 for d in late)


def test_the_commit_floor_is_the_round_trip_to_the_farthest_peer_in_mean_round_trips() -> None:
    two = commit_floors(SimConfig(2, 1), 1)
    assert two == [1.0, 1.0]  # one link: its round trip is the mean
    five = commit_floors(SimConfig(5, 1), 3)
    assert len(five) == 5 and min(five) > 0
    # The two seats of the longest link have it as their farthest: above the mean link.
    assert sorted(five)[-2:] == [max(five)] * 2 and max(five) > 1.0
