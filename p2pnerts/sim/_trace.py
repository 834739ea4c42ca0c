"""The last steps of a run, kept cheaply and described only when a violation needs them."""

from __future__ import annotations

from collections import deque

from p2pnerts.protocol import Ack, Message, Play, Ready, Rejoin, Reveal, StartView, ViewChange
from p2pnerts.rules import CardMove, Move

_VERBS = {
    "deliver": "receives",
    "intend": "plays",
    "tick": "ticks",
    "deal": "deals round",
    "reconnect": "reconnects to seat",
    "restart": "restarts from its disk",
}


class Trace:
    """A ring of the last ``size`` steps: (time, what, seat, detail)."""

    def __init__(self, size: int) -> None:
        self._steps: deque[tuple[float, str, int, object]] = deque(maxlen=size)

    def add(self, time: float, what: str, seat: int, detail: object) -> None:
        self._steps.append((time, what, seat, detail))

    def lines(self) -> tuple[str, ...]:
        return tuple(_line(*step) for step in self._steps)


def _line(time: float, what: str, seat: int, detail: object) -> str:
    if isinstance(detail, Message):
        gist = describe_message(detail)
    elif isinstance(detail, Move):
        gist = describe_move(detail)
    else:
        gist = "" if detail is None else repr(detail)
    if what == "fault":
        return f"{time:10.4f} s  FAULT {gist}"
    return f"{time:10.4f} s  seat {seat} {_VERBS.get(what, what)} {gist}".rstrip()


def describe_message(message: Message) -> str:
    """A message in one short line: kind, sender, sequence number, clock and the gist."""
    base = f"{type(message).__name__} from {message.sender} #{message.seq} @{message.clock}"
    match message:
        case Play():
            return f"{base}: {describe_move(message.move)}"
        case Ack():
            return f"{base}: have {list(message.have)}, committed {message.committed}"
        case Ready() | Reveal() | Rejoin():
            return f"{base}: round {message.round}"
        case ViewChange():
            return f"{base}: view {message.view} to {message.new_view}, suspects {message.suspects}"
        case StartView():
            return f"{base}: view {message.view}, members {message.members}"
    return base


def describe_move(move: Move) -> str:
    if isinstance(move, CardMove):
        return f"{type(move).__name__} {move.card.label(ascii_only=True)}"
    return type(move).__name__
