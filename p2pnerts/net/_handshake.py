"""Opening a link (SPEC §2.8), over a `Connection` whose writer does not run yet: the Noise
handshake that encrypts it, then, inside, the Hello, the answer and the proofs that make
it a seat's, each signing the handshake's hash."""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass, replace

import trio

from p2pnerts.errors import Error
from p2pnerts.net._link import Closed, Connection, Received
from p2pnerts.net._shaper import LinkShaper
from p2pnerts.protocol import (
    ANSWERER,
    NONCE_BYTES,
    OPENER,
    Hello,
    LinkProof,
    Noise,
    Opening,
    Proof,
    Refuse,
    RemoteProtocolError,
    Seat,
    SeatKey,
    TableSecret,
    answer_opening,
    link_statement,
    verify,
)
from p2pnerts.words import shown

log = logging.getLogger("p2pnerts.net")

LINK_TIMEOUT = 5.0
"""Seconds each step of a link's handshake may take."""
NOT_HERE = "its proof does not hold on this link"
"""Why an end refuses a proof that does not verify: made for another link, one a relay
between the two ends runs with each (SPEC §2.8)."""


@dataclass(frozen=True, slots=True)
class Unproven:
    """The answering end did not prove, on this link, the key it had to: this end refused
    it, saying ``reason``."""

    reason: str


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
    if isinstance(reply, Unproven):
        reply = None  # (logged: an impostor, or a relay between; the seat is dialled again)
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
) -> Hello | Refuse | Unproven | None:
    """Open a link saying ``mine`` (with a fresh nonce): the answer must be a Hello whose
    end proves it holds ``expect`` (the key the roster gives that seat; None: a host met
    for the first time, whose key is taken as it comes), and this end then proves itself
    with a `Proof`. Returns the proven Hello, a Refuse, `Unproven` (refused, logged), or
    None: no answer in time, or one that is no Hello (logged). Raises
    `RemoteProtocolError` for an answer that breaks the protocol."""
    mine = replace(mine, nonce=new_nonce(), proof=b"")
    reply = await hear_out(conn, mine, expect)
    if isinstance(reply, Hello):
        await prove_to(conn, mine, reply, key)
    return reply


async def hear_out(
    conn: Connection, mine: Hello, expect: bytes | None
) -> Hello | Refuse | Unproven | None:
    """The first half of `open_link`: encrypt the link (`open_channel`), say ``mine`` (its
    nonce fresh), and check the answer's proof; one that fails is refused, saying why. The
    caller may look the proven Hello over before it proves this end (`prove_to`)."""
    opened = await open_channel(conn)
    if opened is not True:
        return opened if isinstance(opened, Refuse) else None
    reply = await exchange(conn, mine)
    if reply is None or isinstance(reply, Refuse):
        return reply
    if not isinstance(reply, Hello):
        log.warning("%s answered a Hello with %s", conn.peer, type(reply).__name__)
        return None
    said = link_statement(ANSWERER, conn.binding, reply.table, mine, reply)
    if expect is not None and reply.key != expect:
        reason = f"that is not seat {reply.seat}'s key"
    elif not verify(reply.key, reply.proof, said):
        reason = NOT_HERE
    else:
        return reply
    log.warning("%s, seat %d: %s", conn.peer, reply.seat, reason)
    await exchange(conn, Refuse(reason), answer=False)
    return Unproven(reason)


async def open_channel(conn: Connection) -> bool | Refuse:
    """The opening end's Noise handshake: True once the link is encrypted; the answering
    end's Refuse (said in the clear: this peer's version it could not read, say); False
    without an answer in time, or with another. Raises `RemoteProtocolError` for an answer
    that breaks the protocol (another version's, or a Noise message that opens nothing)."""
    opening = Opening()
    reply = await exchange(conn, Noise(opening.message))
    if isinstance(reply, Refuse):
        return reply
    if not isinstance(reply, Noise):
        if reply is not None:
            log.warning("%s answered the handshake with %s", conn.peer, type(reply).__name__)
        return False
    conn.secure(opening.finish(reply.message))
    return True


async def answer_channel(conn: Connection, opening: Noise) -> None:
    """The answering end's Noise handshake, to the opener's first frame: the link is
    encrypted from here on. Raises `RemoteProtocolError` for an opening that opens nothing,
    `Closed` if the answer cannot be written in time."""
    message, channel = answer_opening(opening.message)
    conn.send_nowait(Noise(message))  # the last frame in the clear
    conn.secure(channel)
    try:
        with trio.fail_after(LINK_TIMEOUT):
            await conn.write_queued()
    except (trio.TooSlowError, OSError, trio.BrokenResourceError) as exc:
        raise Closed(conn.peer) from exc


async def prove_to(
    conn: Connection, mine: Hello, reply: Hello, key: SeatKey, secret: LinkProof | None = None
) -> None:
    """The second half of `open_link`: prove this end to the one that answered ``reply``
    (and, with the link's ``secret`` at a private table, that it knows the passphrase)."""
    said = link_statement(OPENER, conn.binding, reply.table, mine, reply)
    mac = b"" if secret is None else secret.prove(said)
    await exchange(conn, Proof(key.sign(said), mac), answer=False)


async def answer_link(
    conn: Connection, theirs: Hello, mine: Hello, key: SeatKey, secret: TableSecret | None = None
) -> str | None:
    """Answer an opening Hello whose key the caller has checked: prove this end (``mine``,
    with a fresh nonce, and its proof; at a private table, whose passphrase is ``secret``,
    its SPAKE2 message and, if the opener sent one, its proof that it knows the
    passphrase), and take the opener's `Proof`, which must prove the same. None once the
    opener is proven; else why not, for the caller to refuse it with (the opener may have
    refused first: its reason, shown as text)."""
    mine = replace(mine, nonce=new_nonce(), proof=b"", mac=b"", pake=b"")
    said = link_statement(ANSWERER, conn.binding, mine.table, theirs, mine)
    mine = replace(mine, proof=key.sign(said))
    proof = None
    if secret is not None:
        run = await trio.to_thread.run_sync(secret.answering)
        mine = replace(mine, pake=run.message)
        if theirs.pake:
            try:
                proof = await trio.to_thread.run_sync(run.finish, theirs.pake)
            except RemoteProtocolError as exc:
                log.warning("%s sent a passphrase message that opens nothing: %s", conn.peer, exc)
                return "a frame that breaks the protocol"
            mine = replace(mine, mac=proof.prove(said))
    try:
        reply = await exchange(conn, mine)
    except RemoteProtocolError as exc:
        log.warning("%s broke the protocol at the handshake: %s", conn.peer, exc)
        return "a frame that breaks the protocol"
    if isinstance(reply, Refuse):
        return shown(reply.reason)
    said = link_statement(OPENER, conn.binding, mine.table, theirs, mine)
    if not isinstance(reply, Proof) or not verify(theirs.key, reply.proof, said):
        return (
            f"no proof of seat {theirs.seat}'s key" if theirs.seat >= 0 else "no proof of its key"
        )
    if secret is None and (reply.mac or theirs.pake):
        return "this table is not private"
    if secret is not None and (proof is None or not proof.check(said, reply.mac)):
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
