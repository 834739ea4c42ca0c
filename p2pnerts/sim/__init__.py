"""The deterministic network simulator: many replicas, one process, one seed."""

from p2pnerts.sim._sim import BotPace, LinkModel, Simulation

__all__ = ["BotPace", "LinkModel", "Simulation"]
