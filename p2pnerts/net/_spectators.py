"""Spectators at a seat's table (SPEC §2.10): admitted as a newcomer is, seated never.

A spectator opens with `Watch` at the host; the host proves itself as to a newcomer (and, at
a private table, checks the passphrase as it would a newcomer's), then streams to it what the
table shows in public, opening with the roster and a ticket: the host's signature of the
spectator's key. Every other seat streams its own traffic to a spectator that shows it that
ticket, so the spectator hears the whole mesh, not only the host's links. A spectator is
no seat: it is in no `Links`, no roster and no view, and what it sends after its Proof (at
a seat, its ticket) cuts it off. A slow spectator never slows the table: its
stream is a bounded queue whose oldest items make way (each `Scene` says how many did).
"""

from __future__ import annotations

import logging
from collections import Counter, deque
from collections.abc import Callable, Sequence

import trio

from p2pnerts.net._guesses import Guesses, answer_private
from p2pnerts.net._handshake import answer_link
from p2pnerts.net._link import Closed, Connection
from p2pnerts.net._peer import TablePeer
from p2pnerts.protocol import (
    CommitFrame,
    Decided,
    Event,
    Hello,
    Message,
    Pending,
    PlayCommitted,
    PlayReturned,
    Proof,
    Refuse,
    RemoteProtocolError,
    Roster,
    Scene,
    SeatKey,
    Seen,
    Watch,
    bare,
    encode,
    encode_payload,
    foundation_tops,
    shown_to_spectators,
    spectator_opener,
    tableaux_of,
    ticket_statement,
    verify,
)
from p2pnerts.words import shown

log = logging.getLogger("p2pnerts.net")

MOST_SPECTATORS = 8
"""Spectators one table takes at once."""
PER_ADDRESS = 2
"""Spectators one address may hold at once."""
BACKLOG = 8192
"""Stream items kept for a spectator that reads slowly (some 1.5 MB at most); older ones
make way, the traffic's before the commits' (`Feed.put`)."""
SCENE_EVERY = 1.0
"""Seconds between two Scenes while nothing commits (health and clocks move on)."""
VERDICTS_KEPT = 256
"""Why plays came back or tied, kept until their commits are told (a play a change of
members never folds is let go of once this many are newer)."""
NO_SPECTATORS = "this table takes no spectators"
AT_THE_HOST = "watch this table at its host"
DRAIN = 5.0
"""Seconds a spectator's stream may take, once its table ends, to send what was queued
before the end (the match's last commits and its final Scene). A second was too little for
a spectator reading slowly on a loaded machine: CI's in-process spectator missed the last
124 of 646 commits, queued when the match ended."""
TICKET_WAIT = 10.0
"""Seconds a seat waits for its own start, and for a spectator's ticket."""


class Spectators:
    """Whom one table lets watch, and how many watch now."""

    def __init__(
        self, allowed: bool, guesses: Guesses | None, report: Callable[[str], None]
    ) -> None:
        self.allowed = allowed
        self.guesses = guesses
        self._report = report
        self._watching: Counter[str] = Counter()

    async def serve(
        self,
        conn: Connection,
        watch: Watch,
        address: str,
        mine: Hello,
        key: SeatKey,
        playing: trio.Event,
        peer: Callable[[], TablePeer | None],
    ) -> None:
        """Admit the spectator ``watch`` opened ``conn`` with, or refuse it; admitted, stream
        the table to it (once play begins) until either end goes."""
        refused = self._refusal(watch, address, mine)
        if refused is None:
            opener = spectator_opener(watch)
            refused = await answer_private(conn, opener, mine, key, self.guesses, address)
        if refused is None:  # (others may have come in while this one proved itself)
            refused = self._refusal(watch, address, mine)
        if refused is not None:
            self._report(f"refused spectator {address} ({shown(watch.name)}): {refused}")
            conn.send_nowait(Refuse(refused[:200]))
            await conn.finish()
            return
        await self._watched(conn, watch, address, playing, peer, key)

    async def serve_seat(
        self,
        conn: Connection,
        watch: Watch,
        address: str,
        key: SeatKey,
        playing: trio.Event,
        peer: Callable[[], TablePeer | None],
    ) -> None:
        """At a seat other than the host: prove this seat to the spectator ``watch`` opened
        ``conn`` with, take its ticket (the host's word that it let it watch), and stream
        this seat's traffic to it; refuse it without a ticket."""
        with trio.move_on_after(TICKET_WAIT):
            await playing.wait()
        table = peer()
        refused = AT_THE_HOST if table is None or watch.table != table.table else None
        if table is not None and refused is None:
            seat = table.roster[table.seat]
            mine = Hello(table.table, table.seat, seat.name, seat.port, key.public)
            refused = self._limit(address) or await answer_link(
                conn, spectator_opener(watch), mine, key
            )
            refused = refused or await _ticket_refusal(conn, table, watch)
        if refused is not None:
            conn.send_nowait(Refuse(refused[:200]))
            await conn.finish()
            return
        await self._watched(conn, watch, address, playing, peer, None)

    async def _watched(
        self,
        conn: Connection,
        watch: Watch,
        address: str,
        playing: trio.Event,
        peer: Callable[[], TablePeer | None],
        key: SeatKey | None,
    ) -> None:
        """Stream to an admitted spectator, counted while it watches (the host, which
        holds ``key``, opens the stream with the spectator's ticket)."""
        self._watching[address] += 1
        self._report(f"{shown(watch.name)} watches the table from {address}")
        try:
            await _stream(conn, playing, peer, None if key is None else (key, watch.key))
        finally:
            self._watching[address] -= 1
            if not self._watching[address]:
                del self._watching[address]

    def _refusal(self, watch: Watch, address: str, mine: Hello) -> str | None:
        if not self.allowed:
            return NO_SPECTATORS
        if watch.table not in (bytes(16), mine.table):
            return "that is not this table"
        return self._limit(address)

    def _limit(self, address: str) -> str | None:
        if sum(self._watching.values()) >= MOST_SPECTATORS:
            return f"this table has {MOST_SPECTATORS} spectators already"
        if self._watching[address] >= PER_ADDRESS:
            return f"{PER_ADDRESS} spectators from {address} watch already"
        return None


async def _ticket_refusal(conn: Connection, table: TablePeer, watch: Watch) -> str | None:
    """Why the spectator's ticket (a second `Proof`: the host's signature of its key) does
    not let it watch this seat; None when it does."""
    with trio.move_on_after(TICKET_WAIT):
        try:
            ticket = await conn.receive()
        except (Closed, RemoteProtocolError):
            return AT_THE_HOST
        host = table.roster[0].key
        said = ticket_statement(table.table, watch.key)
        if isinstance(ticket, Proof) and verify(host, ticket.proof, said):
            return None
    return AT_THE_HOST


async def _stream(
    conn: Connection,
    playing: trio.Event,
    peer: Callable[[], TablePeer | None],
    ticket: tuple[SeatKey, bytes] | None,
) -> None:
    """Stream the table to an admitted spectator; cut it off at its first word. The host
    (``ticket``: its key, and the spectator's) opens with the roster and the ticket."""
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_cut_off_when_it_speaks, conn, nursery.cancel_scope)
        await playing.wait()
        table = peer()
        assert table is not None
        feed = Feed(table)
        if ticket is not None:
            key, spectator = ticket
            feed.first(encode(Proof(key.sign(ticket_statement(table.table, spectator)), b"")))
            feed.first(encode(Roster(tuple(table.roster), True)))
        try:
            await feed.pump(conn)
        finally:
            feed.stop()
            # The table ended (its nursery cancelled this one): what it queued before the
            # end still goes, for a moment, so that the spectator sees the last commits.
            with trio.CancelScope(shield=True), trio.move_on_after(DRAIN):
                await feed.drain(conn)
            nursery.cancel_scope.cancel()
    await trio.aclose_forcefully(conn.stream)


async def _cut_off_when_it_speaks(conn: Connection, scope: trio.CancelScope) -> None:
    try:
        said = await conn.receive()
        log.warning("%s: a spectator sent %s: cut off", conn.peer, type(said).__name__)
    except Closed:
        pass
    except RemoteProtocolError as exc:
        log.warning("%s: a spectator broke the protocol, cut off: %s", conn.peer, exc)
    scope.cancel()


class Feed:
    """One spectator's stream from a seat's peer: what it sends and receives, what it
    commits (with the verdicts), and after each commit the table (`Scene`)."""

    def __init__(self, peer: TablePeer, backlog: int = BACKLOG) -> None:
        self.peer = peer
        self.queue: deque[bytes] = deque()
        """Frames to write, oldest first."""
        self._keep: deque[bool] = deque()
        """For each queued frame, whether it is one of the commits' (kept before traffic)."""
        self.backlog = backlog
        self.dropped = 0
        self.clocks = [0] * len(peer.roster)
        self._decided: list[tuple[Pending, int]] = []
        self._verdicts: dict[tuple[int, int], tuple[int, str]] = {}
        """Why a play came back (the seat whose play took its spot, or −1) or tied, by its
        seat and clock, until its commit is told (`_note_verdicts`)."""
        self._more = trio.Event()
        self._cut = False
        """A frame's writing was begun and not finished."""
        self._scene_at = trio.current_time()
        peer.traffic.append(self.traffic)
        peer.frame_traffic.append(self.traffic)
        peer.replica.on_commit.append(self.committed)
        peer.watchers.append(self.changed)
        self.put(encode(self.scene()))

    def stop(self) -> None:
        """Hear the peer no more."""
        self.peer.traffic.remove(self.traffic)
        self.peer.frame_traffic.remove(self.traffic)
        self.peer.replica.on_commit.remove(self.committed)
        self.peer.watchers.remove(self.changed)

    def put(self, frame: bytes, *, keep: bool = False) -> None:
        """Queue a frame for the spectator; when too many wait, the oldest frame that is
        not a commit's makes way (the oldest of all when every one is), so that a slow
        spectator loses traffic before it loses a step of the committed order."""
        if len(self.queue) >= self.backlog:
            at = next((i for i, kept in enumerate(self._keep) if not kept), 0)
            del self.queue[at], self._keep[at]
            self.dropped += 1
        self.queue.append(frame)
        self._keep.append(keep)
        self._more.set()

    def first(self, frame: bytes) -> None:
        """Queue ``frame`` before every other, never to make way (the roster, the ticket)."""
        self.queue.appendleft(frame)
        self._keep.appendleft(True)

    def _take(self) -> bytes:
        self._keep.popleft()
        return self.queue.popleft()

    def put_item(self, item: Seen | Decided) -> None:
        try:
            self.put(encode(item), keep=isinstance(item, Decided))
        except ValueError:  # too large to wrap (a StartView near the frame limit)
            self.dropped += 1

    # --- what the peer says ----------------------------------------------------------------

    def traffic(self, outgoing: bool, seat: int | None, message: Message | CommitFrame) -> None:
        """A message, or (at a majority's table) a commit frame, the seat sent or received."""
        if not outgoing and message.clock > self.clocks[message.sender]:
            self.clocks[message.sender] = message.clock
        if shown_to_spectators(message):
            at = round((trio.current_time() - self.peer.stats.started) * 1000)
            other = -1 if seat is None else seat
            self.put_item(Seen(max(at, 0), outgoing, other, encode_payload(message)))

    def committed(self, head: Pending, outcome: int) -> None:
        self._decided.append((head, outcome))

    def changed(self, events: Sequence[Event]) -> None:
        """After each change: the commits it made, told with their verdicts, then the table."""
        self._note_verdicts(events)
        if not self._decided and trio.current_time() - self._scene_at < SCENE_EVERY:
            return
        index = self.peer.replica.committed - len(self._decided)
        for head, outcome in self._decided:
            index += 1
            message = head.message
            winner, reason = self._verdicts.pop((message.sender, message.clock), (-1, ""))
            clock, call, rank = head.key
            frame = encode_payload(bare(message))
            self.put_item(Decided(index, clock, call, rank, frame, outcome, winner, reason[:200]))
        self._decided.clear()
        self.put(encode(self.scene()))

    def _note_verdicts(self, events: Sequence[Event]) -> None:
        """Keep why each play came back or tied, by its (seat, clock), until its commit is
        told: at a majority's table a play is applied or returned a step or more before it
        is folded into the order."""
        verdicts = self._verdicts
        for event in events:
            if isinstance(event, PlayReturned):
                winner = -1 if event.winner is None else event.winner
                verdicts[event.seat, event.clock] = (winner, event.reason)
            elif isinstance(event, PlayCommitted) and event.tie:
                verdicts[event.seat, event.clock] = (-1, "equal clocks: both stay")
        while len(verdicts) > VERDICTS_KEPT:  # (of plays a change of members never folds)
            del verdicts[next(iter(verdicts))]

    def scene(self) -> Scene:
        """The table as this seat's peer shows it now."""
        peer, r = self.peer, self.peer.replica
        now = trio.current_time()
        self._scene_at = now
        seats = range(len(peer.roster))
        self.clocks[peer.seat] = r.clock
        public = r.public
        return Scene(
            peer.table,
            peer.seat,
            tuple(s.name for s in peer.roster),
            peer.options,
            r.playing,
            r.committed,
            tuple(self.clocks),
            tuple(0 if s == peer.seat else round((now - r.heard[s]) * 1000) for s in seats),
            tuple(2 if s not in r.members else int(s in r.suspected) for s in seats),
            peer.match.totals,
            foundation_tops(public),
            0 if public is None else len(public.completed),
            tableaux_of(public),
            self.dropped,
        )

    # --- to the spectator --------------------------------------------------------------------

    async def pump(self, conn: Connection) -> None:
        """Write the stream to the spectator as fast as it reads, until it goes."""
        while not conn.closed:
            with trio.move_on_after(SCENE_EVERY):
                await self._more.wait()
            self._more = trio.Event()
            if not self.queue:
                self.changed(())  # nothing new: the health and clocks move on all the same
            if not await self.drain(conn):
                return

    async def drain(self, conn: Connection) -> bool:
        """Write every queued frame; False once the spectator is gone, or when a frame was
        cut off half-written (nothing more can follow it). A frame once begun is finished
        whatever is cancelled meanwhile (the table ending, most often: cut there, the
        frames queued after it never went, the match's last commits among them), unless
        the spectator takes none of it for `DRAIN` seconds."""
        while self.queue and not self._cut:
            frame = self._take()
            self._cut = True
            with trio.CancelScope(shield=True), trio.move_on_after(DRAIN):
                try:
                    await conn.stream.send_all(conn.sealed(frame))
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    return False
                self._cut = False
            await trio.lowlevel.checkpoint_if_cancelled()
        return not self._cut
