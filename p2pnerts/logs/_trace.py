"""The game logs of one match's peers merged into one causal history, and written out for
ShiViz (a time-space diagram from vector clocks) or as JSON (`p2pnerts trace`).

Each peer's log holds its own events in its own order (protocol/LOG.md): frames sent,
frames received, commits. A received frame is matched to the send it came from: on each
link, the k-th copy of a frame that one seat received from another is the k-th copy that
the other sent (links are FIFO). Vector clocks then follow the usual rule — an event
ticks its own host's entry; a receive first takes the entry-wise maximum with its send's
clock — so that each host's entry counts its events from 1 and every receive comes after
its send. A frame whose send is in no log given (a peer's log missing or cut short) is
received as a local event.
"""

from __future__ import annotations

import datetime
import json
import math
import re
from collections import defaultdict, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from p2pnerts.errors import Error
from p2pnerts.logs._format import COMMIT, RECEIVED, SENT, read_log
from p2pnerts.protocol import Message, RemoteProtocolError, decode

SHIVIZ_REGEX = r"(?<event>.*)\n(?<host>\S*) (?<clock>{.*})"
"""The parser ShiViz is given on a file's first line (its default one)."""


class TraceError(Error):
    """The logs cannot be traced together."""

    context = "trace"


@dataclass(slots=True)
class Event:
    """One event of one host: what happened, when by its clock, and its vector clock."""

    host: str
    kind: str
    """``send``, ``receive`` or ``commit``."""
    time: float
    text: str
    clock: dict[str, int] = field(default_factory=dict)
    peer: int | None = None
    """The other seat of a send or receive (None: a broadcast, or a commit)."""
    frame: bytes = b""
    matched: Event | None = None
    """A receive's send, where a log holds it."""
    at: float = 0.0
    """Seconds since the first of the logs began, by each log's wall clock at its start."""

    def to_json(self) -> dict[str, Any]:
        return {
            "host": self.host,
            "kind": self.kind,
            "time": self.time,
            "at": self.at,
            "event": self.text,
            "clock": self.clock,
        }


@dataclass(frozen=True, slots=True)
class Trace:
    """A match's events, host by host, each with its vector clock."""

    table: str
    hosts: tuple[str, ...]
    events: tuple[Event, ...]
    """In an order that respects happens-before (each host's own order kept)."""

    def shiviz(self) -> str:
        """The trace as a file ShiViz loads as it is: its parser, an empty line (one
        execution), then two lines per event."""
        lines = [SHIVIZ_REGEX, ""]
        for event in self.events:
            clock = json.dumps(event.clock, separators=(",", ":"))
            lines += [f"{event.text}", f"{event.host} {clock}"]
        return "\n".join(lines) + "\n"

    def mermaid(self, start: float = 0.0, end: float = math.inf, acks: bool = False) -> str:
        """A Mermaid sequence diagram of the messages received and the commits made from
        ``start`` to ``end`` seconds into the match (Acks, the heartbeat, only with
        ``acks``)."""
        lines = ["sequenceDiagram"]
        lines += [f"    participant {_id(host)} as {host}" for host in self.hosts]
        for event in self.events:
            if not start <= event.at <= end:
                continue
            if event.kind == "commit":
                lines.append(f"    Note over {_id(event.host)}: {event.text}")
            elif event.kind == "receive" and event.matched is not None:
                if not acks and event.text.startswith("receive Ack "):
                    continue
                gist = event.matched.text.removeprefix("send ")
                lines.append(f"    {_id(event.matched.host)}->>{_id(event.host)}: {gist}")
        return "\n".join(lines) + "\n"

    def to_json(self) -> dict[str, Any]:
        events = [event.to_json() for event in self.events]
        return {"table": self.table, "hosts": list(self.hosts), "events": events}


def trace(paths: Sequence[Path]) -> Trace:
    """The logs at ``paths``, of one match's peers, merged (`TraceError` if they are not)."""
    if not paths:
        raise TraceError("no log given")
    logs = []
    for path in paths:
        try:
            logs.append(read_log(path))
        except ValueError as exc:
            raise TraceError(str(exc)) from None
    tables = {header["table"] for header, _ in logs}
    if len(tables) > 1:
        raise TraceError("these logs are of different matches (different table ids)")
    seats = [header["seat"] for header, _ in logs]
    if len(set(seats)) < len(seats):
        raise TraceError("two logs of one seat: give each seat's log once")
    roster = {row[0]: row[1] for header, _ in logs for row in header["roster"]}
    names = {seat: f"s{seat + 1}-{_word(roster.get(seat, ''))}" for seat in roster}
    origin = min(_wall(header) + header["clock"] for header, _ in logs)  # the first start
    lanes = {
        seat: _events(names, seat, log, _wall(header) - origin)
        for (header, log), seat in zip(logs, seats, strict=True)
    }
    _match(lanes)
    ordered = _causal_order(lanes)
    return Trace(tables.pop(), tuple(names[s] for s in sorted(lanes)), tuple(ordered))


def _wall(header: dict[str, Any]) -> float:
    """What turns a log's clock into the wall clock (seconds since the epoch)."""
    started = datetime.datetime.fromisoformat(header["started"]).timestamp()
    return started - float(header["clock"])


def _events(
    names: dict[int, str], seat: int, records: list[list[Any]], offset: float
) -> list[Event]:
    """A log's events; ``offset`` turns its clock into seconds since the first log began."""
    host = names[seat]
    events = []
    for record in records:
        kind, time = record[0], record[1]
        if kind == SENT:
            events.append(
                Event(
                    host, "send", time, f"send {_gist(record[3])}", peer=record[2], frame=record[3]
                )
            )
        elif kind == RECEIVED:
            other = names.get(record[2], f"s{record[2] + 1}")
            text = f"receive {_gist(record[3])} from {other}"
            events.append(Event(host, "receive", time, text, peer=record[2], frame=record[3]))
        elif kind == COMMIT:
            digest = record[3].hex()[:8] if isinstance(record[3], bytes) else "?"
            events.append(Event(host, "commit", time, f"commit #{record[2]} digest {digest}"))
    for event in events:
        event.at = event.time + offset
    return events


def _match(lanes: dict[int, list[Event]]) -> None:
    """Pair each receive with its send: on each link, copies of one frame in FIFO order."""
    sent: dict[tuple[int, int, bytes], deque[Event]] = defaultdict(deque)
    for seat, events in lanes.items():
        for event in events:
            if event.kind == "send":
                for other in lanes:
                    if other != seat and event.peer in (None, other):
                        sent[seat, other, event.frame].append(event)
    for seat, events in lanes.items():
        for event in events:
            if event.kind == "receive" and event.peer is not None:
                waiting = sent.get((event.peer, seat, event.frame))
                if waiting:
                    event.matched = waiting.popleft()


def _causal_order(lanes: dict[int, list[Event]]) -> list[Event]:
    """Every event with its vector clock, in an order where each receive follows its send."""
    clocks = {seat: dict[str, int]() for seat in lanes}
    done: set[int] = set()
    at = dict.fromkeys(lanes, 0)
    ordered: list[Event] = []
    while any(at[seat] < len(events) for seat, events in lanes.items()):
        progressed = False
        for seat, events in lanes.items():
            while at[seat] < len(events):
                event = events[at[seat]]
                send = event.matched
                if send is not None and id(send) not in done:
                    break  # its send comes first
                clock = clocks[seat]
                if send is not None:
                    for host, count in send.clock.items():
                        clock[host] = max(clock.get(host, 0), count)
                clock[event.host] = clock.get(event.host, 0) + 1
                event.clock = dict(clock)
                done.add(id(event))
                ordered.append(event)
                at[seat] += 1
                progressed = True
        if not progressed:  # logs that contradict each other: take the next as unmatched
            seat = min(
                (s for s in lanes if at[s] < len(lanes[s])), key=lambda s: lanes[s][at[s]].time
            )
            lanes[seat][at[seat]].matched = None
    return ordered


def _gist(frame: bytes) -> str:
    """A frame in a few words: its kind, sender, Lamport clock and number."""
    try:
        message = decode(frame)
    except RemoteProtocolError:
        return "a frame that does not decode"
    if not isinstance(message, Message):
        return type(message).__name__
    return f"{type(message).__name__} L={message.clock} seq {message.seq} view {message.view}"


def _id(host: str) -> str:
    """A host's name as a Mermaid participant id (``s1``)."""
    return host.split("-", 1)[0]


def _word(name: str) -> str:
    return re.sub(r"\s+", "_", name.strip()) or "seat"
