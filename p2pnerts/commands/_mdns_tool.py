"""Discovery by hand, without a game: ``python -m p2pnerts.commands._mdns_tool``.

``advertise`` announces a (fake) table until its time is up, SIGTERM/SIGINT, or, with
``--until-eof``, end of standard input; it prints ``advertising <service name>`` once
registered. ``tables`` is ``p2pnerts tables``. Tests and the LAN lab (``tools/lanlab``)
run it as a child process; it is also handy for trying a lobby screen against tables
that do not exist.

    python -m p2pnerts.commands._mdns_tool advertise --interface 127.0.0.1 --name Kitchen \\
        --port 4000 --seats 1/4 --seconds 60
    python -m p2pnerts.commands._mdns_tool tables --interface 127.0.0.1 --timeout 3
"""

from __future__ import annotations

import argparse
import signal
import sys
import uuid
from collections.abc import Sequence

import trio

from p2pnerts.commands.tables import tables_command
from p2pnerts.net import DiscoveryError, TableInfo, advertise
from p2pnerts.protocol import PROTOCOL_VERSION
from p2pnerts.system import wait_for_eof


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m p2pnerts.commands._mdns_tool")
    sub = parser.add_subparsers(dest="command", required=True)

    adv = sub.add_parser("advertise", help="announce a table")
    adv.add_argument("--interface", help="IPv4 address of the interface (default: all)")
    adv.add_argument("--name", default="Test table")
    adv.add_argument("--id", default=None, help="32 hex digits (default: random)")
    adv.add_argument("--host", default=None, help="address announced (default: --interface)")
    adv.add_argument("--port", type=int, default=4000)
    adv.add_argument("--seats", default="1/4", help="taken/total")
    adv.add_argument("--state", default="lobby", choices=["lobby", "playing"])
    adv.add_argument("--options", default="")
    adv.add_argument("--key", default="", help="the host key fingerprint announced")
    adv.add_argument("--private", action="store_true", help="announce a private table")
    adv.add_argument("--seconds", type=float, default=60.0, help="stop after this long")
    adv.add_argument("--until-eof", action="store_true", help="also stop at end of stdin")

    tab = sub.add_parser("tables", help="list the tables (p2pnerts tables)")
    tab.add_argument("--interface")
    tab.add_argument("--timeout", type=float, default=3.0)
    tab.add_argument("--json", action="store_true")
    return parser


async def _advertise(info: TableInfo, interface: str | None, seconds: float, eof: bool) -> None:
    interfaces = None if interface is None else [interface]
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async with advertise(info, interfaces=interfaces) as ad, trio.open_nursery() as nursery:
            print(f"advertising {ad.service_name}", flush=True)

            async def stop_on_signal() -> None:
                async for _ in signals:
                    nursery.cancel_scope.cancel()

            async def stop_on_eof() -> None:
                await wait_for_eof(sys.stdin)
                nursery.cancel_scope.cancel()

            nursery.start_soon(stop_on_signal)
            if eof:
                nursery.start_soon(stop_on_eof)
            await trio.sleep(seconds)
            nursery.cancel_scope.cancel()
    print("stopped", flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "tables":
        return tables_command(args.timeout, args.json, args.interface)
    try:
        taken, total = (int(part) for part in args.seats.split("/"))
        info = TableInfo(
            name=args.name,
            table_id=args.id or uuid.uuid4().hex,
            version=PROTOCOL_VERSION,
            seats_taken=taken,
            seats_total=total,
            options=args.options,
            state=args.state,
            host=args.host or args.interface or "0.0.0.0",
            port=args.port,
            key=args.key,
            private=args.private,
        )
        trio.run(_advertise, info, args.interface, args.seconds, args.until_eof)
    except (ValueError, DiscoveryError) as exc:
        print(f"_mdns_tool: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
