"""``p2pnerts trace``: the game logs of one match's peers, merged, written for ShiViz, as a
Mermaid diagram or as JSON (`p2pnerts.logs`)."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from p2pnerts.commands._options import Command
from p2pnerts.logs import TraceError, trace
from p2pnerts.words import counted

DESCRIPTION = (
    "Merge the game logs of one match's peers (each peer writes one: protocol/LOG.md) into "
    "one causal history: every frame sent and received, matched across the logs, and every "
    "commit, each with a vector clock. A seat that came back in a new process wrote a log "
    "in each: give them all, and they make one lane. --shiviz writes a file that ShiViz "
    "(https://bestchai.bitbucket.io/shiviz/) loads as it is, for a time-space diagram; "
    "--mermaid a sequence diagram in a Markdown block. Both draw --window of the match, "
    "without the Acks unless --acks is given, and say on stderr what they left out."
)


def trace_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("logs", nargs="+", metavar="LOG", help="a peer's game log (.p2plog)")
    parser.add_argument("--shiviz", metavar="OUT", help="write the trace for ShiViz to OUT")
    parser.add_argument(
        "--mermaid", metavar="OUT", help="write a Mermaid sequence diagram to OUT (Markdown)"
    )
    parser.add_argument(
        "--window",
        type=window,
        default=(0.0, math.inf),
        metavar="FROM:TO",
        help="seconds into the match the diagrams show (default: all of it)",
    )
    parser.add_argument("--acks", action="store_true", help="show the Acks in the diagrams too")
    parser.add_argument("--json", action="store_true", help="print the whole trace as JSON")


def window(text: str) -> tuple[float, float]:
    """``FROM:TO`` in seconds, either side may be left out (``:5``, ``12:``)."""
    start, sep, end = text.partition(":")
    try:
        first, last = float(start or 0), float(end or math.inf)
    except ValueError:
        first, last = math.inf, 0.0  # not numbers: refused below
    if not sep or first > last:
        raise argparse.ArgumentTypeError(f"not FROM:TO in seconds: {text!r}")
    return first, last


def trace_command(args: argparse.Namespace) -> int:
    merged = trace([Path(p) for p in args.logs])
    if args.shiviz or args.mermaid:
        start, end = args.window
        part = merged.part(start, end, acks=args.acks)
        if args.shiviz:
            _write(args.shiviz, part.shiviz())
        if args.mermaid:
            _write(args.mermaid, part.mermaid())
        written = " and ".join(out for out in (args.shiviz, args.mermaid) if out)
        shows = "show" if args.shiviz and args.mermaid else "shows"
        print(f"p2pnerts trace: {written} {shows} {part.note()}", file=sys.stderr)
    if args.json:
        merged.write_json(sys.stdout)
        print()
    else:
        hosts = ", ".join(merged.hosts)
        print(
            f"{len(merged.events)} events of {counted(len(merged.hosts), 'peer')} ({hosts})", end=""
        )
        print(f"; ShiViz file: {args.shiviz}" if args.shiviz else "", end="")
        print(f"; Mermaid file: {args.mermaid}" if args.mermaid else "")
    return 0


def _write(path: str, text: str) -> None:
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise TraceError(f"cannot write {path}: {exc.strerror or exc}") from None


COMMAND = Command(
    "trace", "merge peers' game logs for ShiViz", DESCRIPTION, trace_options, trace_command
)
"""The ``trace`` command, as the command line adds it."""
