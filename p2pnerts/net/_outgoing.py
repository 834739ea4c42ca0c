"""What a seat puts on the wire: the messages its replica sends, or a cheat's lies in their
place, to every other seat or to one; and its commit frames (version 3's), or a cheat's."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from p2pnerts.net._links import Links
from p2pnerts.protocol import CommitFrame, Message, Signer

Traffic = Callable[[bool, int | None, Message], None]
"""Hears every protocol message: outgoing or not, the other seat (None: to all), it."""

FrameTraffic = Callable[[bool, int | None, CommitFrame], None]
"""Hears every commit frame (version 3's), as `Traffic` hears messages: the game log keeps
them (a table's screens show its messages alone)."""

Tamper = Callable[[Message], Sequence[Message | bytes | tuple[int, Message]]]
"""Rewrites one message a seat sends into what it puts on the wire (`p2pnerts.cheats`):
messages, frames as they are, or (seat, message) for one seat alone."""

Frames = Callable[[CommitFrame, int | None], Sequence[tuple[CommitFrame, int | None]]]
"""Rewrites one commit frame a seat sends, with the seat it goes to (None: every other), into
the frames it puts on the wire in its place, each with the seat it goes to: a tamper's
``frames``, if it has one (`p2pnerts.cheats.Cheat.frames`)."""


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


def ship_frames(
    frames: Iterable[tuple[CommitFrame, int | None]],
    links: Links,
    signer: Signer,
    tamper: Tamper | None,
    traffic: Iterable[FrameTraffic],
) -> None:
    """Send version 3's commit ``frames`` on ``links``, each to the seat it names (None:
    every other), rewritten first by ``tamper``'s ``frames`` if it has one, telling every
    one of ``traffic`` what goes out."""
    rewrite: Frames | None = getattr(tamper, "frames", None)
    for frame, to in frames:
        for lie, seat in [(frame, to)] if rewrite is None else rewrite(frame, to):
            if lie is not frame:  # (signed with its own key: a Tally it hands on is not its)
                lie = signer.sign(lie)
            for hear in traffic:
                hear(True, seat, lie)
            links.send_to(lie, seat)
