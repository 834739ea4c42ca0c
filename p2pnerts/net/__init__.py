"""The network layer: the only layer with sockets and timers.

Tables form in a lobby (`host_table`, `join_table`), then every seat's `TablePeer` keeps a
TCP connection to every other seat and drives its replica; every game and ordering
question is the replica's.
"""

from p2pnerts.net._lobby import JoinError, Player, TableSpec, host_table, join_table
from p2pnerts.net._peer import MatchResult, Pace, TablePeer

__all__ = [
    "JoinError",
    "MatchResult",
    "Pace",
    "Player",
    "TablePeer",
    "TableSpec",
    "host_table",
    "join_table",
]
