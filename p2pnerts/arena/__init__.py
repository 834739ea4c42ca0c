"""The arena: bot policies against each other on simulated tables, measured.

`play_arena` seats the policies around simulated tables (`p2pnerts.sim`, no faults) and
plays the same deals once in every rotation of the seats, so that each policy meets each
deck from each seat: the luck of the deal cancels out of the comparison.

It imports `sim`, `bots`, `driver`, `fanout`, `protocol` and `rules`; nothing imports
it but the commands.
"""

from p2pnerts.arena._arena import play_arena
from p2pnerts.arena._ladder import LadderReport, Rating, ladder_entries, play_ladder
from p2pnerts.arena._report import ArenaError, ArenaReport, ArenaRound, PolicyFigures

__all__ = [
    "ArenaError",
    "ArenaReport",
    "ArenaRound",
    "LadderReport",
    "PolicyFigures",
    "Rating",
    "ladder_entries",
    "play_arena",
    "play_ladder",
]
