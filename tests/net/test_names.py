"""Seats of one name at a real table on loopback: told apart in every line of the match."""

from __future__ import annotations

import random

import trio
from _hosting import hosted

from p2pnerts.bots import BotDriver, SimpleBot
from p2pnerts.driver import Pace
from p2pnerts.net import MatchResult, Player, TableSpec, join_table
from p2pnerts.rules import TableOptions


def _root(seed: int, lines: list[str]) -> Player:
    rng = random.Random(seed)
    driver = BotDriver(SimpleBot(random.Random(rng.getrandbits(64))), Pace(0.005, 0.005))
    return Player("root", rng, driver, lines.append)


async def test_two_seats_of_one_login_name_are_told_apart_in_the_summary() -> None:
    results: dict[int, MatchResult] = {}
    lines: list[str] = []
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            spec = TableSpec("twins", 3, TableOptions(rounds=1))
            port = await hosted(nursery, spec, _root(1, lines), results)
            for k in (1, 2):

                async def join(k: int = k) -> None:
                    results[k] = await join_table("127.0.0.1", port, _root(1 + k, []))

                nursery.start_soon(join)
    assert len(set(results.values())) == 1
    assert results[0].decks == ("root", "root (2)", "root (3)")
    summary = results[0].summary()
    assert all(name in summary for name in ("root ", "root (2) ", "root (3) ")), summary
