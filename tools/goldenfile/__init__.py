"""The parts of protocol/golden.json, which python tools/golden.py [--check] writes or checks.

`values` holds the fixed values every part is built from (secrets, keys, the table, the
handshake); `frames` the protocol's frames, `links` the link's and a spectator's,
`invalid` the frames every peer refuses, `vectors` the test vectors, and `meaning` how
each frame's fields are written readably beside its bytes.
"""
