"""Bot policies: programs that choose a seat's next move from what that seat may see.

A `BotDriver` plays a policy at a seat, at a pace and kept to the seat's part of a team's
tableau: the network's peers and the simulator take one from whoever seats the bot.

It imports `rules`, `driver` and `errors` only: a bot sees what a seat's `Look` shows,
and neither the network nor the simulator.
"""

from p2pnerts.bots._baseline import BaselineBot
from p2pnerts.bots._driver import BotDriver, SimpleBots
from p2pnerts.bots._expert import ExpertBot
from p2pnerts.bots._guard import Guarded, refusal, refused
from p2pnerts.bots._levels import (
    LEVELS,
    NEWCOMER,
    POLICIES,
    Level,
    PolicyError,
    Reaction,
    level,
    level_help,
    level_named,
    load_policy,
    paced,
    policy_name,
)
from p2pnerts.bots._policy import Policy, Sight
from p2pnerts.bots._priority import PriorityBot
from p2pnerts.bots._simple import SimpleBot
from p2pnerts.bots._strong import StrongBot
from p2pnerts.bots._table import play_round

__all__ = [
    "LEVELS",
    "NEWCOMER",
    "POLICIES",
    "BaselineBot",
    "BotDriver",
    "ExpertBot",
    "Guarded",
    "Level",
    "Policy",
    "PolicyError",
    "PriorityBot",
    "Reaction",
    "Sight",
    "SimpleBot",
    "SimpleBots",
    "StrongBot",
    "level",
    "level_help",
    "level_named",
    "load_policy",
    "paced",
    "play_round",
    "policy_name",
    "refusal",
    "refused",
]
