"""Real sockets for the tests, on loopback only."""

from __future__ import annotations

import sys

import pytest
import trio

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
