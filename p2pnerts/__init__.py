"""p2pnerts: Nerts, the real-time card game, peer to peer on a local network with no server."""

__version__ = "0.1.0"
