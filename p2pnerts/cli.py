"""The ``p2pnerts`` command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence

from p2pnerts import __version__
from p2pnerts.commands import COMMANDS, Parser
from p2pnerts.errors import Error
from p2pnerts.protocol import PROTOCOL_VERSION
from p2pnerts.system import never_die_of_encoding, terminate_as_interrupt
from p2pnerts.words import shown


def main(argv: Sequence[str] | None = None) -> int:
    never_die_of_encoding(sys.stdout, sys.stderr)
    terminated = terminate_as_interrupt()
    parser = _parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # told by the command's own parser, whose usage it is
        args.parser.unrecognized(unknown)
    try:
        result: int = args.run(args)
    except BaseException as exc:
        ends = _ends(exc, terminated())  # trio wraps what ended its tasks in exception groups
        if ends is None:
            raise
        return ends
    return result


def _ends(exc: BaseException, terminated: bool = False) -> int | None:
    """How a run that raised ``exc`` ends without a traceback: Ctrl-C (130) or SIGTERM
    (``terminated``, 143), the reader of the output gone (``| head``, 1) or an error a
    person reads (one line, its status); None for anything else, a bug to show in full."""
    leaves = list(_leaves(exc))
    if all(isinstance(e, KeyboardInterrupt) for e in leaves):
        print("\nTerminated." if terminated else "\nInterrupted.", file=sys.stderr)
        return 143 if terminated else 130
    if all(isinstance(e, BrokenPipeError) for e in leaves):
        sys.stderr.close()  # nothing left to tell, and nowhere to tell it
        return 1
    errors = [e for e in leaves if isinstance(e, Error)]
    if errors and all(isinstance(e, Error | KeyboardInterrupt) for e in leaves):
        # An error may carry a peer's words (a refusal's reason): shown as text.
        print(shown(f"p2pnerts: {errors[0].context}: {errors[0]}"), file=sys.stderr)
        return errors[0].status
    return None


def _leaves(exc: BaseException) -> Iterator[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            yield from _leaves(inner)
    else:
        yield exc


def _parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="p2pnerts", description="Nerts, peer to peer on a local network, with no server."
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"p2pnerts {__version__} (protocol {PROTOCOL_VERSION})",
    )
    commands = parser.add_subparsers(required=True, metavar="COMMAND", parser_class=Parser)
    for command in COMMANDS:
        command.add_to(commands)
    return parser
