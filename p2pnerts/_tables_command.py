"""``p2pnerts tables``: the tables announced on the network, listed once."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Sequence
from functools import partial

import trio

from p2pnerts.net import DiscoveryError, TableInfo, describe_interfaces, find_tables, interface_list
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
    }
    if not any(teams for teams, _ in apart):
        del columns["TEAMS"]  # nobody plays in teams: no column of dashes
    widths = [max(map(len, [header, *cells])) for header, cells in columns.items()]
    rows = [tuple(columns), *zip(*columns.values(), strict=True)]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]
    return "\n".join(lines) + "\n"


def tables_command(timeout: float, as_json: bool, interface: str | None) -> int:
    """``p2pnerts tables [--timeout S] [--json] [--interface ADDR]``: list the tables.

    Prints a table (name, seats taken/total, teams if any, state, options, host:port)
    or, with ``as_json``, a JSON list of objects with the TableInfo fields. Returns 0, or
    1 with a one-line message on stderr when mDNS cannot start or the arguments are wrong.
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
    if as_json:
        out(json.dumps([t.to_json() for t in tables], indent=2, ensure_ascii=False) + "\n")
    else:
        out(_render(tables, timeout, describe_interfaces(chosen)))
    return 0
