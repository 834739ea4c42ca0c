"""How fast each bot level plays, in people's figures: python tools/pace.py [--seeds K] [--json].

``python tools/pace.py [--seeds K] [--players N] [--json]`` plays, for every level, K
simulated one-round tables of N bots of that level (the real protocol on an ideal
network, simulated time) and prints per level:

- moves per second: the moves a seat made (stock turns included; stuck declarations
  not), over the seconds the round was played;
- Nerts cards off in the first 20 s: how many of its 13 a seat had played by then,
  the median seat and the fastest (the table screen's test: a newcomer who has not
  pressed a key for 20 s still sees every bot at 8 or more);
- the round's length in seconds (median).

The levels are meant to span people: about 0.3 moves a second for a beginner, 1 for a
practised player, 2 for the quickest people; above that, beyond human.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys

from p2pnerts.bots import LEVELS, BotDriver, Level
from p2pnerts.driver import Driver
from p2pnerts.protocol import Event, PlayCommitted, RoundOver, RoundStarted
from p2pnerts.rules import NERTS, DeclareStuck, ToFoundation, ToWork
from p2pnerts.sim import Lineup, SimConfig, Simulation

EARLY = 20.0
"""Seconds of play after which the Nerts piles are counted."""


def measure(lvl: Level, seeds: int, players: int) -> dict[str, float]:
    """Play ``seeds`` one-round tables of ``players`` bots of ``lvl``; their figures."""
    rates: list[float] = []
    early: list[int] = []
    lengths: list[float] = []
    for seed in range(seeds):
        r, e, length = _one_round(lvl, seed, players)
        rates += r
        early += e
        lengths.append(length)
    return {
        "level": lvl.number,
        "moves_per_second": statistics.median(rates),
        "nerts_off_20s_median": statistics.median(early),
        "nerts_off_20s_most": max(early),
        "round_seconds": statistics.median(lengths),
    }


def _one_round(lvl: Level, seed: int, players: int) -> tuple[list[float], list[int], float]:
    moves = [0] * players
    nerts_early = [0] * players
    times: dict[str, float] = {}
    clock: list[Simulation] = []

    def hear(seat: int, event: Event) -> None:
        if seat != 0:
            return  # every replica hears the same commits: count them at one
        now = clock[0].now
        match event:
            case RoundStarted():
                times.setdefault("start", now)
            case RoundOver():
                times.setdefault("end", now)
            case PlayCommitted(seat=who, move=move) if not isinstance(move, DeclareStuck):
                moves[who] += 1
                from_nerts = isinstance(move, ToFoundation | ToWork) and move.source == NERTS
                if from_nerts and now - times["start"] <= EARLY:
                    nerts_early[who] += 1

    def bots(seat: int, rng: random.Random) -> Driver:
        return BotDriver(lvl.make(rng), lvl.pace)

    config = SimConfig(peers=players, rounds=1)
    sim = Simulation(config, seed, bots, Lineup(hear=hear))
    clock.append(sim)
    result = sim.run()
    assert result.violation is None, result.violation
    played = times["end"] - times["start"]
    return [m / played for m in moves], nerts_early, played


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=6)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = [measure(lvl, args.seeds, args.players) for lvl in LEVELS]
    if args.json:
        json.dump(rows, sys.stdout, indent=1)
        print()
        return
    print(f"{args.players} bots of one level, {args.seeds} one-round tables per level")
    print("level  name                          moves/s  Nerts off in 20 s  round")
    print("                                              median   most")
    for lvl, row in zip(LEVELS, rows, strict=True):
        print(
            f"{lvl.number:>5}  {lvl.name:<28}  {row['moves_per_second']:>7.2f}"
            f"  {row['nerts_off_20s_median']:>6.0f}  {row['nerts_off_20s_most']:>5}"
            f"  {row['round_seconds']:>5.0f} s"
        )


if __name__ == "__main__":
    main()
