"""Bot policies: programs that choose a seat's next move from what that seat may see."""

from p2pnerts.bots._policy import Policy
from p2pnerts.bots._simple import SimpleBot
from p2pnerts.bots._table import play_round

__all__ = ["Policy", "SimpleBot", "play_round"]
