"""What the network's peers and the simulator ask of a program that plays a seat.

A `Driver` is given a `Look` at the table now and then (its `Pace`) and answers with a
move. `p2pnerts.bots.BotDriver` is the one the commands, the arena and the tests hand in;
`net` and `sim` see only this interface, so neither imports the bots. It imports only
`rules`.
"""

from p2pnerts.driver._driver import (
    Driver,
    Drivers,
    Look,
    Pace,
)

__all__ = [
    "Driver",
    "Drivers",
    "Look",
    "Pace",
]
