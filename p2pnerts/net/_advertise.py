"""Announcing a table by mDNS while its `async with` block runs (see `net._zeroconf`)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from types import TracebackType
from typing import Self

import trio
from zeroconf import (
    ServiceInfo,
    Zeroconf,
)

from p2pnerts.net._tables import SERVICE_TYPE, DiscoveryError, TableInfo, instance_label, txt_of
from p2pnerts.net._zeroconf import (
    TTL,
    close_zeroconf,
    describe_interfaces,
    host_addresses,
    interface_list,
    log,
    on_zeroconf_loop,
    open_zeroconf,
    republish,
    withdraw,
)

# ---------------------------------------------------------------- advertising


class Advertiser:
    """Announces one table while its ``async with`` block runs.

    Entering registers the service (zeroconf probes for name conflicts first: about
    1.6 s); :meth:`update` republishes the TXT record; leaving sends goodbyes, so
    browsers drop the table at once, and closes zeroconf. Use :func:`advertise`.
    """

    def __init__(self, info: TableInfo, *, interfaces: Sequence[str] | None = None) -> None:
        self._info = info
        self._interfaces = interface_list(interfaces)
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
            addresses = list(self._interfaces) if self._interfaces else host_addresses()
        else:
            addresses = [info.host]
        return ServiceInfo(
            SERVICE_TYPE,
            name,
            port=info.port,
            properties=txt_of(info),
            server=f"p2pn-{info.table_id[:12]}.local.",
            host_ttl=TTL,
            other_ttl=TTL,
            parsed_addresses=addresses,
        )

    async def __aenter__(self) -> Self:
        if self._zc is not None or self._finished:
            raise RuntimeError("an Advertiser is entered once")
        name = f"{instance_label(self._info)}.{SERVICE_TYPE}"
        service = await trio.to_thread.run_sync(self._service_info, self._info, name)
        zc = await trio.to_thread.run_sync(open_zeroconf, self._interfaces)
        try:
            # allow_name_change: should the label clash after all, zeroconf picks "-2"...
            await trio.to_thread.run_sync(partial(zc.register_service, service, None, True))
        except BaseException as exc:
            await close_zeroconf(zc)
            if isinstance(exc, Exception):
                raise DiscoveryError(f"cannot announce {name}: {exc!r}") from exc
            raise
        self._zc = zc
        self._service = service
        log.info("advertising %s on %s", service.name, describe_interfaces(self._interfaces))
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
            await trio.to_thread.run_sync(on_zeroconf_loop, zc, republish, service)
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
                    await trio.to_thread.run_sync(on_zeroconf_loop, zc, withdraw, service)
                except Exception:
                    log.warning("goodbye for %s failed", service.name, exc_info=True)
                finally:
                    await close_zeroconf(zc)
                log.info("stopped advertising %s", service.name)


def advertise(info: TableInfo, *, interfaces: Sequence[str] | None = None) -> Advertiser:
    """``async with advertise(info, interfaces=["127.0.0.1"]) as ad: ... await ad.update(..)``."""
    return Advertiser(info, interfaces=interfaces)
