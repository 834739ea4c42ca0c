"""Tunes the expert bot's weights on the fast arena: python tools/tune.py [--iterations N].

The two sides of each step play head to head.

    python tools/tune.py [--iterations 150] [--rounds 400] [--seed 1] [--jobs N] [--out tuned.py]

Simultaneous-perturbation stochastic approximation (SPSA): each step changes every weight at
once, each up or down by a factor of e^0.25 (the signs drawn from the seed), seats the two
sides so made against each other for ``--rounds`` paired rounds of the fast arena (seeds of
their own), and moves the weights towards the side ahead in proportion to its margin (at
most 2 points a round counts: one lucky step must not carry the weights off). The weights
move in log space, within a factor of e^2 of where they started, and ``later`` stays under
1: above it a gain one move later counts for more than the same gain now, and the bot puts
every play off for ever.

After every step it writes ``--out``, a policy file whose class ``Tuned`` is the expert bot
with the weights found so far, to be measured as any policy is:

    p2pnerts arena --fast --policies strong,tuned.py:Tuned --rounds 1000 --seed 1

``python tools/tune.py`` (150 steps of 400 rounds, 60,000 rounds, 36 minutes on 2 cores,
run before the expert played on once no longer stuck) found nothing. The weights moved
little (the Nerts card x1.62, blocking x1.44, feeding x0.74, the rest within 25%), and they
play -0.38 +/- 0.56 points a round against the strong bot, -0.31 +/- 0.57 against the
expert bot and +0.12 +/- 0.57 against the priority bot (1,000 rounds, seed 1). The same
seed gives the same weights.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from p2pnerts.arena import play_arena
from p2pnerts.bots._expert import EXPERT
from p2pnerts.fanout import FanOutError, Where

TUNED = (
    "nerts_card",
    "nerts_up",
    "nerts_down",
    "nerts_guess",
    "space",
    "ready",
    "soon",
    "dig",
    "urgent",
    "race",
    "block",
    "worth",
    "later",
)
"""The weights it tunes: every one but the point a card up scores (the scale of the rest),
the counts (how wide and how far the search looks, when to call) and the weights the
expert has at 0 (``feed``, ``turn_guess``), which a factor cannot move."""
STEP, GAIN, STABILITY = 0.25, 0.03, 10
"""The perturbation in log space, the step's size at the start, and how slowly it shrinks
(the step after k iterations: GAIN * ((STABILITY + 1) / (STABILITY + 1 + k)) ** 0.602)."""
CLIP, BOUND, LATER_MAX = 2.0, 2.0, 0.95

Theta = list[float]


def weights(theta: Theta) -> dict[str, float]:
    """The weights at ``theta`` (each one's log factor from the expert's)."""
    found = {
        n: round(getattr(EXPERT, n) * math.exp(t), 4) for n, t in zip(TUNED, theta, strict=True)
    }
    found["later"] = min(found["later"], LATER_MAX)
    return found


def policy_source(classes: dict[str, dict[str, float]]) -> str:
    """A policy file: each class the expert bot with its weights (the rest the expert's)."""
    lines = [
        '"""The expert bot with weights found by tools/tune.py."""',
        "",
        "from dataclasses import replace",
        "",
        "from p2pnerts.bots._expert import EXPERT, ExpertBot",
    ]
    for name, found in classes.items():
        args = ", ".join(f"{n}={v!r}" for n, v in found.items())
        lines += [
            "",
            "",
            f"class {name}(ExpertBot):",
            "    def __init__(self) -> None:",
            f"        super().__init__(replace(EXPERT, {args}))",
        ]
    return "\n".join(lines) + "\n"


def tune(
    iterations: int,
    rounds: int,
    seed: int,
    where: Where,
    out: Path,
    step_done: Callable[[int, float, Theta], None] = lambda k, margin, theta: None,
) -> Theta:
    """Tune for ``iterations`` steps; ``out`` holds the weights after each."""
    rng = random.Random(f"tune:{seed}")
    theta = [0.0] * len(TUNED)
    with tempfile.TemporaryDirectory() as scratch:
        for k in range(iterations):
            delta = [rng.choice((-1, 1)) for _ in TUNED]
            sides = {
                side: weights([t + sign * STEP * d for t, d in zip(theta, delta, strict=True)])
                for side, sign in (("Minus", -1), ("Plus", 1))
            }
            path = Path(scratch, f"step{k}.py")
            path.write_text(policy_source(sides))
            specs = [f"{path}:Minus", f"{path}:Plus"]
            report = play_arena(specs, rounds, seed * 1_000_003 + k, fast=True, where=where)
            margin = report.figures[1].margin or 0.0
            size = GAIN * ((STABILITY + 1) / (STABILITY + 1 + k)) ** 0.602
            push = max(-CLIP, min(CLIP, margin)) * size / (2 * STEP)
            theta = [
                max(-BOUND, min(BOUND, t + push * d)) for t, d in zip(theta, delta, strict=True)
            ]
            written = out.with_name(out.name + ".part")
            written.write_text(policy_source({"Tuned": weights(theta)}))
            written.replace(out)
            step_done(k, margin, theta)
    return theta


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=150, help="steps (150)")
    parser.add_argument("--rounds", type=int, default=400, help="paired rounds a step (400)")
    parser.add_argument("--seed", type=int, default=1, help="seed (1)")
    parser.add_argument("--jobs", type=int, default=None, help="worker processes (one per core)")
    parser.add_argument("--out", type=Path, default=Path("tuned.py"), help="policy file written")
    args = parser.parse_args(argv)
    if args.iterations < 1 or args.rounds < 1:
        parser.error("--iterations and --rounds are at least 1")
    if not args.out.parent.is_dir():
        parser.error(f"--out {args.out}: no folder {args.out.parent} to write it in")
    jobs = args.jobs if args.jobs is not None else os.cpu_count() or 1

    def tell(k: int, margin: float, theta: Theta) -> None:
        moved = sorted(zip(TUNED, theta, strict=True), key=lambda nt: -abs(nt[1]))[:3]
        most = ", ".join(f"{n} x{math.exp(t):.2f}" for n, t in moved)
        print(f"step {k + 1}/{args.iterations}: margin {margin:+.2f}; {most}", flush=True)

    try:
        tune(args.iterations, args.rounds, args.seed, Where(jobs=jobs), args.out, tell)
    except FanOutError as exc:
        print(f"tune: {exc}", file=sys.stderr)
        return 1
    print(f"{args.out}: p2pnerts arena --fast --policies strong,{args.out}:Tuned")
    return 0


if __name__ == "__main__":
    sys.exit(main())
