"""The ``p2pnerts`` command."""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable, Iterable, Sequence

from p2pnerts import sim
from p2pnerts.bots import SimpleBot, play_round
from p2pnerts.rules import (
    Event,
    Match,
    RulesError,
    State,
    TableOptions,
    TieRule,
    deal,
    score_round,
    solo_seats,
)
from p2pnerts.sim import MIXES, SimConfig
from p2pnerts.ui.text import describe_event, render_scores, render_table, seat_name


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        result: int = args.run(args)
    except RulesError as exc:
        parser.exit(2, f"p2pnerts: error: {exc}\n")
    except KeyboardInterrupt:
        print("\nInterrupted.", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (``| head``): nothing left to tell
        sys.stderr.close()
        return 1
    return result


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="p2pnerts", description="Nerts, peer to peer on a local network, with no server."
    )
    commands = parser.add_subparsers(required=True, metavar="COMMAND")
    play = commands.add_parser(
        "play",
        help="play a game against bots on this machine",
        description="Play against bots on this machine. Until the terminal front end "
        "exists, this shows a bots-only match in plain text (your seat is played by a bot).",
    )
    play.add_argument("--bots", type=_count(1, 13), default=3, help="bot opponents (1-13)")
    play.add_argument("--seed", type=int, default=None, help="deal and play from this seed")
    play.add_argument("--rounds", type=_count(1, 1000), default=1, help="rounds to play")
    play.add_argument(
        "--pace", type=float, default=0.04, help="seconds between told events (0: no pause)"
    )
    play.set_defaults(run=_play)
    simulate = commands.add_parser(
        "sim",
        help="run the protocol on a simulated network, with faults, and check it",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Run a peer-to-peer table of bots on a simulated network, in this one\n"
        "process, from a seed: the same seed gives the same run and the same digest.\n"
        "Every step is checked: committed logs agree, every card is in one place,\n"
        "scores match the rules, a side of a partition without a majority commits\n"
        "nothing new, every round ends. The exit status is 1 if a check fails.",
        epilog="fault mixes:\n"
        + "".join(f"  {name:<10} {mix.about}\n" for name, mix in MIXES.items()),
    )
    simulate.add_argument(
        "--peers", type=_count(2, 14), default=4, help="peers at the table (2-14)"
    )
    simulate.add_argument("--rounds", type=_count(1, 1000), default=10, help="rounds per seed")
    simulate.add_argument(
        "--faults",
        type=_choice(MIXES),
        default="light",
        metavar="MIX",
        help="the fault mix (below); default light",
    )
    simulate.add_argument(
        "--seed", type=int, default=None, help="first seed (default: a random one)"
    )
    simulate.add_argument(
        "--seeds", type=_count(1, 100_000), default=1, help="seeds to run, from --seed"
    )
    simulate.add_argument(
        "--tie-rule",
        type=_choice(rule.value for rule in TieRule),
        default="both-stay",
        metavar="RULE",
        help="both-stay, rotate or seat",
    )
    simulate.add_argument(
        "--sequencer",
        action="store_true",
        help="also run a central-sequencer baseline on the same workload",
    )
    simulate.add_argument("--json", action="store_true", help="print the report as JSON")
    simulate.set_defaults(run=_sim)
    return parser


def _count(low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be {low} to {high}, not {value}")
        return value

    return parse


def _choice(names: Iterable[str]) -> Callable[[str], str]:
    allowed = list(names)

    def parse(text: str) -> str:
        if text not in allowed:
            raise argparse.ArgumentTypeError(f"{text!r} is not one of {', '.join(allowed)}")
        return text

    return parse


def _sim(args: argparse.Namespace) -> int:
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 32)
    options = TableOptions(tie_rule=TieRule(args.tie_rule))
    config = SimConfig(args.peers, args.rounds, MIXES[args.faults], options)
    report = sim.run(config, range(seed, seed + args.seeds), sequencer=args.sequencer)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(report.text())
    return 1 if report.violations else 0


def _play(args: argparse.Namespace) -> int:
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 32)
    players = args.bots + 1
    options = TableOptions(rounds=args.rounds)
    rng = random.Random(seed)
    bots = [SimpleBot(random.Random(rng.getrandbits(64))) for _ in range(players)]
    match = Match(options, players)
    print(
        f"p2pnerts — {players} players, seed {seed}. The terminal front end is not built "
        "yet: your seat is played by a bot.\n"
    )
    while not match.over:
        state = deal(options, solo_seats(players), rng=rng)
        print(f"Round {len(match.rounds) + 1}\n{render_table(state)}\n")

        def tell(_: State, events: list[Event]) -> None:
            for line in filter(None, map(describe_event, events)):
                print(line)
                time.sleep(args.pace)

        state = play_round(state, bots, rng, tell)
        match = match.record(score_round(state))
        scores = render_scores(state, match.rounds[-1], match.totals)
        print(f"\n{render_table(state)}\n\n{scores}\n")
    names = ", ".join(seat_name(deck) for deck in match.winners)
    print(f"Winner: {names} (seed {seed})")
    return 0
