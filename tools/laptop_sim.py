"""One bad laptop at a simulated table that commits by a majority: python tools/laptop_sim.py
[--peers 6] [--seeds 3] [--rounds 2] [--networks good bad stall] [--policy simple].

The simulator's replicas (`p2pnerts.sim`, ``majority=True``) on the Wi-Fi link model over
TCP that issue 45's study uses (`commit_study.shapes`: every direction at 3 ± 2 ms; ``bad``:
the last seat sends at 30 ± 60 ms with 5% lost; ``stall``: its links cut for 2 s, 20 s into
play), bots at the study's pace, two rounds a seed as `bad_laptop.py` plays. The bots play
the simulator's simple policy unless told another (``--policy expert`` is what the real
runs' level-6 bots play: it races for the foundations far more, and so splits more votes
on the laptop's plays). For each network it prints, over every seed together, the commit
latency of the healthy seats' own plays onto a foundation and of the laptop's (``p50``,
``p99``, ``p99.9`` and ``max``, the longest, ms, each by its name), then the same of
every own play whatever the move (``every_play``: moves on a seat's own tableau race
nothing, and make most plays), frames and bytes a play (heartbeats aside; the commit
frames among them) and the CPU the runs took: the figures `bad_laptop.py` takes from real
processes (whose ``--stats`` time foundation plays alone), deterministic and in seconds.

A run is deterministic, but a change moves every play after the first it touches, so two
trees on the same seeds play different games, and the healthy p99 moves by milliseconds
from nothing more. Beside the healthy p99 it prints its 95% interval over the seeds
resampled (``healthy_p99_95``, `BOOTSTRAP` times, with a fixed seed). ``--save FILE`` keeps
each seed's healthy latencies; ``--against FILE`` reads such a file of another tree, run
on the same peers, network, policy, rounds and seeds, and prints this run's p99 less that
one's with its 95% interval over the same resamplings (``p99_less_saved``): a change has
moved the tail only where that interval leaves out 0. Use 24 seeds or more: the p99 rests
on a few plays of a few seeds, and at 8 the interval is too narrow to trust (one change
measured -7.4 ms, -9.2 to -0.4, on seeds 1-8, and +3.3 ms, -2.6 to +10.1, on seeds 1-24).

    python tools/laptop_sim.py --peers 6 --seeds 3
    PYTHONPATH=/other/checkout python /other/checkout/tools/laptop_sim.py   (another tree)
    python tools/laptop_sim.py --seeds 24 --networks bad --policy expert --save before.json
    PYTHONPATH=/changed/tree python tools/laptop_sim.py --seeds 24 --networks bad \
        --policy expert --against before.json
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

from commit_study import PACE, _Plays, shapes  # beside this script

from p2pnerts.bots import POLICIES, BotDriver, Reaction
from p2pnerts.driver import Pace
from p2pnerts.sim import Links, SimConfig, Simulation

QUANTILES = {"p50": 0.5, "p99": 0.99, "p99.9": 0.999, "max": 1.0}
"""What the figures give of each seat's latencies: p50, p99, p99.9 and the longest."""
BOOTSTRAP = 1000
"""Resamplings of the seeds behind each interval."""


def _quantile(values: list[float], share: float) -> float | None:
    """The ``share`` quantile of ``values`` (seconds), in ms; None of none."""
    if not values:
        return None
    ordered = sorted(values)
    return round(1000 * ordered[min(len(ordered) - 1, int(share * len(ordered)))], 1)


def _figures(pooled: dict[str, list[float]]) -> dict[str, dict[str, float | None]]:
    """The quantiles of the healthy seats' latencies and of the laptop's, each by its name
    (a list of four once had its p99.9 read as the p99)."""
    return {
        who: {name: _quantile(values, q) for name, q in QUANTILES.items()}
        for who, values in pooled.items()
    }


BySeed = dict[int, list[float]]
"""The healthy seats' latencies of each seed."""


def _p99(run: BySeed, seeds: list[int]) -> float:
    """The p99 (ms) of ``seeds``' latencies in ``run``, pooled."""
    return _quantile([x for seed in seeds for x in run[seed]], 0.99) or 0.0


def p99_interval(run: BySeed, before: BySeed | None = None) -> list[float]:
    """The 95% interval of ``run``'s p99 (ms), less ``before``'s if given (the same seeds),
    over its seeds resampled with replacement, the same resamplings for both."""
    seeds = sorted(run)
    draw = random.Random(f"bootstrap:{len(seeds)}")
    values = []
    for _ in range(BOOTSTRAP):
        chosen = [draw.choice(seeds) for _ in seeds]
        values.append(_p99(run, chosen) - (0.0 if before is None else _p99(before, chosen)))
    values.sort()
    return [round(values[BOOTSTRAP // 40], 1), round(values[BOOTSTRAP - 1 - BOOTSTRAP // 40], 1)]


class _Bots:
    """A bot of one policy (a name in `POLICIES`) at every seat, all at one pace."""

    def __init__(self, policy: str, pace: Pace) -> None:
        self.policy, self.pace = POLICIES[policy], pace

    def __call__(self, seat: int, rng: random.Random) -> BotDriver:
        return BotDriver(self.policy(rng), self.pace)


def network_run(
    peers: int, network: str, seeds: range, rounds: int = 2, policy: str = "simple"
) -> tuple[dict[str, object], BySeed]:
    """Every seed's round on ``network``, its latencies pooled, and the healthy seats' by
    seed."""
    up: dict[str, list[float]] = {"healthy": [], "laptop": []}
    by_seed: BySeed = {}
    every: dict[str, list[float]] = {"healthy": [], "laptop": []}
    cpu, frames, sent, plays, all_frames, all_bytes = 0.0, 0, 0, 0, 0.0, 0.0
    think = 1 / (1.5 * PACE.get(peers, 1.6))
    for seed in seeds:
        sim = Simulation(
            SimConfig(peers=peers, rounds=rounds, majority=True),
            seed,
            _Bots(policy, Reaction(think, think).pace),
        )
        sim.network.wifi = Links(random.Random(f"wifi:{seed}"), "tcp", shapes(network, peers))
        watched = _Plays()
        sim.watchers.append(watched)
        start = time.process_time()
        result = sim.run()
        cpu += time.process_time() - start
        if result.violation is not None:
            raise SystemExit(f"seed {seed}, {network}: {result.violation.message}")
        tally = result.tally
        plays += tally.plays + tally.returns
        per_play, bytes_per_play = tally.per_play()
        all_frames += per_play * (tally.plays + tally.returns)
        all_bytes += bytes_per_play * (tally.plays + tally.returns)
        frames += tally.messages["commit"]
        sent += tally.bytes["commit"]
        for pooled, by_seat in ((up, watched.foundation), (every, watched.latencies)):
            for seat, latencies in by_seat.items():
                pooled["laptop" if seat == peers - 1 else "healthy"].extend(latencies)
        healthy = [xs for seat, xs in watched.foundation.items() if seat != peers - 1]
        by_seed[seed] = [x for xs in healthy for x in xs]
    done = max(1, plays)
    return {
        "peers": peers,
        "network": network,
        "policy": policy,
        **_figures(up),
        "healthy_p99_95": p99_interval(by_seed),
        "every_play": _figures(every),
        "plays": plays,
        "frames": round(all_frames / done, 1),
        "bytes": round(all_bytes / done),
        "commit_frames": round(frames / done, 1),
        "commit_bytes": round(sent / done),
        "cpu_s": round(cpu, 1),
    }, by_seed


def _saved(path: str) -> dict[str, dict[str, list[float]]]:
    """The runs a ``--save`` kept in ``path``."""
    try:
        saved = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise SystemExit(f"cannot read {path} as runs laptop_sim.py saved: {exc}") from None
    if not isinstance(saved, dict):
        raise SystemExit(f"{path} holds no runs laptop_sim.py saved")
    return saved


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peers", type=int, nargs="+", default=[6])
    parser.add_argument("--seeds", type=int, default=3, help="seeds 1 to this, pooled")
    parser.add_argument("--networks", nargs="+", default=["good", "bad", "stall"])
    parser.add_argument("--rounds", type=int, default=2, help="rounds of each seed's match")
    parser.add_argument(
        "--policy",
        default="simple",
        choices=sorted(POLICIES),
        help="the bots' policy at every seat (default: simple, the simulator's own)",
    )
    parser.add_argument("--save", metavar="FILE", help="keep each seed's healthy latencies")
    parser.add_argument(
        "--against",
        metavar="FILE",
        help="a --save of another tree: print this run's healthy p99 less its, with an interval",
    )
    args = parser.parse_args()
    saved = {} if args.against is None else _saved(args.against)
    if args.save is not None and not Path(args.save).resolve().parent.is_dir():
        raise SystemExit(f"--save {args.save}: no such directory")
    kept: dict[str, BySeed] = {}
    seeds = range(1, args.seeds + 1)
    for peers in args.peers:
        for network in args.networks:
            name = (
                f"{peers} seats, {network}, {args.policy}, {args.rounds} rounds, {args.seeds} seeds"
            )
            if args.against is not None and name not in saved:
                raise SystemExit(f"{args.against} holds no run of {name}")
            run, kept[name] = network_run(peers, network, seeds, args.rounds, args.policy)
            if name in saved:
                before = {int(seed): xs for seed, xs in saved[name].items()}
                run["p99_less_saved"] = round(
                    _p99(kept[name], list(seeds)) - _p99(before, list(seeds)), 1
                )
                run["p99_less_saved_95"] = p99_interval(kept[name], before)
            print(json.dumps(run), flush=True)
    if args.save is not None:
        Path(args.save).write_text(json.dumps(kept))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
