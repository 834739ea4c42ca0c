"""Game logs: one append-only file per peer and match, of every frame it sent and received
with its local time, and every commit with the running digest (protocol/LOG.md), written
by the network's peers (`net`) and the simulator's (`sim --log`).

Each record is framed with its length and a CRC-32, so that a log cut at any byte (a crash,
a full disk) reads back as every whole record before the cut: a torn tail is found and
dropped, never misread. Old logs are pruned, newest kept (`LOGS_KEPT`).
"""

from __future__ import annotations

import datetime
import math
import re
import struct
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import msgpack

from p2pnerts import __version__
from p2pnerts.protocol import MAX_SEATS, PROTOCOL_VERSION, Message, Seat, encode

MAGIC = b"p2pnerts log 1\n"
"""The first bytes of every log: the format and its version."""
SUFFIX = ".p2plog"
LOGS_KEPT = 100
"""Logs a directory keeps: starting a new one removes the oldest beyond this many."""
_HEAD = struct.Struct(">II")
"""A record's length and the CRC-32 of its bytes."""
FLUSH_EVERY = 0.5
"""Seconds a record may wait in memory before it is written to the file."""
LARGEST = 1 << 24
"""A record longer than this is taken as a torn length, not read."""

SENT, RECEIVED, COMMIT = "sent", "received", "commit"


class GameLog:
    """The log of one seat's match, open for appending."""

    def __init__(self, out: BinaryIO, path: Path) -> None:
        self._out = out
        self.path = path
        self._committed = 0
        """The commits written so far (the replica's count at the last look)."""
        self._flushed = -math.inf

    @classmethod
    def start(
        cls,
        directory: Path,
        *,
        table: bytes,
        name: str,
        seat: int,
        roster: Sequence[Seat],
        options: str,
        now: float,
        kept: int = LOGS_KEPT,
    ) -> GameLog:
        """A new log in ``directory`` (made if need be; the oldest beyond ``kept`` go),
        opened with its header: which table and seat, who sat where, and when."""
        directory.mkdir(parents=True, exist_ok=True)
        prune(directory, kept - 1)
        wall = datetime.datetime.now(datetime.UTC)
        stem = f"{wall:%Y%m%d-%H%M%S}-{_safe(name) or 'table'}-seat{seat + 1}"
        path = directory / f"{stem}{SUFFIX}"
        for n in range(2, 1000):  # two matches in one second
            if not path.exists():
                break
            path = directory / f"{stem}-{n}{SUFFIX}"
        out = open(path, "xb")  # noqa: SIM115 (kept open for the match, closed by `close`)
        out.write(MAGIC)
        log = cls(out, path)
        header = {
            "p2pnerts": __version__,
            "protocol": PROTOCOL_VERSION,
            "table": table.hex(),
            "name": name,
            "seat": seat,
            "roster": [[s.seat, s.name, s.host, s.port, s.key.hex()] for s in roster],
            "options": options,
            "started": wall.isoformat(),
            "clock": now,
        }
        log._write(["header", now, header])
        return log

    def frame(self, outgoing: bool, seat: int | None, message: Message, now: float) -> None:
        """A protocol message this seat sent (to every seat: ``seat`` None) or received
        from ``seat``, at ``now``."""
        kind = SENT if outgoing else RECEIVED
        self._write([kind, now, seat, encode(message)])

    def commits(self, committed: int, digest_at: Callable[[int], bytes | None], now: float) -> None:
        """Write every commit since the last look: its number and the running digest
        after it (``digest_at(n)``, None if no longer known); write what waits to disk
        at most every `FLUSH_EVERY` seconds. A count below the last (a peer restarted from
        what it kept) writes nothing until it passes the last."""
        for number in range(self._committed + 1, committed + 1):
            self._write([COMMIT, now, number, digest_at(number)])
        self._committed = max(self._committed, committed)
        if now - self._flushed >= FLUSH_EVERY:
            self.flush(now)

    def flush(self, now: float = 0.0) -> None:
        self._out.flush()
        self._flushed = now

    def close(self) -> None:
        if not self._out.closed:
            self._out.close()

    def _write(self, record: list[Any]) -> None:
        body = msgpack.packb(record, use_bin_type=True)
        self._out.write(_HEAD.pack(len(body), zlib.crc32(body)) + body)


def read_log(path: Path) -> tuple[dict[str, Any], list[list[Any]]]:
    """A log's header and its records (``[kind, time, ...]``), every whole one up to a
    torn tail; raises `ValueError` for a file that is not a game log, or cannot be read."""
    read = load_log(path)
    return read.header, read.records


@dataclass(frozen=True, slots=True)
class LogRead:
    """What a log holds: its header, every whole record after it, and how many bytes of a
    torn tail were dropped (0: the log ends with a whole record)."""

    header: dict[str, Any]
    records: list[list[Any]]
    torn: int


def load_log(path: Path) -> LogRead:
    """The log at ``path`` read as `read_log` reads it, saying too whether its tail was
    torn; raises `ValueError` for a file that is not a game log, or cannot be read."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file") from None
    except OSError as exc:
        raise ValueError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    if not data.startswith(MAGIC):
        raise ValueError(f"{path}: not a p2pnerts game log")
    records, end = _records(data, len(MAGIC))
    if not records or records[0][0] != "header":
        raise ValueError(f"{path}: the log ends before its header")
    try:
        header = _header(records[0])
        for number, record in enumerate(records[1:], 1):
            _check_record(record, number, len(header["roster"]))
    except _Malformed as exc:
        raise ValueError(f"{path}: {exc}") from None
    return LogRead(header, records[1:], len(data) - end)


class _Malformed(Exception):
    """What makes a log's content wrong, and where (a log is input from a stranger)."""


_HEADER_FIELDS: dict[str, type | tuple[type, ...]] = {
    "p2pnerts": str,
    "protocol": int,
    "table": str,
    "name": str,
    "seat": int,
    "roster": list,
    "options": str,
    "started": str,
    "clock": (int, float),
}
"""Every field of a header, with its type (protocol/LOG.md)."""


def _header(record: list[Any]) -> dict[str, Any]:
    """The header record's fields, each checked for its type and range."""
    header = record[2] if len(record) == 3 else None
    if not isinstance(header, dict):
        raise _Malformed("its header is not a map of fields")
    for name, kind in _HEADER_FIELDS.items():
        value = header.get(name)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise _Malformed(f"its header's {name!r} is missing or of the wrong type")
    if not math.isfinite(header["clock"]):
        raise _Malformed("its header's 'clock' is not a number of seconds")
    try:
        bytes.fromhex(header["table"])
        datetime.datetime.fromisoformat(header["started"])
    except ValueError:
        raise _Malformed("its header's 'table' or 'started' cannot be read") from None
    roster = header["roster"]
    if not 0 < len(roster) <= MAX_SEATS:
        raise _Malformed(f"its header's roster has {len(roster)} seats")
    for seat, row in enumerate(roster):
        if not _roster_row(row, seat):
            raise _Malformed(f"its header's roster row {seat + 1} is not a seat")
    if not 0 <= header["seat"] < len(roster):
        raise _Malformed(f"its header's seat {header['seat']} is not in its roster")
    return header


def _roster_row(row: Any, seat: int) -> bool:
    """Whether ``row`` is ``[seat, name, host, port, key]`` for ``seat``."""
    if not isinstance(row, list) or len(row) != 5:
        return False
    number, name, host, port, key = row
    texts = all(isinstance(t, str) for t in (name, host, key))
    return texts and _whole(number) and number == seat and _whole(port)


def _check_record(record: list[Any], number: int, seats: int) -> None:
    """A record after the header: ``[sent|received, time, seat or None, frame]`` or
    ``[commit, time, number, digest or None]``, each field of its type."""
    kind, time = record[0], record[1]
    where = f"its record {number}"
    if not isinstance(time, int | float) or isinstance(time, bool) or not math.isfinite(time):
        raise _Malformed(f"{where}'s time is not a number of seconds")
    if kind in (SENT, RECEIVED) and len(record) == 4:
        seat, frame = record[2], record[3]
        ok_seat = (seat is None and kind == SENT) or (_whole(seat) and 0 <= seat < seats)
        if ok_seat and isinstance(frame, bytes):
            return
    elif kind == COMMIT and len(record) == 4:
        count, digest = record[2], record[3]
        if _whole(count) and count > 0 and (digest is None or isinstance(digest, bytes)):
            return
    raise _Malformed(f"{where} ({str(kind)[:20]!r}) is not a record a log holds")


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _records(data: bytes, at: int) -> tuple[list[list[Any]], int]:
    """The whole records from ``at`` on, and where the first that is not whole begins."""
    records: list[list[Any]] = []
    while at + _HEAD.size <= len(data):
        length, crc = _HEAD.unpack_from(data, at)
        body = data[at + _HEAD.size : at + _HEAD.size + length]
        if length > LARGEST or len(body) < length or zlib.crc32(body) != crc:
            break  # a torn tail
        try:
            record = msgpack.unpackb(body, raw=False)
        except (ValueError, msgpack.ExtraData):
            break
        if not isinstance(record, list) or len(record) < 2:
            break
        records.append(record)
        at += _HEAD.size + length
    return records, at


def prune(directory: Path, keep: int) -> None:
    """Remove the oldest logs of ``directory`` beyond the newest ``keep``."""
    logs = sorted(directory.glob(f"*{SUFFIX}"), key=lambda p: (p.stat().st_mtime, p.name))
    for old in logs[: max(0, len(logs) - keep)]:
        old.unlink(missing_ok=True)


def _safe(name: str) -> str:
    """A table's name as part of a file name: letters, digits, '-' and '_' only."""
    return re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-")[:40]
