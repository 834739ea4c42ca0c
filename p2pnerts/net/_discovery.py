"""Finding tables on the local network: mDNS / DNS-SD through python-zeroconf.

Every open table is a DNS-SD service of type ``_p2pnerts._tcp.local.``. Its SRV and A
records say where the host listens; its TXT record describes the table:

=========  ===========================================================
``name``   the table's name, as people typed it (printable, at most 200 UTF-8 bytes)
``v``      the protocol version, ``1``
``id``     the table id, 32 lowercase hex digits
``seats``  seats taken
``total``  seats in all
``opts``   a short summary of the table's options (may be empty)
``state``  ``lobby`` or ``playing``
=========  ===========================================================

zeroconf runs its own asyncio loop on a thread of its own. Everything here that touches
zeroconf does so from a worker thread (``trio.to_thread.run_sync``), never from the trio
thread: under the terminal front end trio runs as a guest of an asyncio loop, and a
zeroconf call made there would attach to that loop and then block it. The browser's
callbacks arrive on zeroconf's browser thread and are forwarded into trio with
``trio.from_thread.run_sync``.

A service whose TXT record is malformed (a field missing, not a number, another protocol
version, text that does not decode...) is skipped and remembered with the reason, logged
once per service; browsing goes on.

Interfaces: ``interfaces=None`` means every IPv4 interface of the machine, unless the
environment variable ``P2PNERTS_INTERFACES`` names addresses (comma-separated), which
then stand in for ``None``. Tests pass ``["127.0.0.1"]`` (zeroconf then works between
processes of one machine although ``lo`` has no MULTICAST flag, and nothing leaves the
machine) or addresses inside network namespaces they made.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import ipaddress
import json
import logging
import math
import os
import re
import sys
import unicodedata
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import partial
from types import TracebackType
from typing import Final, Literal, Self

import ifaddr
import trio
from zeroconf import (
    DNSQuestionType,
    InterfaceChoice,
    IPVersion,
    ServiceBrowser,
    ServiceInfo,
    ServiceStateChange,
    Zeroconf,
)
from zeroconf.asyncio import AsyncServiceInfo

from p2pnerts.rules import summary_teams

__all__ = [
    "INTERFACES_ENV",
    "PROTOCOL_VERSION",
    "SERVICE_TYPE",
    "Advertiser",
    "DiscoveryError",
    "TableBrowser",
    "TableInfo",
    "advertise",
    "browse",
    "find_tables",
    "tables_command",
]

log = logging.getLogger("p2pnerts.net.discovery")

SERVICE_TYPE: Final = "_p2pnerts._tcp.local."
PROTOCOL_VERSION: Final = 1
INTERFACES_ENV: Final = "P2PNERTS_INTERFACES"

TableState = Literal["lobby", "playing"]
STATES: Final[tuple[TableState, ...]] = ("lobby", "playing")

MAX_SEATS: Final = 64
"""The most seats a table may announce (a sanity bound on what the network says)."""
MAX_TEXT_BYTES: Final = 200
"""The longest name or options summary, in UTF-8 bytes (a TXT string holds 255)."""

# Records live 60 s (the RFC's defaults are 2 min and 75 min): a table whose host
# crashed without saying goodbye leaves browsers' lists within about a minute.
_TTL: Final = 60
_RESOLVE_MS: Final = 3000
"""How long one resolution (SRV, TXT, A of one service) may wait for answers."""
_LOOP_TIMEOUT: Final = 10.0
"""How long an update or a goodbye may take on zeroconf's loop (they take ~0.5 s)."""

# Ask for multicast answers (QM), never unicast ones (QU): where several programs on one
# machine share port 5353 (two browsers, or a browser beside the advertiser), a unicast
# answer reaches only one of their sockets, and the asker would wait a second for its
# next query.
_QUESTION_TYPE: Final = DNSQuestionType.QM

_TABLE_ID = re.compile(r"[0-9a-f]{32}")
_SMALL_NUMBER = re.compile(r"[0-9]{1,3}")
_TXT_KEYS: Final = ("name", "v", "id", "seats", "total", "opts", "state")


class DiscoveryError(Exception):
    """mDNS could not start: no usable interface, an address not on this machine..."""


# ---------------------------------------------------------------- the table record


def _printable_text(value: str, what: str, *, empty_ok: bool) -> None:
    if not value.strip() and not empty_ok:
        raise ValueError(f"{what} is empty")
    if not value.isprintable():
        raise ValueError(f"{what} has control characters")
    if len(value.encode("utf-8")) > MAX_TEXT_BYTES:
        raise ValueError(f"{what} is longer than {MAX_TEXT_BYTES} UTF-8 bytes")


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

    def to_json(self) -> dict[str, str | int]:
        """The fields as a JSON object (the shape ``p2pnerts tables --json`` prints)."""
        return dataclasses.asdict(self)


def _txt_of(info: TableInfo) -> dict[str, str]:
    return {
        "name": info.name,
        "v": str(info.version),
        "id": info.table_id,
        "seats": str(info.seats_taken),
        "total": str(info.seats_total),
        "opts": info.options,
        "state": info.state,
    }


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
        raise ValueError(f"protocol version {numbers['v']}, this program speaks {PROTOCOL_VERSION}")
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
    )


def instance_label(info: TableInfo) -> str:
    """The service instance label: the name in DNS-safe ASCII, then 8 digits of the id.

    ``"Kitchen table"`` with id ``1a2b3c4d...`` gives ``Kitchen-table-1a2b3c4d``: letters,
    digits and hyphens only, at most 49 bytes, unique per table (and stable for it).
    """
    ascii_name = unicodedata.normalize("NFKD", info.name).encode("ascii", "ignore").decode()
    base = re.sub(r"[^A-Za-z0-9]+", "-", ascii_name).strip("-")[:40].strip("-") or "table"
    return f"{base}-{info.table_id[:8]}"


# ---------------------------------------------------------------- interfaces


def _interface_list(interfaces: Sequence[str] | None) -> list[str] | None:
    """The addresses to use, or None for every interface; DiscoveryError if malformed."""
    if interfaces is None:
        configured = os.environ.get(INTERFACES_ENV, "").strip()
        if not configured:
            return None
        interfaces = [part.strip() for part in configured.split(",") if part.strip()]
    elif isinstance(interfaces, str):
        interfaces = [interfaces]
    chosen: list[str] = []
    for text in interfaces:
        try:
            chosen.append(str(ipaddress.IPv4Address(text)))
        except ValueError:
            raise DiscoveryError(f"{text!r} is not an IPv4 address") from None
    if not chosen:
        raise DiscoveryError("no interface given")
    return chosen


def _describe(interfaces: list[str] | None) -> str:
    return "all interfaces" if interfaces is None else ", ".join(interfaces)


def _local_networks() -> list[ipaddress.IPv4Network]:
    networks: list[ipaddress.IPv4Network] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if isinstance(ip.ip, str):
                networks.append(ipaddress.IPv4Network(f"{ip.ip}/{ip.network_prefix}", strict=False))
    return networks


def _local_addresses() -> list[str]:
    """Every IPv4 address of this machine's interfaces."""
    return [
        ip.ip for adapter in ifaddr.get_adapters() for ip in adapter.ips if isinstance(ip.ip, str)
    ]


def _host_addresses() -> list[str]:
    """This machine's IPv4 addresses, loopback only if there is nothing else."""
    found = [a for a in _local_addresses() if not ipaddress.IPv4Address(a).is_loopback]
    return found or ["127.0.0.1"]


def _best_address(addresses: Sequence[str], networks: Sequence[ipaddress.IPv4Network]) -> list[str]:
    """The addresses with those on one of our own networks first."""

    def on_our_network(text: str) -> bool:
        address = ipaddress.IPv4Address(text)
        return any(address in net for net in networks)

    return sorted(addresses, key=lambda a: not on_our_network(a))


def _open_zeroconf(interfaces: list[str] | None) -> Zeroconf:
    """Start zeroconf (call on a worker thread). DiscoveryError if it cannot start."""
    choice: InterfaceChoice | list[str | int] = (
        InterfaceChoice.All if interfaces is None else list(interfaces)
    )
    if interfaces is not None:
        # Checked first: zeroconf, given an address no interface has, fails only after
        # it opened its listening socket, and leaves that socket to the garbage collector.
        mine = set(_local_addresses())
        missing = [address for address in interfaces if address not in mine]
        if missing:
            raise DiscoveryError(
                f"cannot start mDNS on {_describe(interfaces)}: no interface of this machine "
                f"has the address {', '.join(missing)}"
            )
    try:
        zc = Zeroconf(interfaces=choice, ip_version=IPVersion.V4Only, use_asyncio=False)
    except (OSError, RuntimeError, ValueError) as exc:
        raise DiscoveryError(f"cannot start mDNS on {_describe(interfaces)}: {exc}") from exc
    if not zc.engine.senders:
        zc.close()
        raise DiscoveryError(f"cannot start mDNS on {_describe(interfaces)}: no usable interface")
    return zc


async def _close_zeroconf(zc: Zeroconf) -> None:
    with trio.CancelScope(shield=True):
        await trio.to_thread.run_sync(zc.close)


# ---------------------------------------------------------------- advertising


class Advertiser:
    """Announces one table while its ``async with`` block runs.

    Entering registers the service (zeroconf probes for name conflicts first: about
    1.6 s); :meth:`update` republishes the TXT record; leaving sends goodbyes, so
    browsers drop the table at once, and closes zeroconf. Use :func:`advertise`.
    """

    def __init__(self, info: TableInfo, *, interfaces: Sequence[str] | None = None) -> None:
        self._info = info
        self._interfaces = _interface_list(interfaces)
        self._zc: Zeroconf | None = None
        self._service: ServiceInfo | None = None
        self._lock = trio.Lock()
        self._finished = False

    @property
    def info(self) -> TableInfo:
        """What is announced now."""
        return self._info

    @property
    def service_name(self) -> str:
        """The full service instance name, once registered (e.g. ``Kitchen-1a2b3c4d._p2p...``)."""
        if self._service is None:
            raise RuntimeError("not registered")
        return self._service.name

    def _service_info(self, info: TableInfo, name: str) -> ServiceInfo:
        if info.host == "0.0.0.0":
            addresses = list(self._interfaces) if self._interfaces else _host_addresses()
        else:
            addresses = [info.host]
        return ServiceInfo(
            SERVICE_TYPE,
            name,
            port=info.port,
            properties=_txt_of(info),
            server=f"p2pn-{info.table_id[:12]}.local.",
            host_ttl=_TTL,
            other_ttl=_TTL,
            parsed_addresses=addresses,
        )

    async def __aenter__(self) -> Self:
        if self._zc is not None or self._finished:
            raise RuntimeError("an Advertiser is entered once")
        name = f"{instance_label(self._info)}.{SERVICE_TYPE}"
        service = await trio.to_thread.run_sync(self._service_info, self._info, name)
        zc = await trio.to_thread.run_sync(_open_zeroconf, self._interfaces)
        try:
            # allow_name_change: should the label clash after all, zeroconf picks "-2"...
            await trio.to_thread.run_sync(partial(zc.register_service, service, None, True))
        except BaseException as exc:
            await _close_zeroconf(zc)
            if isinstance(exc, Exception):
                raise DiscoveryError(f"cannot announce {name}: {exc!r}") from exc
            raise
        self._zc = zc
        self._service = service
        log.info("advertising %s on %s", service.name, _describe(self._interfaces))
        return self

    async def update(self, info: TableInfo) -> None:
        """Announce new details of the same table (seats taken, state, options...)."""
        if info.table_id != self._info.table_id:
            raise ValueError("update() announces the same table: the table id cannot change")
        async with self._lock:
            if self._zc is None or self._service is None:
                raise RuntimeError("not advertising")
            if info == self._info:
                return
            zc, name = self._zc, self._service.name
            service = await trio.to_thread.run_sync(self._service_info, info, name)
            await trio.to_thread.run_sync(_on_zeroconf_loop, zc, _republish, service)
            self._info, self._service = info, service

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._finished = True
        with trio.CancelScope(shield=True):
            async with self._lock:
                zc, self._zc = self._zc, None
                service = self._service
                if zc is None or service is None:
                    return
                try:
                    await trio.to_thread.run_sync(_on_zeroconf_loop, zc, _withdraw, service)
                except Exception:
                    log.warning("goodbye for %s failed", service.name, exc_info=True)
                finally:
                    await _close_zeroconf(zc)
                log.info("stopped advertising %s", service.name)


# zeroconf queues the answers it owes to queries for up to about a second (it multicasts
# a record at most once a second, RFC 6762 section 6). Such an answer still holds the
# records as they were when the question came: sent after an update, it would bring the
# old TXT back into every cache; sent after the goodbyes, it would bring the whole table
# back for a TTL. So both drop what is queued (this instance serves only this one table)
# in the same loop step as they change the registry; the announcements they send next
# answer everyone who asked.


def _drop_queued_answers(zc: Zeroconf) -> None:
    zc.out_queue.queue.clear()
    zc.out_delay_queue.queue.clear()


async def _republish(zc: Zeroconf, service: ServiceInfo) -> None:
    _drop_queued_answers(zc)
    await (await zc.async_update_service(service))


async def _withdraw(zc: Zeroconf, service: ServiceInfo) -> None:
    _drop_queued_answers(zc)
    await (await zc.async_unregister_service(service))


def _on_zeroconf_loop(
    zc: Zeroconf,
    job: Callable[[Zeroconf, ServiceInfo], Coroutine[object, object, None]],
    service: ServiceInfo,
) -> None:
    """Run ``job(zc, service)`` on zeroconf's own loop and wait (call on a worker thread)."""
    loop = zc.loop
    if loop is None or not loop.is_running():
        raise DiscoveryError("zeroconf is not running")
    coroutine = job(zc, service)
    try:
        future = asyncio.run_coroutine_threadsafe(coroutine, loop)
    except RuntimeError as exc:  # the loop closed in between
        coroutine.close()
        raise DiscoveryError("zeroconf is not running") from exc
    try:
        future.result(_LOOP_TIMEOUT)
    except concurrent.futures.TimeoutError:
        future.cancel()
        raise DiscoveryError("zeroconf did not finish in time") from None


def advertise(info: TableInfo, *, interfaces: Sequence[str] | None = None) -> Advertiser:
    """``async with advertise(info, interfaces=["127.0.0.1"]) as ad: ... await ad.update(..)``."""
    return Advertiser(info, interfaces=interfaces)


# ---------------------------------------------------------------- browsing


class TableBrowser:
    """A live view of the tables on the network; made by :func:`browse`.

    ``tables()`` is the current list; ``wait_changed()`` waits until it differs from what
    ``tables()`` last returned; ``async for snapshot in view`` yields the list at once,
    then after every change, and ends when the browse's timeout runs out.
    """

    def __init__(self, zc: Zeroconf, nursery: trio.Nursery) -> None:
        self._zc = zc
        self._nursery = nursery
        self._token = trio.lowlevel.current_trio_token()
        self._browser: ServiceBrowser | None = None
        self._networks: list[ipaddress.IPv4Network] = []
        self._tables: dict[str, TableInfo] = {}
        self._present: set[str] = set()
        self._resolving: set[str] = set()
        self._dirty: set[str] = set()
        self._rejected: dict[str, str] = {}
        self._generation = 0
        self._seen = 0
        self._changed = trio.Event()
        self._closed = False

    # -- what callers use

    def tables(self) -> list[TableInfo]:
        """The tables seen and not gone, by name."""
        self._seen = self._generation
        return _sorted(self._tables.values())

    async def wait_changed(self) -> bool:
        """Wait until the list differs from the last ``tables()``; False once closed."""
        while self._seen == self._generation:
            if self._closed:
                return False
            await self._changed.wait()
        return True

    def rejected(self) -> dict[str, str]:
        """Services skipped for a malformed announcement: service name -> reason."""
        return dict(self._rejected)

    @property
    def closed(self) -> bool:
        """True once the browse's timeout has run out (or its block is left)."""
        return self._closed

    def __aiter__(self) -> AsyncIterator[list[TableInfo]]:
        return _Snapshots(self)

    # -- machinery

    def _bump(self) -> None:
        self._generation += 1
        self._changed.set()
        self._changed = trio.Event()

    def _close(self) -> None:
        if not self._closed:
            self._closed = True
            self._changed.set()
            self._changed = trio.Event()

    async def _start(self) -> None:
        self._networks = await trio.to_thread.run_sync(_local_networks)
        self._browser = await trio.to_thread.run_sync(
            partial(
                ServiceBrowser,
                self._zc,
                SERVICE_TYPE,
                handlers=[self._on_zeroconf_thread],
                question_type=_QUESTION_TYPE,
            )
        )

    async def _stop(self) -> None:
        browser, self._browser = self._browser, None
        if browser is not None:
            with trio.CancelScope(shield=True):
                # Joins the browser thread; the trio loop stays free meanwhile, so a
                # callback blocked in from_thread.run_sync completes first.
                await trio.to_thread.run_sync(browser.cancel)

    def _on_zeroconf_thread(
        self,
        zeroconf: Zeroconf,
        service_type: str,
        name: str,
        state_change: ServiceStateChange,
    ) -> None:
        """ServiceBrowser handler: runs on zeroconf's browser thread."""
        try:
            trio.from_thread.run_sync(self._on_event, name, state_change, trio_token=self._token)
        except Exception:  # the trio run is over or closing: nobody is listening any more
            log.debug("dropped a browser event for %s", name, exc_info=True)

    def _on_event(self, name: str, change: ServiceStateChange) -> None:
        """A service appeared, changed or went away (on the trio thread)."""
        if self._closed:
            return
        if change is ServiceStateChange.Removed:
            self._present.discard(name)
            self._dirty.discard(name)
            if self._tables.pop(name, None) is not None:
                self._bump()
            return
        self._present.add(name)
        if name in self._resolving:
            self._dirty.add(name)
        else:
            self._resolving.add(name)
            self._nursery.start_soon(self._resolve_loop, name)

    async def _resolve_loop(self, name: str) -> None:
        try:
            while True:
                self._dirty.discard(name)
                service = await self._resolve(name)
                if name in self._present and not self._closed:
                    self._apply(name, service)
                if name not in self._dirty:
                    return
        finally:
            self._resolving.discard(name)

    async def _resolve(self, name: str) -> ServiceInfo | None:
        """Ask for the service's SRV, TXT and A records (answered from cache if known)."""
        zc = self._zc

        def start() -> tuple[AsyncServiceInfo, concurrent.futures.Future[bool]] | None:
            loop = zc.loop
            if loop is None or zc.done:
                return None
            service = AsyncServiceInfo(SERVICE_TYPE, name)
            request = service.async_request(zc, _RESOLVE_MS, _QUESTION_TYPE)
            try:
                return service, asyncio.run_coroutine_threadsafe(request, loop)
            except RuntimeError:  # the loop is closing
                request.close()
                return None

        started = await trio.to_thread.run_sync(start)
        if started is None:
            return None
        service, future = started
        try:
            # Abandoned on cancel: cancelling the future ends the waiting thread at once.
            complete = await trio.to_thread.run_sync(future.result, abandon_on_cancel=True)
        except Exception:
            log.debug("resolving %s failed", name, exc_info=True)
            return None
        finally:
            future.cancel()
        return service if complete else None

    def _apply(self, name: str, service: ServiceInfo | None) -> None:
        if service is None:
            log.debug("%s did not answer in time", name)
            return
        try:
            addresses = _best_address(service.parsed_addresses(IPVersion.V4Only), self._networks)
            table = table_from_txt(service.properties, addresses, service.port)
        except ValueError as exc:
            reason = str(exc)
            if self._rejected.get(name) != reason:
                log.warning("skipping %s: %s", name, reason)
                self._rejected[name] = reason
            if self._tables.pop(name, None) is not None:
                self._bump()
            return
        self._rejected.pop(name, None)
        if self._tables.get(name) != table:
            self._tables[name] = table
            self._bump()


class _Snapshots:
    def __init__(self, view: TableBrowser) -> None:
        self._view = view
        self._last = -1

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> list[TableInfo]:
        view = self._view
        while view._generation == self._last:
            if view._closed:
                raise StopAsyncIteration
            await view._changed.wait()
        self._last = view._generation
        return view.tables()


def _sorted(tables: Iterable[TableInfo]) -> list[TableInfo]:
    return sorted(tables, key=lambda t: (t.name.casefold(), t.name, t.table_id))


@asynccontextmanager
async def browse(
    *,
    interfaces: Sequence[str] | None = None,
    timeout: float | None = None,  # noqa: ASYNC109 (how long to listen, not a deadline)
) -> AsyncIterator[TableBrowser]:
    """Watch the network for tables: ``async with browse(...) as view:``.

    With a ``timeout`` (seconds) the view closes after that long: iteration ends and
    ``wait_changed()`` returns False; the list keeps what was there. Raises
    DiscoveryError if mDNS cannot start on the interfaces.
    """
    if timeout is not None and not (timeout >= 0 and math.isfinite(timeout)):
        raise ValueError(f"timeout must be a finite number of seconds >= 0, not {timeout}")
    chosen = _interface_list(interfaces)
    zc = await trio.to_thread.run_sync(_open_zeroconf, chosen)
    # What the caller's block raises is re-raised as it is, not inside the nursery's
    # ExceptionGroup: the nursery is this function's business.
    raised: BaseException | None = None
    try:
        async with trio.open_nursery() as nursery:
            view = TableBrowser(zc, nursery)
            try:
                await view._start()
                if timeout is not None:
                    nursery.start_soon(_close_after, view, timeout)
                try:
                    yield view
                except BaseException as exc:
                    raised = exc
            finally:
                view._close()
                await view._stop()
                nursery.cancel_scope.cancel()
    finally:
        await _close_zeroconf(zc)
    if raised is not None:
        raise raised


async def _close_after(view: TableBrowser, seconds: float) -> None:
    await trio.sleep(seconds)
    view._close()


async def find_tables(
    timeout: float,  # noqa: ASYNC109 (how long to listen, not a deadline)
    *,
    interfaces: Sequence[str] | None = None,
) -> list[TableInfo]:
    """Browse for ``timeout`` seconds; the tables there at the end, sorted by name."""
    async with browse(interfaces=interfaces, timeout=timeout) as view:
        async for _snapshot in view:
            pass
        return view.tables()


# ---------------------------------------------------------------- the CLI's command


def _render(tables: Sequence[TableInfo], timeout: float, where: str) -> str:
    if not tables:
        return (
            f"No tables found in {timeout:g} s on {where}.\n"
            "(A network that blocks multicast hides tables: ask the host for its address "
            "and port.)\n"
        )
    apart = [summary_teams(t.options) for t in tables]
    columns: dict[str, list[str]] = {
        "NAME": [t.name for t in tables],
        "SEATS": [f"{t.seats_taken}/{t.seats_total}" for t in tables],
        "TEAMS": [teams or "-" for teams, _ in apart],
        "STATE": [t.state for t in tables],
        "OPTIONS": [rest or "-" for _, rest in apart],
        "ADDRESS": [f"{t.host}:{t.port}" for t in tables],
    }
    if not any(teams for teams, _ in apart):
        del columns["TEAMS"]  # nobody plays in teams: no column of dashes
    widths = [max(map(len, [header, *cells])) for header, cells in columns.items()]
    rows = [tuple(columns), *zip(*columns.values(), strict=True)]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]
    return "\n".join(lines) + "\n"


def tables_command(timeout: float, as_json: bool, interface: str | None) -> int:
    """``p2pnerts tables [--timeout S] [--json] [--interface ADDR]``: list the tables.

    Prints a table (name, seats taken/total, teams if any, state, options, host:port)
    or, with ``as_json``, a JSON list of objects with the TableInfo fields. Returns 0, or
    1 with a one-line message on stderr when mDNS cannot start or the arguments are wrong.
    """
    out: Callable[[str], object] = sys.stdout.write
    if not (timeout >= 0 and math.isfinite(timeout)):
        print(f"p2pnerts tables: --timeout must be seconds >= 0, not {timeout}", file=sys.stderr)
        return 1
    try:
        chosen = _interface_list(None if interface is None else [interface])
        tables = trio.run(partial(find_tables, timeout, interfaces=chosen))
    except DiscoveryError as exc:
        print(f"p2pnerts tables: {exc}", file=sys.stderr)
        return 1
    if as_json:
        out(json.dumps([t.to_json() for t in tables], indent=2, ensure_ascii=False) + "\n")
    else:
        out(_render(tables, timeout, _describe(chosen)))
    return 0
