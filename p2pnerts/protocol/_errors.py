"""The protocol's exceptions, all under one base class."""

from p2pnerts.errors import Error


class ProtocolError(Exception):
    """Base class of every error the protocol layer raises."""


class RemoteProtocolError(ProtocolError):
    """A peer sent something the protocol forbids: drop that connection, nothing else."""


class LocalProtocolError(ProtocolError):
    """This peer asked for something the protocol forbids now (a bug, or a second hand)."""


class KeptStateError(ProtocolError, Error):
    """What this seat kept to come back (its `Disk`, from a state file) is not what the
    table says it dealt: another table's, an edited or an older run's. The seat cannot
    play on from it; the command stops with this one line."""

    context = "state file"
