"""The commands that put peers on a real network: host, join, bot and play.

A person plays their seat on the table screen, which the command line hands in as a
`Screen` (`p2pnerts.commands._screen` provides it); with ``--headless`` a bot plays the seat and
the commands print the table's progress as plain lines.
"""

from __future__ import annotations

import gc
import random
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import Protocol, TypeVar, TypeVarTuple

import trio

from p2pnerts.bots import BotDriver, Guarded, level, load_policy
from p2pnerts.cheats import Cheat
from p2pnerts.commands._config import HostConfig, JoinConfig, SeatConfig
from p2pnerts.commands._locate import address_of, locate_and_join
from p2pnerts.commands._telling import end_match, say, tell_end, warn
from p2pnerts.driver import Pace
from p2pnerts.errors import Error, UsageError
from p2pnerts.net import (
    DiscoveryError,
    JoinError,
    Listening,
    MatchResult,
    Player,
    SeatFile,
    TableInfo,
    TablePeer,
    TableSpec,
    TableState,
    advertise,
    host_table,
    join_table,
    resume_table,
)
from p2pnerts.protocol import PROTOCOL_VERSION, Welcome, fingerprint
from p2pnerts.system import interrupt_on_terminate


class Screen(Protocol):
    """The table screen, where a person plays their seat; each returns the match's result
    (or how it stood when the person left it), or None when they left before play began."""

    def host(self, config: HostConfig) -> MatchResult | None: ...

    def join(self, config: JoinConfig) -> MatchResult | None: ...

    def resume(self, saved: SeatFile, seat: SeatConfig) -> MatchResult | None: ...


class HostError(Error):
    """This machine could not open the table: the port is taken, or not ours to use."""

    context = "cannot host"


class ComeBackError(JoinError):
    """A seat kept in a state file could not be taken back."""

    context = "cannot come back"


def level_pace(number: int) -> Pace:
    """How fast a bot of a level (1-10) plays; level 10 as fast as the table allows."""
    return level(number).pace


def bot_player(
    name: str,
    number: int,
    rng: random.Random,
    report: Callable[[str], None],
    tell: Callable[[str], None] | None = None,
    *,
    policy: str | None = None,
    passphrase: str | None = None,
) -> Player:
    """A seat played by a bot of level ``number`` (1-10): the level's pace, and its policy
    unless ``policy`` names another (built-in, or ``package.module:Class``); at a private
    table, knowing its ``passphrase``."""
    make = level(number).make if policy is None else load_policy(policy)
    bot = Guarded(make(random.Random(rng.getrandbits(64))), warn, f"{name}'s policy")
    driver = BotDriver(bot, level_pace(number))
    return Player(name, rng, driver, report, tell, passphrase=passphrase)


def beside_host(bot: Player, seat: SeatConfig, table: str) -> Player:
    """A bot the host seats from its own machine, as the host's ``seat`` options say: it
    commits by the rule the host's seat commits by, and logs beside the host under the
    ``table``'s name (`trace` merges the logs of a table played on one machine)."""
    bot.log_dir, bot.table_name, bot.majority = seat.log, table, seat.majority
    return bot


def fit_out(player: Player, seat: SeatConfig) -> Player:
    """Give ``player`` what the seat's options say, whoever plays it (a bot or a person):
    its state file, the passphrase, its links' shape, its game log, whether it serves
    spectators, and when it counts the table gone."""
    player.seat_file = seat.state
    player.passphrase = seat.passphrase
    player.shaper = seat.shaper()
    player.majority = seat.majority
    player.log_dir = seat.log
    player.spectators = seat.watchers
    player.gone_after = seat.gone_after
    return player


T = TypeVar("T")
Args = TypeVarTuple("Args")


def run_headless(
    async_fn: Callable[[*Args], Awaitable[T]],
    *args: *Args,
    first: Callable[[], Awaitable[object]] | None = None,
) -> T:
    """`trio.run`, with Ctrl-C (and SIGTERM, which ends the run as Ctrl-C does, once
    ``first`` is done) raised only at a checkpoint. Raised anywhere, it can land inside
    ``start_soon`` after the task's coroutine was made and before the task was: the
    coroutine is dropped unawaited and Python says so on standard error before the one
    line that tells how the run ended. The table screen's runs already get signals only
    between steps of their loop."""
    run = partial(_terminable, first, async_fn, *args)
    # Everything made so far (the modules: the protocol's, trio's, the cryptography
    # packages' behind the links) lives as long as the process: out of the collector's
    # way, as the table screen does. Each full collection walked them all, and at 8 seats
    # on 2 cores those pauses were the slowest commits' (p99 169-373 ms; 82-126 frozen).
    gc.freeze()
    return trio.run(run, restrict_keyboard_interrupt_to_checkpoints=True)


def run_seat(
    player: Player,
    async_fn: Callable[[*Args], Awaitable[MatchResult]],
    *args: *Args,
) -> MatchResult:
    """`run_headless` for a match that ``player`` plays. Stopped once seated (by Ctrl-C,
    SIGTERM or an error), it says how the match stood and where its game log is
    (`tell_end`); what stopped it then ends the command as it would have (Ctrl-C and
    SIGTERM with their line and status)."""
    peers: list[TablePeer] = []
    player.seated = peers.append  # (a seat coming back is seated anew)

    async def leave_first() -> None:  # SIGTERM: the others hear the seat left, as on Ctrl-C
        if peers:
            await peers[-1].part()

    try:
        return run_headless(async_fn, *args, first=leave_first)
    except BaseException:
        if peers:
            tell_end(peers[-1].standing())
        raise


async def _terminable(
    first: Callable[[], Awaitable[object]] | None,
    async_fn: Callable[[*Args], Awaitable[T]],
    *args: *Args,
) -> T:
    """``async_fn``, ended by a SIGTERM as by Ctrl-C (after ``first``), whatever Ctrl-C's
    own handler."""
    async with trio.open_nursery() as nursery:
        nursery.start_soon(interrupt_on_terminate, first)
        result = await async_fn(*args)
        nursery.cancel_scope.cancel()
    return result


def host_command(config: HostConfig, screen: Screen | None) -> int:
    """``p2pnerts host``: on the ``screen``, or headless when there is none."""
    saved = _saved_seat(config.seat, config.spec.name)
    if saved is not None:
        return _resume(saved, config.seat, screen)
    result = host_headless(config) if screen is None else screen.host(config)
    return end_match(result, config.seat)


def host_headless(config: HostConfig, tell: Callable[[str], None] | None = None) -> MatchResult:
    """Host the table with a bot in this seat (``--headless``), the table told in lines."""
    me = _host_seat(config.seat, tell)
    return run_seat(me, partial(run_host, config, me=me))


async def run_host(
    config: HostConfig,
    *,
    bind: str | None = None,
    tell: Callable[[str], None] | None = None,
    me: Player | None = None,
    report: Callable[[str], None] = say,
    task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED,
) -> MatchResult:
    """Host the table, announce it (unless told not to), seat the local bots.

    ``me`` plays seat 0 (by default a bot at the seat's level); ``report`` hears the lobby.
    Started with ``nursery.start``, it tells the port the table listens on.
    """
    spec, levels = config.spec, config.levels
    rng = random.Random(config.seat.seed)
    rng.getrandbits(64)  # (the host's own seat's: `_host_seat`)
    player = _host_seat(config.seat, tell) if me is None else me
    updates, announced = trio.open_memory_channel[TableInfo](64)
    where: Listening | None = None  # (once it listens: before that, nobody takes a seat)
    result: list[MatchResult] = []
    async with trio.open_nursery() as nursery:

        def seated(taken: int) -> None:
            if config.advertise and where is not None:
                updates.send_nowait(_info(spec, where, taken, player))

        async def hosting(task_status: trio.TaskStatus[Listening]) -> None:
            result.append(
                await host_table(
                    spec,
                    player,
                    port=config.port,
                    bind=config.bind,
                    on_roster=seated,
                    task_status=task_status,
                )
            )
            nursery.cancel_scope.cancel()  # (the announcement, the bots' seating)

        try:
            where = await nursery.start(hosting)
        except OSError as exc:  # only opening the listener lets one out
            asked = f"port {config.port}" if config.port else "any port"
            raise HostError(f"cannot listen on {asked}: {exc.strerror or exc}") from None
        port = where.port
        task_status.started(port)
        rules = _rules(spec, player)
        report(f"table {spec.name!r} open on port {port}: {spec.seats} seats, {rules}")
        if config.advertise:
            nursery.start_soon(_announce, announced, config.seat.interface, report)
            updates.send_nowait(_info(spec, where, 1, player))
        bots = [
            beside_host(
                bot_player(
                    f"Bot {k + 2}",  # the seat it takes, counted from the host's 1
                    levels[k % len(levels)],
                    random.Random(rng.getrandbits(64)),
                    lambda _: None,
                    passphrase=config.seat.passphrase,
                ),
                config.seat,
                spec.name,
            )
            for k in range(config.bots)
        ]
        nursery.start_soon(seat_in_turn, nursery, port, bots, report)
    return result[0]


def _rules(spec: TableSpec, host: Player) -> str:
    """The table's rules as its host tells them and announces them: its options, and how it
    commits where that is by a majority (the host's choice, `host_table`)."""
    summary = spec.options.summary()
    return f"{summary}, commits by a majority" if host.majority else summary


def _info(spec: TableSpec, where: Listening, taken: int, me: Player) -> TableInfo:
    state: TableState = "playing" if taken >= spec.seats else "lobby"
    return TableInfo(
        spec.name,
        where.table.hex(),
        PROTOCOL_VERSION,
        taken,
        spec.seats,
        _rules(spec, me),
        state,
        "0.0.0.0",
        where.port,
        fingerprint(me.key.public),
        private=me.passphrase is not None,
    )


async def _announce(
    updates: trio.MemoryReceiveChannel[TableInfo],
    interface: str | None,
    report: Callable[[str], None],
) -> None:
    """Announce the table over mDNS, and keep the announcement up to date."""
    first = await updates.receive()
    try:
        async with advertise(first, interfaces=None if interface is None else [interface]) as ad:
            async for info in updates:
                await ad.update(info)
    except DiscoveryError as exc:
        report(f"(not announced on the network: {exc}; others can still join with HOST:PORT)")


async def seat_in_turn(
    nursery: trio.Nursery, port: int, bots: Sequence[Player], report: Callable[[str], None]
) -> None:
    """Seat this machine's bots one after another, each once the one before has its seat,
    so that they sit in the order they are named."""
    for bot in bots:
        await nursery.start(local_bot, port, bot, report)


async def local_bot(
    port: int,
    player: Player,
    report: Callable[[str], None],
    *,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """A bot of this machine takes a seat at the table on ``port`` (started: seated)."""
    seated = trio.Event()

    def welcomed(_: Welcome) -> None:
        seated.set()
        task_status.started()

    player.welcomed = welcomed
    try:
        await join_table("127.0.0.1", port, player)
    except JoinError as exc:
        report(f"{player.name} could not join: {exc}")
        if not seated.is_set():
            task_status.started()


def join_command(config: JoinConfig, screen: Screen | None) -> int:
    """``p2pnerts join`` and ``p2pnerts bot``: on the ``screen``, or headless when there is
    none (a table must be named then)."""
    if config.table is None and screen is None:
        raise UsageError("--headless needs a table: NAME or HOST:PORT")
    by_name = config.table is not None and address_of(config.table) is None
    saved = _saved_seat(config.seat, config.table if by_name else None)
    if saved is not None:
        return _resume(saved, config.seat, screen)
    player = _player(config.seat, random.Random(config.seat.seed))  # a bad --policy: now
    result: MatchResult | None
    try:
        if screen is None:
            player.welcomed = lambda welcome: say(seated_words(config.seat, welcome))
            assert config.table is not None
            where = config.seat.interface
            join = partial(locate_and_join, host_key=config.seat.host_key)
            result = run_seat(player, join, config.table, where, player, say)
        else:
            result = screen.join(config)
    except DiscoveryError as exc:
        raise JoinError(str(exc)) from None
    status = end_match(result, config.seat)
    return 1 if _policy_failed(player) else status


def seated_words(seat: SeatConfig, welcome: Welcome) -> str:
    """A headless seat's bot, seated: what it plays, and how often it looks at the table
    (``bot --policy`` looks at its level's pace: the line says which)."""
    taken = f"{seat.name} has seat {welcome.seat + 1} of {welcome.players}"
    pace = level(seat.level)
    if seat.policy is None:
        return f"{taken}: {pace.describe()}"
    return (
        f"{taken}: {seat.policy} at level {pace.number}'s pace, {pace.looks} on average "
        "(--level 1-10 sets another)"
    )


def _policy_failed(player: Player) -> bool:
    """Whether the seat's bot policy raised during the match (told when it did): the
    match went on, but the run did not go as asked."""
    driver = player.driver
    policy = driver.policy if isinstance(driver, BotDriver) else None
    return isinstance(policy, Guarded) and policy.failed


def _player(
    seat: SeatConfig, rng: random.Random, tell: Callable[[str], None] | None = None
) -> Player:
    """The seat's player when a bot plays it: its level (or policy), and its state file."""
    player = fit_out(bot_player(seat.name, seat.level, rng, say, tell, policy=seat.policy), seat)
    if seat.cheat is not None:
        player.tamper = cheat = Cheat(seat.cheat)
        player.shuns = cheat.shuns
    return player


def _host_seat(seat: SeatConfig, tell: Callable[[str], None] | None = None) -> Player:
    """The host's own seat when a bot plays it: its choices drawn from ``--seed``'s first
    number (`run_host` draws its bots' from the numbers after)."""
    return _player(seat, random.Random(random.Random(seat.seed).getrandbits(64)), tell)


def _saved_seat(seat: SeatConfig, table: str | None) -> SeatFile | None:
    """``--state FILE`` naming a file that exists: the seat to come back to, which must be
    a seat of the ``table`` named (if named). A new file must be one this peer can write."""
    if seat.state is None:
        return None
    if not seat.state.exists():
        SeatFile.check_writable(seat.state)
        return None
    saved = SeatFile.load(seat.state)
    if table is not None:
        saved.check_table(seat.state, table)
    return saved


def _resume(saved: SeatFile, seat: SeatConfig, screen: Screen | None) -> int:
    """Take back the seat of a started table that a state file keeps."""
    me = saved.roster[saved.seat]
    say(f"{me.name} coming back to seat {saved.seat + 1} (state from {seat.state})")
    result: MatchResult | None
    try:
        if screen is None:
            player = _player(seat, random.Random(seat.seed))
            result = run_seat(player, resume_table, saved, player)
        else:
            result = screen.resume(saved, seat)
    except JoinError as exc:
        raise ComeBackError(str(exc)) from None
    return end_match(result, seat)
