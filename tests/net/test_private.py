"""Private tables on loopback: only those who prove they know the passphrase sit, and both
ends say why when one does not."""

from __future__ import annotations

import random

import pytest
import trio
from _hosting import hosted

from p2pnerts.bots import BotDriver, SimpleBot
from p2pnerts.driver import Pace
from p2pnerts.net import JoinError, MatchResult, Player, TableSpec, join_table
from p2pnerts.net._handshake import hear_out, new_nonce, prove_to
from p2pnerts.net._link import Connection
from p2pnerts.net._seating import NO_TABLE
from p2pnerts.protocol import ANSWERER, Hello, Refuse, SeatKey, TableSecret, link_statement
from p2pnerts.rules import TableOptions

SECRET = "correct horse battery staple"


class _Said(list[str]):
    """Lines a peer reports, and an event set at the first."""

    def __init__(self) -> None:
        super().__init__()
        self.first = trio.Event()

    def append(self, line: str) -> None:
        super().append(line)
        self.first.set()


def _player(name: str, seed: int, lines: list[str], passphrase: str | None = None) -> Player:
    rng = random.Random(seed)
    bot = BotDriver(SimpleBot(random.Random(rng.getrandbits(64))), Pace(0.005, 0.005))
    return Player(name, rng, bot, lines.append, passphrase=passphrase)


async def _host(
    nursery: trio.Nursery, lines: list[str], results: dict[int, MatchResult], secret: str | None
) -> int:
    spec = TableSpec("den", 2, TableOptions(rounds=1))
    return await hosted(nursery, spec, _player("Ann", 1, lines, secret), results)


async def test_a_joiner_with_the_passphrase_plays_the_match_at_a_private_table() -> None:
    lines: list[str] = []
    results: dict[int, MatchResult] = {}
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            port = await _host(nursery, lines, results, SECRET)
            results[1] = await join_table("127.0.0.1", port, _player("Bea", 2, [], SECRET))
    assert results[0] == results[1] and results[0].rounds == 1
    assert not [line for line in lines if line.startswith("refused")]


@pytest.mark.parametrize(
    ("given", "joiner_says", "host_says"),
    [
        (None, r"the table at 127\.0\.0\.1:\d+ is private: give its passphrase", "no passphrase"),
        ("Tr0ub4dor&3", r"wrong passphrase for the table at 127\.0\.0\.1:\d+", "wrong passphrase"),
    ],
)
async def test_a_joiner_without_the_passphrase_is_refused_and_both_ends_say_why(
    given: str | None, joiner_says: str, host_says: str
) -> None:
    lines = _Said()
    results: dict[int, MatchResult] = {}
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            port = await _host(nursery, lines, results, SECRET)
            with pytest.raises(JoinError, match=joiner_says):
                await join_table("127.0.0.1", port, _player("Cal", 3, [], given))
            await lines.first.wait()
            # Nobody lost anything: the seat is still free, for the one who knows.
            results[1] = await join_table("127.0.0.1", port, _player("Bea", 2, [], SECRET))
    assert lines[0].startswith("refused 127.0.0.1:") and lines[0].endswith(f"(Cal): {host_says}")
    assert results[0] == results[1]


async def test_a_passphrase_given_for_a_table_that_is_not_private_is_refused() -> None:
    lines: list[str] = []
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            port = await _host(nursery, lines, {}, None)
            bea = _player("Bea", 2, [], SECRET)
            bea.table_name = "den"
            with pytest.raises(JoinError, match="table 'den' is not private, yet a passphrase"):
                await join_table("127.0.0.1", port, bea)
            nursery.cancel_scope.cancel()


async def test_the_host_checks_the_joiners_proof_itself() -> None:
    """A joiner that skips its own check and proves a wrong passphrase is refused by the
    host, which says so to it."""
    lines: list[str] = []
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            port = await _host(nursery, lines, {}, SECRET)
            conn = Connection(await trio.open_tcp_stream("127.0.0.1", port), "host")
            key = SeatKey.generate()
            mine = Hello(NO_TABLE, -1, "Eve", 4444, key.public, new_nonce())
            host = await hear_out(conn, mine, None)
            assert isinstance(host, Hello) and len(host.mac) == 32
            wrong = TableSecret.derive("guess", host.table)
            await prove_to(conn, mine, host, key, wrong)
            answer = await conn.receive()
            assert answer == Refuse("wrong passphrase for table 'den'")
            await conn.stream.aclose()
            nursery.cancel_scope.cancel()
    assert lines == [lines[0]] and lines[0].endswith("(Eve): wrong passphrase")


async def test_one_connection_still_gives_anyone_an_offline_test_of_a_guess() -> None:
    """The gap a PAKE is to close (protocol/SECURITY.md): the host proves first, so whoever
    connects, knowing no passphrase, gets a MAC against which guesses can be tried at home,
    one scrypt each. (A listener no longer gets it: it travels inside the encrypted link.)"""
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            port = await _host(nursery, [], {}, SECRET)
            conn = Connection(await trio.open_tcp_stream("127.0.0.1", port), "host")
            key = SeatKey.generate()
            mine = Hello(NO_TABLE, -1, "Eve", 4444, key.public, new_nonce())
            host = await hear_out(conn, mine, None)
            assert isinstance(host, Hello) and len(host.mac) == 32
            await conn.stream.aclose()
            nursery.cancel_scope.cancel()
    said = link_statement(ANSWERER, conn.binding, host.table, mine, host)
    guesses = {guess: TableSecret.derive(guess, host.table) for guess in ("kitchen", SECRET)}
    assert [g for g, secret in guesses.items() if secret.check(said, host.mac)] == [SECRET]
