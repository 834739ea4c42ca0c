"""Watching a table without a seat (SPEC §2.10): the spectator's end.

The spectator opens with `Watch` and a key made for this watch alone; the host proves
itself as to a newcomer (its key as announced, its knowledge of a private table's
passphrase), the spectator proves its key (and the passphrase) with `Proof`, and from then
on only listens: a `Scene`, then `Seen`, `Decided` and more Scenes until the table closes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import trio

from p2pnerts.errors import Error
from p2pnerts.net._admission import JoinError, check_announced, check_passphrase
from p2pnerts.net._handshake import exchange, new_nonce, prove_to
from p2pnerts.net._link import Closed, Connection
from p2pnerts.protocol import (
    ANSWERER,
    Decided,
    Hello,
    Refuse,
    RemoteProtocolError,
    Scene,
    SeatKey,
    Seen,
    Watch,
    link_statement,
    spectator_opener,
    verify,
)
from p2pnerts.words import shown

Sight = Scene | Seen | Decided
"""What a spectator is sent once it watches."""


class WatchError(Error):
    """This spectator could not watch the table, or lost it; the message says why."""

    context = "cannot watch"


async def watch_table(
    host: str,
    port: int,
    hear: Callable[[Sight], None],
    *,
    name: str = "spectator",
    passphrase: str | None = None,
    table_name: str | None = None,
    expect_host: str | None = None,
) -> None:
    """Watch the table at host:port until it closes, each frame of its stream to ``hear``.
    Raises `WatchError` when it cannot be watched (refused, not a table, gone)."""
    where = f"{host}:{port}"
    try:
        stream = await trio.open_tcp_stream(host, port)
    except OSError as exc:
        raise WatchError(f"cannot reach {where}: {exc.strerror or exc}") from None
    conn = Connection(stream, f"table {where}")
    table = f"table {table_name!r}" if table_name else f"the table at {where}"
    try:
        await _admitted(
            conn,
            Watch(bytes(16), name[:32] or "spectator", b"", b""),
            where,
            passphrase,
            table,
            expect_host,
        )
        conn.open_up()
        while True:
            sight = await conn.receive()
            if isinstance(sight, Refuse):
                raise WatchError(f"{where} refused: {shown(sight.reason)}")
            if not isinstance(sight, Scene | Seen | Decided):
                raise WatchError(f"{where} sent a {type(sight).__name__} to a spectator")
            hear(sight)
    except Closed:
        return  # the table closed: the match is over, or its host is gone
    except RemoteProtocolError as exc:
        raise WatchError(f"{where} speaks differently: {exc}") from None
    finally:
        await trio.aclose_forcefully(stream)


async def _admitted(
    conn: Connection,
    watch: Watch,
    where: str,
    passphrase: str | None,
    table: str,
    expect_host: str | None,
) -> None:
    """Say ``watch`` (with a key and nonce of its own), check the host's proof (its key as
    announced, and a private table's passphrase), prove this end."""
    key = SeatKey.generate()
    watch = replace(watch, key=key.public, nonce=new_nonce())
    opener = spectator_opener(watch)
    answer = await exchange(conn, watch)
    if isinstance(answer, Refuse):
        raise WatchError(f"{where} refused: {shown(answer.reason)}")
    if not isinstance(answer, Hello):
        raise WatchError(f"{where} did not answer as a p2pnerts table")
    said = link_statement(ANSWERER, answer.table, opener, answer)
    if not verify(answer.key, answer.proof, said):
        raise WatchError(f"{where} could not prove the key it named")
    try:
        check_announced(answer, expect_host, where)
        secret = await check_passphrase(conn, opener, answer, passphrase, table)
    except JoinError as exc:
        await conn.write_queued()  # the Refuse that says why
        raise WatchError(str(exc)) from None
    await prove_to(conn, opener, answer, key, secret)
