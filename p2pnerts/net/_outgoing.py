"""What a seat puts on the wire: the messages its replica sends, or a cheat's lies in their
place, to every other seat or to one."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from p2pnerts.net._links import Links
from p2pnerts.protocol import Message, Signer

Traffic = Callable[[bool, int | None, Message], None]
"""Hears every protocol message: outgoing or not, the other seat (None: to all), it."""

Tamper = Callable[[Message], Sequence[Message | bytes | tuple[int, Message]]]
"""Rewrites one message a seat sends into what it puts on the wire (`p2pnerts.cheats`):
messages, frames as they are, or (seat, message) for one seat alone."""


def ship(
    sent: Iterable[Message],
    links: Links,
    signer: Signer,
    tamper: Tamper | None,
    traffic: Iterable[Traffic],
) -> None:
    """Send ``sent`` on ``links`` (rewritten by ``tamper`` first, if given), telling every
    one of ``traffic`` what goes out."""
    outgoing = sent if tamper is None else [lie for m in sent for lie in tamper(m)]
    for message in outgoing:
        if isinstance(message, bytes):
            links.send_frame(message)
            continue
        to, message = message if isinstance(message, tuple) else (None, message)
        if tamper is not None:  # a cheat signs its lies with its own key: it has no other
            message = signer.sign(message)
        for hear in traffic:
            hear(True, to, message)
        if to is None:
            links.send(message)
        elif to in links:  # a cheat tells one seat alone
            links[to].send_nowait(message)
