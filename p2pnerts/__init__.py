"""p2pnerts: Nerts, the real-time card game, peer to peer on a local network with no server.

The package is built in floors, each importing only from those below it
(tests/test_layers.py): `system` and `errors`; `rules` and `fanout`; `protocol`, `words`
and `driver`; `cheats` and `logs`; `net`, `sim` and `bots` side by side; `ui` and
`arena`; `lab`; the `commands`; and `cli`, the ``p2pnerts`` command, on top.
"""

__version__ = "0.1.0"
