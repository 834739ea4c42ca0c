"""``p2pnerts trace``: the game logs of one match's peers, merged, written for ShiViz or as
JSON (`p2pnerts.trace`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from p2pnerts.trace import TraceError, trace

DESCRIPTION = (
    "Merge the game logs of one match's peers (each peer writes one: protocol/LOG.md) into "
    "one causal history: every frame sent and received, matched across the logs, and every "
    "commit, each with a vector clock. --shiviz writes a file that ShiViz "
    "(https://bestchai.bitbucket.io/shiviz/) loads as it is, for a time-space diagram."
)


def trace_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("logs", nargs="+", metavar="LOG", help="a peer's game log (.p2plog)")
    parser.add_argument("--shiviz", metavar="OUT", help="write the trace for ShiViz to OUT")
    parser.add_argument("--json", action="store_true", help="print the trace as JSON")


def trace_command(args: argparse.Namespace) -> int:
    merged = trace([Path(p) for p in args.logs])
    if args.shiviz:
        try:
            Path(args.shiviz).write_text(merged.shiviz(), encoding="utf-8")
        except OSError as exc:
            raise TraceError(f"cannot write {args.shiviz}: {exc.strerror or exc}") from None
    if args.json:
        json.dump(merged.to_json(), sys.stdout)
        print()
    else:
        hosts = ", ".join(merged.hosts)
        print(f"{len(merged.events)} events of {len(merged.hosts)} peers ({hosts})", end="")
        print(f"; ShiViz file: {args.shiviz}" if args.shiviz else "")
    return 0
