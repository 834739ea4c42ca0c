"""The network layer: the only layer with sockets and timers.

Tables form in a lobby (`host_table`, `join_table`), then every seat's `TablePeer` keeps a
TCP connection to every other seat and drives its replica; every game and ordering
question is the replica's. Discovery: tables announce themselves over mDNS
(:func:`advertise`); :func:`browse` and :func:`find_tables` list them;
:func:`tables_command` is ``p2pnerts tables``.
"""

from p2pnerts.net._discovery import (
    SERVICE_TYPE,
    Advertiser,
    DiscoveryError,
    TableBrowser,
    TableInfo,
    advertise,
    browse,
    find_tables,
    tables_command,
)
from p2pnerts.net._lobby import (
    JoinError,
    Player,
    TableSpec,
    host_table,
    join_table,
    resume_table,
)
from p2pnerts.net._narration import Narrator, Told, move_words
from p2pnerts.net._peer import TablePeer
from p2pnerts.net._result import MatchResult
from p2pnerts.net._seatfile import SeatFile, SeatFileError
from p2pnerts.net._words import together

__all__ = [
    "SERVICE_TYPE",
    "Advertiser",
    "DiscoveryError",
    "JoinError",
    "MatchResult",
    "Narrator",
    "Player",
    "SeatFile",
    "SeatFileError",
    "TableBrowser",
    "TableInfo",
    "TablePeer",
    "TableSpec",
    "Told",
    "advertise",
    "browse",
    "find_tables",
    "host_table",
    "join_table",
    "move_words",
    "resume_table",
    "tables_command",
    "together",
]
