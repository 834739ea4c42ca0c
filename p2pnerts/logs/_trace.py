"""The game logs of one match's peers merged into one causal history, and written out for
ShiViz (a time-space diagram from vector clocks), as a Mermaid sequence diagram, or as
JSON (`p2pnerts trace`).

Each peer's log holds its own events in its own order (protocol/LOG.md): frames sent,
frames received, commits. A received frame is matched to the send it came from: on each
link, the k-th copy of a frame that one seat received from another is the k-th copy that
the other sent (links are FIFO). Vector clocks then follow the usual rule — an event
ticks its own host's entry; a receive first takes the entry-wise maximum with its send's
clock — so that each host's entry counts its events from 1 and every receive comes after
its send. A frame whose send is in no log given (a peer's log missing or cut short) is
received as a local event. The logs are read a record at a time, and an event keeps its
frame's digest, not the frame: a trace holds its events, not the logs.

The diagrams draw a part of the trace (`Trace.part`): a window of the match, and the Acks
only when asked for, as most frames are Acks. The clocks of a part are counted again over
the events it keeps, as if the frames left out had never been sent. That is the honest
choice for a diagram whose arrows are messages: ShiViz draws an arrow wherever a clock
says one event learned of another, and clocks kept whole would draw arrows where no frame
of the file went (a commit waits for the others' Acks, left out). The price is that an
order only a left-out frame made does not show: two events may look concurrent that an
Ack ordered. ``--acks`` shows every frame and every order.
"""

from __future__ import annotations

import datetime
import itertools
import json
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

from p2pnerts.errors import Error
from p2pnerts.logs._format import COMMIT, RECEIVED, SENT, LogError, LogReader, frame_id
from p2pnerts.protocol import (
    Ballot,
    CommitFrame,
    Message,
    Play,
    Poll,
    RemoteProtocolError,
    Tally,
    decode,
)
from p2pnerts.words import move_words

SHIVIZ_REGEX = r"(?<event>.*)\n(?<host>\S*) (?<clock>{.*})"
"""The parser ShiViz is given on a file's first line (its default one)."""
RESTART = "restart"
"""The kind of the local event where a seat's lane goes on in the log of a new process."""
ACK = "Ack"
"""The frames a part leaves out unless asked for: acknowledgements (the heartbeat too)."""
_ACKS = {"send": "Acks sent", "receive": "Acks received"}


class TraceError(Error):
    """The logs cannot be traced together."""

    context = "trace"


@dataclass(slots=True)
class Event:
    """One event of one host: what happened, when by its clock, and its vector clock."""

    host: str
    kind: str
    """``send``, ``receive``, ``commit`` or ``restart`` (`RESTART`)."""
    time: float
    text: str
    clock: dict[str, int] = field(default_factory=dict)
    peer: int | None = None
    """The other seat of a send or receive (None: a broadcast, or a commit)."""
    frame: bytes = b""
    """The digest of the frame sent or received (`frame_id`): equal for its copies."""
    message: str = ""
    """The kind of frame sent or received (``Play``, ``Ack``...)."""
    brief: str = ""
    """A receive in fewer words, as a ShiViz step lists it: kind, Lamport clock, sender."""
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
    """A match's events, host by host, each with its vector clock; or a part of them
    (`part`), which says what it left out."""

    table: str
    hosts: tuple[str, ...]
    events: tuple[Event, ...]
    """In an order that respects happens-before (each host's own order kept)."""
    window: tuple[float, float] = (0.0, math.inf)
    """The seconds into the match the events are from."""
    left_out: Counter[str] = field(default_factory=Counter)
    """Events of the window left out, by kind: Acks sent and Acks received."""

    def part(self, start: float = 0.0, end: float = math.inf, *, acks: bool = False) -> Trace:
        """The events from ``start`` to ``end`` seconds into the match, Acks only with
        ``acks``, their clocks counted again over the events kept (see the module's
        docstring); a receive whose send is not kept has no arrow in ShiViz."""
        kept: dict[int, Event] = {}
        left_out: Counter[str] = Counter()
        for event in self.events:
            if not start <= event.at <= end:
                continue
            if event.message == ACK and not acks:
                left_out[_ACKS[event.kind]] += 1
            else:
                kept[id(event)] = replace(event)
        for event in kept.values():
            if event.matched is not None:
                event.matched = kept.get(id(event.matched), event.matched)
        events = tuple(kept.values())
        _count_again(events)
        return Trace(self.table, self.hosts, events, (start, end), left_out)

    def note(self) -> str:
        """What the part holds, in words, for the people who read it."""
        start, end = self.window
        span = "the whole match"
        if (start, end) != (0.0, math.inf):
            span = f"seconds {start:g} to {'the end' if end == math.inf else f'{end:g}'}"
            span += " of the match"
        if not self.left_out:
            return f"{span}, every frame"
        counts = " and ".join(f"{n:,} {what}" for what, n in sorted(self.left_out.items())[::-1])
        return f"{span}; left out: {counts} (--acks keeps them)"

    def shiviz(self) -> str:
        """The trace as a file ShiViz loads as it is: its parser, an empty line (one
        execution), then two lines per event.

        An event of the file is a step of one host: what it received and committed since
        its last send, then that send. Only a send tells another host anything, so a step
        is ordered as its last event is, and a diagram of steps shows every arrow and every
        order the events show, in a fraction of the events.
        """
        lines = [SHIVIZ_REGEX, ""]
        for host, text, clock in _steps(self.events):
            lines += [text, f"{host} {json.dumps(clock, separators=(',', ':'))}"]
        return "\n".join(lines) + "\n"

    def mermaid(self) -> str:
        """A Mermaid sequence diagram of the messages received and the commits made, in a
        fenced block a Markdown page draws, with a comment saying what it holds: a message
        sent before a window and received in it is drawn too, and a host's commits in a
        row are one note."""
        lines = ["```mermaid", "sequenceDiagram", f"    %% {self.note()}"]
        lines += [f"    participant {_id(host)} as {host}" for host in self.hosts]
        in_a_row = itertools.groupby(self.events, lambda e: (e.host, e.kind == "commit"))
        for (host, commits), events in in_a_row:
            if commits:
                lines.append(f"    Note over {_id(host)}: {_commits(list(events))}")
                continue
            for event in events:
                if event.kind == RESTART:
                    lines.append(f"    Note over {_id(host)}: {event.text}")
                if event.kind == "receive" and event.matched is not None:
                    gist = event.matched.text.removeprefix("send ")
                    lines.append(f"    {_id(event.matched.host)}->>{_id(host)}: {gist}")
        return "\n".join([*lines, "```"]) + "\n"

    def to_json(self) -> dict[str, Any]:
        events = [event.to_json() for event in self.events]
        return {"table": self.table, "hosts": list(self.hosts), "events": events}

    def write_json(self, out: TextIO) -> None:
        """`to_json` written to ``out`` as `json.dump` writes it, an event at a time: the
        whole as dicts would take as much memory again as the events."""
        head = json.dumps({"table": self.table, "hosts": list(self.hosts), "events": []})
        out.write(head.removesuffix("]}"))
        for k, event in enumerate(self.events):
            out.write((", " if k else "") + json.dumps(event.to_json()))
        out.write("]}")


def _count_again(events: Sequence[Event]) -> None:
    """Count the vector clocks of ``events`` (in causal order) over them alone: a receive
    takes its send's clock only if its send is one of them."""
    kept = {id(event) for event in events}
    clocks: dict[str, dict[str, int]] = defaultdict(dict)
    for event in events:
        clock = clocks[event.host]
        send = event.matched
        if send is not None and id(send) in kept:
            for host, count in send.clock.items():
                clock[host] = max(clock.get(host, 0), count)
        clock[event.host] = clock.get(event.host, 0) + 1
        event.clock = dict(clock)


def _steps(events: Sequence[Event]) -> Iterator[tuple[str, str, dict[str, int]]]:
    """Each host's events cut after each of its sends, in the order of the steps' last
    events: each step's host, its text and its vector clock, counted in steps."""
    steps: list[list[Event]] = []
    open_steps: dict[str, list[Event]] = {}
    for event in events:
        open_steps.setdefault(event.host, []).append(event)
        if event.kind == "send":
            steps.append(open_steps.pop(event.host))
    steps += open_steps.values()
    step_of: dict[str, dict[int, int]] = defaultdict(dict)  # a host's k-th event: its step
    numbers: Counter[str] = Counter()
    for step in steps:
        host = step[0].host
        numbers[host] += 1
        step_of[host].update((event.clock[host], numbers[host]) for event in step)
    for step in steps:
        # Another host's entry is always one of its sends, the last event of its step.
        last = step[-1]
        clock = {host: step_of[host][count] for host, count in last.clock.items()}
        yield last.host, _step_text(step), clock


def _step_text(step: list[Event]) -> str:
    """What a step received, committed and sent, in words (not in their order: the step is
    one event)."""
    received = [event.brief for event in step if event.kind == "receive"]
    commits = [event for event in step if event.kind == "commit"]
    words = [event.text for event in step if event.kind == RESTART]
    words += [f"receive {', '.join(received)}"] if received else []
    words += [_commits(commits)] if commits else []
    words += [event.text for event in step if event.kind == "send"]
    return "; ".join(words)


def _commits(run: list[Event]) -> str:
    """Commits of one host in words, a run of them as one: ``commits #5-#9 digest ...``."""
    if len(run) == 1:
        return run[0].text
    _, first, _ = run[0].text.split(" ", 2)
    _, last, digest = run[-1].text.split(" ", 2)
    return f"commits {first}-{last} {digest}"


def trace(paths: Sequence[Path]) -> Trace:
    """The logs at ``paths``, of one match's peers, merged (`TraceError` if they are not),
    each read a record at a time."""
    if not paths:
        raise TraceError("no log given")
    with ExitStack() as opened:
        try:
            logs = [opened.enter_context(LogReader(path)) for path in paths]
            table, lanes, names = _lanes(logs)
        except LogError as exc:
            raise TraceError(str(exc)) from None
    _match(lanes)
    ordered = _causal_order(lanes)
    return Trace(table, tuple(names[s] for s in sorted(lanes)), tuple(ordered))


def _lanes(logs: list[LogReader]) -> tuple[str, dict[int, list[Event]], dict[int, str]]:
    """The logs' table, each seat's events and its host's name; `LogError` from a record
    that is not one a log holds."""
    headers = [log.header for log in logs]
    tables = {header["table"] for header in headers}
    if len(tables) > 1:
        raise TraceError("these logs are of different matches (different table ids)")
    roster = {row[0]: row[1] for header in headers for row in header["roster"]}
    names = {seat: f"s{seat + 1}-{_word(roster.get(seat, ''))}" for seat in roster}
    origin = min(_wall(header) + header["clock"] for header in headers)  # the first start
    lives: dict[int, list[_Life]] = defaultdict(list)
    for log in logs:
        seat, offset = log.header["seat"], _wall(log.header) - origin
        clock = log.header["clock"]
        life = _Life(clock + offset, clock, _events(names, seat, log, offset))
        lives[seat].append(life)
    lanes = {seat: _lane(names[seat], seat, runs) for seat, runs in lives.items()}
    return tables.pop(), lanes, names


@dataclass(frozen=True, slots=True)
class _Life:
    """One process's log of a seat: when it began (seconds since the first log began, and
    by its own clock), and its events."""

    start: float
    clock: float
    events: list[Event]

    @property
    def end(self) -> float:
        """When its last event was (its start, if it has none)."""
        return self.events[-1].at if self.events else self.start


def _lane(host: str, seat: int, lives: list[_Life]) -> list[Event]:
    """A seat's events over the logs of its processes, one after another: a player whose
    process crashed, or who left, and came back wrote a log in each life. Its lane goes on
    from one to the next (the new process took up the seat from the first one's disk), at
    a local event that says so; logs of one seat that overlap in time are refused."""
    lives = sorted(lives, key=lambda life: life.start)
    events = list(lives[0].events)
    for number, (before, life) in enumerate(itertools.pairwise(lives), start=2):
        if life.start <= before.end:
            raise TraceError(
                f"two logs of seat {seat + 1} overlap in time: give each of its logs once"
            )
        text = f"a new process takes up the seat (its log {number} of {len(lives)})"
        events.append(Event(host, RESTART, life.clock, text, at=life.start))
        events += life.events
    return events


def _wall(header: dict[str, Any]) -> float:
    """What turns a log's clock into the wall clock (seconds since the epoch)."""
    started = datetime.datetime.fromisoformat(header["started"]).timestamp()
    return started - float(header["clock"])


def _events(
    names: dict[int, str], seat: int, records: Iterable[list[Any]], offset: float
) -> list[Event]:
    """A log's events; ``offset`` turns its clock into seconds since the first log began."""
    host = names[seat]
    events = []
    for record in records:
        kind, time = record[0], record[1]
        if kind in (SENT, RECEIVED):
            events.append(_framed(names, host, kind, time, record[2], record[3]))
        elif kind == COMMIT:
            digest = record[3].hex()[:8] if isinstance(record[3], bytes) else "?"
            events.append(Event(host, "commit", time, f"commit #{record[2]} digest {digest}"))
    for event in events:
        event.at = event.time + offset
    return events


def _framed(
    names: dict[int, str], host: str, kind: str, time: float, peer: int | None, frame: bytes
) -> Event:
    """A frame ``host`` sent or received (``kind``), to or from ``peer``, as an event."""
    message, stamp, detail = _gist(frame)
    copy = frame_id(frame)
    if kind == SENT:
        text = f"send {stamp}{detail}"
        return Event(host, "send", time, text, peer=peer, frame=copy, message=message)
    sender = f" from {names.get(peer, f's{peer + 1}')}" if peer is not None else ""
    text, brief = f"receive {stamp}{detail}{sender}", f"{stamp}{sender}"
    return Event(host, "receive", time, text, peer=peer, frame=copy, message=message, brief=brief)


def _match(lanes: dict[int, list[Event]]) -> None:
    """Pair each receive with its send: on each link, copies of one frame in FIFO order."""
    sent: dict[tuple[int, int, bytes], list[Event]] = defaultdict(list)
    for seat, events in lanes.items():
        for event in events:
            if event.kind == "send":
                for other in lanes:
                    if other != seat and event.peer in (None, other):
                        sent[seat, other, event.frame].append(event)
    for copies in sent.values():
        copies.reverse()  # the first copy last, where pop takes it (a deque each is 10x larger)
    for seat, events in lanes.items():
        for event in events:
            if event.kind == "receive" and event.peer is not None:
                waiting = sent.get((event.peer, seat, event.frame))
                if waiting:
                    event.matched = waiting.pop()


def _causal_order(lanes: dict[int, list[Event]]) -> list[Event]:
    """Every event with its vector clock, in an order where each receive follows its send."""
    clocks = {seat: dict[str, int]() for seat in lanes}
    at = dict.fromkeys(lanes, 0)
    ordered: list[Event] = []
    while any(at[seat] < len(events) for seat, events in lanes.items()):
        progressed = False
        for seat, events in lanes.items():
            while at[seat] < len(events):
                event = events[at[seat]]
                send = event.matched
                if send is not None and not send.clock:
                    break  # its send comes first (an event ordered has its clock)
                clock = clocks[seat]
                if send is not None:
                    for host, count in send.clock.items():
                        clock[host] = max(clock.get(host, 0), count)
                clock[event.host] = clock.get(event.host, 0) + 1
                event.clock = dict(clock)
                ordered.append(event)
                at[seat] += 1
                progressed = True
        if not progressed:  # logs that contradict each other: take the next as unmatched
            seat = min(
                (s for s in lanes if at[s] < len(lanes[s])), key=lambda s: lanes[s][at[s]].time
            )
            lanes[seat][at[seat]].matched = None
    return ordered


def _gist(frame: bytes) -> tuple[str, str, str]:
    """A frame in a few words: its kind; its kind and Lamport clock; a Play's move, its
    number and view."""
    try:
        message = decode(frame)
    except RemoteProtocolError:
        return "", "a frame that does not decode", ""
    kind = type(message).__name__
    if isinstance(message, Ballot | Tally | Poll):
        return kind, f"{kind} L={message.clock}", f" {commit_gist(message)} view {message.view}"
    if not isinstance(message, Message):
        return kind, kind, ""
    move = f" ({move_words(message.move)})" if isinstance(message, Play) else ""
    return kind, f"{kind} L={message.clock}", f"{move} seq {message.seq} view {message.view}"


def commit_gist(frame: CommitFrame) -> str:
    """What a commit frame (at a majority's table) says of which play, in a few words: a
    vote, an outcome, or a question (the trace's and the spectator's)."""
    play = f"s{frame.seat + 1}'s #{frame.number}"
    match frame:
        case Ballot(ok=False):
            return f"on {play}: late"
        case Ballot():
            return f"on {play}: for, after {list(frame.below)}"
        case Tally(ok=False):
            return f"of {play}: late, {len(frame.ballots)} Ballots"
        case Tally():
            return f"of {play}: in, {len(frame.ballots)} Ballots"
        case Poll(play=b""):
            return f"for {play}"
    return f"for {play}, carrying it"


def _id(host: str) -> str:
    """A host's name as a Mermaid participant id (``s1``)."""
    return host.split("-", 1)[0]


def _word(name: str) -> str:
    return re.sub(r"\s+", "_", name.strip()) or "seat"
