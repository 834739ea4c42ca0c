"""Browsing the tables announced by mDNS: a live view, and the list after a wait."""

from __future__ import annotations

import asyncio
import concurrent.futures
import ipaddress
import math
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from functools import partial
from typing import Self

import trio
from zeroconf import (
    IPVersion,
    ServiceBrowser,
    ServiceInfo,
    ServiceStateChange,
    Zeroconf,
)
from zeroconf.asyncio import AsyncServiceInfo

from p2pnerts.net._tables import SERVICE_TYPE, TableInfo, table_from_txt
from p2pnerts.net._zeroconf import (
    QUESTION_TYPE,
    RESOLVE_MS,
    best_address,
    close_zeroconf,
    interface_list,
    local_networks,
    log,
    open_zeroconf,
)

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
        self._networks = await trio.to_thread.run_sync(local_networks)
        self._browser = await trio.to_thread.run_sync(
            partial(
                ServiceBrowser,
                self._zc,
                SERVICE_TYPE,
                handlers=[self._on_zeroconf_thread],
                question_type=QUESTION_TYPE,
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
            request = service.async_request(zc, RESOLVE_MS, QUESTION_TYPE)
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
            addresses = best_address(service.parsed_addresses(IPVersion.V4Only), self._networks)
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
    chosen = interface_list(interfaces)
    zc = await trio.to_thread.run_sync(open_zeroconf, chosen)
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
        await close_zeroconf(zc)
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
