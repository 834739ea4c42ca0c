"""``p2pnerts replay``: one seat's game log stepped through commit by commit on the table
screen, each commit's running digest computed again and compared with the log's
(`p2pnerts.logs`); ``--json`` prints the digests instead."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from p2pnerts.commands._options import Command, count, look_options
from p2pnerts.logs import Replay, ReplayError, replay

DESCRIPTION = (
    "Step through a match recorded in a seat's game log (protocol/LOG.md), one commit of "
    "the agreed order at a time, forward and back, on the table screen as any seat saw "
    "it. Each commit is applied again by the protocol's own code and its running digest "
    "compared with the one the log recorded; a difference is shown, never hidden. The "
    "exit status is 1 if any digest differs."
)


def replay_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("log", metavar="LOG", help="a seat's game log (.p2plog)")
    parser.add_argument(
        "--seat",
        type=count(1, 64),
        metavar="N",
        help="show the table as seat N saw it (1 is the first; default: the log's own)",
    )
    parser.add_argument(
        "--round",
        type=count(0, 1000),
        metavar="R",
        help="start at round R's first commit (1, the first deal, by default; round 0 deals "
        "no cards: its commits make round 1's seed)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print every commit with its digests as JSON"
    )
    look_options(parser)


def replay_command(args: argparse.Namespace) -> int:
    replayed = replay(Path(args.log))
    seat = replayed.seat if args.seat is None else args.seat - 1
    if seat >= len(replayed.names):
        raise ReplayError(f"seat {seat + 1} is not at this table of {len(replayed.names)}")
    start = _start(replayed, args.round)
    if args.json:
        json.dump(replayed.to_json(), sys.stdout, ensure_ascii=False)
        print()
    else:
        from p2pnerts.ui import ReplayModel, default_look, replay_in_terminal

        look = default_look(ascii=args.ascii, four_colour=args.four_colour)
        replay_in_terminal(ReplayModel(replayed, seat, look, at=start))
        print(_verdict(replayed))
    if replayed.torn:
        print(
            f"p2pnerts: replay: {args.log}: its last {replayed.torn} bytes were a torn tail,"
            " dropped; the records before it were replayed",
            file=sys.stderr,
        )
    return 1 if replayed.differing else 0


def _start(replayed: Replay, number: int | None) -> int:
    """The step a replay starts at: round ``number``'s first commit. By default the first
    round dealt's: round 0 deals no cards (its Readies and Reveals make round 1's seed), and
    a replay that opened on it showed an empty table and 'round 0' (a log without a deal
    opens at its first commit)."""
    if number is None:
        dealt = [i for i in replayed.round_starts() if replayed.steps[i].round > 0]
        return dealt[0] if dealt else 0
    for index in replayed.round_starts():
        if replayed.steps[index].round == number:
            return index
    rounds = sorted({step.round for step in replayed.steps})
    held = f"rounds {rounds[0]} to {rounds[-1]}" if rounds else "no commit"
    raise ReplayError(f"the log holds no round {number} ({held})")


def _verdict(replayed: Replay) -> str:
    """The replay in one line, for the shell after the screen closes."""
    steps = f"{len(replayed.steps)} commits replayed"
    differing = replayed.differing
    if differing:
        return f"{steps}: {replayed.differing_words()} from the log (first: commit {differing[0]})"
    return f"{steps}: every digest recorded matches the log"


COMMAND = Command(
    "replay",
    "step through a recorded match, checking its digests",
    DESCRIPTION,
    replay_options,
    replay_command,
)
"""The ``replay`` command, as the command line adds it."""
