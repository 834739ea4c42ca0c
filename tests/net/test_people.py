"""A table of people on loopback: ready before a round, a countdown, an idle person
declared stuck, a seat left alone when everyone else has gone, and a seat cut off from a
table that ends without it."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence

import pytest
import trio

from p2pnerts.bots import BotDriver, SimpleBot
from p2pnerts.driver import Pace
from p2pnerts.net import (
    Listening,
    MatchResult,
    Player,
    Shape,
    Shaper,
    Stall,
    TablePeer,
    TableSpec,
    host_table,
    join_table,
)
from p2pnerts.protocol import Event, LocalProtocolError, PlayCommitted
from p2pnerts.rules import DeclareStuck, TableOptions, TurnStock

FAST = Pace(0.005, 0.005)


class Table:
    """Hears every change at every seat's peer, and waits for one that shows something."""

    def __init__(self) -> None:
        self.peers: dict[str, TablePeer] = {}
        self.results: dict[int, MatchResult] = {}
        self._changed = trio.Event()

    def seat(self, player: Player) -> Player:
        """``player``, its peer kept here and its changes heard, once it is seated."""
        then = player.seated

        def seated(peer: TablePeer) -> None:
            self.peers[player.name] = peer
            peer.watchers.append(lambda _: self.changed())
            if then is not None:
                then(peer)
            self.changed()

        player.seated = seated
        return player

    def changed(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    async def until(self, shown: Callable[[], bool]) -> None:
        while not shown():
            await self._changed.wait()

    async def host(self, nursery: trio.Nursery, spec: TableSpec, host: Player) -> int:
        """Open the table, ``host`` at seat 0; its port."""

        async def run(task_status: trio.TaskStatus[Listening]) -> None:
            player = self.seat(host)
            self.results[0] = await host_table(
                spec, player, bind="127.0.0.1", task_status=task_status
            )
            self.changed()

        listening: Listening = await nursery.start(run)
        return listening.port

    async def open(self, nursery: trio.Nursery, spec: TableSpec, *players: Player) -> None:
        """Open the table, the first of ``players`` hosting it, and seat the others."""
        port = await self.host(nursery, spec, players[0])
        for k, player in enumerate(players[1:], start=1):
            self.join(nursery, port, k, player)

    def join(self, nursery: trio.Nursery, port: int, k: int, player: Player) -> None:
        async def run() -> None:
            self.results[k] = await join_table("127.0.0.1", port, self.seat(player))
            self.changed()

        nursery.start_soon(run)


def _bot(name: str, seed: int, countdown: float = 0.0) -> Player:
    rng = random.Random(seed)
    driver = BotDriver(SimpleBot(random.Random(rng.getrandbits(64))), FAST)
    return Player(name, rng, driver, lambda _: None, countdown=countdown)


async def test_the_first_round_waits_for_the_person_then_counts_down_before_any_move() -> None:
    table = Table()
    ann = Player("Ann", random.Random(1), None, lambda _: None, countdown=60.0)
    # (A countdown longer than the test: everything below happens before it ends.)
    spec = TableSpec("ready", 2, TableOptions(rounds=1))
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            port = await table.host(nursery, spec, ann)
            table.join(nursery, port, 1, _bot("Bea", 2, countdown=60.0))
            await table.until(lambda: "Ann" in table.peers and table.peers["Ann"].unready() == (0,))
            peer = table.peers["Ann"]
            assert peer.replica.playing == 0  # Bea said ready; the table waits for Ann
            peer.ready()
            await table.until(lambda: peer.replica.playing == 1)
            assert peer.pacing.starts_in(trio.current_time()) > 0
            with pytest.raises(LocalProtocolError, match="the round starts in"):
                peer.intend(TurnStock(0))
            nursery.cancel_scope.cancel()


async def test_a_person_who_never_moves_is_declared_stuck_and_the_match_ends() -> None:
    table = Table()
    stuck: list[int] = []

    def watch(peer: TablePeer) -> None:
        peer.ready()  # ready, and then away from the keyboard for good

        def heard(events: Sequence[Event]) -> None:
            for e in events:
                if isinstance(e, PlayCommitted) and isinstance(e.move, DeclareStuck):
                    stuck.append(e.seat)

        peer.watchers.append(heard)

    ann = Player("Ann", random.Random(1), None, lambda _: None, seated=watch)
    ann.countdown, ann.idle_after = 0.0, 0.1
    spec = TableSpec("away", 3, TableOptions(rounds=1))
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            await table.open(nursery, spec, ann, _bot("Bea", 2), _bot("Cy", 3))
    results = table.results
    assert 0 in stuck, "Ann's seat was declared stuck for her"
    assert len(results) == 3 and len(set(results.values())) == 1
    assert results[0].rounds == 1 and not results[0].ended


async def test_a_seat_left_alone_ends_the_match_at_once_with_the_scores_so_far() -> None:
    table = Table()
    lines: list[str] = []
    ann = _bot("Ann", 1)
    ann.report = lines.append
    spec = TableSpec("alone", 3, TableOptions(rounds=50))
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            await table.open(nursery, spec, ann, _bot("Bea", 2), _bot("Cy", 3))
            peers = table.peers
            await table.until(lambda: len(peers) == 3 and peers["Cy"].replica.playing >= 1)
            for name in ("Bea", "Cy"):
                assert peers[name].leave()
                await table.until(lambda name=name: peers[name].left)  # type: ignore[misc]
            await table.until(lambda: 0 in table.results)
            nursery.cancel_scope.cancel()
    result = table.results[0]
    assert result.ended == "everyone else has left the table"
    rounds = f"after {result.rounds} round" + ("" if result.rounds == 1 else "s")
    how = rounds if result.rounds else "before any round was over here"
    assert result.summary().startswith(f"match ended {how}, everyone")
    assert "match ended: everyone else has left the table" in lines


async def test_a_bot_cut_off_from_a_table_that_ends_without_it_ends_its_match_too() -> None:
    # Cy's links are cut as play begins, for longer than the test: Ann and Bea
    # leave Cy out and play the match to its end; Cy, hearing nobody, stops in the end
    # instead of waiting for ever.
    table = Table()
    lines: list[str] = []
    cy = _bot("Cy", 3)
    cy.report = lines.append
    cy.shaper = Shaper(Shape(stalls=(Stall(0.05, 3600.0),)), random.Random(3))
    cy.gone_after = 3.0
    spec = TableSpec("cut", 3, TableOptions(rounds=1))
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            await table.open(nursery, spec, _bot("Ann", 1), _bot("Bea", 2), cy)
    results = table.results
    assert results[0] == results[1] and not results[0].ended  # the match played out
    gone = r"no other seat has answered for \d+ s \(the table ended, or went on without it\)"
    assert re.fullmatch(gone, results[2].ended), results[2].ended  # (3 s, or more if busy)
    assert f"match ended: {results[2].ended}" in lines


async def test_a_person_cut_off_is_offered_the_end_and_their_peer_waits_without_spinning() -> None:
    # Ann's only opponent is cut off for longer than the test: Ann waits for Bea (1 of 2
    # is no majority), then, hearing nobody, counts the table gone. Her seat's peer keeps
    # waiting for her e, waking at its heartbeats only (before, it woke without end).
    table = Table()
    ann = Player("Ann", random.Random(1), None, lambda _: None, countdown=0.0)
    ann.gone_after = 1.0
    ann.seated = lambda peer: peer.ready()
    bea = _bot("Bea", 2)
    bea.shaper = Shaper(Shape(stalls=(Stall(0.5, 3600.0),)), random.Random(2))
    spec = TableSpec("quiet", 2, TableOptions(rounds=50))  # (never over before the cut)
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            await table.open(nursery, spec, ann, bea)
            await table.until(lambda: "Ann" in table.peers)
            peer = table.peers["Ann"]
            await table.until(lambda: bool(peer.forsaken))
            ticks: list[float] = []
            tick = peer.replica.tick

            def counted(now: float) -> None:
                ticks.append(now)
                tick(now)

            peer.replica.tick = counted  # type: ignore[method-assign]
            await trio.sleep(1.0)
            assert peer.result is None  # a person's match ends only when they say so
            assert 0 < len(ticks) <= 1.0 / peer.replica.timing.heartbeat + 2
            nursery.cancel_scope.cancel()


async def test_bots_waiting_for_silent_seats_they_cannot_leave_out_end_the_match_in_time() -> None:
    # Cy's and Dee's links are cut for longer than the test: Ann and Bea still hear each
    # other, but 2 of 4 are no majority, so the table waits for Cy and Dee. Nobody can say
    # "end it" for bots: each ends its match once the table has waited long enough.
    table = Table()
    lines: dict[str, list[str]] = {}
    players = []
    for k, name in enumerate(("Ann", "Bea", "Cy", "Dee"), start=1):
        player = _bot(name, k)
        player.report = lines.setdefault(name, []).append
        player.gone_after = 2.0
        if name in ("Cy", "Dee"):
            player.shaper = Shaper(Shape(stalls=(Stall(0.3, 3600.0),)), random.Random(k))
        players.append(player)
    spec = TableSpec("halves", 4, TableOptions(rounds=50))
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            await table.open(nursery, spec, *players)
    results = table.results
    assert results[0] == results[1]  # Ann and Bea stopped on the same commits
    waited = r"the table waited \d+ s for (Cy & Dee|Dee & Cy) to come back"  # (in seat order)
    for seat in (0, 1):
        assert re.fullmatch(waited, results[seat].ended), results
    for seat in (2, 3):  # Cy and Dee, cut off, heard nobody at all
        assert re.match(r"no other seat has answered for \d+ s", results[seat].ended)
    assert f"match ended: {results[0].ended}" in lines["Ann"]
