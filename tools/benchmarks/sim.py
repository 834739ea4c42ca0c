"""The simulator's speed, and the protocol's cost per play: python tools/bench.py sim [--json].

Simulated rounds per second at 4 and 14 peers, invariant checks on and no faults; then,
by peer count, the messages, bytes and commit latency of a committed play, against a
central sequencer's and against the floor any commit rule that waits for every member pays.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from collections.abc import Sequence
from typing import Any

from p2pnerts import sim
from p2pnerts.bots import SimpleBots
from p2pnerts.protocol import Timing
from p2pnerts.sim import SimConfig

SIM_SPEED_PEERS = (4, 14)
SIM_COST_PEERS = (2, 3, 4, 6, 8, 10, 14)


def sim_speed(
    peers: int, rounds: int, seeds: Sequence[int], *, majority: bool = False
) -> dict[str, Any]:
    """Simulated rounds per second of one core, invariant checks on, no faults."""
    config = SimConfig(peers=peers, rounds=rounds, majority=majority)
    start = time.perf_counter()
    report = sim.run(config, seeds, SimpleBots())
    elapsed = time.perf_counter() - start
    done = report.tally.rounds
    return {
        "peers": peers,
        "rounds": done,
        "seconds": round(elapsed, 3),
        "rounds_per_s": done / elapsed,
        "violations": len(report.violations),
    }


def sim_cost(
    peers: int,
    rounds: int,
    seeds: Sequence[int],
    timing: Timing | None = None,
    *,
    majority: bool = False,
) -> dict[str, Any]:
    """Messages and bytes per committed play, and commit latency against the baseline."""
    config = SimConfig(peers=peers, rounds=rounds, timing=timing or Timing(), majority=majority)
    report = sim.run(config, seeds, SimpleBots(), sequencer=True)
    figures = report.to_json()
    t = report.tally
    plays = max(1, t.plays + t.returns)
    # Each ordered message (a play, and every seat's Ready and Reveal of a round) goes to
    # every other seat once on a table without faults.
    ordered = max(1.0, (t.messages["ordered"] + t.messages["reveal"]) / max(1, peers - 1))
    ours, theirs = figures["commit_latency"], figures["sequencer"]["commit_latency"]
    return {
        "peers": peers,
        "plays": t.plays + t.returns,
        "messages_per_play": figures["messages_per_play"],
        "frames_per_ordered": round(t.sent()[0] / ordered, 2),
        "ordered_per_play": round(t.messages["ordered"] / plays, 2),
        "acks_per_play": round(t.messages["ack"] / plays, 2),
        "commit_frames_per_play": round(t.messages["commit"] / plays, 2),
        "heartbeats_per_play": round(t.messages["heartbeat"] / plays, 2),
        "aim_per_play": 2 * (peers - 1),
        "bytes_per_play": figures["bytes_per_play"],
        "p2p_p50_rtt": ours.get("p50_rtt", 0.0),
        "p2p_p95_rtt": ours.get("p95_rtt", 0.0),
        "p2p_within_target": ours.get("within_target", 0.0),
        "floor_p50_rtt": statistics.median(f for s in seeds for f in sim.commit_floors(config, s)),
        "sequencer_p50_rtt": theirs["p50_rtt"],
        "sequencer_p95_rtt": theirs["p95_rtt"],
        "sequencer_messages_per_play": figures["sequencer"]["messages_per_play"],
        "violations": figures["invariant_violations"],
    }


def bench_sim(args: argparse.Namespace) -> dict[str, Any]:
    seeds = range(int(args.seed), int(args.seed) + int(args.seeds))
    majority = bool(args.majority)
    speed = [sim_speed(p, int(args.rounds), seeds, majority=majority) for p in SIM_SPEED_PEERS]
    timing = Timing(ack_at_once=bool(args.ack_at_once))
    cost = [sim_cost(p, int(args.rounds), seeds, timing, majority=majority) for p in SIM_COST_PEERS]
    if not args.json:
        acks = "at once unless one went out within" if args.ack_at_once else "after"
        print(f"simulator, one core, Python {platform.python_version()}, faults none")
        if majority:
            print("commits by a majority: Ballots and Tallies count among the acks below")
        print(f"Acks {acks} {1000 * timing.ack_delay:g} ms (the costs below)")
        for row in speed:
            print(f"{row['peers']:>5} peers: {row['rounds_per_s']:6.2f} rounds/s")
        print(
            "\nper committed play, heartbeats aside; commit latency in round trips (mean RTT)\n"
            "peers  msgs  a message  ordered   acks  aim 2(N-1)  bytes  p2p p50/p95  in target"
            "  floor p50  sequencer p50/p95  msgs"
        )
        for r in cost:
            print(
                f"{r['peers']:>5} {r['messages_per_play']:5.1f} {r['frames_per_ordered']:10.1f} "
                f"{r['ordered_per_play']:8.1f} "
                f"{r['acks_per_play'] + r['commit_frames_per_play']:6.1f} {r['aim_per_play']:11} "
                f"{r['bytes_per_play']:6.0f} "
                f"{r['p2p_p50_rtt']:6.2f}/{r['p2p_p95_rtt']:4.2f} "
                f"{100 * r['p2p_within_target']:9.0f}% "
                f"{r['floor_p50_rtt']:10.2f} "
                f"{r['sequencer_p50_rtt']:11.2f}/{r['sequencer_p95_rtt']:4.2f} "
                f"{r['sequencer_messages_per_play']:5.1f}"
            )
        print(
            "a message: the frames an ordered message costs (a play, or a Ready or Reveal of "
            "a round,\nwhich the other columns count against the plays)\n"
            "floor: the mean round trip to the farthest other peer, which any commit rule "
            "that waits\nfor every member to hold a play costs its player at the least"
        )
        broken = sum(r["violations"] for r in speed + cost)
        if broken:
            print(
                f"\n{broken} runs broke an invariant and stopped early, so their figures mean "
                "little: `p2pnerts sim --faults none` on their seeds shows why"
            )
    return {"speed": speed, "cost": cost}
