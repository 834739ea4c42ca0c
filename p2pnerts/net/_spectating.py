"""Watching a table without a seat (SPEC §2.10): the spectator's end.

The spectator opens with `Watch` and a key made for this watch alone; the host proves
itself as to a newcomer (its key as announced, its knowledge of a private table's
passphrase), the spectator proves its key (and the passphrase) with `Proof`, and from then
on only listens: the roster and its ticket (a `Proof` of the host's), a `Scene`, then
`Seen`, `Decided` and more Scenes until the table closes. With the roster and the ticket it
watches every other seat too, each proven by the key the roster gives it, and hears the
`Seen` of each: the messages seats send one another, not only the host's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import trio

from p2pnerts.errors import Error
from p2pnerts.net._admission import JoinError, check_announced, check_passphrase, passphrase_run
from p2pnerts.net._handshake import NOT_HERE, exchange, new_nonce, open_channel, prove_to
from p2pnerts.net._link import Closed, Connection
from p2pnerts.protocol import (
    ANSWERER,
    Decided,
    Hello,
    Proof,
    Refuse,
    RemoteProtocolError,
    Roster,
    Scene,
    SeatKey,
    Seen,
    Watch,
    link_statement,
    spectator_opener,
    verify,
)
from p2pnerts.words import shown


@dataclass(frozen=True, slots=True)
class SeenAt:
    """A `Seen` from a seat other than the one the spectator watches through."""

    seat: int
    seen: Seen


Sight = Scene | Seen | Decided | SeenAt
"""What a spectator is sent once it watches (`SeenAt`: what another seat sent it)."""


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
    key = SeatKey.generate()
    watch = Watch(bytes(16), name[:32] or "spectator", key.public, b"")
    try:
        try:
            hello = await _admitted(conn, watch, key, (where, passphrase, table, expect_host))
        except RemoteProtocolError as exc:
            raise WatchError(f"{where} speaks differently: {exc}") from None
        conn.open_up()
        async with trio.open_nursery() as nursery:  # (the other seats' streams)
            failed = await _listen(
                conn, where, hear, Seats(nursery, (watch, key), hello, host, hear)
            )
            nursery.cancel_scope.cancel()
    finally:
        await trio.aclose_forcefully(stream)
    if failed is not None:
        raise failed


async def _listen(
    conn: Connection, where: str, hear: Callable[[Sight], None], seats: Seats
) -> WatchError | None:
    """The host's stream, each sight to ``hear`` and the roster and ticket to ``seats``,
    until the table closes (None) or the host says what no spectator is sent."""
    try:
        while True:
            sight = await conn.receive()
            if isinstance(sight, Refuse):
                return WatchError(f"{where} refused: {shown(sight.reason)}")
            if isinstance(sight, Roster | Proof):
                seats.learn(sight)
            elif isinstance(sight, Scene | Seen | Decided):
                hear(sight)
            else:
                return WatchError(f"{where} sent a {type(sight).__name__} to a spectator")
    except Closed:
        return None  # the table closed: the match is over, or its host is gone
    except RemoteProtocolError as exc:
        return WatchError(f"{where} speaks differently: {exc}")


class Seats:
    """The other seats of a watched table, each watched with the host's ticket once the
    host has given the roster and the ticket; a seat that cannot be watched is left out
    (the host's own stream goes on)."""

    def __init__(
        self,
        nursery: trio.Nursery,
        watch: tuple[Watch, SeatKey],
        host: Hello,
        address: str,
        hear: Callable[[Sight], None],
    ) -> None:
        (self.watch, self.key), self.nursery, self.host = watch, nursery, host
        self.address, self.hear = address, hear
        self.roster: Roster | None = None

    def learn(self, sight: Roster | Proof) -> None:
        """Keep the roster; with the ticket, watch every seat it names but the host."""
        if isinstance(sight, Roster):
            self.roster = sight
            return
        for seat in () if self.roster is None else self.roster.seats:
            if seat.seat != self.host.seat:
                where = (seat.host or self.address, seat.port)
                self.nursery.start_soon(self._watch_seat, seat.seat, where, seat.key, sight.proof)

    async def _watch_seat(
        self, seat: int, where: tuple[str, int], key: bytes, ticket: bytes
    ) -> None:
        """Hear what one seat sends and receives, until it or the watch ends."""
        try:
            stream = await trio.open_tcp_stream(*where)
        except OSError:
            return
        conn = Connection(stream, f"seat {seat} at {where[0]}:{where[1]}")
        try:
            if await self._admitted_at(conn, key, ticket):
                conn.open_up()
                while True:
                    sight = await conn.receive()
                    if isinstance(sight, Seen):
                        self.hear(SeenAt(seat, sight))
        except (Closed, RemoteProtocolError):
            return
        finally:
            await trio.aclose_forcefully(stream)

    async def _admitted_at(self, conn: Connection, key: bytes, ticket: bytes) -> bool:
        """Say Watch to a seat, check it proves the key the roster gives it, prove this
        watch's key and show the ticket; whether the seat proved itself."""
        mine = replace(self.watch, table=self.host.table, nonce=new_nonce())
        opener = spectator_opener(mine)
        if await open_channel(conn) is not True:
            return False
        answer = await exchange(conn, mine)
        if not isinstance(answer, Hello) or answer.key != key:
            return False
        said = link_statement(ANSWERER, conn.binding, mine.table, opener, answer)
        if not verify(key, answer.proof, said):
            await exchange(conn, Refuse(NOT_HERE), answer=False)
            return False
        await prove_to(conn, opener, answer, self.key)
        await exchange(conn, Proof(ticket, b""), answer=False)
        return True


async def _admitted(
    conn: Connection,
    watch: Watch,
    key: SeatKey,
    about: tuple[str, str | None, str, str | None],
) -> Hello:
    """Say ``watch`` (with a fresh nonce), check the host's proof (its key as announced,
    and a private table's passphrase), prove this end; the host's proven Hello."""
    where, passphrase, table, expect_host = about
    run = await passphrase_run(passphrase)
    watch = replace(watch, nonce=new_nonce(), pake=b"" if run is None else run.message)
    opener = spectator_opener(watch)
    opened = await open_channel(conn)
    answer = await exchange(conn, watch) if opened is True else opened
    if isinstance(answer, Refuse):
        raise WatchError(f"{where} refused: {shown(answer.reason)}")
    if not isinstance(answer, Hello):
        raise WatchError(f"{where} did not answer as a p2pnerts table")
    said = link_statement(ANSWERER, conn.binding, answer.table, opener, answer)
    if not verify(answer.key, answer.proof, said):
        await exchange(conn, Refuse(NOT_HERE), answer=False)
        raise WatchError(f"refused {where}: {NOT_HERE} (a relay between?)")
    try:
        check_announced(answer, expect_host, where)
        secret = await check_passphrase(conn, opener, answer, run, table)
    except JoinError as exc:
        await conn.write_queued()  # the Refuse that says why
        raise WatchError(str(exc)) from None
    await prove_to(conn, opener, answer, key, secret)
    return answer
