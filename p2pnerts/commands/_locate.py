"""Finding the table a command names: by HOST:PORT as given, or by name through mDNS,
with the host key it announces checked against the one remembered under that name; and
taking a seat there, or back (`join_or_come_back`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from p2pnerts.net import (
    JoinError,
    KeptSeats,
    KnownHosts,
    KnownHostsError,
    MatchResult,
    Player,
    Refused,
    SeatFile,
    TableInfo,
    find_tables,
    join_table,
    resume_table,
)
from p2pnerts.protocol import Welcome
from p2pnerts.system import data_dir

DISCOVERY_WAIT = 3.0
"""Seconds to listen for a table named on the command line."""
SEATS_KEPT = "seats"
"""Where in the data directory a joiner keeps its seat at each table (`KeptSeats`)."""


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
    announced_id = bytes.fromhex(table.table_id) if table is not None else None
    return await join_or_come_back(host, port, player, report, announced_id)


async def join_or_come_back(
    host: str, port: int, player: Player, report: Callable[[str], None], table: bytes | None
) -> MatchResult:
    """Take a seat at the table at host:port (its id ``table``, where it was announced);
    or, where this player keeps a seat at that table (it left it, or its process ended),
    take that seat back, proving it by the key kept with it."""
    if player.seat_file is None:  # (``--state FILE``: that file keeps the seat)
        if player.kept_seats is None:
            player.kept_seats = KeptSeats(data_dir() / SEATS_KEPT)
        where = None if table is not None else (host, port)
        found = player.kept_seats.find(player.name, table, where)
        if found is not None:
            path, saved = found
            me = saved.roster[saved.seat]
            report(f"{me.name} coming back to seat {saved.seat + 1} at {host}:{port}")
            result = await _come_back(path, saved, player, checked=table is not None)
            if isinstance(result, MatchResult):
                return result
            path.unlink(missing_ok=True)
            report(f"({result}: the seat kept for {host}:{port} is forgotten)")
    report(f"{player.name} joining {host}:{port}")
    return await join_table(host, port, player)


async def _come_back(
    path: Path, saved: SeatFile, player: Player, *, checked: bool
) -> MatchResult | Refused:
    """Take back the seat kept in ``path``; or, where the table was found by its address
    alone (not ``checked`` by its id), the refusal of a host that does not know that seat
    (another table listens where it was), the player then as it was."""
    key, name = player.key, player.table_name
    player.seat_file = path
    refused: BaseException | None = None
    try:
        return await resume_table(saved, player)
    except* Refused as group:
        if checked:
            raise
        refused = group
    while isinstance(refused, BaseExceptionGroup):  # (nurseries wrap it, maybe twice)
        refused = refused.exceptions[0]
    assert isinstance(refused, Refused)
    player.seat_file, player.key, player.table_name = None, key, name
    return refused


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
