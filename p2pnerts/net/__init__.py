"""The network layer: the only layer with sockets and timers.

Tables form in a lobby (`host_table`, `join_table`), then every seat's `TablePeer` keeps a
TCP connection to every other seat and drives its replica; every game and ordering
question is the replica's. Discovery: tables announce themselves over mDNS
(:func:`advertise`); :func:`browse` and :func:`find_tables` list them. A table's record
(`TableInfo`, its TXT) is in `net._tables`, zeroconf's side in `net._zeroconf`.

It imports `rules`, `protocol`, `words`, `driver`, `logs` and `system`, never `sim`,
the screens or the bots (the commands hand a bot in through `driver`).
"""

from p2pnerts.net._admission import JoinError
from p2pnerts.net._advertise import Advertiser, advertise
from p2pnerts.net._browse import TableBrowser, browse, find_tables
from p2pnerts.net._handshake import Refused
from p2pnerts.net._known import KnownHosts, KnownHostsError
from p2pnerts.net._lobby import (
    Listening,
    TableSpec,
    host_table,
    join_table,
    resume_table,
)
from p2pnerts.net._narration import Narrator, Told
from p2pnerts.net._pace import COUNTDOWN, IDLE_AFTER, SHOWN_IDLE, Pacing
from p2pnerts.net._peer import TablePeer
from p2pnerts.net._result import MatchResult
from p2pnerts.net._seatfile import KeptSeats, SeatFile, SeatFileError
from p2pnerts.net._seating import Player
from p2pnerts.net._shaper import Shape, Shaper, Stall
from p2pnerts.net._spectating import SeenAt, Sight, WatchError, watch_table
from p2pnerts.net._spectators import MOST_SPECTATORS, NO_SPECTATORS
from p2pnerts.net._tables import (
    SERVICE_TYPE,
    DiscoveryError,
    TableInfo,
    TableState,
    instance_label,
    table_from_txt,
)
from p2pnerts.net._waits import GONE_AFTER
from p2pnerts.net._zeroconf import INTERFACES_ENV, describe_interfaces, interface_list

__all__ = [
    "COUNTDOWN",
    "GONE_AFTER",
    "IDLE_AFTER",
    "INTERFACES_ENV",
    "MOST_SPECTATORS",
    "NO_SPECTATORS",
    "SERVICE_TYPE",
    "SHOWN_IDLE",
    "Advertiser",
    "DiscoveryError",
    "JoinError",
    "KeptSeats",
    "KnownHosts",
    "KnownHostsError",
    "Listening",
    "MatchResult",
    "Narrator",
    "Pacing",
    "Player",
    "Refused",
    "SeatFile",
    "SeatFileError",
    "SeenAt",
    "Shape",
    "Shaper",
    "Sight",
    "Stall",
    "TableBrowser",
    "TableInfo",
    "TablePeer",
    "TableSpec",
    "TableState",
    "Told",
    "WatchError",
    "advertise",
    "browse",
    "describe_interfaces",
    "find_tables",
    "host_table",
    "instance_label",
    "interface_list",
    "join_table",
    "resume_table",
    "table_from_txt",
    "watch_table",
]
