"""A newcomer asking a table's host for a seat: the link proven both ways (SPEC §2.8), the
passphrase of a private table proven both ways (SPEC §2.9), then the host's Welcome.

The host proves itself first, in its Hello; only once that proof checks out (its key as
the table announced it, and, at a private table, its knowledge of the passphrase) does
the newcomer prove itself. A newcomer that cannot go on says why to the host in a Refuse,
so that both ends tell their person the same story.
"""

from __future__ import annotations

from dataclasses import replace

import trio

from p2pnerts.errors import Error
from p2pnerts.net._handshake import Unproven, hear_out, new_nonce, prove_to
from p2pnerts.net._link import Closed, Connection, Received
from p2pnerts.net._seating import HANDSHAKE_TIMEOUT, NO_TABLE, Player
from p2pnerts.protocol import (
    ANSWERER,
    Hello,
    LinkProof,
    PassphraseRun,
    Refuse,
    RemoteProtocolError,
    TableSecret,
    Welcome,
    fingerprint,
    link_statement,
)

PASSPHRASE_HELP = "--passphrase, --passphrase-env or --ask-passphrase"
"""Where a person gives a private table's passphrase (the commands' options)."""


class JoinError(Error):
    """This peer could not take a seat at the table; the message says why."""

    context = "cannot join"


async def ask_for_a_seat(
    conn: Connection, player: Player, my_port: int, where: str
) -> tuple[Welcome, bytes]:
    """Ask the host for a seat: the link proven both ways first (the host's key taken as
    it proves it), then its Welcome. Returns the Welcome and the host's key."""
    run = await passphrase_run(player.passphrase)
    mine = Hello(NO_TABLE, -1, player.name[:32], my_port, player.key.public, new_nonce())
    mine = replace(mine, pake=b"" if run is None else run.message)
    named = f"table {player.table_name!r}" if player.table_name else f"the table at {where}"
    try:
        host = await hear_out(conn, mine, None)
        if isinstance(host, Hello):
            # Before this seat proves anything to it:
            check_announced(host, player.expect_host, where)
            secret = await check_passphrase(conn, mine, host, run, named)
            await prove_to(conn, mine, host, player.key, secret)
        answer = await _next(conn) if isinstance(host, Hello) else host
    except RemoteProtocolError as exc:
        raise JoinError(f"{where} speaks differently: {exc}") from None
    if isinstance(answer, Refuse):
        raise JoinError(f"{where} refused: {answer.reason}")
    if isinstance(answer, Unproven):
        raise JoinError(f"refused {where}: {answer.reason} (a relay between?)")
    if answer is None or not isinstance(host, Hello):
        raise JoinError(f"{where} did not answer as a p2pnerts table") from None
    if not isinstance(answer, Welcome):
        raise JoinError(f"{where} answered {type(answer).__name__}, not Welcome")
    if not player.table_name:  # dialled at an address: the log is named after the table
        player.table_name = answer.name
    conn.open_up()
    return answer, host.key


def check_announced(host: Hello, expect: str | None, where: str) -> None:
    """Refuse a host that proves another key than ``expect``, the fingerprint the table
    announced (a spoofed name)."""
    proven = fingerprint(host.key)
    if expect is not None and proven != expect:
        raise JoinError(
            f"{where} proved key {proven}, not the key {expect} the table"
            " announced: not the table it claims to be"
        )


async def passphrase_run(passphrase: str | None) -> PassphraseRun | None:
    """This end's SPAKE2 for a link it opens to a private table (None without a
    passphrase): its message goes in the opening frame."""
    if passphrase is None:
        return None
    return await trio.to_thread.run_sync(TableSecret(passphrase).opening)


async def check_passphrase(
    conn: Connection, mine: Hello, host: Hello, run: PassphraseRun | None, table: str
) -> LinkProof | None:
    """At a private table, check that the host knows the passphrase this end's ``run``
    was started with, and return the link's key that proves this end knows it too; None
    at a table that is not private. Raises `JoinError`, after telling the host why, when
    the two do not go together; ``table`` names the table in its message."""
    if not host.pake and run is None:
        return None
    if not host.pake:
        conn.send_nowait(Refuse("a private table was expected"))
        raise JoinError(f"{table} is not private, yet a passphrase was given: not the one meant?")
    if run is None:
        conn.send_nowait(Refuse("no passphrase"))
        raise JoinError(f"{table} is private: give its passphrase ({PASSPHRASE_HELP})")
    secret = await trio.to_thread.run_sync(run.finish, host.pake)
    said = link_statement(ANSWERER, conn.binding, host.table, mine, host)
    if not secret.check(said, host.mac):
        conn.send_nowait(Refuse("wrong passphrase"))
        raise JoinError(f"wrong passphrase for {table}")
    return secret


async def _next(conn: Connection) -> Received | None:
    """The next message on a connection not served yet; None if none comes in time."""
    try:
        with trio.fail_after(HANDSHAKE_TIMEOUT):
            return await conn.receive()
    except (trio.TooSlowError, Closed):
        return None
