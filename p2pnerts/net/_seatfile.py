"""A seat's state file: all a peer process needs to come back to its table after a crash.

Written (atomically, by rename) once play begins and whenever the replica's `Disk`
changes; removed when the match is over. A process started again with the same file
takes its seat back: it listens on the same port, dials the others, and rebuilds the
table from what they send it (`Replica.restart`).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from p2pnerts.errors import UsageError
from p2pnerts.protocol import NAME_MOST, Disk, Seat, SeatKey
from p2pnerts.rules import Card, RulesError, TableOptions, TieRule, card_code, card_from_code
from p2pnerts.system import replace_file

FORMAT = 2
"""The file's format version: a file of another version is refused, never guessed at."""


class SeatFileError(UsageError):
    """A state file that cannot be used; the message names the file and what is wrong."""


@dataclass(frozen=True, slots=True)
class SeatFile:
    """One seat of one started table, as a peer keeps it on disk."""

    table: bytes
    seat: int
    roster: tuple[Seat, ...]
    options: TableOptions
    disk: Disk
    key: bytes
    """This seat's private key (32 bytes): the others know the seat by its public half."""
    name: str = ""
    """The table's name, where this seat knew it (a seat that joined by address did not)."""
    private: bool = True
    """Whether the table asks a passphrase: a host back from the file lets spectators watch
    only as it did (a file that does not say counts as private)."""
    majority: bool = False
    """Whether the table commits by version 3's majority (a file that does not say: it
    commits by acknowledgement). A seat back from the file commits so again."""

    def check_table(self, path: Path, name: str) -> None:
        """Raise `SeatFileError` unless this seat is one of the table named ``name``."""
        if self.name and self.name != name:
            raise SeatFileError(
                f"{path} keeps a seat at table {self.name!r}, not {name!r}: another table's"
            )

    def save(self, path: Path) -> None:
        """Write the file whole or not at all: a crash mid-write leaves the old one."""
        options = {f.name: getattr(self.options, f.name) for f in fields(TableOptions)}
        document = {
            "p2pnerts-seat": FORMAT,
            "table": self.table.hex(),
            "name": self.name,
            "private": self.private,
            "majority": self.majority,
            "seat": self.seat,
            "roster": [[s.seat, s.name, s.host, s.port, s.key.hex()] for s in self.roster],
            "key": self.key.hex(),
            "options": {**options, "tie_rule": self.options.tie_rule.value},
            "disk": {
                "round": self.disk.round,
                "order": [card_code(c) for c in self.disk.order],
                "secrets": self.disk.secrets.hex(),
                "view": self.disk.view,
                "pledges": [[deck, pledge.hex()] for deck, pledge in self.disk.pledges],
            },
        }
        part = _part(path)
        try:
            # It holds the seat's private key: readable by its owner alone (where the
            # system has such modes).
            flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
            with open(os.open(part, flags, 0o600), "w", encoding="utf-8") as out:
                json.dump(document, out, indent=1)
                out.flush()
                os.fsync(out.fileno())
            replace_file(part, path)
        except OSError as exc:
            raise SeatFileError(f"{path}: cannot write it ({exc.strerror or exc})") from None

    @staticmethod
    def check_writable(path: Path) -> None:
        """Raise `SeatFileError` unless a state file can be written at ``path``: told
        before the table starts, not when play begins and the seat is already taken."""
        part = _part(path)
        try:
            with open(part, "w", encoding="utf-8"):
                pass
            part.unlink()
        except OSError as exc:
            raise SeatFileError(f"{path}: cannot write it ({exc.strerror or exc})") from None

    @classmethod
    def load(cls, path: Path) -> SeatFile:
        """Read and check a state file; `SeatFileError` says what is wrong with it."""
        try:
            with open(path, encoding="utf-8") as src:
                document = json.load(src)
        except OSError as exc:
            raise SeatFileError(f"{path}: {exc.strerror or exc}") from None
        except ValueError as exc:
            raise SeatFileError(f"{path}: not a p2pnerts state file ({exc})") from None
        try:
            return _parse(document)
        except (KeyError, TypeError, ValueError, RulesError) as exc:
            raise SeatFileError(f"{path}: not a usable p2pnerts state file ({exc})") from None


def _part(path: Path) -> Path:
    """Where a state file is written before it takes the place of the old one."""
    return path.with_name(path.name + ".part")


def _parse(document: Any) -> SeatFile:
    if not isinstance(document, dict) or document.get("p2pnerts-seat") != FORMAT:
        raise ValueError(f"format {FORMAT} expected")
    roster = tuple(_seat(row, n) for n, row in enumerate(_list(document["roster"])))
    seat = _int(document["seat"], 0, len(roster) - 1, "seat")
    options = document["options"]
    if not isinstance(options, dict):
        raise TypeError("options must be a mapping")
    known = {f.name for f in fields(TableOptions)}
    if set(options) - known:
        raise ValueError(f"unknown options {sorted(set(options) - known)}")
    teams = options.get("teams", [])
    if not isinstance(teams, list):
        raise TypeError("teams must be a list")
    table_options = TableOptions(
        **{**options, "tie_rule": TieRule(options["tie_rule"]), "teams": tuple(teams)}
    )
    disk = document["disk"]
    order = tuple(_card(code, len(roster)) for code in _list(disk["order"]))
    return SeatFile(
        bytes.fromhex(_str(document["table"])),
        seat,
        roster,
        table_options,
        Disk(
            _int(disk["round"], 0, 1 << 31, "round"),
            order,
            bytes.fromhex(_str(disk["secrets"])),
            _int(disk["view"], 0, 1 << 62, "view"),
            _pledges(disk.get("pledges", []), len(roster)),
        ),
        _own_key(document["key"], roster[seat]),
        _str(document.get("name", "")),
        _bool(document.get("private", True), "private"),
        _bool(document.get("majority", False), "majority"),
    )


def _pledges(value: Any, decks: int) -> tuple[tuple[int, bytes], ...]:
    """The pledges a disk keeps, by deck (a file written before they were kept has none)."""
    pledges = []
    for row in _list(value):
        deck, pledge = _list(row)
        pledges.append((_int(deck, 0, decks - 1, "a pledge's deck"), _hex(pledge, 32, "pledge")))
    return tuple(pledges)


def _bool(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{what} must be true or false")
    return value


def _own_key(value: Any, me: Seat) -> bytes:
    """The seat's private key, which must be the one behind the roster's public key."""
    secret = _hex(value, 32, "key")
    if SeatKey.from_secret(secret).public != me.key:
        raise ValueError(f"the key is not seat {me.seat}'s")
    return secret


def _seat(row: Any, number: int) -> Seat:
    seat, name, host, port, key = _list(row)
    if seat != number:
        raise ValueError(f"roster row {number} is seat {seat}")
    return Seat(number, _str(name), _str(host), _int(port, 0, 65535, "port"), _hex(key, 32, "key"))


def _hex(value: Any, size: int, what: str) -> bytes:
    data = bytes.fromhex(_str(value))
    if len(data) != size:
        raise ValueError(f"{what} must be {size} bytes, not {len(data)}")
    return data


def _card(code: Any, decks: int) -> Card:
    card = card_from_code(_int(code, 0, decks << 6, "card"))
    if card.deck >= decks or card.rank > 13:
        raise ValueError(f"no card has code {code}")
    return card


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise TypeError(f"a list expected, not {value!r}")
    return value


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"a string expected, not {value!r}")
    return value


def _int(value: Any, low: int, high: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{what} must be a whole number {low} to {high}, not {value!r}")
    return value


class Keeper:
    """Keeps a peer's state file at ``path`` up to date: written when what it holds
    changes (once a round and once a view: seldom), removed when there is nothing to
    come back to. A file that cannot be written is told once, to ``tell``, and the match
    goes on without it."""

    def __init__(self, path: Path, tell: Callable[[str], None]) -> None:
        self.path = path
        self._tell = tell
        self._kept: SeatFile | None = None
        self._failed = False

    def keep(self, kept: SeatFile) -> None:
        """Write ``kept`` unless it is what the file already holds."""
        if kept == self._kept or self._failed:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            kept.save(self.path)
        except (OSError, SeatFileError) as exc:
            self._failed = True
            why = exc if isinstance(exc, SeatFileError) else f"{self.path}: {exc.strerror or exc}"
            self._tell(f"this seat is not kept on disk ({why}): it cannot come back if it stops")
            return
        self._kept = kept

    def drop(self) -> None:
        """Remove the file."""
        self.path.unlink(missing_ok=True)


KEPT_FOR = 24 * 3600.0
"""Seconds a kept seat lasts unchanged: by then its match is long over (the seat left
and never came back, and so never saw the end), and the file goes."""


@dataclass(frozen=True, slots=True)
class KeptSeats:
    """The seats joiners keep, a state file per table and seat in ``directory`` (the data
    directory's ``seats``): written while the seat is at the table and kept when it
    leaves, removed at the match's end, so that a player who left, or whose process ended,
    takes their own seat back by joining the same table again under the same name."""

    directory: Path

    def path(self, table: bytes, seat: int) -> Path:
        """Where seat ``seat`` of ``table`` is kept."""
        return self.directory / f"{table.hex()}-{seat}.json"

    def find(
        self, name: str, table: bytes | None = None, host: tuple[str, int] | None = None
    ) -> tuple[Path, SeatFile] | None:
        """The seat of player ``name`` kept at the table with the id ``table``, or at the
        table whose host listens at ``host`` (as this seat reached it), if one is kept (the
        latest, should there be two). Seats kept longer than `KEPT_FOR` go first."""
        self._forget_old(time.time())
        pattern = "*.json" if table is None else f"{table.hex()}-*.json"
        found = []
        for path in self.directory.glob(pattern):
            try:
                saved, when = SeatFile.load(path), path.stat().st_mtime
            except (SeatFileError, OSError):
                continue  # (damaged, or gone meanwhile: not a seat to come back to)
            if saved.roster[saved.seat].name != name[:NAME_MOST]:
                continue
            if table is not None or (saved.roster[0].host, saved.roster[0].port) == host:
                found.append((when, path, saved))
        if not found:
            return None
        _, path, saved = max(found, key=lambda f: f[0])
        return path, saved

    def _forget_old(self, now: float) -> None:
        try:
            paths = list(self.directory.glob("*.json"))
        except OSError:
            return  # (no directory yet, or not ours to read: nothing kept there to use)
        for path in paths:
            try:
                if now - path.stat().st_mtime > KEPT_FOR:
                    path.unlink(missing_ok=True)
            except OSError:
                continue  # (gone meanwhile, or not ours to remove: the others still are)
