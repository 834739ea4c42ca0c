"""A person's seat at a real table on loopback, played through the model alone."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from functools import partial

import trio

from p2pnerts.bots import BotDriver, SimpleBot
from p2pnerts.driver import Pace
from p2pnerts.net import (
    Listening,
    Player,
    Shape,
    Shaper,
    TableSpec,
    host_table,
    join_table,
)
from p2pnerts.rules import TableOptions
from p2pnerts.ui import LobbyModel, Session, TableModel


class Screen:
    """Stands in for the application: counts redraws, and waits for one that shows a change."""

    def __init__(self) -> None:
        self.redraws = 0
        self._redrawn = trio.Event()
        self.session: Session | None = None

    def invalidate(self) -> None:
        self.redraws += 1
        self._redrawn.set()
        self._redrawn = trio.Event()

    async def until(self, shown: Callable[[], bool]) -> None:
        while not shown():
            await self._redrawn.wait()


def _bea(pace: Pace) -> Player:
    """Bea, a simple bot at ``pace``."""
    rng = random.Random(2)
    return Player(
        "Bea", rng, BotDriver(SimpleBot(random.Random(rng.getrandbits(64))), pace), lambda _: None
    )


@asynccontextmanager
async def seated(
    bot: Pace, *, early: bool = False, shape: Shape | None = None
) -> AsyncIterator[tuple[TableModel, Screen]]:
    """Ann's seat, played through the model, at a table of two with a bot at ``bot``'s pace,
    once the first round is on; ``early``: Ann presses Enter before her seat is taken;
    ``shape``: how Ann's links are shaped."""
    model = TableModel(0, ("Ann",), TableOptions())
    if early:
        model.next_round()
    screen = Screen()
    screen.session = Session(model, screen.invalidate, "Ann", random.Random(1))
    person = screen.session.player
    person.countdown = 0.0  # the model's moves start at once (the countdown: tests/net)
    # The same deal every run: about one deal in a hundred leaves a seat stuck from the
    # start, and its seat declares it so (the stock then turns no more).
    person.seeded = True
    if shape is not None:
        person.shaper = Shaper(shape, random.Random(3))
    spec = TableSpec("test", 2, TableOptions(rounds=1))
    other = _bea(bot)
    other.countdown, other.seeded = 0.0, True
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            hosting = partial(host_table, spec, person, bind="127.0.0.1")
            listening: Listening = await nursery.start(hosting)
            nursery.start_soon(join_table, "127.0.0.1", listening.port, other)
            await screen.until(
                lambda: screen.session is not None and screen.session.peer is not None
            )
            assert not model.playing  # the first round waits for the person to be ready
            model.next_round()  # (a second Enter changes nothing)
            await screen.until(lambda: model.playing)
            yield model, screen
            nursery.cancel_scope.cancel()


async def test_a_seat_is_played_through_the_model_and_its_moves_land() -> None:
    async with seated(Pace(0.2, 0.1)) as (model, screen):
        assert model.names == ("Ann (you)", "Bea") and model.seat == 0  # your own, marked
        assert model.ticker[-1].text == "round 1 starts"
        tableau = model.tableau
        assert tableau is not None and not tableau.waste
        stock = len(tableau.stock)
        model.turn_stock()
        await screen.until(lambda: model.tableau is not None and bool(model.tableau.waste))
        after = model.tableau
        assert after is not None and (len(after.stock), len(after.waste)) == (stock - 3, 3)
        assert screen.redraws
        snap = model.snap  # the classroom's figures, read from the peer
        assert snap.clock > 0 and snap.committed > 0 and len(snap.liveness) == 2
        assert any("Play" in line.text and "turn stock" in line.text for line in model.messages)


async def test_what_the_seats_own_peer_says_reaches_the_ticker_and_no_event_twice() -> None:
    # The peer tells its link shaping, its team, a silent seat... (a line of its own), and
    # the model tells the events: the peer does not tell them again.
    async with seated(Pace(5.0, 0.1), shape=Shape(delay=0.015)) as (model, _):
        lines = [line.text for line in model.ticker]
        assert "links shaped: 15 ms" in lines
        assert lines.count("round 1 starts") == 1


async def test_an_enter_pressed_before_the_seat_is_taken_still_says_ready() -> None:
    async with seated(Pace(5.0, 0.1), early=True) as (model, _):
        assert model.playing and model.ticker[-1].text == "round 1 starts"


async def test_a_move_the_peer_refuses_comes_back_as_the_notice() -> None:
    async with seated(Pace(5.0, 0.1)) as (model, screen):
        model.declare_stuck()
        model.declare_stuck()  # one hand: the first is still in the air
        await screen.until(lambda: bool(model.notice))
        assert "one hand" in model.notice or "already declared stuck" in model.notice


async def test_quitting_mid_match_tells_the_table_at_once() -> None:
    async with seated(Pace(5.0, 0.1)) as (_, screen):
        session = screen.session
        assert session is not None and session.peer is not None
        with trio.fail_after(5):  # bounded like the application's farewell, for a failure
            await session.farewell()
        assert session.peer.left


async def test_a_joiner_learns_the_tables_size_and_teams_in_the_waiting_room() -> None:
    lobby = LobbyModel()
    lobby.waiting("teams", 0, hosting=False, roster=())
    model = TableModel(0, ("Ann",), TableOptions())
    screen = Screen()
    session = Session(model, screen.invalidate, "Ann", random.Random(1), lobby)
    host = _bea(Pace(0.1, 0.1))
    spec = TableSpec("teams", 5, TableOptions(teams=(2, 1, 2)))
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            hosting = partial(host_table, spec, host, bind="127.0.0.1")
            listening: Listening = await nursery.start(hosting)
            nursery.start_soon(join_table, "127.0.0.1", listening.port, session.player)
            await screen.until(lambda: len(lobby.roster) == 2)
            nursery.cancel_scope.cancel()  # the table never fills: play never begins
    assert (lobby.seats, lobby.table_teams) == (5, (2, 1, 2))
    assert lobby.roster == ("Bea", "Ann")
