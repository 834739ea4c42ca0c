"""Real sockets for the tests, on loopback only."""

from __future__ import annotations

import trio


async def tcp_pair() -> tuple[trio.SocketStream, trio.SocketStream]:
    """Both ends of one TCP connection on loopback: the dialling end, then the accepted."""
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    async with listeners[0]:
        near = await trio.open_tcp_stream("127.0.0.1", listeners[0].socket.getsockname()[1])
        return near, await listeners[0].accept()
