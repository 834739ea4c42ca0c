"""``p2pnerts sim``: a table of bots on a simulated network, with faults, every step
checked; seeds fanned out over this machine's cores or a cluster."""

from __future__ import annotations

import argparse
import json

from p2pnerts import sim
from p2pnerts.bots import SimpleBots
from p2pnerts.commands._config import seed_from, table_size
from p2pnerts.commands._options import (
    Command,
    choice,
    count,
    fan_out_options,
    teams_option,
    tie_rule_option,
    where_from,
)
from p2pnerts.protocol import LEAST_FOR_MAJORITY
from p2pnerts.rules import BadOptions, TableOptions, TieRule
from p2pnerts.sim import MIXES, SimConfig

SIM_DESCRIPTION = (
    "Run a peer-to-peer table of bots on a simulated network, in this one\n"
    "process, from a seed: the same seed gives the same run and the same digest.\n"
    "Every step is checked: committed logs agree, every card is in one place,\n"
    "scores match the rules, a side of a partition without a majority commits\n"
    "nothing new, every round ends. The exit status is 1 if a check fails."
)


def sim_options(simulate: argparse.ArgumentParser) -> None:
    simulate.add_argument(
        "--peers", type=count(2, 14), help="peers at the table (2-14; default 4, or the teams')"
    )
    teams_option(simulate, "peers")
    simulate.add_argument("--rounds", type=count(1, 1000), default=10, help="rounds per seed")
    simulate.add_argument(
        "--faults",
        type=choice(MIXES),
        default="light",
        metavar="MIX",
        help="the fault mix (below); default light",
    )
    simulate.add_argument(
        "--seed", type=int, default=None, help="first seed (default: a random one)"
    )
    simulate.add_argument(
        "--seeds", type=count(1, 100_000), default=1, help="seeds to run, from --seed"
    )
    tie_rule_option(simulate)
    simulate.add_argument(
        "--sequencer",
        action="store_true",
        help="also run a central-sequencer baseline on the same workload",
    )
    simulate.add_argument(
        "--majority",
        action="store_true",
        help="the peers commit by protocol version 3's majority rule (4 peers or more), as a "
        "hosted table of 4 seats or more does; without it, by every member's acknowledgement, "
        "the rule the study measures against",
    )
    simulate.add_argument("--json", action="store_true", help="print the report as JSON")
    simulate.add_argument(
        "--log", metavar="DIR", help="each seed's peers write their game logs in DIR"
    )
    fan_out_options(simulate, "seeds")


def sim_command(args: argparse.Namespace) -> int:
    options = TableOptions(tie_rule=TieRule(args.tie_rule), teams=args.teams)
    peers = table_size(options, args.peers, "--peers")
    if args.majority and peers < LEAST_FOR_MAJORITY:
        least, quorum_of = LEAST_FOR_MAJORITY, f"at {peers} the quorum is every peer"
        raise BadOptions(f"--majority takes {least} peers or more ({quorum_of})")
    faults = MIXES[args.faults]
    config = SimConfig(peers, args.rounds, faults, options, log=args.log, majority=args.majority)
    first = seed_from(args)
    seeds = range(first, first + args.seeds)
    report = sim.run(config, seeds, SimpleBots(), sequencer=args.sequencer, where=where_from(args))
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(report.text())
    return 1 if report.violations else 0


COMMAND = Command(
    "sim",
    "run the protocol on a simulated network, with faults, and check it",
    SIM_DESCRIPTION,
    sim_options,
    sim_command,
    epilog="fault mixes:\n"
    + "".join(f"  {name:<10} {mix.about}\n" for name, mix in MIXES.items())
    + "Every seed's faults open with one of each kind its mix names, in the first\n"
    "seconds of the first round; the rest come at the mix's rates.\n",
)
"""The ``sim`` command, as the command line adds it."""
