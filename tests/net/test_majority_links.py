"""Peers committing by version 3's majority rule (`protocol._majority`) on real loopback
sockets: commit frames cross real links, and a whole match ends the same everywhere."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import trio
from _hosting import hosted

from p2pnerts.bots import BotDriver, SimpleBot
from p2pnerts.driver import Pace
from p2pnerts.logs import ReplayError, replay
from p2pnerts.net import MatchResult, Player, TableSpec, join_table
from p2pnerts.net._peer import MAJORITY_SAID
from p2pnerts.rules import TableOptions


def _player(name: str, seed: int, lines: list[str]) -> Player:
    rng = random.Random(seed)
    bot = BotDriver(SimpleBot(random.Random(rng.getrandbits(64))), Pace(0.005, 0.005))
    player = Player(name, rng, bot, lines.append)
    player.majority = True
    return player


async def test_four_peers_committing_by_a_majority_play_a_whole_match_and_agree(
    tmp_path: Path,
) -> None:
    results: dict[int, MatchResult] = {}
    lines: list[list[str]] = [[] for _ in range(4)]
    spec = TableSpec("majority", 4, TableOptions(rounds=2))
    host = _player("Ann", 1, lines[0])
    host.log_dir = tmp_path
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            port = await hosted(nursery, spec, host, results)
            for k in range(1, 4):

                async def bot(k: int = k) -> None:
                    player = _player(f"Bot{k}", k, lines[k])
                    results[k] = await join_table("127.0.0.1", port, player)

                nursery.start_soon(bot)
    assert all(MAJORITY_SAID in said for said in lines), lines
    assert sorted(results) == [0, 1, 2, 3]
    assert len(set(results.values())) == 1
    assert results[0].rounds == 2
    _replaying_says_it_is_not_built(tmp_path)


def _replaying_says_it_is_not_built(logs: Path) -> None:
    """The host's game log is written; replaying it is not built yet, and says so."""
    (log,) = logs.glob("*.p2plog")
    with pytest.raises(ReplayError, match="played committing by a majority"):
        replay(log)
