"""Spectators on loopback: they see the real table and its races, and change nothing."""

from __future__ import annotations

import contextlib
import random
import re
from collections.abc import Callable
from functools import partial

import pytest
import trio
from _hosting import hosted

from p2pnerts.bots import BotDriver, SimpleBot
from p2pnerts.driver import Pace
from p2pnerts.net import (
    MatchResult,
    Player,
    SeenAt,
    Sight,
    TablePeer,
    TableSpec,
    WatchError,
    join_table,
    watch_table,
)
from p2pnerts.net._link import Closed, Connection
from p2pnerts.net._spectating import _admitted
from p2pnerts.net._spectators import PER_ADDRESS, Feed
from p2pnerts.protocol import (
    Ballot,
    Decided,
    Pending,
    Play,
    PlayReturned,
    Scene,
    Seat,
    SeatKey,
    Seen,
    Tally,
    TeamDeal,
    Watch,
    decode,
    decode_any,
    decode_payload,
)
from p2pnerts.rules import TableOptions, TurnStock
from p2pnerts.ui._watchmodel import WatchModel

FAST = Pace(0.005, 0.005)
SECRET = "correct horse battery staple"


def _player(
    name: str, seed: int, report: Callable[[str], None] = lambda _: None, **kw: object
) -> Player:
    rng = random.Random(seed)
    bot = BotDriver(SimpleBot(random.Random(rng.getrandbits(64))), FAST)
    return Player(name, rng, bot, report, **kw)  # type: ignore[arg-type]


class Table:
    """A loopback table of bots, the host's commits as it made them, what it reported."""

    def __init__(self, seats: int, options: TableOptions, **host: object) -> None:
        self.spec = TableSpec("watched", seats, options)
        self.results: dict[int, MatchResult] = {}
        self.lines: list[str] = []
        self.spectating = trio.Event()
        """Set once a spectator watches."""
        self.commits: list[tuple[int, tuple[int, int, int], int]] = []
        self.host = _player("Ann", 1, self._report, seated=self._seated, **host)
        self.port = 0

    def _report(self, line: str) -> None:
        self.lines.append(line)
        if " watches the table from " in line:
            self.spectating.set()

    def _seated(self, peer: TablePeer) -> None:
        def committed(head: Pending, outcome: int) -> None:
            self.commits.append((peer.replica.committed, head.key, outcome))

        peer.replica.on_commit.append(committed)

    async def open(self, nursery: trio.Nursery) -> int:
        self.port = await hosted(nursery, self.spec, self.host, self.results)
        return self.port

    def seat_bots(self, nursery: trio.Nursery, passphrase: str | None = None) -> None:
        for k in range(1, self.spec.seats):

            async def bot(k: int = k) -> None:
                player = _player(f"Bot{k}", k + 1, passphrase=passphrase)
                self.results[k] = await join_table("127.0.0.1", self.port, player)

            nursery.start_soon(bot)

    async def watched(self) -> list[Sight]:
        """Play the match with a spectator there from the start; what it saw."""
        seen: list[Sight] = []
        with trio.fail_after(120):
            async with trio.open_nursery() as nursery:
                port = await self.open(nursery)
                nursery.start_soon(watch_table, "127.0.0.1", port, seen.append)
                self.seat_bots(nursery)
        return seen


async def test_a_spectator_sees_every_commit_in_order_and_the_results_are_the_seats_own() -> None:
    table = Table(4, TableOptions(rounds=2))
    seen = await table.watched()
    assert len(table.results) == 4 and len(set(table.results.values())) == 1
    decided = [s for s in seen if isinstance(s, Decided)]
    assert [(d.index, (d.clock, d.call, d.rank), d.outcome) for d in decided] == table.commits
    races = [d for d in decided if d.outcome == 2 and d.winner >= 0]
    ties = [d for d in decided if d.outcome == 1]
    assert races or ties, "four fast bots raced for no foundation in two rounds"
    assert all(d.reason for d in races + ties)
    scenes = [s for s in seen if isinstance(s, Scene)]
    assert sorted(scenes[-1].names) == ["Ann", "Bot1", "Bot2", "Bot3"]
    assert scenes[-1].totals == table.results[0].totals
    assert all(s.dropped == 0 for s in scenes)
    assert any(isinstance(s, Seen) and s.out for s in seen)
    assert any(line.startswith("spectator watches the table") for line in table.lines)
    # With the host's ticket, every other seat streamed its own traffic too.
    sent = {(s.seat, s.seen.other) for s in seen if isinstance(s, SeenAt) and s.seen.out}
    assert {seat for seat, _ in sent} == {1, 2, 3}


async def test_a_spectator_at_a_majoritys_table_sees_its_ballots_and_tallies_too() -> None:
    table = Table(4, TableOptions(rounds=1))
    table.host.majority = True  # (its Welcome tells the bots)
    seen = await table.watched()
    assert len(table.results) == 4 and len(set(table.results.values())) == 1
    decided = [s for s in seen if isinstance(s, Decided)]
    assert [(d.index, (d.clock, d.call, d.rank), d.outcome) for d in decided] == table.commits
    said = [decode_any(s.frame) for s in seen if isinstance(s, Seen)]
    assert any(isinstance(m, Ballot) for m in said) and any(isinstance(m, Tally) for m in said)
    # The spectator's diagram draws them with what they say of which play.
    model = WatchModel("127.0.0.1:4000")
    for sight in seen:
        model.hear(sight)
    labels = [arrow.label for arrow in model.arrows]
    assert any(re.fullmatch(r"Ballot L=\d+ on s\d's #\d+: for, after \[.*\]", t) for t in labels)
    assert any(re.fullmatch(r"Tally L=\d+ of s\d's #\d+: (in|late), \d Ballots", t) for t in labels)


async def _watch_refused(port: int, match: str, **kw: object) -> None:
    with pytest.raises(WatchError, match=match):
        await watch_table("127.0.0.1", port, lambda _: None, **kw)  # type: ignore[arg-type]


async def test_a_table_that_takes_no_spectators_refuses_one_and_says_so() -> None:
    table = Table(2, TableOptions(rounds=1), spectators=False)
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            port = await table.open(nursery)
            await _watch_refused(port, r"refused: this table takes no spectators")
            table.seat_bots(nursery)
    assert len(set(table.results.values())) == 1
    assert any(line.endswith("(spectator): this table takes no spectators") for line in table.lines)


async def test_a_private_table_asks_a_spectator_for_its_passphrase() -> None:
    table = Table(2, TableOptions(rounds=1), passphrase=SECRET)
    seen: list[Sight] = []
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            port = await table.open(nursery)
            await _watch_refused(port, r"is private: give its passphrase")
            await _watch_refused(port, r"wrong passphrase", passphrase="Tr0ub4dor&3")
            watch = partial(watch_table, name="Prof", passphrase=SECRET)
            nursery.start_soon(watch, "127.0.0.1", port, seen.append)
            await table.spectating.wait()
            table.seat_bots(nursery, passphrase=SECRET)
    assert len(set(table.results.values())) == 1
    assert [s.index for s in seen if isinstance(s, Decided)] == [c[0] for c in table.commits]
    assert any(line.startswith("Prof watches the table") for line in table.lines)


async def test_a_spectator_at_a_table_of_teams_is_never_sent_a_team_deck() -> None:
    dealt: list[TeamDeal] = []
    table = Table(4, TableOptions(rounds=2, teams=(2, 2)))
    seated = table.host.seated

    def deals(peer: TablePeer) -> None:
        assert seated is not None
        seated(peer)
        peer.traffic.append(lambda _o, _s, m: dealt.append(m) if isinstance(m, TeamDeal) else None)

    table.host.seated = deals
    seen = await table.watched()
    assert dealt, "no team deck was dealt at the host"
    frames = [s.frame for s in seen if isinstance(s, Seen | Decided)]
    assert frames and not any(isinstance(decode_payload(f), TeamDeal) for f in frames)
    assert len(set(table.results.values())) == 1


async def _admitted_spectator(port: int) -> Connection:
    """A spectator's connection, admitted, that has not read its stream yet."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    conn = Connection(stream, "test spectator")
    key = SeatKey.generate()
    await _admitted(
        conn, Watch(bytes(16), "Mallory", key.public, b""), key, ("the table", None, "", None)
    )
    return conn


async def _cut_off(conn: Connection) -> int:
    """Read a connection to its end; how many frames came."""
    conn.open_up()
    frames = 0
    with contextlib.suppress(Closed):
        while True:
            await conn.receive()
            frames += 1
    await conn.stream.aclose()
    return frames


PLAY = Play(1, 0, 5, 1, 1, TurnStock(1, (), 0))


@pytest.mark.parametrize("says", [PLAY, b"\x00\x00\x00\x05hello"], ids=["a play", "garbage"])
async def test_a_spectator_that_says_anything_is_cut_off_and_the_table_plays_on(
    says: Play | bytes,
) -> None:
    table = Table(3, TableOptions(rounds=2))
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            port = await table.open(nursery)
            table.seat_bots(nursery)
            conn = await _admitted_spectator(port)
            if isinstance(says, bytes):
                conn.send_frame(says)
            else:
                conn.send_nowait(says)
            await conn.write_queued()
            await _cut_off(conn)
            assert not table.results, "the spectator stayed until the match was over"
    assert len(table.results) == 3 and len(set(table.results.values())) == 1
    assert table.results[0].rounds == 2


async def test_spectators_are_capped_per_address_and_the_others_are_told_why() -> None:
    table = Table(2, TableOptions(rounds=1))
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            port = await table.open(nursery)
            first = [await _admitted_spectator(port) for _ in range(PER_ADDRESS)]
            for _ in range(18):
                await _watch_refused(port, rf"{PER_ADDRESS} spectators from 127\.0\.0\.1 watch")
            for conn in first:
                nursery.start_soon(_cut_off, conn)
            table.seat_bots(nursery)
    assert len(set(table.results.values())) == 1


async def test_a_play_folded_steps_after_it_came_back_is_told_with_why() -> None:
    # At a majority's table a play comes back (its event) a step or more before it is
    # folded into the order (its commit): the spectator was told no reason.
    roster = [Seat(0, "Ann", "127.0.0.1", 1), Seat(1, "Bea", "127.0.0.1", 2)]
    peer = TablePeer(
        bytes(16), 0, roster, TableOptions(), rng=random.Random(1), driver=None, report=print
    )
    feed = Feed(peer)
    play = Play(1, 0, 7, 3, 1, TurnStock(1, rotation=0))
    why = "late: a majority held a later play on its spot first"
    feed.changed([PlayReturned(1, play.move, play.clock, None, why)])
    feed.changed(())
    feed.committed(Pending((7, 0, 1), play, None), 3)
    peer.replica.log.committed = 1  # (as the fold made it)
    feed.changed(())
    [told] = [d for d in map(decode, feed.queue) if isinstance(d, Decided)]
    assert (told.outcome, told.winner, told.reason) == (3, -1, why)
    feed.stop()


async def test_a_slow_spectator_loses_its_oldest_frames_and_is_told_how_many() -> None:
    roster = [Seat(0, "Ann", "127.0.0.1", 1), Seat(1, "Bea", "127.0.0.1", 2)]
    options = TableOptions()
    peer = TablePeer(bytes(16), 0, roster, options, rng=random.Random(1), driver=None, report=print)
    feed = Feed(peer, backlog=4)  # its first Scene is queued already
    for k in range(10):
        feed.put(bytes([k]))
    assert list(feed.queue) == [bytes([k]) for k in range(6, 10)]
    assert feed.dropped == 7 and feed.scene().dropped == 7
    feed.put(b"commit", keep=True)  # a commit's frame: traffic makes way before it
    for k in range(10, 14):
        feed.put(bytes([k]))
    assert list(feed.queue) == [b"commit", *(bytes([k]) for k in range(11, 14))]
    assert feed.dropped == 12
    feed.stop()  # and the peer no longer feeds it
    assert not peer.traffic and not peer.watchers and not peer.replica.on_commit


async def test_a_seat_other_than_the_host_sends_a_spectator_to_the_host() -> None:
    table = Table(3, TableOptions(rounds=1))
    seated, ports = trio.Event(), list[int]()
    first = table.host.seated
    assert first is not None

    def seen(peer: TablePeer) -> None:
        first(peer)
        ports.extend(seat.port for seat in peer.roster[1:])
        seated.set()

    table.host.seated = seen
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            await table.open(nursery)
            table.seat_bots(nursery)
            await seated.wait()
            await _watch_refused(ports[0], "refused: watch this table at its host")
    assert len(set(table.results.values())) == 1
