"""The commands that put peers on a real network: host, join, bot and play.

A person plays their seat on the table screen (`p2pnerts.ui`); with ``--headless`` a bot
plays it and the commands print the table's progress as plain lines.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path

import trio

from p2pnerts._platform import cpu_seconds
from p2pnerts.bots import BotDriver, PolicyError, level, load_policy
from p2pnerts.driver import Pace
from p2pnerts.net import (
    DiscoveryError,
    JoinError,
    MatchResult,
    Player,
    SeatFile,
    TableInfo,
    TableSpec,
    TableState,
    advertise,
    find_tables,
    host_table,
    join_table,
    resume_table,
)
from p2pnerts.protocol import PROTOCOL_VERSION
from p2pnerts.rules import BadOptions, TableOptions, TieRule

DISCOVERY_WAIT = 3.0
"""Seconds to listen for a table named on the command line."""


def level_pace(number: int) -> Pace:
    """How fast a bot of a level (1-10) plays; level 10 as fast as the table allows."""
    reaction = level(number).reaction
    return Pace(reaction.think, reaction.spread)


def bot_player(
    name: str,
    number: int,
    rng: random.Random,
    report: Callable[[str], None],
    tell: Callable[[str], None] | None = None,
    *,
    policy: str | None = None,
) -> Player:
    """A seat played by a bot of level ``number`` (1-10): the level's pace, and its policy
    unless ``policy`` names another (built-in, or ``package.module:Class``)."""
    make = level(number).make if policy is None else load_policy(policy)
    bot = make(random.Random(rng.getrandbits(64)))
    return Player(name, rng, BotDriver(bot, level_pace(number)), report, tell)


def options_from(args: argparse.Namespace) -> TableOptions:
    return TableOptions(
        nerts_pile=args.nerts_pile,
        work_piles=args.work_piles,
        stock_turn=args.stock_turn,
        jokers=args.jokers,
        nerts_bonus=args.nerts_bonus,
        target=args.target,
        rounds=args.rounds,
        tie_rule=TieRule(args.tie_rule),
        teams=args.teams,
    )


def table_size(
    options: TableOptions, given: int | None, flag: str, *, besides: int = 0, default: int = 4
) -> int:
    """The number of seats: as ``flag`` gives it (``given``, counting every seat but
    ``besides``), or as the teams make up, or ``default``. Raises `BadOptions` (a one-line
    error, exit 2) when the teams seat another number."""
    if not options.teams:
        return default if given is None else given + besides
    seats, teams = sum(options.teams), options.teams_text()
    if seats > 14:
        raise BadOptions(f"teams {teams} seat {seats} players: 14 at most")
    if given is not None and given + besides != seats:
        raise BadOptions(
            f"teams {teams} seat {seats} players: that takes {flag} {seats - besides} "
            f"(or no {flag}), not {flag} {given}"
        )
    return seats


def say(line: str) -> None:
    print(line, flush=True)


def write_stats(path: str | None, result: MatchResult) -> None:
    """``--stats FILE``: what this peer measured, as JSON (for tools/bench.py net)."""
    if path is None or result.stats is None:
        return
    s = result.stats
    figures = {
        "commit_latencies": s.commit_latencies,
        "frames_sent": s.frames_sent,
        "bytes_sent": s.bytes_sent,
        "seconds": s.finished - s.started,
        "cpu_seconds": cpu_seconds(),
    }
    with open(path, "w", encoding="utf-8") as out:
        json.dump(figures, out)


def host_command(args: argparse.Namespace) -> int:
    saved = _saved_seat(args)
    if saved is not None:
        return _resume(saved, args, headless=args.headless)
    options = options_from(args)
    spec = TableSpec(args.name, table_size(options, args.seats, "--seats"), options)
    result: MatchResult | None
    if args.headless:
        result = trio.run(run_host, spec, args)
    else:
        from p2pnerts import _frontend

        result = _frontend.host(spec, args)
    return _ended(result, args)


def _ended(result: MatchResult | None, args: argparse.Namespace) -> int:
    """How a command ends its match: the summary line and ``--stats``; None (the player
    left the table screen first) ends it quietly. The exit status, 0."""
    if result is not None:
        say(result.summary())
        write_stats(args.stats, result)
    return 0


async def run_host(
    spec: TableSpec,
    args: argparse.Namespace,
    *,
    bind: str | None = None,
    tell: Callable[[str], None] | None = None,
    me: Player | None = None,
    report: Callable[[str], None] = say,
    on_port: Callable[[int], None] | None = None,
) -> MatchResult:
    """Host ``spec``, announce it (unless told not to), seat ``args.bots`` local bots.

    ``me`` plays seat 0 (by default a bot at ``args.level``); ``report`` hears the lobby;
    ``on_port`` hears where the table listens.
    """
    rng = random.Random(args.seed)
    seed = rng.getrandbits(64)
    if me is None:
        me = _player(args, random.Random(seed), tell)
    levels = getattr(args, "bot_level", None) or [args.level]
    updates, announced = trio.open_memory_channel[TableInfo](64)
    where: dict[str, int | str] = {"port": 0, "table": ""}
    async with trio.open_nursery() as nursery:

        def listening(port: int, table: bytes) -> None:
            where.update(port=port, table=table.hex())
            if on_port is not None:
                on_port(port)
            report(
                f"table {spec.name!r} open on port {port}: {spec.seats} seats, "
                f"{spec.options.summary()}"
            )
            if not args.no_advertise:
                nursery.start_soon(_announce, announced, args.interface, report)
                updates.send_nowait(_info(spec, where, 1))
            for k in range(args.bots):
                bot = bot_player(
                    f"Bot {k + 1}",
                    levels[k % len(levels)],
                    random.Random(rng.getrandbits(64)),
                    lambda _: None,
                )
                nursery.start_soon(local_bot, port, bot, report)

        def seated(taken: int) -> None:
            if not args.no_advertise and where["table"]:
                updates.send_nowait(_info(spec, where, taken))

        result = await host_table(
            spec, me, port=args.port, bind=bind, on_listening=listening, on_roster=seated
        )
        nursery.cancel_scope.cancel()
    return result


def _info(spec: TableSpec, where: dict[str, int | str], taken: int) -> TableInfo:
    state: TableState = "playing" if taken >= spec.seats else "lobby"
    return TableInfo(
        spec.name,
        str(where["table"]),
        PROTOCOL_VERSION,
        taken,
        spec.seats,
        spec.options.summary(),
        state,
        "0.0.0.0",
        int(where["port"]),
    )


async def _announce(
    updates: trio.MemoryReceiveChannel[TableInfo],
    interface: str | None,
    report: Callable[[str], None],
) -> None:
    """Announce the table over mDNS, and keep the announcement up to date."""
    first = await updates.receive()
    try:
        async with advertise(first, interfaces=None if interface is None else [interface]) as ad:
            async for info in updates:
                await ad.update(info)
    except DiscoveryError as exc:
        report(f"(not announced on the network: {exc}; others can still join with HOST:PORT)")


async def local_bot(port: int, player: Player, report: Callable[[str], None]) -> None:
    """A bot of this machine takes a seat at the table on ``port``."""
    try:
        await join_table("127.0.0.1", port, player)
    except JoinError as exc:
        report(f"{player.name} could not join: {exc}")


def join_command(args: argparse.Namespace) -> int:
    if args.table is None and args.headless:
        print("p2pnerts: error: --headless needs a table: NAME or HOST:PORT", file=sys.stderr)
        return 2
    return _join_and_play(args.table, args, headless=args.headless)


def bot_command(args: argparse.Namespace) -> int:
    return _join_and_play(args.join, args, headless=True)


def _player(
    args: argparse.Namespace, rng: random.Random, tell: Callable[[str], None] | None = None
) -> Player:
    """The seat's player when a bot plays it: its level (or ``--policy``), and the file
    ``--state`` names."""
    policy = getattr(args, "policy", None)
    player = bot_player(args.player, args.level, rng, say, tell, policy=policy)
    state = getattr(args, "state", None)
    player.seat_file = None if state is None else Path(state)
    return player


def _saved_seat(args: argparse.Namespace) -> SeatFile | None:
    """``--state FILE`` naming a file that exists: the seat to come back to."""
    if args.state is None or not Path(args.state).exists():
        return None
    return SeatFile.load(Path(args.state))


def _resume(saved: SeatFile, args: argparse.Namespace, *, headless: bool) -> int:
    """Take back the seat of a started table that a state file keeps."""
    me = saved.roster[saved.seat]
    say(f"{me.name} coming back to seat {saved.seat} (state from {args.state})")
    result: MatchResult | None
    try:
        if headless:
            player = _player(args, random.Random(args.seed))
            result = trio.run(resume_table, saved, player)
        else:
            from p2pnerts import _frontend

            result = _frontend.resume(saved, args)
    except JoinError as exc:
        print(f"p2pnerts: cannot come back: {exc}", file=sys.stderr)
        return 1
    except PolicyError as exc:
        print(f"p2pnerts: {exc}", file=sys.stderr)
        return 2
    return _ended(result, args)


def _join_and_play(target: str | None, args: argparse.Namespace, *, headless: bool) -> int:
    saved = _saved_seat(args)
    if saved is not None:
        return _resume(saved, args, headless=headless)
    try:
        player = _player(args, random.Random(args.seed))
    except PolicyError as exc:
        print(f"p2pnerts: {exc}", file=sys.stderr)
        return 2
    result: MatchResult | None
    try:
        if target is not None and headless:
            result = trio.run(locate_and_join, target, args.interface, player, say)
        else:
            from p2pnerts import _frontend

            result = _frontend.join(target, args)
    except (JoinError, DiscoveryError) as exc:
        print(f"p2pnerts: cannot join: {exc}", file=sys.stderr)
        return 1
    return _ended(result, args)


async def locate_and_join(
    target: str, interface: str | None, player: Player, report: Callable[[str], None]
) -> MatchResult:
    """Find the table (by name or HOST:PORT), take a seat and play the match."""
    host, port = await locate(target, interface)
    report(f"{player.name} joining {host}:{port}")
    return await join_table(host, port, player)


async def locate(target: str, interface: str | None) -> tuple[str, int]:
    """HOST:PORT as given, or where the table of that name is, found by mDNS."""
    host, sep, port = target.rpartition(":")
    if sep and host and port.isdigit():
        return host, int(port)
    interfaces = None if interface is None else [interface]
    seen = await find_tables(DISCOVERY_WAIT, interfaces=interfaces)
    tables = [t for t in seen if t.name == target]
    if not tables:
        raise JoinError(
            f"no table named {target!r} seen on the network (see `p2pnerts tables`, "
            "or give HOST:PORT)"
        )
    if len(tables) > 1:
        where = ", ".join(f"{t.host}:{t.port}" for t in tables)
        raise JoinError(f"{len(tables)} tables are named {target!r} ({where}): give HOST:PORT")
    return tables[0].host, tables[0].port
