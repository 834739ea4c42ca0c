"""A table as mDNS announces it: its DNS-SD service and TXT record, checked both ways.

Every open table is a DNS-SD service of type ``_p2pnerts._tcp.local.``. Its SRV and A
records say where the host listens; its TXT record describes the table:

=========  ===========================================================
``name``   the table's name, as people typed it (printable, at most 200 UTF-8 bytes)
``v``      the protocol version, ``2``
``id``     the table id, 32 lowercase hex digits
``seats``  seats taken
``total``  seats in all
``opts``   a short summary of the table's options (may be empty)
``state``  ``lobby`` or ``playing``
``k``      the host's key fingerprint (`protocol.fingerprint`), if announced
``p``      ``1`` at a private table (SPEC §2.9), absent otherwise: it says no more
=========  ===========================================================

A service whose TXT record is malformed (a field missing, not a number, another protocol
version, text that does not decode...) is skipped and remembered with the reason, logged
once per service; browsing goes on.

Nothing here touches the network: `net._zeroconf`, `net._advertise` and `net._browse` do.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from p2pnerts.errors import Error
from p2pnerts.protocol import PROTOCOL_VERSION, TABLE_NAME_BYTES

SERVICE_TYPE: Final = "_p2pnerts._tcp.local."

TableState = Literal["lobby", "playing"]
STATES: Final[tuple[TableState, ...]] = ("lobby", "playing")

MAX_SEATS: Final = 64
"""The most seats a table may announce (a sanity bound on what the network says)."""
MAX_TEXT_BYTES: Final = TABLE_NAME_BYTES
"""The longest name or options summary, in UTF-8 bytes (a TXT string holds 255): a
table's name is checked as Welcome's is (`table_name_fault`)."""

_TABLE_ID = re.compile(r"[0-9a-f]{32}")
_SMALL_NUMBER = re.compile(r"[0-9]{1,3}")
_FINGERPRINT = re.compile(r"[0-9a-f]{4}:[0-9a-f]{4}:[0-9a-f]{4}")
_TXT_KEYS: Final = ("name", "v", "id", "seats", "total", "opts", "state")


class DiscoveryError(Error):
    """mDNS could not start: no usable interface, an address not on this machine..."""


# ---------------------------------------------------------------- the table record


def _printable_text(value: str, what: str, *, empty_ok: bool) -> None:
    if not value.strip() and not empty_ok:
        raise ValueError(f"{what} cannot be empty or blank")
    if not value.isprintable():
        raise ValueError(f"{what} cannot hold control characters")
    if len(value.encode("utf-8")) > MAX_TEXT_BYTES:
        raise ValueError(f"{what} is at most {MAX_TEXT_BYTES} bytes in UTF-8")


def _small_int(value: object, what: str, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{what} is not an integer")
    if not low <= value <= high:
        raise ValueError(f"{what} {value} is outside {low}..{high}")
    return value


@dataclass(frozen=True, slots=True)
class TableInfo:
    """One table as it is announced: what a lobby list shows and where to connect.

    ``host`` is IPv4 address text. An advertiser may give ``"0.0.0.0"``, meaning the
    table listens on every address: the announcement then carries the addresses of the
    interfaces it is made on, and a browser picks the one on its own network.
    Construction validates every field (``ValueError``), so a ``TableInfo`` in hand,
    whether made locally or parsed from the network, is always well formed.
    """

    name: str
    table_id: str
    version: int
    seats_taken: int
    seats_total: int
    options: str
    state: TableState
    host: str
    port: int
    key: str = ""
    """The host's key fingerprint (`protocol.fingerprint`); empty if not announced. A
    joiner checks that the host proves the key it announced."""
    private: bool = False
    """Whether only those who know the table's passphrase may sit at it."""

    def __post_init__(self) -> None:
        _printable_text(self.name, "table name", empty_ok=False)
        if not isinstance(self.table_id, str) or not _TABLE_ID.fullmatch(self.table_id):
            raise ValueError("table id is not 32 lowercase hex digits")
        _small_int(self.version, "version", 1, 999)
        total = _small_int(self.seats_total, "seats in all", 1, MAX_SEATS)
        _small_int(self.seats_taken, "seats taken", 0, total)
        _printable_text(self.options, "options summary", empty_ok=True)
        if self.state not in STATES:
            raise ValueError(f"state {self.state!r} is not one of {', '.join(STATES)}")
        try:
            address = ipaddress.IPv4Address(self.host)
        except ValueError:
            raise ValueError(f"host {self.host!r} is not an IPv4 address") from None
        if str(address) != self.host:
            raise ValueError(f"host {self.host!r} is not in dotted-quad form")
        _small_int(self.port, "port", 1, 65535)
        if self.key and not _FINGERPRINT.fullmatch(self.key):
            raise ValueError(f"key fingerprint {self.key[:20]!r} is not xxxx:xxxx:xxxx")

    def to_json(self) -> dict[str, str | int | bool]:
        """The fields as a JSON object (the shape ``p2pnerts tables --json`` prints)."""
        return dataclasses.asdict(self)


def txt_of(info: TableInfo) -> dict[str, str]:
    return (
        {
            "name": info.name,
            "v": str(info.version),
            "id": info.table_id,
            "seats": str(info.seats_taken),
            "total": str(info.seats_total),
            "opts": info.options,
            "state": info.state,
        }
        | ({"k": info.key} if info.key else {})
        | ({"p": "1"} if info.private else {})
    )


def table_from_txt(
    properties: dict[bytes, bytes | None], addresses: Sequence[str], port: int | None
) -> TableInfo:
    """Parse what the network said about one service; ``ValueError`` says what is wrong.

    ``addresses`` are the service's IPv4 addresses, best first.
    """
    fields: dict[str, str] = {}
    for key in _TXT_KEYS:
        raw = properties.get(key.encode("ascii"))
        if raw is None:
            raise ValueError(f"TXT field {key!r} is missing")
        try:
            fields[key] = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(f"TXT field {key!r} is not UTF-8") from None
    numbers: dict[str, int] = {}
    for key in ("v", "seats", "total"):
        if not _SMALL_NUMBER.fullmatch(fields[key]):
            raise ValueError(f"TXT field {key!r} is not a number: {fields[key][:20]!r}")
        numbers[key] = int(fields[key])
    if numbers["v"] != PROTOCOL_VERSION:
        speaks = f"this program speaks {PROTOCOL_VERSION}"
        raise ValueError(f"protocol version {numbers['v']}, {speaks}")
    if not addresses:
        raise ValueError("no IPv4 address")
    if port is None:
        raise ValueError("no port")
    state = fields["state"]
    if state not in STATES:
        raise ValueError(f"TXT field 'state' is {state[:20]!r}")
    return TableInfo(
        name=fields["name"],
        table_id=fields["id"],
        version=numbers["v"],
        seats_taken=numbers["seats"],
        seats_total=numbers["total"],
        options=fields["opts"],
        state="lobby" if state == "lobby" else "playing",
        host=addresses[0],
        port=port,
        key=_optional_text(properties, "k"),
        private=_private(properties),
    )


def _private(properties: dict[bytes, bytes | None]) -> bool:
    flag = _optional_text(properties, "p")
    if flag not in ("", "1"):
        raise ValueError(f"TXT field 'p' is {flag[:20]!r}, not 1")
    return flag == "1"


def _optional_text(properties: dict[bytes, bytes | None], key: str) -> str:
    raw = properties.get(key.encode("ascii"))
    try:
        return "" if raw is None else raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"TXT field {key!r} is not UTF-8") from None


def instance_label(info: TableInfo) -> str:
    """The service instance label: the name in DNS-safe ASCII, then 8 digits of the id.

    ``"Kitchen table"`` with id ``1a2b3c4d...`` gives ``Kitchen-table-1a2b3c4d``: letters,
    digits and hyphens only, at most 49 bytes, unique per table (and stable for it).
    """
    ascii_name = unicodedata.normalize("NFKD", info.name).encode("ascii", "ignore").decode()
    base = re.sub(r"[^A-Za-z0-9]+", "-", ascii_name).strip("-")[:40].strip("-") or "table"
    return f"{base}-{info.table_id[:8]}"
