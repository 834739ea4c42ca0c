"""Seats that lie on the wire, for demonstrations and tests: ``p2pnerts bot --cheat KIND``.

A `Cheat` plays with a real replica, honestly, and lies only in what it sends, as one of
the attacks in `CHEATS`, each of which the protocol detects (protocol/SECURITY.md). The
network's seat runs it when asked (`net`); the protocol's tests drive it directly. It
imports `rules` and `protocol` only.
"""

from p2pnerts.cheats._cheats import (
    CHEATS,
    DEAL_CHEATS,
    FRAME_CHEATS,
    LINK_CHEATS,
    Cheat,
    stacked,
)

__all__ = [
    "CHEATS",
    "DEAL_CHEATS",
    "FRAME_CHEATS",
    "LINK_CHEATS",
    "Cheat",
    "stacked",
]
