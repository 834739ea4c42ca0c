"""Commit rules and transports on simulated Wi-Fi: python tools/commit_study.py [--peers 4]...

Issue 45's study. For each table size and network (all on good Wi-Fi, 3 ± 2 ms; one laptop
sending at 30 ± 60 ms with 5% lost; one laptop silent for 2 s, 20 s into play, and left out
2 s after it fell silent; with ``--networks hiccup``, the same silence with the laptop never
left out, the table waiting for it), it runs
the real replicas of `p2pnerts.sim` on the Wi-Fi link model over TCP (today's protocol),
and then evaluates the commit rules of `commit_rules` over the same link model and the
same plays (who played when, from the replica's run). It prints, per rule, the commit
latency of the healthy seats' own plays and of the laptop's (p50/p90/p99/max, ms), frames
and bytes per play (heartbeats aside, and with them), the Wi-Fi air they take
(`commit_frames.airtime`; today's TCP's own ACKs not counted), plays returned, and CPU per
play (the replica's measured; a rule's estimated as the frames it handles at the replica's
cost per frame). One seed and one round each by default (a few minutes); --rounds for more
plays, --pace for faster bots, --heartbeat for the rules' heartbeats.

``--load RATE ...`` runs instead `barrier_load`: Nerts calls among plays made at RATE a
second a seat, by the rule as built, and how soon each call lands. ``--frames`` prints
instead rule ``signed``'s vote and outcome, in bytes, as priced here and as version 3 lays
them out (`commit_frames.laid_out`).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from commit_frames import Result, Sizes, airtime, laid_out  # beside this script
from commit_rules import HEARTBEAT, RULES, SAME_FRAMES, Table

from p2pnerts.bots import Reaction, SimpleBots
from p2pnerts.protocol import (
    Ack,
    Event,
    Message,
    Play,
    PlayCommitted,
    PlayReturned,
    encode,
)
from p2pnerts.protocol import Replica as _Replica
from p2pnerts.protocol._spots import ALL, Spot, spots_of
from p2pnerts.rules import ToFoundation
from p2pnerts.sim import Links, LinkStall, SimConfig, Simulation, Transport, Watcher, Wifi, laptop

GOOD = Wifi(0.003, 0.002)
BAD = Wifi(0.030, 0.060, loss=0.05)
STALL_AT, STALL_FOR = 20.0, 2.0
LEFT_OUT_AFTER = 2.0
"""A silent member is left out this long after it went silent (SPEC §6.2)."""
NETWORKS = ("good", "bad", "stall")
HICCUP = "hiccup"
"""The stall, the laptop never left out: what a rule costs the others while it waits."""
VARIANTS: tuple[tuple[str, Transport], ...] = (
    ("today", "tcp"),
    ("today", "datagram"),
    ("sender", "tcp"),
    ("sender", "datagram"),
    ("majority", "tcp"),
    ("majority", "datagram"),
    ("spot", "tcp"),
    ("spot", "datagram"),
    ("signed", "tcp"),
    ("signed", "datagram"),
    ("asked", "tcp"),
    ("asked", "datagram"),
    ("accountable", "tcp"),
    ("accountable", "datagram"),
    ("broadcast", "tcp"),
    ("broadcast", "datagram"),
    ("built", "tcp"),
    ("built", "datagram"),
)
PACE = {2: 1.6, 4: 1.6, 6: 1.6, 14: 0.6}
"""Moves a second of the bots: level 6's at small tables, level 3's at 14 (as measured)."""


def shapes(network: str, peers: int) -> dict[tuple[int, int], Wifi]:
    """Every direction's Wi-Fi; the laptop is the last seat."""
    laptop_seat = peers - 1
    if network == "bad":
        return laptop(peers, laptop_seat, BAD, base=GOOD)
    if network in ("stall", HICCUP):
        cut = Wifi(GOOD.delay, GOOD.jitter, stalls=(LinkStall(STALL_AT, STALL_FOR),))
        return laptop(peers, laptop_seat, cut, into=cut, base=GOOD)
    return laptop(peers, laptop_seat, GOOD, base=GOOD)


class _Plays(Watcher):
    """Watches a run: when each seat sent each of its plays, and when it landed there."""

    def __init__(self) -> None:
        self.sent_at: dict[tuple[int, int], tuple[float, bool]] = {}
        """Per play in the air, when it was sent and whether it goes onto a foundation."""
        self.workload: list[tuple[float, int, tuple[Spot, ...]]] = []
        self.latencies: dict[int, list[float]] = defaultdict(list)
        """Per seat, the commit latency of each of its own plays, whatever the move."""
        self.foundation: dict[int, list[float]] = defaultdict(list)
        """Per seat, those of its plays onto a foundation alone: what a real peer's
        ``--stats`` gives (`p2pnerts.net.PeerStats.commit_latencies`), and the plays that
        race other seats' (a move on the seat's own tableau races nothing)."""

    def sent(self, seat: int, message: Message, now: float) -> None:
        if isinstance(message, Play) and (seat, message.clock) not in self.sent_at:
            self.sent_at[seat, message.clock] = now, isinstance(message.move, ToFoundation)
            self.workload.append((now, seat, spots_of(message.move, deck=seat)))  # no teams

    def stepped(self, seat: int, replica: _Replica, events: Sequence[Event], now: float) -> None:
        for event in events:
            if isinstance(event, PlayCommitted | PlayReturned) and event.seat == seat:
                sent = self.sent_at.pop((seat, event.clock), None)
                if sent is None:
                    continue
                at, up = sent
                self.latencies[seat].append(now - at)
                if up:
                    self.foundation[seat].append(now - at)


@dataclass(frozen=True, slots=True)
class Replayed:
    """The replica's run: its figures, the plays made, and the frame sizes it sent."""

    row: dict[str, Any]
    workload: list[tuple[float, int, tuple[Spot, ...]]]
    sizes: Sizes
    cpu_per_frame: float


def replica_run(
    peers: int, network: str, rounds: int, seed: int, pace: float | None = None
) -> Replayed:
    """Today's protocol: the real replicas on the Wi-Fi links over TCP, the bots making
    ``pace`` moves a second (`PACE` unless given)."""
    config = SimConfig(peers=peers, rounds=rounds)
    think = 1 / (1.5 * (pace or PACE.get(peers, 1.6)))  # as a level of so many moves a second
    bots = SimpleBots(pace=Reaction(think, think).pace)
    sim = Simulation(config, seed, bots)
    sim.network.wifi = Links(random.Random(f"wifi:{seed}"), "tcp", shapes(network, peers))
    plays = _Plays()
    sim.watchers.append(plays)
    start = time.process_time()
    result = sim.run()
    cpu = time.process_time() - start
    t = result.tally
    done = max(1, t.plays + t.returns)
    per_play, bytes_per_play = t.per_play()
    frames = t.messages.total()
    row = figures(plays.latencies, peers)
    row |= {
        "rule": "today (replica)",
        "transport": "tcp",
        "frames": round(per_play, 1),
        "frames_hb": round(frames / done, 1),
        "bytes": round(bytes_per_play),
        **air(t.messages, t.bytes, done),
        "returned": t.returns,
        "plays": done,
        "cpu_ms": round(1000 * cpu / done, 2),
        "violation": None if result.violation is None else result.violation.message,
    }

    def mean(kind: str) -> int:
        return round(t.bytes[kind] / max(1, t.messages[kind]))

    sizes = Sizes(mean("ordered"), mean("ack"), mean("heartbeat"), small_frame())
    return Replayed(row, sorted(plays.workload), sizes, cpu / max(1, frames))


def small_frame() -> int:
    """A frame that names one play: a header, its seq and a witness (an Ack of one seat)."""
    ack = Ack(0, 1, 100_000, 50_000, (5_000,), 4_000, bytes(16), ((3, 5_000, bytes(16)),))
    return len(encode(ack))


def figures(latencies: dict[int, list[float]], peers: int) -> dict[str, Any]:
    """Percentiles (ms) of the healthy seats' own plays, and of the laptop's (the last)."""
    healthy = sorted(x for seat, xs in latencies.items() if seat != peers - 1 for x in xs)
    bad = sorted(latencies.get(peers - 1, []))
    return {"healthy": percentiles(healthy), "laptop": percentiles(bad)}


def air(frames: Counter[str], size: Counter[str], plays: int) -> dict[str, float]:
    """The Wi-Fi air a play takes (ms, `airtime`), heartbeats aside and with them."""
    return {
        "air_ms": round(airtime(frames, size) / 1000 / plays, 1),
        "air_hb_ms": round(airtime(frames, size, aside="") / 1000 / plays, 1),
    }


def percentiles(xs: list[float]) -> dict[str, float]:
    if not xs:
        return {}

    def at(q: float) -> float:
        return round(1000 * xs[min(len(xs) - 1, int(q * len(xs)))], 1)

    return {"p50": at(0.5), "p90": at(0.9), "p99": at(0.99), "max": round(1000 * xs[-1], 1)}


def rule_run(
    rule: str,
    transport: Transport,
    peers: int,
    network: str,
    replayed: Replayed,
    seed: int,
    heartbeat: float = HEARTBEAT,
) -> dict[str, Any]:
    """One commit rule, evaluated over the Wi-Fi link model on the replica's plays (a seat
    silent for ``heartbeat`` seconds sends a heartbeat)."""
    timings = SAME_FRAMES.get(rule, rule)
    links = Links(random.Random(f"wifi:{seed}:{timings}"), transport, shapes(network, peers))
    away = {}
    if network == "stall" and peers > 2:  # (two seats hold no majority to leave one out)
        away[peers - 1] = (STALL_AT + LEFT_OUT_AFTER, float("inf"))
    table = Table(rule, links, replayed.workload, replayed.sizes, peers, away, heartbeat)
    start = time.process_time()
    result = table.run()
    cpu = time.process_time() - start
    return summary(result, rule, transport, peers, replayed) | {
        "model_cpu_ms": round(1000 * cpu / max(1, result.plays), 3)
    }


def summary(
    result: Result, rule: str, transport: str, peers: int, replayed: Replayed
) -> dict[str, Any]:
    plays = max(1, result.plays)
    heartbeats = result.frames["heartbeat"]
    frames = result.frames.total()
    return figures(result.latencies, peers) | {
        "rule": rule,
        "transport": transport,
        "frames": round((frames - heartbeats) / plays, 1),
        "frames_hb": round(frames / plays, 1),
        "bytes": round((result.bytes.total() - result.bytes["heartbeat"]) / plays),
        **air(result.frames, result.bytes, plays),
        "returned": sum(result.returned.values()),
        "asks": round(result.frames["ask"] / plays, 2),
        "laptop_returned": result.returned[peers - 1],
        "plays": result.plays,
        "conflicts": result.conflicts,
        "misordered": result.misordered,
        "unfinished": sum(result.unfinished(seat) for seat in range(peers - 1)),
        "cpu_ms": round(1000 * replayed.cpu_per_frame * result.handled / plays, 2),
        "barriers": result.barriers,
        "barriers_late": result.barriers_late,
        "barrier_wait": percentiles(sorted(result.barrier_waits)),
    }


def floor_ms(peers: int, network: str, draws: int = 4000) -> float:
    """The median, over a healthy seat's plays, of one round trip to its farthest member."""
    rng = random.Random(peers)
    net = shapes(network, peers)
    trips = sorted(
        max(net[0, r].travel(rng) + net[r, 0].travel(rng) for r in range(1, peers))
        for _ in range(draws)
    )
    return round(1000 * statistics.median(trips), 1)


def study(
    peers: int,
    network: str,
    rounds: int,
    seed: int,
    rules: Sequence[str] = RULES,
    pace: float | None = None,
    heartbeat: float = HEARTBEAT,
) -> list[dict[str, Any]]:
    replayed = replica_run(peers, network, rounds, seed, pace)
    rows = [replayed.row]
    for rule, transport in VARIANTS:
        if rule in rules:
            row = rule_run(rule, transport, peers, network, replayed, seed, heartbeat)
            rows.append(row)
    floor = floor_ms(peers, network)
    for row in rows:
        row |= {"peers": peers, "network": network, "floor_ms": floor}
    return rows


def show(rows: list[dict[str, Any]]) -> None:
    print(
        "peers network  rule              over      healthy p50/p90/p99/max ms"
        "      laptop p50/p99/max   frames (+hb)  bytes  air ms (+hb)  returned  cpu ms  floor"
    )
    for r in rows:
        h, b = r["healthy"], r["laptop"]
        hp = "/".join(f"{h.get(k, 0):g}" for k in ("p50", "p90", "p99", "max"))
        bp = "/".join(f"{b.get(k, 0):g}" for k in ("p50", "p99", "max"))
        print(
            f"{r['peers']:>5} {r['network']:<8} {r['rule']:<17} {r['transport']:<9}"
            f"{hp:>26} {bp:>22} {r['frames']:>7.1f} ({r['frames_hb']:>5.1f})"
            f" {r['bytes']:>6} {r['air_ms']:>7.1f} ({r['air_hb_ms']:>5.1f})"
            f" {r['returned']:>5}/{r['plays']:<5}"
            f" {r['cpu_ms']:>6.2f}"
            f" {r['floor_ms']:>5}"
        )
        if r.get("violation"):
            print(f"      the replica's run stopped: {r['violation']}")
        if r.get("unfinished"):
            print(f"      {r['unfinished']} healthy seats' plays never committed nor returned")
        if r.get("conflicts"):
            print(f"      {r['conflicts']} plays decided two ways by two deciders")
        if r.get("barriers_late"):
            w = r["barrier_wait"]
            print(
                f"      {r['barriers_late']} returns of {r['barriers']} plays on the whole table,"
                f" each sent again: landed after p50 {w.get('p50', 0):g},"
                f" max {w.get('max', 0):g} ms"
            )
        if r.get("misordered"):
            print(f"      {r['misordered']} pairs of conflicting plays committed out of key order")


CALLS = 10
"""Nerts calls a `barrier_load` run makes, evenly spread, from seat after seat."""
LOAD_SECONDS = 5.0
"""How long a `barrier_load` run plays."""


def barrier_load(
    peers: int, rate: float, seconds: float, replayed: Replayed, seed: int
) -> dict[str, Any]:
    """How a play on the whole table fares under load, by the rule as built over datagrams
    on good Wi-Fi: every seat plays ``rate`` times a second (Poisson, on the spots of the
    replica's plays, each on its own tableau) for ``seconds``, and `CALLS` Nerts calls go
    out among them, each sent again while it comes back late."""
    rng = random.Random(f"load:{seed}:{peers}:{rate}")
    mix = [spots for _, _, spots in replayed.workload if spots != (ALL,)]
    work = []
    for seat in range(peers):
        at = rng.expovariate(rate)
        while at < seconds:
            spots = tuple(("deck", seat) if s[:1] == ("deck",) else s for s in rng.choice(mix))
            work.append((at, seat, spots))
            at += rng.expovariate(rate)
    work += [(seconds * (i + 1) / (CALLS + 1), i % peers, (ALL,)) for i in range(CALLS)]
    links = Links(random.Random(f"wifi:{seed}:load"), "datagram", shapes("good", peers))
    result = Table("spot", links, sorted(work), replayed.sizes, peers).run()
    return {
        "peers": peers,
        "rate": rate,
        "plays": len(work),
        "calls": result.barriers,
        "sent_again": result.barriers_late,
        "landed": len(result.barrier_waits),
        "wait": percentiles(sorted(result.barrier_waits)),
        "healthy": figures(result.latencies, peers + 1)["healthy"],  # (every seat: no laptop)
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peers", type=int, nargs="+", default=[2, 4, 6, 14])
    parser.add_argument(
        "--networks", nargs="+", choices=(*NETWORKS, HICCUP), default=list(NETWORKS)
    )
    parser.add_argument("--rounds", type=int, default=1, help="rounds of each replica run")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--pace", type=float, help="the bots' moves a second (level 6's 1.6, level 3's 0.6 at 14)"
    )
    parser.add_argument("--rules", nargs="+", choices=RULES, default=list(RULES))
    parser.add_argument(
        "--heartbeat",
        type=float,
        default=HEARTBEAT,
        metavar="S",
        help=f"the rules' heartbeat after S seconds of silence ({HEARTBEAT}; the replica's"
        " own stays)",
    )
    parser.add_argument(
        "--load",
        type=float,
        nargs="+",
        metavar="RATE",
        help="instead: Nerts calls among plays at RATE a second a seat (`barrier_load`)",
    )
    parser.add_argument(
        "--frames",
        action="store_true",
        help="instead: rule signed's frames as priced here and as version 3 lays them out",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.load:
        return show_load(args.peers, args.load, args.seed, args.json)
    if args.frames:
        return show_frames(args.peers, args.seed, args.json)
    rows = []
    for peers in args.peers:
        for network in args.networks:
            cell = study(
                peers, network, args.rounds, args.seed, args.rules, args.pace, args.heartbeat
            )
            rows += cell
            if not args.json:
                show(cell)
    if args.json:
        print(json.dumps(rows, indent=1))
    return 0


def show_frames(peers: Sequence[int], seed: int, as_json: bool) -> int:
    """Rule ``signed``'s vote and outcome, bytes as the model prices them (from a replica
    run's frames, on good Wi-Fi) and as `p2pnerts.protocol._ballots` lays them out."""
    rows = []
    for n in peers:
        prices = laid_out(n, replica_run(n, "good", 1, seed).sizes)
        rows.append({"peers": n, **{kind: list(both) for kind, both in prices.items()}})
        if not as_json:
            print(
                f"{n:>3} seats: "
                + "; ".join(f"{kind} {m} priced, {r} laid out" for kind, (m, r) in prices.items())
            )
    if as_json:
        print(json.dumps(rows, indent=1))
    return 0


def show_load(peers: Sequence[int], rates: Sequence[float], seed: int, as_json: bool) -> int:
    rows = []
    for n in peers:
        replayed = replica_run(n, "good", 1, seed)
        for rate in rates:
            row = barrier_load(n, rate, LOAD_SECONDS, replayed, seed)
            rows.append(row)
            if not as_json:
                w, h = row["wait"], row["healthy"]
                print(
                    f"{n:>3} seats, {rate:g} plays a second a seat: {row['plays']} plays;"
                    f" {row['calls']} calls sent again {row['sent_again']} times, {row['landed']}"
                    f" landed after p50 {w.get('p50', 0):g}, max {w.get('max', 0):g} ms;"
                    f" plays p50/p99 {h.get('p50', 0):g}/{h.get('p99', 0):g} ms"
                )
    if as_json:
        print(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
