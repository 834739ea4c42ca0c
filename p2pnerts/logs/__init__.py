"""Game logs: writing one peer's log as it plays, reading it back, replaying a match from
it, and merging a match's logs into one causal history.

- `GameLog` writes a peer's log (protocol/LOG.md): every frame sent and received with its
  local time and every commit with the running digest; `LogReader` reads one back a record
  at a time, a torn tail dropped, and refuses one that holds what no log holds
  (`LogError`); `read_log` and `load_log` read one whole; `prune` keeps the newest.
- `replay` steps through a recorded match commit by commit, checking each digest again
  (`p2pnerts replay`, the replay screen).
- `trace` merges a match's logs into vector-clocked events; a part of them (a window, the
  Acks left out) is drawn for ShiViz or Mermaid, the whole is written as JSON
  (`p2pnerts trace`).

It imports `rules`, `protocol` and `words`, never `net` or `sim`: both write logs through
it.
"""

from p2pnerts.logs._format import (
    COMMIT,
    LARGEST,
    LOGS_KEPT,
    MAGIC,
    RECEIVED,
    SENT,
    SUFFIX,
    GameLog,
    LogError,
    LogRead,
    LogReader,
    load_log,
    prune,
    read_log,
)
from p2pnerts.logs._replay import Replay, ReplayError, replay
from p2pnerts.logs._trace import SHIVIZ_REGEX, Trace, TraceError, commit_gist, trace
from p2pnerts.logs._trace import Event as TraceEvent

__all__ = [
    "COMMIT",
    "LARGEST",
    "LOGS_KEPT",
    "MAGIC",
    "RECEIVED",
    "SENT",
    "SHIVIZ_REGEX",
    "SUFFIX",
    "GameLog",
    "LogError",
    "LogRead",
    "LogReader",
    "Replay",
    "ReplayError",
    "Trace",
    "TraceError",
    "TraceEvent",
    "commit_gist",
    "load_log",
    "prune",
    "read_log",
    "replay",
    "trace",
]
