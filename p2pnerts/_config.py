"""What a network command was asked to do, as frozen values: the command line is read once,
in `p2pnerts.cli`, and these travel from there (never an ``argparse.Namespace``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from p2pnerts.net import TableSpec


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


@dataclass(frozen=True, slots=True)
class JoinConfig:
    """A seat to take at a table named, or at ``HOST:PORT`` (None: choose in the lobby)."""

    seat: SeatConfig
    table: str | None = None
