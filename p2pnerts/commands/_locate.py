"""Finding the table a command names: by HOST:PORT as given, or by name through mDNS,
with the host key it announces checked against the one remembered under that name."""

from __future__ import annotations

from collections.abc import Callable

from p2pnerts.net import (
    JoinError,
    KnownHosts,
    KnownHostsError,
    MatchResult,
    Player,
    TableInfo,
    find_tables,
    join_table,
)
from p2pnerts.protocol import Welcome

DISCOVERY_WAIT = 3.0
"""Seconds to listen for a table named on the command line."""


async def locate_and_join(
    target: str,
    interface: str | None,
    player: Player,
    report: Callable[[str], None],
    *,
    host_key: str | None = None,
    known: KnownHosts | None = None,
) -> MatchResult:
    """Find the table (by name or HOST:PORT), take a seat and play the match.

    Joining by name, the host key the table announces is checked against the one seen
    before under that name (``known``, by default the data directory's): another key is
    a warning, and the key proven is remembered once seated. With ``host_key`` the host
    must prove that key, or no seat is taken."""
    address, table = address_of(target), None
    if address is None:
        table = await find_table(target, interface)
        address = table.host, table.port
    host, port = address
    report(f"{player.name} joining {host}:{port}")
    announced = table.key if table is not None else ""
    if host_key is not None:
        if announced and announced != host_key:
            raise JoinError(
                f"table {target!r} announces host key {announced}, not the {host_key} asked for"
            )
        player.expect_host = host_key
    else:
        player.expect_host = announced or None
    if table is not None:
        player.table_name = table.name
        know(known or KnownHosts.load(), player, table, report)
    return await join_table(host, port, player)


def know(
    known: KnownHosts, player: Player, table: TableInfo, report: Callable[[str], None]
) -> None:
    """Warn of a table whose host key is not the one seen before under its name, and
    remember the key once the host proved it and gave this player a seat."""
    warning = known.warning(table.name, table.key)
    if warning is not None:
        report(warning)
    welcomed = player.welcomed

    def remember(welcome: Welcome) -> None:
        try:
            known.remember(table.name, table.key)  # the key the host proved (`expect_host`)
        except KnownHostsError as exc:
            report(f"(host key not remembered: {exc})")
        if welcomed is not None:
            welcomed(welcome)

    player.welcomed = remember


def address_of(target: str) -> tuple[str, int] | None:
    """HOST:PORT as given ([HOST]:PORT for an IPv6 address), or None for a table's name."""
    host, sep, port = target.rpartition(":")
    if not (sep and host and port.isdigit()):
        return None
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host, int(port)


async def find_table(name: str, interface: str | None) -> TableInfo:
    """The table of that name on the network, found by mDNS."""
    interfaces = None if interface is None else [interface]
    seen = await find_tables(DISCOVERY_WAIT, interfaces=interfaces)
    tables = [t for t in seen if t.name == name]
    if not tables:
        raise JoinError(
            f"no table named {name!r} seen on the network (see `p2pnerts tables`, "
            "or give HOST:PORT)"
        )
    if len(tables) > 1:
        where = ", ".join(f"{t.host}:{t.port}" for t in tables)
        raise JoinError(f"{len(tables)} tables are named {name!r} ({where}): give HOST:PORT")
    return tables[0]
