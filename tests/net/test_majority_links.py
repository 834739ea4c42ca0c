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
from p2pnerts.logs import read_log, replay
from p2pnerts.net import MatchResult, Player, TablePeer, TableSpec, join_table
from p2pnerts.net._lobby import ACKS_CHOSEN, by_majority, small_table
from p2pnerts.net._peer import MAJORITY_SAID
from p2pnerts.net._shaper import Shape, Shaper, Stall
from p2pnerts.protocol import decode
from p2pnerts.rules import TableOptions


def _player(name: str, seed: int, lines: list[str], majority: bool | None = True) -> Player:
    rng = random.Random(seed)
    bot = BotDriver(SimpleBot(random.Random(rng.getrandbits(64))), Pace(0.005, 0.005))
    player = Player(name, rng, bot, lines.append)
    player.majority = majority
    return player


async def test_four_peers_committing_by_a_majority_play_a_whole_match_and_agree(
    tmp_path: Path,
) -> None:
    # Only the host is told: its Welcome tells the others how the table commits.
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
                    player = _player(f"Bot{k}", k, lines[k], majority=False)
                    player.log_dir = tmp_path
                    results[k] = await join_table("127.0.0.1", port, player)

                nursery.start_soon(bot)
    assert all(MAJORITY_SAID in said for said in lines), lines
    assert sorted(results) == [0, 1, 2, 3]
    assert len(set(results.values())) == 1
    assert results[0].rounds == 2
    _every_log_replays(tmp_path, 4)


async def _table_of_two(
    host: bool | None, joiner: bool | None
) -> tuple[dict[int, MatchResult], list[list[str]], Player, Player]:
    """A one-round table of two whose host and joiner are told ``--majority`` (True),
    ``--acks`` (False) or neither (None), played
    out: its results, what each seat said, and the two players as they ended."""
    results: dict[int, MatchResult] = {}
    lines: list[list[str]] = [[], []]
    players = (_player("Ann", 1, lines[0], host), _player("Bea", 2, lines[1], joiner))
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            spec = TableSpec("two", 2, TableOptions(rounds=1))
            port = await hosted(nursery, spec, players[0], results)
            results[1] = await join_table("127.0.0.1", port, players[1])
    return results, lines, *players


async def test_a_seat_told_to_commit_by_a_majority_commits_as_its_hosts_table_does() -> None:
    results, lines, _, joiner = await _table_of_two(host=False, joiner=True)
    assert ACKS_CHOSEN in lines[1] and not joiner.majority
    assert not any(MAJORITY_SAID in said for said in lines), lines
    assert results[0] == results[1] and results[0].rounds == 1


async def test_a_host_told_to_commit_by_a_majority_of_two_commits_by_acknowledgement() -> None:
    # At two or three seats a quorum is every seat: the host says so and its table, the
    # seat that joins too, commits by acknowledgement.
    results, lines, host, _ = await _table_of_two(host=True, joiner=False)
    assert small_table(2) in lines[0] and not host.majority
    assert (
        small_table(3)
        == "--majority takes 4 seats or more: a table of 3 commits by acknowledgement"
    )
    assert not any(MAJORITY_SAID in said for said in lines), lines
    assert results[0] == results[1]


async def test_a_table_of_two_told_nothing_commits_by_acknowledgement_without_a_word() -> None:
    results, lines, host, joiner = await _table_of_two(host=None, joiner=None)
    assert host.majority is False and joiner.majority is False
    assert (
        lines[0]
        and lines[1]
        and not any(  # (each said something: its round's end)
            small_table(2) in line or ACKS_CHOSEN in line or MAJORITY_SAID in line
            for said in lines
            for line in said
        )
    ), lines
    assert results[0] == results[1] and results[0].rounds == 1


def test_a_host_commits_by_a_majority_from_four_seats_unless_told_acks() -> None:
    # None: told neither --majority nor --acks, as the commands have it.
    assert [by_majority(None, seats) for seats in (2, 3, 4, 5, 14)] == [0, 0, 1, 1, 1]
    assert [by_majority(True, seats) for seats in (2, 3, 4, 14)] == [0, 0, 1, 1]
    assert not any(by_majority(False, seats) for seats in (2, 3, 4, 14))


def _every_log_replays(logs: Path, seats: int) -> None:
    """Each seat's game log says the table commits by a majority and holds the commit
    frames the seat sent and received; replayed, it makes every commit it recorded, each
    with the digest recorded."""
    paths = sorted(logs.glob("*.p2plog"))
    assert len(paths) == seats
    for path in paths:
        header, records = read_log(path)
        framed = [(r[0], type(decode(r[3])).__name__) for r in records if r[0] != "commit"]
        assert header["majority"]
        assert {("sent", "Ballot"), ("received", "Ballot"), ("received", "Tally")} <= set(framed)
        replayed = replay(path)
        assert len(replayed.steps) > 100 and not replayed.notes
        assert replayed.differing == [] and all(s.matches for s in replayed.steps)


async def test_a_seat_that_leaves_a_majoritys_table_is_left_out_and_the_others_finish() -> None:
    results: dict[int, MatchResult] = {}
    lines: list[list[str]] = [[] for _ in range(4)]
    spec = TableSpec("goodbye", 4, TableOptions(rounds=2))
    left = trio.Event()

    def watch(peer: TablePeer) -> None:
        def changed(_: object) -> None:
            if peer.replica.display is not None and not peer.replica.leaving:
                assert peer.leave()  # as soon as play begins
            if peer.left:
                left.set()

        peer.watchers.append(changed)

    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            port = await hosted(nursery, spec, _player("Ann", 1, lines[0]), results)
            for k in (1, 2):

                async def bot(k: int = k) -> None:
                    player = _player(f"Bot{k}", k, lines[k])
                    results[k] = await join_table("127.0.0.1", port, player)

                nursery.start_soon(bot)
            leaver = _player("Bot3", 3, lines[3])
            leaver.seated = watch
            async with trio.open_nursery() as gone:
                gone.start_soon(join_table, "127.0.0.1", port, leaver)
                await left.wait()
                gone.cancel_scope.cancel()  # (its command ends once the others heard it)
    assert sorted(results) == [0, 1, 2]
    assert results[0] == results[1] == results[2] and results[0].rounds == 2
    assert any("Bot3 left the table; the others play on" in line for line in lines[0])


async def _bot3_cut_off(
    spec: TableSpec, stall: Stall, results: dict[int, MatchResult], lines: list[list[str]]
) -> None:
    """Play ``spec``'s match at four seats, Bot3's links cut by ``stall``."""
    cut = _player("Bot3", 3, lines[3])
    cut.shaper = Shaper(Shape(stalls=(stall,)), random.Random(3))
    async with trio.open_nursery() as nursery:
        port = await hosted(nursery, spec, _player("Ann", 1, lines[0]), results)
        for k in range(1, 4):

            async def bot(k: int = k) -> None:
                player = cut if k == 3 else _player(f"Bot{k}", k, lines[k])
                results[k] = await join_table("127.0.0.1", port, player)

            nursery.start_soon(bot)


async def test_a_seat_cut_off_past_the_wait_is_left_out_and_comes_back() -> None:
    results: dict[int, MatchResult] = {}
    lines: list[list[str]] = [[] for _ in range(4)]
    # Three rounds: the others' first round waits for the rotation until the cut-off seat
    # is left out, then ends at once; it comes back during the second.
    spec = TableSpec("cut off", 4, TableOptions(rounds=3))
    with trio.fail_after(120):
        await _bot3_cut_off(spec, Stall(0.5, 12.0), results, lines)  # (past 10 s)
    assert results[0] == results[1] == results[2] == results[3] and results[0].rounds == 3
    assert any("Bot3 is left out" in line for line in lines[0]), lines[0]
    assert any("Bot3 is back" in line for line in lines[0]), lines[0]
    # Told it was left out (`ShutOut`): "the others went on without you: rejoining", or,
    # where its own loop was held up just before (a loaded machine), "you were away for
    # ...; the others left you out and played on".
    told = ("went on without you: rejoining", "the others left you out")
    assert any(t in line for t in told for line in lines[3]), "\n".join(lines[3])


async def test_a_seat_cut_off_as_the_match_ends_finds_the_ports_closed_and_ends_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Bot3's links are cut past the wait that leaves it out, and stay cut after the others'
    # match has ended: it hears nobody, and waits for them (1 of 4 is no majority), as
    # before, but every other seat's port now refuses its tries, and it ends its match
    # there instead of after two minutes (here after 5 s, not 30: `_closed`).
    monkeypatch.setattr("p2pnerts.net._waits.STRANDED_CLOSED_FOR", 5.0)
    results: dict[int, MatchResult] = {}
    lines: list[list[str]] = [[] for _ in range(4)]
    spec = TableSpec("closed behind", 4, TableOptions(rounds=1))
    with trio.fail_after(100):
        await _bot3_cut_off(spec, Stall(0.5, 600.0), results, lines)
    assert results[0] == results[1] == results[2] and results[0].rounds == 1
    assert not results[0].ended
    assert results[3].rounds == 0 and "every other seat's port is closed" in results[3].ended
