"""Bot policies: programs that choose a seat's next move from what that seat may see."""

from p2pnerts.bots._baseline import BaselineBot
from p2pnerts.bots._levels import (
    LEVELS,
    POLICIES,
    Level,
    PolicyError,
    Reaction,
    level,
    load_policy,
)
from p2pnerts.bots._policy import Policy
from p2pnerts.bots._simple import SimpleBot
from p2pnerts.bots._strong import StrongBot
from p2pnerts.bots._table import play_round
from p2pnerts.bots._teams import my_part, part_in_words

__all__ = [
    "LEVELS",
    "POLICIES",
    "BaselineBot",
    "Level",
    "Policy",
    "PolicyError",
    "Reaction",
    "SimpleBot",
    "StrongBot",
    "level",
    "load_policy",
    "my_part",
    "part_in_words",
    "play_round",
]
