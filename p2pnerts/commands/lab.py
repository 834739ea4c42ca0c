"""``p2pnerts lab``: the classroom lab on the terminal (`p2pnerts.lab`)."""

from __future__ import annotations

import argparse

from p2pnerts.commands._options import Command, choice, count, seconds, tie_rule_option
from p2pnerts.lab import DEFAULT_SPEED, MAX_PEERS, SPEEDS, Lab, Table, lesson_named, lesson_names
from p2pnerts.rules import TieRule

DESCRIPTION = (
    "The protocol's real replicas on a simulated network, in this one process, from one "
    "seed, with bots playing every seat: play it in slow motion, pause, step one message "
    "at a time and step back (the run is replayed from its seed), crash and restart "
    "peers, cut links, partition the table, slow a peer. Every replica is shown side by "
    "side with its Lamport clock, pending and committed messages and view, above a "
    "time-space diagram; races and ties are shown with the reason the order gives. "
    "? on the screen explains every word and key."
)


def lab_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--lesson",
        type=choice(lesson_names()),
        metavar="NAME",
        help=f"start a lesson: {', '.join(lesson_names())} (tie: under --tie-rule)",
    )
    parser.add_argument(
        "--seed", type=int, default=None, help="the run's seed (1, or the lesson's)"
    )
    parser.add_argument(
        "--peers",
        type=count(2, MAX_PEERS),
        default=None,
        help=f"peers at the table (2-{MAX_PEERS}; 4, or the lesson's)",
    )
    parser.add_argument(
        "--speed",
        type=seconds(SPEEDS[0], SPEEDS[-1]),
        default=DEFAULT_SPEED,
        metavar="X",
        help=f"simulated seconds per real second when playing ({DEFAULT_SPEED:g}; + and -)",
    )
    tie_rule_option(parser, None, " (both-stay, or the lesson's)")
    parser.add_argument(
        "--majority",
        action="store_true",
        help="commit by protocol version 3's majority (Ballots and Tallies), not by every "
        "member's acknowledgement (the majority- lessons do)",
    )
    parser.add_argument("--ascii", action="store_true", help="draw with ASCII characters only")


def lab_command(args: argparse.Namespace) -> int:
    # The desk and its screen load prompt_toolkit: only for this command.
    from p2pnerts.lab import Desk, run_lab

    rule = None if args.tie_rule is None else TieRule(args.tie_rule)
    lesson = None if args.lesson is None else lesson_named(args.lesson, rule)
    base = Table() if lesson is None else lesson.table
    table = Table(
        base.seed if args.seed is None else args.seed,
        base.peers if args.peers is None else args.peers,
        base.tie_rule if rule is None else rule,
        majority=base.majority or args.majority,
    )
    lab = Lab(table, () if lesson is None else lesson.script)
    if lesson is not None:
        lab.goto(lesson.start)
    run_lab(Desk(lab, lesson, speed=args.speed), ascii=args.ascii)
    return 0


COMMAND = Command(
    "lab", "step through the protocol in a classroom lab", DESCRIPTION, lab_options, lab_command
)
"""The ``lab`` command, as the command line adds it."""
