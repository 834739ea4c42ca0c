"""Game logs: one append-only file per peer and match, of every frame it sent and received
with its local time, and every commit with the running digest (protocol/LOG.md), written
by the network's peers (`net`) and the simulator's (`sim --log`).

Each record is framed with its length and a CRC-32, so that a log cut at any byte (a crash,
a full disk) reads back as every whole record before the cut: a torn tail is found and
dropped, never misread. Old logs are pruned, newest kept (`LOGS_KEPT`).

A log is read as input from a stranger (teachers pass logs around): `LogReader` reads it a
record at a time, never more than `LARGEST` bytes of one, and checks each as it reads it,
so that a reader holds what it keeps of a log, not the log.
"""

from __future__ import annotations

import datetime
import hashlib
import math
import os
import re
import struct
import zlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO

import msgpack

from p2pnerts import __version__
from p2pnerts.protocol import (
    MAX_FRAME,
    MAX_SEATS,
    NAME_MOST,
    PROTOCOL_VERSION,
    CommitFrame,
    Message,
    Pending,
    Replica,
    Seat,
    encode,
)

MAGIC = b"p2pnerts log 1\n"
"""The first bytes of every log: the format and its version."""
SUFFIX = ".p2plog"
LOGS_KEPT = 100
"""Logs a directory keeps: starting a new one removes the oldest beyond this many."""
_HEAD = struct.Struct(">II")
"""A record's length and the CRC-32 of its bytes."""
FLUSH_EVERY = 0.5
"""Seconds a record may wait in memory before it is written to the file."""
LARGEST = MAX_FRAME + 4096
"""The most bytes of one record: a whole frame (its length prefix included) with the
record's other fields, or a header (a roster of at most `MAX_SEATS` short rows, far less).
A longer record is refused, never read."""

SENT, RECEIVED, COMMIT = "sent", "received", "commit"


class GameLog:
    """The log of one seat's match, open for appending."""

    def __init__(self, out: BinaryIO, path: Path) -> None:
        self._out = out
        self.path = path
        self._committed = 0
        """The commits written so far (the replica's count at the last look)."""
        self._made: dict[int, bytes] = {}
        """The digests of the commits `follow` saw made since the last look."""
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
        majority: bool = False,
        kept: int = LOGS_KEPT,
        wall: datetime.datetime | None = None,
    ) -> GameLog:
        """A new log in ``directory`` (made if need be; the oldest beyond ``kept`` go),
        opened with its header: which table and seat, who sat where, and when (``wall``,
        the time of day at the clock's ``now``: by default, the time it is opened)."""
        directory.mkdir(parents=True, exist_ok=True)
        prune(directory, kept - 1)
        wall = wall or datetime.datetime.now(datetime.UTC)
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
            "majority": majority,
        }
        log._write(["header", now, header])
        return log

    def frame(
        self, outgoing: bool, seat: int | None, message: Message | CommitFrame, now: float
    ) -> None:
        """A protocol message or commit frame this seat sent (to every seat: ``seat``
        None) or received from ``seat``, at ``now``."""
        kind = SENT if outgoing else RECEIVED
        self._write([kind, now, seat, encode(message)])

    def follow(self, replica: Replica) -> Callable[[], None]:
        """Take each commit's running digest from ``replica`` as it is made, until the
        returned function is called: a change of members at a majority's table folds
        the plays of the view it ends and lets go of their digests in one step, before
        `commits` looks."""

        def made(_: Pending, __: int) -> None:
            self._made[replica.log.committed] = replica.log.digest

        replica.on_commit.append(made)
        return lambda: replica.on_commit.remove(made)

    def commits(self, committed: int, digest_at: Callable[[int], bytes | None], now: float) -> None:
        """Write every commit since the last look: its number and the running digest
        after it (as `follow` took it, else ``digest_at(n)``; None if no longer known);
        write what waits to disk at most every `FLUSH_EVERY` seconds. A count below the
        last (a peer restarted from what it kept) writes nothing until it passes the
        last."""
        made = self._made
        for number in range(self._committed + 1, committed + 1):
            self._write([COMMIT, now, number, made.pop(number, None) or digest_at(number)])
        made.clear()  # (a count below the last: made again)
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
    torn tail; raises `LogError` for a file that is not a game log, or cannot be read."""
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
    """The log at ``path`` read whole, as `read_log` reads it, saying too whether its tail
    was torn (`LogReader` reads one a record at a time)."""
    with LogReader(path) as log:
        records = list(log)
    return LogRead(log.header, records, log.torn)


class LogError(ValueError):
    """A file that is not a game log, cannot be read, or holds what no log holds; the
    message says what, and where, in one line."""


class LogReader:
    """A game log read a record at a time: its header checked as it opens, each record
    after it checked as iterating reaches it (`LogError`), no more than one held.

    Iterating yields every whole record after the header, up to a torn tail; then `torn`
    says how many bytes of one were dropped. The log is read as far as the file reached
    when it was opened (`end`), however much is written to it meanwhile.
    """

    def __init__(self, path: Path, *, end: int | None = None) -> None:
        self.path = path
        self._file = _open(path)
        self.end = os.fstat(self._file.fileno()).st_size if end is None else end
        """Where the log ends for this reader: the file's size when it was opened."""
        self.torn = 0
        self._at = len(MAGIC)
        self._read = 0
        try:
            with self._refusing():
                if self._file.read(len(MAGIC)) != MAGIC:
                    raise _Malformed("not a p2pnerts game log")
                first = self._next(0)
                if first is None or first[0] != "header":
                    raise _Malformed("the log ends before its header")
                self.header = _header(first)
        except BaseException:
            self.close()
            raise

    def again(self) -> LogReader:
        """Another reader of this log from its start, to the same end."""
        return LogReader(self.path, end=self.end)

    def __iter__(self) -> Iterator[list[Any]]:
        seats = len(self.header["roster"])
        try:
            with self._refusing():
                while (record := self._next(self._read + 1)) is not None:
                    self._read += 1
                    _check_record(record, self._read, seats)
                    yield record
            self.torn = self.end - self._at
        finally:
            self.close()

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> LogReader:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def _next(self, number: int) -> list[Any] | None:
        """Record ``number`` (0: the header), or None where a torn tail begins or the log
        ends; one longer than `LARGEST` is refused before it is read."""
        left = self.end - self._at - _HEAD.size
        head = self._file.read(_HEAD.size) if left >= 0 else b""
        if len(head) < _HEAD.size:
            return None
        length, crc = _HEAD.unpack(head)
        if length > left:
            return None  # cut short
        if length > LARGEST:
            what = f"its record {number}" if number else "its header"
            raise _Malformed(f"{what} is {length:,} bytes, more than a record holds ({LARGEST:,})")
        body = self._file.read(length)
        if len(body) < length or zlib.crc32(body) != crc:
            return None
        try:
            record = msgpack.unpackb(body, raw=False)
        except (ValueError, TypeError, msgpack.UnpackException):
            return None
        if not isinstance(record, list) or len(record) < 2:
            return None
        self._at += _HEAD.size + length
        return record

    @contextmanager
    def _refusing(self) -> Iterator[None]:
        """What makes the log unreadable, as the `LogError` that says so in one line."""
        try:
            yield
        except _Malformed as exc:
            raise LogError(f"{self.path}: {exc}") from None
        except OSError as exc:
            raise _unreadable(self.path, exc) from None


def _open(path: Path) -> BinaryIO:
    try:
        return open(path, "rb")
    except OSError as exc:
        raise _unreadable(path, exc) from None


def _unreadable(path: Path, exc: OSError) -> LogError:
    """A log the system would not let be read, said in one line."""
    if isinstance(exc, FileNotFoundError):
        return LogError(f"{path}: no such file")
    return LogError(f"{path}: cannot be read: {exc.strerror or exc}")


def frame_id(frame: bytes) -> bytes:
    """A frame's digest, the same for every copy of it: what a reader keeps of a frame it
    needs only to recognise again."""
    return hashlib.blake2b(frame, digest_size=16).digest()


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
    if header["protocol"] != PROTOCOL_VERSION:
        raise _Malformed(
            f"it was written in protocol version {header['protocol']}, and this p2pnerts "
            f"reads version {PROTOCOL_VERSION}'s logs (read it with the p2pnerts that wrote it)"
        )
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
    if not isinstance(header.setdefault("majority", False), bool):
        raise _Malformed("its header's 'majority' is not true or false")
    return header


def _roster_row(row: Any, seat: int) -> bool:
    """Whether ``row`` is ``[seat, name, host, port, key]`` for ``seat``, its name no
    longer than a seat's can be (a reader repeats it in what it shows of every frame)."""
    if not isinstance(row, list) or len(row) != 5:
        return False
    number, name, host, port, key = row
    texts = all(isinstance(t, str) for t in (name, host, key)) and len(name) <= NAME_MOST
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


def prune(directory: Path, keep: int) -> None:
    """Remove the oldest logs of ``directory`` beyond the newest ``keep``. Peers of one
    machine share the directory: a log another one removed meanwhile is passed over."""
    logs = []
    for path in directory.glob(f"*{SUFFIX}"):
        try:
            logs.append((path.stat().st_mtime, path.name, path))
        except FileNotFoundError:
            continue
    logs.sort()
    for _, _, old in logs[: max(0, len(logs) - keep)]:
        old.unlink(missing_ok=True)


def _safe(name: str) -> str:
    """A table's name as part of a file name: letters, digits, '-' and '_' only."""
    return re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-")[:40]
