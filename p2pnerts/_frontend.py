"""The commands played by a person on the table screen: play, host and join, with the lobby.

The lobby's choices arrive from the screen through the session (`ui.Session.soon`); the
tables are found, hosted and joined with the same functions the headless commands use.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Awaitable
from pathlib import Path

import trio

from p2pnerts import ui
from p2pnerts._netcommands import bot_player, local_bot, locate_and_join, run_host, say
from p2pnerts.net import (
    DiscoveryError,
    MatchResult,
    SeatFile,
    TableInfo,
    TableSpec,
    browse,
    join_table,
    resume_table,
)


def on_screen(
    args: argparse.Namespace, start: ui.Start, lobby: ui.LobbyModel | None = None
) -> MatchResult | None:
    """Play this seat on the table screen; None if the player left before the end."""
    look = ui.default_look(ascii=args.ascii, four_colour=args.four_colour)
    state = getattr(args, "state", None)

    def begin(session: ui.Session) -> Awaitable[MatchResult]:
        if state is not None:  # --state: kept there, to come back after a crash
            session.player.seat_file = Path(state)
        return start(session)

    result = ui.play_in_terminal(args.player, args.seed, look, begin, lobby)
    if result is None:
        say("Left the table.")
    return result


def play(spec: TableSpec, table: argparse.Namespace) -> MatchResult | None:
    """``p2pnerts play``: a loopback table, its other seats bots of this machine."""
    return on_screen(
        table,
        lambda s: run_host(spec, table, bind="127.0.0.1", me=s.player, report=s.report),
    )


def resume(saved: SeatFile, args: argparse.Namespace) -> MatchResult | None:
    """``--state FILE`` after a crash: the seat it keeps, taken back, on the table screen."""
    return on_screen(args, lambda s: resume_table(saved, s.player))


def host(spec: TableSpec, args: argparse.Namespace) -> MatchResult | None:
    """``p2pnerts host``: the waiting room until the table is full, then the table."""
    lobby = ui.LobbyModel()
    lobby.waiting(
        spec.name, spec.seats, hosting=True, roster=(args.player,), teams=spec.options.teams
    )
    lobby.bots_added = args.bots  # run_host seats those
    return on_screen(args, lambda s: host_in_lobby(spec, args, s), lobby)


def join(target: str | None, args: argparse.Namespace) -> MatchResult | None:
    """``p2pnerts join``: the named table's waiting room, or (no name) the lobby's list of
    the tables on the network, where a new one can be opened too."""
    lobby = ui.LobbyModel()
    if target is None:
        return on_screen(args, lambda s: choose_and_play(args, s), lobby)
    lobby.waiting(target, 0, hosting=False, roster=())
    return on_screen(
        args, lambda s: locate_and_join(target, args.interface, s.player, s.report), lobby
    )


async def host_in_lobby(
    spec: TableSpec, args: argparse.Namespace, session: ui.Session
) -> MatchResult:
    """Host ``spec``; the waiting room adds bots of chosen levels to the open seats."""
    lobby = session.lobby
    assert lobby is not None
    rng = random.Random(args.seed)
    ports: list[int] = []
    async with trio.open_nursery() as nursery:

        def add_bot(level: int) -> None:
            if ports:
                name = f"Bot {lobby.bots_added} L{level}"
                bot = bot_player(name, level, random.Random(rng.getrandbits(64)), lambda _: None)
                nursery.start_soon(local_bot, ports[0], bot, session.report)

        def fill() -> None:
            while len(lobby.roster) + lobby.bots_added < spec.seats:
                lobby.bots_added += 1
                add_bot(lobby.bot_level)

        lobby.add_bot, lobby.start = session.soon(add_bot), session.soon(fill)
        result = await run_host(
            spec, args, me=session.player, report=session.report, on_port=ports.append
        )
        nursery.cancel_scope.cancel()
    return result


async def choose_and_play(args: argparse.Namespace, session: ui.Session) -> MatchResult:
    """Show the tables on the network until the player joins one or opens a new one."""
    lobby = session.lobby
    assert lobby is not None
    chosen: list[TableInfo | TableSpec] = []
    picked = trio.Event()

    def choose(choice: TableInfo | TableSpec) -> None:
        if not chosen:
            chosen.append(choice)
            picked.set()

    lobby.join = lobby.create = session.soon(choose)
    try:
        interfaces = None if args.interface is None else [args.interface]
        async with browse(interfaces=interfaces) as view, trio.open_nursery() as nursery:

            async def follow() -> None:
                async for tables in view:
                    lobby.seen(tables)
                    session.invalidate()

            nursery.start_soon(follow)
            await picked.wait()
            nursery.cancel_scope.cancel()
    except DiscoveryError as exc:
        session.report(f"cannot look for tables here: {exc}; n opens one")
        await picked.wait()
    choice = chosen[0]
    if isinstance(choice, TableSpec):
        teams = choice.options.teams
        lobby.waiting(choice.name, choice.seats, hosting=True, roster=(args.player,), teams=teams)
        table = argparse.Namespace(**vars(args), bots=0, port=0, no_advertise=False)
        return await host_in_lobby(choice, table, session)
    teams = ui.teams_of(choice.options)
    lobby.waiting(choice.name, choice.seats_total, hosting=False, roster=(), teams=teams)
    return await join_table(choice.host, choice.port, session.player)
