"""``p2pnerts tables``: the tables announced on the network, listed once."""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Sequence
from functools import partial

import trio

from p2pnerts.commands._options import Command
from p2pnerts.net import (
    DiscoveryError,
    KnownHosts,
    KnownHostsError,
    TableInfo,
    describe_interfaces,
    find_tables,
    interface_list,
)
from p2pnerts.rules import summary_teams


def _render(tables: Sequence[TableInfo], timeout: float, where: str) -> str:
    if not tables:
        return (
            f"No tables found in {timeout:g} s on {where}.\n"
            "(A network that blocks multicast hides tables: ask the host for its address "
            "and port.)\n"
        )
    apart = [summary_teams(t.options) for t in tables]
    columns: dict[str, list[str]] = {
        "NAME": [t.name for t in tables],
        "SEATS": [f"{t.seats_taken}/{t.seats_total}" for t in tables],
        "TEAMS": [teams or "-" for teams, _ in apart],
        "STATE": [t.state for t in tables],
        "OPTIONS": [rest or "-" for _, rest in apart],
        "ADDRESS": [f"{t.host}:{t.port}" for t in tables],
        "KEY": [t.key or "-" for t in tables],
        "PRIVATE": ["yes" if t.private else "-" for t in tables],
    }
    if not any(teams for teams, _ in apart):
        del columns["TEAMS"]  # nobody plays in teams: no column of dashes
    if not any(t.private for t in tables):
        del columns["PRIVATE"]
    widths = [max(map(len, [header, *cells])) for header, cells in columns.items()]
    rows = [tuple(columns), *zip(*columns.values(), strict=True)]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]
    return "\n".join(lines) + "\n"


def tables_command(
    timeout: float, as_json: bool, interface: str | None, known: KnownHosts | None = None
) -> int:
    """``p2pnerts tables [--timeout S] [--json] [--interface ADDR]``: list the tables.

    Prints a table (name, seats taken/total, teams if any, state, options, host:port,
    host key, private if any is) or, with ``as_json``, a JSON list of objects with the
    TableInfo fields; on stderr, a warning for each table whose host key is not the one
    seen when it was last joined (``known``, by default the data directory's). Returns 0,
    or 1 with a one-line message on stderr when mDNS cannot start or the arguments are
    wrong.
    """
    out: Callable[[str], object] = sys.stdout.write
    if not (timeout >= 0 and math.isfinite(timeout)):
        print(f"p2pnerts tables: --timeout must be seconds >= 0, not {timeout}", file=sys.stderr)
        return 1
    try:
        chosen = interface_list(None if interface is None else [interface])
        tables = trio.run(partial(find_tables, timeout, interfaces=chosen))
    except DiscoveryError as exc:
        print(f"p2pnerts tables: {exc}", file=sys.stderr)
        return 1
    for warning in _warnings(tables, known):
        print(f"p2pnerts tables: {warning}", file=sys.stderr)
    if as_json:
        out(json.dumps([t.to_json() for t in tables], indent=2, ensure_ascii=False) + "\n")
    else:
        out(_render(tables, timeout, describe_interfaces(chosen)))
    return 0


def _warnings(tables: Sequence[TableInfo], known: KnownHosts | None) -> list[str]:
    """A table whose host key changed since it was last joined, or a known-hosts file
    that cannot be read (said, and the list shown all the same)."""
    try:
        known = known or KnownHosts.load()
    except KnownHostsError as exc:
        return [str(exc)]
    told = (known.warning(t.name, t.key) for t in tables)
    return [warning for warning in told if warning is not None]


def tables_options(tables: argparse.ArgumentParser) -> None:
    tables.add_argument("--timeout", type=float, default=3.0, help="seconds to listen (3)")
    tables.add_argument("--json", action="store_true", help="print JSON")
    tables.add_argument("--interface", metavar="ADDR", help="listen for mDNS on this address")


def _list_tables(args: argparse.Namespace) -> int:
    return tables_command(args.timeout, args.json, args.interface)


COMMAND = Command(
    "tables", "list the tables announced on the network", None, tables_options, _list_tables
)
"""The ``tables`` command, as the command line adds it."""
