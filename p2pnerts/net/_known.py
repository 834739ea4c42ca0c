"""The host keys a joiner has seen, by table name: like ssh's ``known_hosts``, but a table
of another key is a warning, not a refusal (names are chosen freely, and a host that
starts again has a new key); only a key asked for by name (``--host-key``) is enforced.

The file is JSON, kept in the data directory (`_platform.data_dir`), written whole or
not at all; a file that cannot be read is reported, never overwritten.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from p2pnerts.errors import UsageError
from p2pnerts.system import data_dir, replace_file

FORMAT = 1
FILE_NAME = "known_hosts.json"
_FINGERPRINT = re.compile(r"[0-9a-f]{4}:[0-9a-f]{4}:[0-9a-f]{4}")


class KnownHostsError(UsageError):
    """The file of known host keys cannot be read or written; the message names it."""


class KnownHosts:
    """The host key fingerprint last seen for each table name."""

    def __init__(self, path: Path, keys: dict[str, str] | None = None) -> None:
        self.path = path
        self._keys = dict(keys or {})

    @classmethod
    def load(cls, path: Path | None = None) -> KnownHosts:
        """The keys kept at ``path`` (by default in the data directory); none if there is
        no file yet. Raises `KnownHostsError` for a file that cannot be used."""
        path = path or data_dir() / FILE_NAME
        try:
            with open(path, encoding="utf-8") as src:
                document = json.load(src)
        except FileNotFoundError:
            return cls(path)
        except OSError as exc:
            raise KnownHostsError(f"{path}: {exc.strerror or exc}") from None
        except ValueError as exc:
            raise KnownHostsError(
                f"{path}: not a known-hosts file ({exc}); fix or remove it"
            ) from None
        return cls(path, _parse(document, path))

    def seen(self, name: str) -> str | None:
        """The key last seen for the table ``name``, if any."""
        return self._keys.get(name)

    def warning(self, name: str, key: str) -> str | None:
        """What to tell a person about table ``name`` announcing ``key``: None when its
        key is the one seen before, or no key was seen for that name."""
        seen = self._keys.get(name)
        if not key or seen is None or seen == key:
            return None
        return (
            f"warning: table {name!r} now has host key {key}, not the {seen} seen before "
            f"(in {self.path}): another machine may be using its name"
        )

    def remember(self, name: str, key: str) -> None:
        """Keep ``key`` as table ``name``'s, writing the file whole or not at all."""
        if not key or self._keys.get(name) == key:
            return
        self._keys[name] = key
        document = {"p2pnerts-known-hosts": FORMAT, "tables": dict(sorted(self._keys.items()))}
        # A part file of this process's own: two joiners on one machine may write at once.
        part = self.path.with_name(f"{self.path.name}.{os.getpid()}.part")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(part, "w", encoding="utf-8") as out:
                json.dump(document, out, indent=1, ensure_ascii=False)
                out.flush()
                os.fsync(out.fileno())
            replace_file(part, self.path)
        except OSError as exc:
            raise KnownHostsError(f"{self.path}: cannot write it ({exc.strerror or exc})") from None


def _parse(document: Any, path: Path) -> dict[str, str]:
    if not isinstance(document, dict) or document.get("p2pnerts-known-hosts") != FORMAT:
        raise KnownHostsError(
            f"{path}: not a known-hosts file of format {FORMAT}; fix or remove it"
        )
    tables = document.get("tables")
    if not isinstance(tables, dict):
        raise KnownHostsError(
            f"{path}: not a known-hosts file of format {FORMAT}; fix or remove it"
        )
    for name, key in tables.items():
        if not isinstance(key, str) or not _FINGERPRINT.fullmatch(key):
            raise KnownHostsError(
                f"{path}: table {name!r} has no key fingerprint; fix or remove it"
            )
    return dict(tables)
