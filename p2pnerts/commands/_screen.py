"""The commands played by a person on the table screen: play, host and join, with the lobby.

`TableScreen` is the `Screen` the command line hands to the network commands for a
person's seat. The lobby's choices arrive from the screen through the session
(`ui.Session.soon`); the tables are found, hosted and joined with the same functions the
headless commands use.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Awaitable

import trio

from p2pnerts import ui
from p2pnerts.commands._config import HostConfig, JoinConfig, SeatConfig
from p2pnerts.commands._locate import join_or_come_back, know, locate_and_join
from p2pnerts.commands._seats import beside_host, bot_player, fit_out, local_bot, run_host
from p2pnerts.commands._telling import say
from p2pnerts.net import (
    DiscoveryError,
    KnownHosts,
    MatchResult,
    SeatFile,
    TableInfo,
    TableSpec,
    browse,
    resume_table,
)


class TableScreen:
    """The table screen (after a lobby) for a person's seat: `_seats.Screen`."""

    def play(self, config: HostConfig) -> MatchResult | None:
        """``p2pnerts play``: a loopback table, its other seats bots of this machine."""
        return on_screen(config.seat, lambda s: run_host(config, me=s.player, report=s.report))

    def host(self, config: HostConfig) -> MatchResult | None:
        """``p2pnerts host``: the waiting room until the table is full, then the table."""
        return on_screen(config.seat, lambda s: host_in_lobby(config, s), waiting_room(config))

    def join(self, config: JoinConfig) -> MatchResult | None:
        """``p2pnerts join``: the named table's waiting room, or (no name) the lobby's list
        of the tables on the network, where a new one can be opened too."""
        target, seat = config.table, config.seat
        lobby = ui.LobbyModel(bot_level=seat.level)  # for a table opened from the lobby
        if target is None:
            return on_screen(seat, lambda s: choose_and_play(seat, s), lobby)
        lobby.waiting(target, 0, hosting=False, roster=())
        return on_screen(
            seat,
            lambda s: locate_and_join(
                target, seat.interface, s.player, s.report, host_key=seat.host_key
            ),
            lobby,
        )

    def resume(self, saved: SeatFile, seat: SeatConfig) -> MatchResult | None:
        """``--state FILE`` after a crash: the seat it keeps, taken back."""
        return on_screen(seat, lambda s: resume_table(saved, s.player))


def waiting_room(config: HostConfig) -> ui.LobbyModel:
    """The host's waiting room: its bots on their way, and the level the next one added
    there plays at, the one the command line would have given it (``--bot-level`` in turn,
    else ``--level``)."""
    spec, levels = config.spec, config.levels
    lobby = ui.LobbyModel(bot_level=levels[config.bots % len(levels)])
    lobby.waiting(
        spec.name, spec.seats, hosting=True, roster=(config.seat.name,), teams=spec.options.teams
    )
    lobby.bots_added = config.bots  # on their way: host_in_lobby seats them
    if config.seat.offered:  # made up here: the host must read it to tell the others
        lobby.notice = f"the passphrase: {config.seat.passphrase}"
    return lobby


def on_screen(
    seat: SeatConfig, start: ui.Start, lobby: ui.LobbyModel | None = None
) -> MatchResult | None:
    """Play this seat on the table screen: the match's result, or how it stood when the
    player left; None if they left before play began (said here)."""
    look = ui.default_look(ascii=seat.ascii, four_colour=seat.four_colour)

    def begin(session: ui.Session) -> Awaitable[MatchResult]:
        fit_out(session.player, seat)
        return start(session)

    result = ui.play_in_terminal(seat.name, seat.seed, look, begin, lobby, idle_after=seat.idle)
    if result is None:  # (from the lobby's list, its form or the waiting room)
        browsing = lobby is not None and lobby.active and lobby.mode != "waiting"
        say("Left the lobby." if browsing else "Left the table.")
    return result


async def host_in_lobby(config: HostConfig, session: ui.Session) -> MatchResult:
    """Host the table; the waiting room adds bots of chosen levels to the open seats."""
    spec, lobby = config.spec, session.lobby
    assert lobby is not None
    rng = random.Random(config.seat.seed)
    result: list[MatchResult] = []
    # Every bot asked for, from the command line or the waiting room, in the order asked.
    asked, levels = trio.open_memory_channel[int](math.inf)
    for k in range(config.bots):
        asked.send_nowait(config.levels[k % len(config.levels)])
    async with trio.open_nursery() as nursery:

        async def hosting(task_status: trio.TaskStatus[int]) -> None:
            alone = dataclasses.replace(config, bots=0)  # its bots are seated here, as they come
            me, report = session.player, session.report
            result.append(await run_host(alone, me=me, report=report, task_status=task_status))
            nursery.cancel_scope.cancel()  # (the bots asked for and not seated yet)

        async def seat_bots(port: int) -> None:
            # One at a time, each named for the seat it takes once the one before is seated;
            # `bots_added` counts those asked for and not seated yet.
            async for level in levels:
                name = f"Bot {len(lobby.roster) + 1} L{level}"
                rng_bot, secret = random.Random(rng.getrandbits(64)), config.seat.passphrase
                bot = bot_player(name, level, rng_bot, lambda _: None, passphrase=secret)
                beside_host(bot, config.seat, spec.name)  # (as `run_host`'s)
                await nursery.start(local_bot, port, bot, session.report)
                lobby.bots_added -= 1

        def fill() -> None:
            while len(lobby.roster) + lobby.bots_added < spec.seats:
                lobby.bots_added += 1
                asked.send_nowait(lobby.bot_level)

        lobby.add_bot, lobby.start = session.soon(asked.send_nowait), session.soon(fill)
        nursery.start_soon(seat_bots, await nursery.start(hosting))
    return result[0]


async def choose_and_play(seat: SeatConfig, session: ui.Session) -> MatchResult:
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
        interfaces = None if seat.interface is None else [seat.interface]
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
        lobby.waiting(choice.name, choice.seats, hosting=True, roster=(seat.name,), teams=teams)
        return await host_in_lobby(HostConfig(seat, choice), session)
    teams = ui.teams_of(choice.options)
    lobby.waiting(choice.name, choice.seats_total, hosting=False, roster=(), teams=teams)
    session.player.expect_host = seat.host_key or choice.key or None
    session.player.table_name = choice.name
    know(KnownHosts.load(), session.player, choice, session.report)
    table = bytes.fromhex(choice.table_id)
    return await join_or_come_back(choice.host, choice.port, session.player, session.report, table)
