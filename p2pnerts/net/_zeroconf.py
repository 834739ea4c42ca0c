"""zeroconf, held at arm's length: the interfaces mDNS runs on, and zeroconf's own loop.

zeroconf runs its own asyncio loop on a thread of its own. Everything here that touches
zeroconf does so from a worker thread (``trio.to_thread.run_sync``), never from the trio
thread: under the terminal front end trio runs as a guest of an asyncio loop, and a
zeroconf call made there would attach to that loop and then block it. The browser's
callbacks arrive on zeroconf's browser thread and are forwarded into trio with
``trio.from_thread.run_sync``.

Interfaces: ``interfaces=None`` means every IPv4 interface of the machine, unless the
environment variable ``P2PNERTS_INTERFACES`` names addresses (comma-separated), which
then stand in for ``None``. Tests pass ``["127.0.0.1"]`` (zeroconf then works between
processes of one machine although ``lo`` has no MULTICAST flag, and nothing leaves the
machine) or addresses inside network namespaces they made.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import ipaddress
import logging
import os
from collections.abc import Callable, Coroutine, Sequence
from typing import Final

import ifaddr
import trio
from zeroconf import (
    DNSQuestionType,
    InterfaceChoice,
    IPVersion,
    ServiceInfo,
    Zeroconf,
)

from p2pnerts.net._tables import DiscoveryError

log = logging.getLogger("p2pnerts.net.discovery")

INTERFACES_ENV: Final = "P2PNERTS_INTERFACES"

# Records live 60 s (the RFC's defaults are 2 min and 75 min): a table whose host
# crashed without saying goodbye leaves browsers' lists within about a minute.
TTL: Final = 60
RESOLVE_MS: Final = 3000
"""How long one resolution (SRV, TXT, A of one service) may wait for answers."""
LOOP_TIMEOUT: Final = 10.0
"""How long an update or a goodbye may take on zeroconf's loop (they take ~0.5 s)."""

# Ask for multicast answers (QM), never unicast ones (QU): where several programs on one
# machine share port 5353 (two browsers, or a browser beside the advertiser), a unicast
# answer reaches only one of their sockets, and the asker would wait a second for its
# next query.
QUESTION_TYPE: Final = DNSQuestionType.QM


# ---------------------------------------------------------------- interfaces


def interface_list(interfaces: Sequence[str] | None) -> list[str] | None:
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


def describe_interfaces(interfaces: list[str] | None) -> str:
    return "all interfaces" if interfaces is None else ", ".join(interfaces)


def local_networks() -> list[ipaddress.IPv4Network]:
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


def host_addresses() -> list[str]:
    """This machine's IPv4 addresses, loopback only if there is nothing else."""
    found = [a for a in _local_addresses() if not ipaddress.IPv4Address(a).is_loopback]
    return found or ["127.0.0.1"]


def best_address(addresses: Sequence[str], networks: Sequence[ipaddress.IPv4Network]) -> list[str]:
    """The addresses with those on one of our own networks first."""

    def on_our_network(text: str) -> bool:
        address = ipaddress.IPv4Address(text)
        return any(address in net for net in networks)

    return sorted(addresses, key=lambda a: not on_our_network(a))


def open_zeroconf(interfaces: list[str] | None) -> Zeroconf:
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
                f"cannot start mDNS on {describe_interfaces(interfaces)}: no interface of this "
                f"machine has the address {', '.join(missing)}"
            )
    try:
        zc = Zeroconf(interfaces=choice, ip_version=IPVersion.V4Only, use_asyncio=False)
    except (OSError, RuntimeError, ValueError) as exc:
        raise DiscoveryError(
            f"cannot start mDNS on {describe_interfaces(interfaces)}: {exc}"
        ) from exc
    if not zc.engine.senders:
        zc.close()
        raise DiscoveryError(
            f"cannot start mDNS on {describe_interfaces(interfaces)}: no usable interface"
        )
    return zc


async def close_zeroconf(zc: Zeroconf) -> None:
    with trio.CancelScope(shield=True):
        await trio.to_thread.run_sync(zc.close)


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


async def republish(zc: Zeroconf, service: ServiceInfo) -> None:
    _drop_queued_answers(zc)
    await (await zc.async_update_service(service))


async def withdraw(zc: Zeroconf, service: ServiceInfo) -> None:
    _drop_queued_answers(zc)
    await (await zc.async_unregister_service(service))


def on_zeroconf_loop(
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
        future.result(LOOP_TIMEOUT)
    except concurrent.futures.TimeoutError:
        future.cancel()
        raise DiscoveryError("zeroconf did not finish in time") from None
