"""Private tables on loopback: only those who prove they know the passphrase sit, and both
ends say why when one does not."""

from __future__ import annotations

import random
import re

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
    refused = [line for line in lines if line.startswith("refused")]
    assert refused[0].startswith("refused 127.0.0.1:") and refused[0].endswith(
        f"(Cal): {host_says}"
    )
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


async def _stranger(port: int, guess: str) -> tuple[Hello, Hello, Connection]:
    """A stranger's way in as far as the host's answer: a Hello whose SPAKE2 message was
    made with ``guess`` (its scalar from fixed bytes), and the host's proven Hello."""
    conn = Connection(await trio.open_tcp_stream("127.0.0.1", port), "host")
    key = SeatKey.generate()
    run = TableSecret(guess).opening(lambda size: bytes([7]) * size)
    mine = Hello(NO_TABLE, -1, "Eve", 4444, key.public, new_nonce(), pake=run.message)
    host = await hear_out(conn, mine, None)
    assert isinstance(host, Hello) and len(host.mac) == 32 and len(host.pake) == 33
    return mine, host, conn


async def test_the_host_checks_the_joiners_proof_itself() -> None:
    """A joiner that skips its own check and proves a wrong passphrase is refused by the
    host, which says so to it, and counts the guess."""
    lines: list[str] = []
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            port = await _host(nursery, lines, {}, SECRET)
            conn = Connection(await trio.open_tcp_stream("127.0.0.1", port), "host")
            key = SeatKey.generate()
            run = TableSecret("guess").opening()
            mine = Hello(NO_TABLE, -1, "Eve", 4444, key.public, new_nonce(), pake=run.message)
            host = await hear_out(conn, mine, None)
            assert isinstance(host, Hello)
            await prove_to(conn, mine, host, key, run.finish(host.pake))
            answer = await conn.receive()
            assert answer == Refuse("wrong passphrase for table 'den'")
            await conn.stream.aclose()
            nursery.cancel_scope.cancel()
    assert (
        lines[0]
        == "a wrong passphrase from 127.0.0.1 (Eve): 1 of 5 a minute from there, 1 of 20 in all"
    )
    assert lines[1:] == [lines[1]] and lines[1].endswith("(Eve): wrong passphrase")


async def test_a_strangers_connection_tests_its_one_guess_and_no_other_offline() -> None:
    """What one connection gives a stranger who knows no passphrase: the host's SPAKE2
    message and proof, for the guess it ran with. Redoing its run offline with other
    guesses, the right one included, checks none (before SPAKE2, the host's MAC under a key
    drawn from the passphrase alone let the stranger find it here, one scrypt a guess). The
    host counts the guess the stranger ran and left with."""
    lines = _Said()
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            port = await _host(nursery, lines, {}, SECRET)
            mine, host, conn = await _stranger(port, "kitchen")
            await conn.stream.aclose()  # gone with the record
            await lines.first.wait()
            nursery.cancel_scope.cancel()
    said = link_statement(ANSWERER, conn.binding, host.table, mine, host)

    def checks(guess: str) -> bool:
        again = TableSecret(guess).opening(lambda size: bytes([7]) * size)
        return again.finish(host.pake).check(said, host.mac)

    assert [g for g in ("kitchen", "hallway", SECRET) if checks(g)] == []
    assert lines[0].startswith("a wrong passphrase from 127.0.0.1 (Eve): 1 of 5")


async def test_wrong_guesses_from_one_address_are_limited_and_told() -> None:
    """Five wrong guesses from an address in a minute, and the host refuses the next from
    there before any run, saying when to come back: the joiner who knows the passphrase
    too, if it comes from that address."""
    lines: list[str] = []
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            port = await _host(nursery, lines, {}, SECRET)
            for guess in ("kitchen", "hallway", "garden", "attic", "cellar"):
                _, _, conn = await _stranger(port, guess)
                await conn.stream.aclose()
            for _ in range(50):  # the host counts each as its link closes
                if sum("a wrong passphrase" in line for line in lines) == 5:
                    break
                await trio.sleep(0.05)
            limited = r"try again in \d+ s: too many wrong passphrases from 127\.0\.0\.1"
            with pytest.raises(JoinError, match=limited + " for table 'den'"):
                await join_table("127.0.0.1", port, _player("Bea", 2, [], SECRET))
            nursery.cancel_scope.cancel()
    told = [line for line in lines if "passphrase" in line and not line.startswith("refused")]
    assert told[-2:] == [
        "a wrong passphrase from 127.0.0.1 (Eve): 5 of 5 a minute from there, 5 of 20 in all",
        "127.0.0.1 is refused the passphrase for 60 s",
    ]
    assert re.search(r"\(Bea\): " + limited + "$", lines[-1]), lines[-1]


async def test_a_passphrase_message_off_the_group_is_refused_and_the_table_plays_on() -> None:
    """A stranger's SPAKE2 message that is no element of the group (a point off the curve)
    is refused as breaking the protocol, counted as a guess, and the seat stays free."""
    lines: list[str] = []
    results: dict[int, MatchResult] = {}
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            port = await _host(nursery, lines, results, SECRET)
            conn = Connection(await trio.open_tcp_stream("127.0.0.1", port), "host")
            key = SeatKey.generate()
            off = b"A" + bytes([2]) + bytes(31)
            mine = Hello(NO_TABLE, -1, "Eve", 4444, key.public, new_nonce(), pake=off)
            answer = await hear_out(conn, mine, None)
            assert answer == Refuse("a frame that breaks the protocol for table 'den'")
            await conn.stream.aclose()
            results[1] = await join_table("127.0.0.1", port, _player("Bea", 2, [], SECRET))
    assert lines[0].startswith("a wrong passphrase from 127.0.0.1 (Eve): 1 of 5")
    assert lines[1].endswith("(Eve): a frame that breaks the protocol")
    assert results[0] == results[1] and results[0].rounds == 1
