"""One TCP connection carrying frames: a reader, a writer and a bounded queue between.

A slow or stuck peer must never stall the others, so sends never block: a frame the socket
does not take at once goes into the connection's bounded queue, and a queue that overflows
closes the connection (the peer resends what was lost once it reconnects).

Once its Noise handshake is done (`secure`, from `_handshake`), every frame goes sealed in
records and everything that arrives must open (`protocol.Channel`); before it, only the
handshake's frames and a Refuse travel, in the clear.
"""

from __future__ import annotations

import contextlib
import logging
import socket
from collections import deque
from collections.abc import Callable

import trio

from p2pnerts.net._shaper import LinkShaper, hold_until
from p2pnerts.protocol import (
    MAX_FRAME,
    Channel,
    CommitFrame,
    FrameDecoder,
    LinkMessage,
    Message,
    Noise,
    RemoteProtocolError,
    encode,
)
from p2pnerts.system import socket_twin

log = logging.getLogger("p2pnerts.net")

QUEUE_LIMIT = 4096
"""Frames a connection may have waiting to be written before it is given up as stuck."""
WRITE_BATCH = 64
"""At most this many queued frames go out in one write."""

HANDSHAKE_FRAME = 4096
"""The largest frame a connection takes before its handshake is done (a Hello, a
Welcome or a Refuse is far smaller)."""

Received = Message | LinkMessage | CommitFrame


class Closed(Exception):
    """The connection is gone (closed by either side, or given up as stuck)."""


class Connection:
    """Frames over one stream: `send_nowait` writes or queues, `serve` reads and writes
    until closed."""

    def __init__(
        self,
        stream: trio.abc.Stream,
        peer: str,
        queue_limit: int = QUEUE_LIMIT,
        shape: LinkShaper | None = None,
    ) -> None:
        self.stream = stream
        self.peer = peer
        self.closed = False
        self._queue: deque[tuple[float, bytes]] = deque()
        """Frames to write, each with the time it was queued (for ``shape``)."""
        self._queue_limit = queue_limit
        self._queued = trio.Event()
        """Set when a frame joins an empty queue: the writer task waits on it."""
        self._writing = False
        """Whether the writer task is writing (what it took from the queue is not out)."""
        self._twin: socket.socket | None = None
        """While served, unshaped, a second handle on the TCP socket, which `send_encoded`
        writes to at once when nothing is queued (`socket_twin`)."""
        self._shape = shape
        """How this connection is slowed, made lossy or cut (`_shaper`); None: it is not."""
        self._decoder = FrameDecoder(HANDSHAKE_FRAME)
        """Small frames only until the handshake is done (`open_up`): a stranger's large
        frame is refused before it is read, let alone decoded."""
        self._ready: deque[Received] = deque()
        self._channel: Channel | None = None
        """The link's encryption, once its handshake is done (`secure`)."""
        self._unread = b""
        """What arrived after the handshake's last frame before the link was encrypted."""
        self._scope = trio.CancelScope()
        self.frames_sent = 0
        self.bytes_sent = 0
        self.early: list[Received] = []
        """What arrived before anyone took this connection over (see `on_message`)."""
        self.on_message: Callable[[Received], None] = self.early.append
        """Who takes what arrives: kept in `early` at first, then the lobby or the table's
        peer, which takes `early` over too."""
        self.on_broken: Callable[[str], None] = lambda why: None
        """Told why, when what arrives breaks the protocol (before the connection drops)."""

    def secure(self, channel: Channel) -> None:
        """The Noise handshake is done: from now on every frame goes sealed, and what
        arrives must open (`RemoteProtocolError` if what arrived already does not)."""
        self._channel = channel
        unread, self._unread = self._unread, b""
        if unread:
            self._ready.extend(self._decoder.feed(channel.open(unread)))

    @property
    def binding(self) -> bytes:
        """The handshake hash of this connection's link, which its proofs sign."""
        assert self._channel is not None, "no handshake yet"
        return self._channel.hash

    def sealed(self, frame: bytes) -> bytes:
        """A frame as it goes on this connection: in records once the link is encrypted."""
        return frame if self._channel is None else self._channel.seal(frame)

    def open_up(self) -> None:
        """The handshake is done: take frames of any size the protocol allows."""
        self._decoder.allow(MAX_FRAME)

    def send_nowait(self, message: Received) -> None:
        """Send a message (`send_encoded`); a full queue means a stuck peer, and closes the
        connection."""
        self.send_encoded(encode(message))

    def send_encoded(self, frame: bytes) -> None:
        """Send a message already framed (`encode`): one broadcast is encoded once, for
        every connection. A full queue closes the connection, as `send_nowait` says.

        With nothing queued before it, the frame is written to the socket at once, as far
        as the socket takes it: the writer task would only have its turn after every task
        woken meanwhile (another connection's reader taking a frame, the replica's timer),
        which on a busy table is a millisecond and more per hop. The rest waits its turn."""
        if self.closed:
            return
        if len(self._queue) >= self._queue_limit:
            log.warning("%s: send queue full, dropping the connection", self.peer)
            self.close()
            return
        self.frames_sent += 1
        self.bytes_sent += len(frame)
        frame = self.sealed(frame)
        if self._twin is not None and not self._queue and not self._writing:
            try:
                written = self._twin.send(frame)
            except BlockingIOError:
                written = 0
            except OSError:
                self.close()  # (the reader hears of it too, and ends the connection)
                return
            frame = frame[written:]
            if not frame:
                return
        self._enqueue(frame)

    def send_frame(self, frame: bytes) -> None:
        """Queue bytes as they are (a cheat's garbage, sealed like any frame once the link is
        encrypted); dropped if the queue is full."""
        if not self.closed and len(self._queue) < self._queue_limit:
            self._enqueue(self.sealed(frame))

    def _enqueue(self, frame: bytes) -> None:
        self._queue.append((self._stamp(), frame))
        self._queued.set()

    def _stamp(self) -> float:
        return trio.current_time() if self._shape is not None else 0.0

    async def write_queued(self) -> None:
        """Write everything queued so far by hand, before `serve` runs (a handshake, a last
        Refuse)."""
        while self._queue:
            sent, frame = self._queue.popleft()
            await self._write_one(sent, frame)

    async def receive(self) -> Received:
        """The next message; raises `Closed` when there is none, `RemoteProtocolError` (after
        closing) when a frame breaks the protocol."""
        while not self._ready:
            if self.closed:
                raise Closed(self.peer)
            try:
                data = await self.stream.receive_some(65536)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                data = b""
            if not data:
                self.close()
                raise Closed(self.peer)
            if self._shape is not None:
                await hold_until(self._shape.taken_at(trio.current_time()))
            try:
                self._take(bytes(data))
            except RemoteProtocolError:
                self.close()
                raise
        return self._ready.popleft()

    def _take(self, data: bytes) -> None:
        if self._channel is not None:
            self._ready.extend(self._decoder.feed(self._channel.open(data)))
            return
        for message in self._decoder.feed(data):
            self._ready.append(message)
            if isinstance(message, Noise):  # what follows it opens with the link's keys
                self._unread = self._decoder.take_rest()
                return

    async def serve(self) -> None:
        """Write what is queued and hand over what arrives, until the connection closes.

        A frame (or message) that breaks the protocol drops this connection with one log
        line; nothing else is affected.
        """
        if self._shape is None and not self.closed:
            self._twin = socket_twin(self.stream)
        try:
            with self._scope:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._write)
                    try:
                        while self._deliver(await self.receive()):
                            pass
                    except Closed:
                        pass
                    except RemoteProtocolError as exc:
                        self._refuse(exc)
                    finally:
                        self.close()
        finally:
            twin, self._twin = self._twin, None
            if twin is not None:
                twin.close()
            with trio.move_on_after(1) as cleanup:
                cleanup.shield = True
                await self.stream.aclose()

    def hand_over(
        self, on_message: Callable[[Received], None], on_broken: Callable[[str], None]
    ) -> None:
        """From now on ``on_message`` takes what arrives, beginning with what arrived
        before (`early`), and ``on_broken`` hears why if any of it breaks the protocol: then
        the connection closes, as it does when what `serve` hands over breaks it."""
        self.on_message, self.on_broken = on_message, on_broken
        early, self.early = self.early, []
        for message in early:
            if not self._deliver(message):
                break

    def _deliver(self, message: Received) -> bool:
        """Hand ``message`` to whoever takes what arrives (looked up only now: it may have
        changed meanwhile); False, the connection closed, if it broke the protocol."""
        try:
            self.on_message(message)
        except RemoteProtocolError as exc:
            self._refuse(exc)
            self.close()
            return False
        return True

    def _refuse(self, exc: RemoteProtocolError) -> None:
        log.warning("%s broke the protocol, dropping the connection: %s", self.peer, exc)
        self.on_broken(str(exc))

    async def _write(self) -> None:
        try:
            while not self.closed:
                if not self._queue:
                    self._queued = trio.Event()
                    await self._queued.wait()
                    continue
                sent, frame = self._queue.popleft()
                if self._shape is None:
                    frame = self._with_queued(frame)
                self._writing = True
                try:
                    await self._write_one(sent, frame)
                finally:
                    self._writing = False
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            self.close()

    def _with_queued(self, frame: bytes) -> bytes:
        """``frame`` and every frame queued behind it, to write in one go: a step of the
        replica often sends several messages at once (a play and an acknowledgement), and
        one write costs the kernel, and the peer reading them, a fraction of one each.
        (A shaped link writes each frame at its own time instead.)"""
        frames = [frame]
        while len(frames) < WRITE_BATCH and self._queue:
            frames.append(self._queue.popleft()[1])
        return frame if len(frames) == 1 else b"".join(frames)

    async def _write_one(self, sent: float, frame: bytes) -> None:
        if self._shape is not None:
            await hold_until(self._shape.leaves_at(sent))
        await self.stream.send_all(frame)

    async def say_last(self, message: Received) -> None:
        """Write one message straight to the stream, even after the connection broke on a
        bad frame (a last Refuse saying why); the caller closes it."""
        with (
            trio.move_on_after(2),
            contextlib.suppress(
                trio.BrokenResourceError, trio.ClosedResourceError, OSError, trio.BusyResourceError
            ),
        ):
            await self.stream.send_all(self.sealed(encode(message)))

    async def finish(self) -> None:
        """Write what is queued (a last Refuse, say), then close; for a connection that is
        not being served."""
        with trio.move_on_after(2) as scope:
            scope.shield = True
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                await self.write_queued()
            self.close()
            await self.stream.aclose()

    def close(self) -> None:
        """Stop at once: nothing more is sent or read."""
        if not self.closed:
            self.closed = True
            self._queued.set()
        self._scope.cancel()
