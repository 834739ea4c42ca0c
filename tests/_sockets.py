"""Real sockets for the tests, on loopback only."""

from __future__ import annotations

import sys

import pytest
import trio

from p2pnerts.net._handshake import open_channel
from p2pnerts.net._link import Connection

NO_TWIN = pytest.mark.skipif(
    sys.platform == "win32",
    reason="on Windows a socket's handle is not duplicated: every frame waits for the writer",
)
"""For a test of `_platform.socket_twin`, or of the frames a connection writes through it."""


async def tcp_pair() -> tuple[trio.SocketStream, trio.SocketStream]:
    """Both ends of one TCP connection on loopback: the dialling end, then the accepted."""
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    async with listeners[0]:
        near = await trio.open_tcp_stream("127.0.0.1", listeners[0].socket.getsockname()[1])
        return near, await listeners[0].accept()


async def noise_link(port: int, local_address: str | None = None) -> Connection | None:
    """A connection to the peer listening at ``port`` on loopback, its Noise handshake done
    as a peer's opening end does it (what a test then says on it goes sealed); None if the
    peer closed it or refused it instead."""
    stream = await trio.open_tcp_stream("127.0.0.1", port, local_address=local_address)
    conn = Connection(stream, f"a test's link to port {port}")
    if await open_channel(conn) is not True:
        await stream.aclose()
        return None
    return conn
