"""Whether the other seats have closed their ports: the table is over there, not silent.

A seat that cannot play on by itself (left out, or waiting for silent seats it cannot
leave out) counts the table gone once no other seat has said a word for ``gone_after``
seconds (`_waits.Quiet`), two minutes: a Wi-Fi stall is silence too, and the table may
still be there once it passes. A port that refuses a connection is no stall. The system
at the other end says that nobody listens there: that seat's match ended and it closed
its port, or its player quit, or its process crashed. So while this seat cannot play on,
it tries each other seat's port every `PROBE_EVERY` seconds (a connection opened and
closed at once, which a seat that listens takes for nothing). Once every other seat's
port has refused each try, and none has said a word, for `CLOSED_FOR` seconds, a seat
left out counts the table gone: the others played on without it, and have closed. A seat
that waits for silent seats waits `STRANDED_CLOSED_FOR`: a crashed seat started again
from its ``--state`` file listens on the same port, and the table waits for it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

import trio

from p2pnerts.protocol import Seat

CLOSED_FOR = 5.0
"""Seconds every other seat's port must have refused every try, with no word from any,
before a seat left out counts the table gone: several tries each, and far longer than a
seat that listens takes to dial this one again (a lower seat dials a higher one)..."""
STRANDED_CLOSED_FOR = 30.0
"""...and before a seat that waits for silent seats does: time for a player to start a
crashed seat again."""
PROBE_EVERY = 1.0
"""Seconds between two tries of one seat's port while this seat cannot play on..."""
TRY_FOR = 3.0
"""...and how long one try may take: Windows tries a refused connection again for about
2 s before it says so."""


def nobody_listens(exc: OSError) -> bool:
    """Whether a failed connection was refused at every address tried: the system there
    answered that nobody listens on that port (not a timeout, nor a network unreachable)."""
    if isinstance(exc, ConnectionRefusedError):
        return True
    tried = exc.__cause__
    return isinstance(tried, BaseExceptionGroup) and all(
        isinstance(e, ConnectionRefusedError) for e in tried.exceptions
    )


async def listening(host: str, port: int) -> bool | None:
    """Whether anyone listens at host:port: True if a connection opens (it is closed at
    once), False if the system there refuses it, None if neither is known in time."""
    try:
        with trio.move_on_after(TRY_FOR):
            stream = await trio.open_tcp_stream(host, port)
            await trio.aclose_forcefully(stream)
            return True
    except OSError as exc:
        return False if nobody_listens(exc) else None
    return None


class Closed:
    """Since when each other seat's port has refused every try (`keep_probed`)."""

    def __init__(self, seats: Iterable[int]) -> None:
        self._seats = tuple(seats)
        self._since: dict[int, float] = {}

    def refused(self, seat: int, now: float) -> None:
        self._since.setdefault(seat, now)

    def answered(self, seat: int) -> None:
        self._since.pop(seat, None)

    def closed_for(self, now: float) -> float:
        """For how long every other seat's port has refused every try (0: some seat's has
        not, or there is no other seat)."""
        if not self._seats:
            return 0.0
        since = max(self._since.get(seat, math.inf) for seat in self._seats)
        return max(0.0, now - since)

    async def keep_probed(self, other: Seat, blocked: Callable[[], bool]) -> None:
        """Try ``other``'s port every `PROBE_EVERY` seconds while ``blocked`` (this seat
        cannot play on), and count it closed while each try is refused; forever."""
        while True:
            await trio.sleep(PROBE_EVERY)
            if not blocked():
                self.answered(other.seat)
                continue
            answer = await listening(other.host, other.port)
            if answer is False:
                self.refused(other.seat, trio.current_time())
            elif answer:
                self.answered(other.seat)
