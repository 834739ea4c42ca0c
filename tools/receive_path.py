"""The path a received message takes through protocol/: python tools/receive_path.py.

Plays simulated rounds on a quiet network and follows every message a replica receives,
from `Replica.receive` to its return, through the parts (modules) of `p2pnerts.protocol`:
each call into a function of another part than the one running is a **stop**; a stop at a
part the message had already left is a **return**. Prints, per kind of message, how many
were received and the mean parts, stops and returns of each, then a path of median length
and the one with the most stops, each stop as the function called there (what a student
reading the code for a received message must follow).

    python tools/receive_path.py [--peers 4] [--rounds 1] [--seed 1] [--kind Play] [--majority]

``--majority``: the replicas commit by version 3's majority rule, whose Ballots, Tallies
and Polls are received too.

Calls into `rules`, `words` and the standard library are not counted (a part of protocol
calling the rules engine is one step of its own work); nor are those into the modules
`QUIET` names, whose functions are the constructors of messages, events and errors (data,
not steps) and the package's glue.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

import p2pnerts.protocol
from p2pnerts.bots import SimpleBots
from p2pnerts.protocol import Replica
from p2pnerts.sim import MIXES, SimConfig, Simulation

PROTOCOL = str(Path(p2pnerts.protocol.__file__).parent)
QUIET = {"_events", "_messages", "_errors", "__init__"}
"""Parts whose functions are data (constructors, properties of messages) or package glue."""
ORIGINAL = Replica.receive


@dataclass
class Route:
    """One received message's route: its kind, and the parts it stopped at in order."""

    kind: str
    stops: list[str] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)
    """Each stop as the function it called there, ``part.function``."""

    @property
    def parts(self) -> int:
        return len(set(self.stops))

    @property
    def returns(self) -> int:
        return self.returned_to().total()

    def returned_to(self) -> Counter[str]:
        """How many times the path came back to each part it had left."""
        seen: set[str] = set()
        again: Counter[str] = Counter()
        for part in self.stops:
            if part in seen:
                again[part] += 1
            seen.add(part)
        return again


def _part(frame: FrameType) -> str | None:
    name = frame.f_code.co_filename
    if not name.startswith(PROTOCOL):
        return None
    part = Path(name).stem
    return None if part in QUIET else part


class Follower:
    """Follows one received message at a time through the parts it calls into."""

    def __init__(self) -> None:
        self.routes: list[Route] = []
        self._now: Route | None = None
        self._stack: list[str | None] = []

    def profile(self, frame: FrameType, event: str, arg: object) -> None:
        route = self._now
        if route is None:
            return
        if event == "call":
            part = _part(frame)
            running = next((p for p in reversed(self._stack) if p is not None), None)
            self._stack.append(part)
            if part is not None and part != running:
                route.stops.append(part)
                route.calls.append(f"{part}.{frame.f_code.co_name}")
        elif event == "return" and self._stack:
            self._stack.pop()

    def receive(self, replica: Replica, message: object, now: float, via: int | None) -> None:
        self._now, self._stack = Route(type(message).__name__), []
        sys.setprofile(self.profile)
        try:
            ORIGINAL(replica, message, now, via=via)  # type: ignore[arg-type]
        finally:
            sys.setprofile(None)
            self.routes.append(self._now)
            self._now = None


def follow(peers: int, rounds: int, seed: int, *, majority: bool = False) -> list[Route]:
    """The route of every message received in a simulated run on a quiet network."""
    follower = Follower()

    def receive(replica: Replica, message: object, now: float, *, via: int | None = None) -> None:
        follower.receive(replica, message, now, via)

    Replica.receive = receive  # type: ignore[method-assign,assignment]
    try:
        config = SimConfig(peers, rounds, MIXES["none"], majority=majority)
        Simulation(config, seed, SimpleBots()).run()
    finally:
        Replica.receive = ORIGINAL  # type: ignore[method-assign]
    return follower.routes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peers", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--kind", help="the longest path of this kind (default: any)")
    parser.add_argument("--majority", action="store_true", help="commit by the majority rule")
    args = parser.parse_args()
    routes = follow(args.peers, args.rounds, args.seed, majority=args.majority)
    by_kind: dict[str, list[Route]] = defaultdict(list)
    for route in routes:
        by_kind[route.kind].append(route)
    print(f"{'kind':<12}{'received':>9}{'parts':>8}{'stops':>8}{'returns':>9}   (means)")
    for kind, of_kind in sorted(by_kind.items(), key=lambda kv: -len(kv[1])):
        parts = statistics.mean(r.parts for r in of_kind)
        stops = statistics.mean(len(r.stops) for r in of_kind)
        back = statistics.mean(r.returns for r in of_kind)
        print(f"{kind:<12}{len(of_kind):>9}{parts:>8.1f}{stops:>8.1f}{back:>9.1f}")
    pool = sorted((r for r in routes if args.kind in (None, r.kind)), key=lambda r: len(r.stops))
    for name, route in (("a median", pool[len(pool) // 2]), ("the longest", pool[-1])):
        print(
            f"\n{name} path, a {route.kind}: {route.parts} parts, "
            f"{len(route.stops)} stops, {route.returns} returns"
        )
        print(" → ".join(route.calls))
        again = route.returned_to()
        print("returns to: " + ", ".join(f"{part} {n}" for part, n in again.most_common()))


if __name__ == "__main__":
    main()
