"""What a network command was asked to do, as frozen values: the command line is read once,
here, and these travel from there (never an ``argparse.Namespace``)."""

from __future__ import annotations

import argparse
import getpass
import os
import random
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

from p2pnerts.bots import level, policy_name
from p2pnerts.commands._options import OFFERED, default_log_dir, default_name
from p2pnerts.commands._phrases import generated
from p2pnerts.errors import Error, UsageError
from p2pnerts.net import GONE_AFTER, IDLE_AFTER, Shape, Shaper, TableSpec
from p2pnerts.protocol import passphrase_bytes
from p2pnerts.rules import BadOptions, TableOptions, TieRule


@dataclass(frozen=True, slots=True)
class SeatConfig:
    """How this process plays its seat: the player's name, a bot's level or policy (the
    seat's own with ``headless``, else the local bots'), the seed, where mDNS runs, the
    files it keeps, and how the table screen looks."""

    name: str
    level: int = 5
    seed: int | None = None
    headless: bool = False
    policy: str | None = None
    """Another policy than the level's: built-in, ``package.module:Class`` or a file's."""
    interface: str | None = None
    stats: Path | None = None
    state: Path | None = None
    """``--state FILE``: kept while playing; when it exists, the seat to come back to."""
    ascii: bool = False
    four_colour: bool = False
    cheat: str | None = None
    """``bot --cheat KIND``: lie on the wire as that attack (`p2pnerts.cheats`)."""
    idle: float = IDLE_AFTER
    """``--idle S``: a person who makes no move for S seconds is declared stuck."""
    gone_after: float = GONE_AFTER
    """``--gone-after S``: the table counts as gone after S seconds with no other seat
    answering (or waiting for silent seats): a bot ends its match, a person may."""
    passphrase: str | None = None
    """A private table's passphrase (``--passphrase``, ``--passphrase-env``,
    ``--ask-passphrase``): hosting, the table is private; joining, the table must be."""
    offered: bool = False
    """``host --passphrase`` with no words: the passphrase was made up here, to be shown."""
    host_key: str | None = None
    """``--host-key``: join only a table whose host proves this key's fingerprint."""
    shape: Shape = field(default_factory=Shape)
    """``--delay``, ``--jitter``, ``--loss``, ``--stall``: how this peer's links are shaped."""
    log: Path | None = None
    """``--log DIR``: where this peer writes its game log (None: ``--no-log``)."""
    watchers: bool = True
    """The table this seat hosts lets spectators watch (``--no-watchers``: it does not)."""
    majority: bool | None = None
    """How a table this seat hosts commits: ``--majority`` (True) or ``--acks`` (False),
    each said again where the table cannot (`net.Player.majority`); by default (None) by
    version 3's majority rule from 4 seats, by acknowledgement below and where every other
    seat is a bot of this process (`hosting`). A seat that joins commits as its host's
    table does, told either or not."""

    def shaper(self) -> Shaper | None:
        """What shapes this seat's links, if anything does (its jitter and losses drawn
        from the seed, when there is one)."""
        return Shaper(self.shape, random.Random(self.seed)) if self.shape else None


@dataclass(frozen=True, slots=True)
class HostConfig:
    """A table this process hosts, with ``bots`` local bots in turn at ``bot_levels``."""

    seat: SeatConfig
    spec: TableSpec
    port: int = 0
    bots: int = 0
    bot_levels: tuple[int, ...] = ()
    """Empty: the seat's level."""
    advertise: bool = True
    bind: str | None = None
    """The address to listen on (None: every address)."""

    @property
    def levels(self) -> tuple[int, ...]:
        return self.bot_levels or (self.seat.level,)


def hosting(seat: SeatConfig, seats: int, bots: int) -> SeatConfig:
    """The host's ``seat`` as its table of ``seats`` with ``bots`` bots of this process
    commits: told neither ``--majority`` nor ``--acks``, a table whose every other seat is
    such a bot (``play``; ``host --bots`` filling it) commits by acknowledgement, since
    none of its links leaves this machine to be slow, and a majority's signed votes cost
    its shared cores more (14 such seats of level 8 on 2 cores: p99 7.8 s by a majority,
    0.2 s by acknowledgement); any other as `net.Player.majority` says."""
    if seat.majority is None and bots >= seats - 1:
        return replace(seat, majority=False)
    return seat


@dataclass(frozen=True, slots=True)
class JoinConfig:
    """A seat to take at a table named, or at ``HOST:PORT`` (None: choose in the lobby)."""

    seat: SeatConfig
    table: str | None = None


def seat_from(args: argparse.Namespace, *, bot: bool = False) -> SeatConfig:
    """The seat's options (``cli._player_options``), read once; ``bot``: the bot command's."""
    name = args.player
    if bot and not name:  # a bot goes by its policy's name (cut to a name's length)
        name = default_name(policy_name(args.policy or level(args.level).policy), "Bot")
    return SeatConfig(
        name,
        level=args.level,
        seed=args.seed,
        headless=bot or args.headless,
        policy=args.policy if bot else None,
        interface=args.interface,
        stats=None if args.stats is None else Path(args.stats),
        state=None if args.state is None else Path(args.state),
        ascii=not bot and args.ascii,
        four_colour=not bot and args.four_colour,
        cheat=args.cheat if bot else None,
        idle=IDLE_AFTER if bot else args.idle,
        gone_after=args.gone_after,
        passphrase=passphrase_from(args),
        offered=getattr(args, "passphrase", None) is OFFERED,
        host_key=getattr(args, "host_key", None),
        shape=shape_from(args),
        log=log_from(args),
        watchers=not getattr(args, "no_watchers", False),
        majority=args.majority,
    )


def seed_from(args: argparse.Namespace) -> int:
    """``--seed``, or a fresh random one when it is not given."""
    return args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 32)


def log_from(args: argparse.Namespace) -> Path | None:
    """Where the game log goes: ``--log DIR``, the data directory's logs, or nowhere."""
    if args.no_log:
        return None
    if not args.log:
        return default_log_dir()  # made when the first log is written, or said it cannot
    directory = Path(args.log)
    try:  # asked for: a directory that cannot be had is an error before any table opens
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise LogDirError(f"cannot keep logs in {directory}: {exc.strerror or exc}") from None
    return directory


class LogDirError(Error):
    """``--log DIR`` names a directory that cannot be made."""

    context = "game log"


def shape_from(args: argparse.Namespace) -> Shape:
    """The links' shape from ``--delay``, ``--jitter``, ``--loss`` and ``--stall``."""
    return Shape(args.delay / 1000, args.jitter / 1000, args.loss, tuple(args.stall))


def _ask_passphrase() -> str:
    """The passphrase typed on the terminal without echo, or the first line of standard
    input when that is not a terminal (a password manager's pipe)."""
    try:
        if sys.stdin.isatty():
            return getpass.getpass("passphrase: ")
        line = sys.stdin.readline()
    except EOFError:
        line = ""
    if not line:
        raise UsageError("--ask-passphrase: no passphrase given")
    return line.rstrip("\r\n")


def passphrase_from(args: argparse.Namespace) -> str | None:
    """The passphrase the options give: as typed, from an environment variable, or asked
    for on the terminal without echo; None for a table that is not private."""
    if args.passphrase_env is not None:
        passphrase = os.environ.get(args.passphrase_env)
        if passphrase is None:
            raise UsageError(f"--passphrase-env: {args.passphrase_env} is not set")
    elif args.ask_passphrase:
        passphrase = _ask_passphrase()
    elif args.passphrase is OFFERED:
        passphrase = generated()
    else:
        passphrase = args.passphrase
    if passphrase is not None:
        try:
            passphrase_bytes(passphrase)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    return passphrase


def table_options_from(args: argparse.Namespace) -> TableOptions:
    """The table options (``cli._table_options``), read once."""
    return TableOptions(
        nerts_pile=args.nerts_pile,
        work_piles=args.work_piles,
        stock_turn=args.stock_turn,
        jokers=args.jokers,
        nerts_bonus=args.nerts_bonus,
        target=args.target,
        rounds=args.rounds,
        tie_rule=TieRule(args.tie_rule),
        teams=args.teams,
    )


def table_size(
    options: TableOptions, given: int | None, flag: str, *, besides: int = 0, default: int = 4
) -> int:
    """The number of seats: as ``flag`` gives it (``given``, counting every seat but
    ``besides``), or as the teams make up, or ``default``. Raises `BadOptions` (a one-line
    error, exit 2) when the teams seat another number."""
    if not options.teams:
        return default if given is None else given + besides
    seats, teams = sum(options.teams), options.teams_text()
    if seats > 14:
        raise BadOptions(f"teams {teams} seat {seats} players: 14 at most")
    if given is not None and given + besides != seats:
        raise BadOptions(
            f"teams {teams} seat {seats} players: that takes {flag} {seats - besides} "
            f"(or no {flag}), not {flag} {given}"
        )
    return seats
