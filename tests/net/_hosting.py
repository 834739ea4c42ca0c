"""Hosting a table on loopback for a test, in its nursery."""

from __future__ import annotations

import trio

from p2pnerts.net import Listening, MatchResult, Player, TableSpec, host_table


async def hosted(
    nursery: trio.Nursery, spec: TableSpec, player: Player, results: dict[int, MatchResult]
) -> int:
    """Host ``spec`` on 127.0.0.1 with ``player`` at seat 0, its result going to
    ``results[0]`` when the match ends; the port, once the table listens."""

    async def host(task_status: trio.TaskStatus[Listening]) -> None:
        results[0] = await host_table(spec, player, bind="127.0.0.1", task_status=task_status)

    listening: Listening = await nursery.start(host)
    return listening.port
