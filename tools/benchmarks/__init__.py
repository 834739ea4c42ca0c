"""The benchmarks that python tools/bench.py KIND [--json] runs, a module per kind.

`rules` times `apply` and `legal_moves`, `sim` the simulator and the protocol's cost per
play, `net` peer processes on loopback, `ui` the table screen, `bots` the policies'
decisions and the arena (`fast` too), `sign` a message's signature. What they share (the
repository's root, recorded playouts, the JSON report and the history) is in `common`;
`tools/bench.py` parses the command line and runs one.
"""
