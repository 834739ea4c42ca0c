"""The terminal front end: prompt_toolkit on asyncio, with the network (trio) as a guest.

The model (`TableModel`) holds what the table screen shows and what the keys do;
`render` draws it for a screen size; `create_key_bindings` makes the keys from it;
`LobbyModel` is the lobby's model; `create_application` puts them together (its input
and output can be replaced, for tests); `Session` connects a seat's peer to the models;
`play_in_terminal` plays a seat in this terminal; `ReplayModel` and `replay_in_terminal`
step through a match replayed from its log (`p2pnerts.logs`); `WatchModel` and
`create_watch_application` are a spectator's screen (`p2pnerts watch`). `Row`, `fit`,
`rule`, `STYLE` and `seat_style` draw the screens (the lab's too). The key map is
`KEYMAP` (and ``ui/KEYS.md``). Every screen is left the same way (`Leave`, `with_leave`:
Ctrl-C asks, a second Ctrl-C or y leaves) and runs through `run_screen`, which drops the
keys typed as it closed, so that none reaches the shell.

It imports `net`, `logs`, `words`, `protocol`, `rules` and `system`; the lab and the
commands import it.
"""

from p2pnerts.ui._app import BoardControl, create_application, run_screen, run_with_trio
from p2pnerts.ui._frame import Frame, Row, fit, rule
from p2pnerts.ui._keymap import KEYMAP, unknown_key
from p2pnerts.ui._keys import create_key_bindings
from p2pnerts.ui._leave import Leave, with_leave
from p2pnerts.ui._lobby import LobbyModel, teams_of
from p2pnerts.ui._model import TableModel
from p2pnerts.ui._render import render
from p2pnerts.ui._replay import (
    REPLAY_KEYS,
    ReplayModel,
    render_replay,
    replay_application,
    replay_in_terminal,
)
from p2pnerts.ui._session import Session, snapshot
from p2pnerts.ui._snapshot import Hit, Liveness, Look, Selection, Snapshot
from p2pnerts.ui._style import STYLE, seat_style
from p2pnerts.ui._terminal import NoTerminal, Start, default_look, need_terminal, play_in_terminal
from p2pnerts.ui._watchmodel import Commit, WatchModel, commit_line
from p2pnerts.ui._watchview import create_watch_application

__all__ = [
    "KEYMAP",
    "REPLAY_KEYS",
    "STYLE",
    "BoardControl",
    "Commit",
    "Frame",
    "Hit",
    "Leave",
    "Liveness",
    "LobbyModel",
    "Look",
    "NoTerminal",
    "ReplayModel",
    "Row",
    "Selection",
    "Session",
    "Snapshot",
    "Start",
    "TableModel",
    "WatchModel",
    "commit_line",
    "create_application",
    "create_key_bindings",
    "create_watch_application",
    "default_look",
    "fit",
    "need_terminal",
    "play_in_terminal",
    "render",
    "render_replay",
    "replay_application",
    "replay_in_terminal",
    "rule",
    "run_screen",
    "run_with_trio",
    "seat_style",
    "snapshot",
    "teams_of",
    "unknown_key",
    "with_leave",
]
