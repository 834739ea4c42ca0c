"""Opening a link: the Hello, the answer and the proofs that make a connection a seat's
(SPEC §2.8), over a `Connection` whose writer does not run yet."""

from __future__ import annotations

import logging
import secrets
from dataclasses import replace

import trio

from p2pnerts.errors import Error
from p2pnerts.net._link import Closed, Connection, Received
from p2pnerts.net._shaper import LinkShaper
from p2pnerts.protocol import (
    ANSWERER,
    NONCE_BYTES,
    OPENER,
    Hello,
    Proof,
    Refuse,
    RemoteProtocolError,
    Seat,
    SeatKey,
    TableSecret,
    link_statement,
    verify,
)
from p2pnerts.words import shown

log = logging.getLogger("p2pnerts.net")

LINK_TIMEOUT = 5.0
"""Seconds each step of a link's handshake may take."""


class Refused(Error):
    """A seat of the table refused this one's link, saying why: dialling again would
    only be refused again (another table on that port, a key the table does not know)."""

    context = "refused by the table"


async def dial_seat(
    other: Seat, hello: Hello, key: SeatKey, shape: LinkShaper | None = None
) -> Connection | None:
    """A connection to seat ``other`` of the table ``hello`` names, opened with ``hello``
    and proven both ways (`open_link`, against the key the roster gives ``other``); None
    if it cannot be had now. Raises `Refused` when that seat refuses this one. Cancelled,
    it leaves nothing open."""
    try:
        stream = await trio.open_tcp_stream(other.host, other.port)
    except OSError:
        return None
    conn = Connection(stream, f"seat {other.seat} ({other.host}:{other.port})", shape=shape)
    try:
        reply = await open_link(conn, hello, key, other.key)
    except RemoteProtocolError as exc:
        log.warning("seat %d answered with a frame that breaks the protocol: %s", other.seat, exc)
        reply = None
    except BaseException:
        await trio.aclose_forcefully(stream)
        raise
    where = f"seat {other.seat} ({other.host}:{other.port})"
    if isinstance(reply, Refuse):
        await stream.aclose()
        raise Refused(f"{where} refused this seat: {shown(reply.reason)}")
    if isinstance(reply, Hello) and reply.table == hello.table and reply.terms != hello.terms:
        await stream.aclose()
        raise Refused(f"{where} plays this table with another size or other options than this seat")
    if not isinstance(reply, Hello) or reply.table != hello.table or reply.seat != other.seat:
        if reply is not None:
            log.warning("seat %d answered with %r: not this table's seat", other.seat, reply)
        await stream.aclose()
        return None
    conn.open_up()
    return conn


async def open_link(
    conn: Connection, mine: Hello, key: SeatKey, expect: bytes | None
) -> Hello | Refuse | None:
    """Open a link saying ``mine`` (with a fresh nonce): the answer must be a Hello whose
    end proves it holds ``expect`` (the key the roster gives that seat; None: a host met
    for the first time, whose key is taken as it comes), and this end then proves itself
    with a `Proof`. Returns the proven Hello, a Refuse, or None: no answer in time, or
    one that proves nothing (logged). Raises `RemoteProtocolError` for an answer that
    breaks the protocol."""
    mine = replace(mine, nonce=new_nonce(), proof=b"")
    reply = await hear_out(conn, mine, expect)
    if isinstance(reply, Hello):
        await prove_to(conn, mine, reply, key)
    return reply


async def hear_out(conn: Connection, mine: Hello, expect: bytes | None) -> Hello | Refuse | None:
    """The first half of `open_link`: say ``mine`` (its nonce fresh), and check the answer's
    proof. The caller may look the proven Hello over before it proves this end (`prove_to`)."""
    reply = await exchange(conn, mine)
    if reply is None or isinstance(reply, Refuse):
        return reply
    if not isinstance(reply, Hello):
        log.warning("%s answered a Hello with %s", conn.peer, type(reply).__name__)
        return None
    said = link_statement(ANSWERER, reply.table, mine, reply)
    if (expect is not None and reply.key != expect) or not verify(reply.key, reply.proof, said):
        log.warning("%s could not prove it holds seat %d's key", conn.peer, reply.seat)
        return None
    return reply


async def prove_to(
    conn: Connection, mine: Hello, reply: Hello, key: SeatKey, secret: TableSecret | None = None
) -> None:
    """The second half of `open_link`: prove this end to the one that answered ``reply``
    (and, with the ``secret`` of a private table's passphrase, that it knows that too)."""
    said = link_statement(OPENER, reply.table, mine, reply)
    mac = b"" if secret is None else secret.prove(said)
    await exchange(conn, Proof(key.sign(said), mac), answer=False)


async def answer_link(
    conn: Connection, theirs: Hello, mine: Hello, key: SeatKey, secret: TableSecret | None = None
) -> str | None:
    """Answer an opening Hello whose key the caller has checked: prove this end (``mine``,
    with a fresh nonce, and its proof; with the ``secret`` of a private table, its proof
    that it knows the passphrase too), and take the opener's `Proof`, which must prove the
    same. None once the opener is proven; else why not, for the caller to refuse it with
    (the opener may have refused first: its reason, shown as text)."""
    mine = replace(mine, nonce=new_nonce(), proof=b"", mac=b"")
    said = link_statement(ANSWERER, mine.table, theirs, mine)
    mac = b"" if secret is None else secret.prove(said)
    mine = replace(mine, proof=key.sign(said), mac=mac)
    try:
        reply = await exchange(conn, mine)
    except RemoteProtocolError as exc:
        log.warning("%s broke the protocol at the handshake: %s", conn.peer, exc)
        return "a frame that breaks the protocol"
    if isinstance(reply, Refuse):
        return shown(reply.reason)
    said = link_statement(OPENER, mine.table, theirs, mine)
    if not isinstance(reply, Proof) or not verify(theirs.key, reply.proof, said):
        return (
            f"no proof of seat {theirs.seat}'s key" if theirs.seat >= 0 else "no proof of its key"
        )
    if secret is None and reply.mac:
        return "this table is not private"
    if secret is not None and not secret.check(said, reply.mac):
        return "wrong passphrase" if reply.mac else "no passphrase"
    return None


def new_nonce() -> bytes:
    """Fresh random bytes for one end of one handshake."""
    return secrets.token_bytes(NONCE_BYTES)


async def exchange(conn: Connection, message: Received, *, answer: bool = True) -> Received | None:
    """Write ``message`` by hand (the writer does not run during a handshake) and, if
    ``answer``, read the answer; None if it cannot be had in time."""
    conn.send_nowait(message)
    try:
        with trio.fail_after(LINK_TIMEOUT):
            await conn.write_queued()
            return await conn.receive() if answer else None
    except (trio.TooSlowError, Closed, OSError, trio.BrokenResourceError):
        return None
