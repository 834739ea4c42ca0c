"""The rules engine's exceptions, all under one base class."""

from p2pnerts.errors import UsageError


class RulesError(UsageError):
    """Base class of every error the rules engine raises."""


class IllegalMove(RulesError):
    """A move the rules forbid in this state; the message says exactly why."""


class BadOptions(RulesError, ValueError):
    """Table options or seating that no table can be dealt with."""
