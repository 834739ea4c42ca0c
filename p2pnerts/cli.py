"""The ``p2pnerts`` command."""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Sequence

from p2pnerts.bots import SimpleBot, play_round
from p2pnerts.rules import (
    Event,
    Match,
    RulesError,
    State,
    TableOptions,
    deal,
    score_round,
    solo_seats,
)
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
