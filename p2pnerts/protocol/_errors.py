"""The protocol's exceptions, all under one base class."""


class ProtocolError(Exception):
    """Base class of every error the protocol layer raises."""


class RemoteProtocolError(ProtocolError):
    """A peer sent something the protocol forbids: drop that connection, nothing else."""


class LocalProtocolError(ProtocolError):
    """This peer asked for something the protocol forbids now (a bug, or a second hand)."""
