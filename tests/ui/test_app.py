"""The table screen's application with trio as its guest: whichever of the two ends first,
the run ends cleanly with what the network side returned."""

from __future__ import annotations

import trio
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2pnerts.rules import TableOptions
from p2pnerts.ui import TableModel, create_application, run_with_trio


def test_a_screen_closed_as_the_match_ends_returns_the_result_without_a_traceback() -> None:
    # A person pressing q as "Match over" shows: the screen closed while the network side
    # was returning, and the farewell it asked for found the run ending and took it down
    # ("Nursery is closed to new arrivals", then TrioInternalError).
    said_goodbye: list[bool] = []
    with create_pipe_input() as pipe:
        model = TableModel(0, ("You", "Bea"), TableOptions(), send=lambda _move: None)
        app = create_application(model, input=pipe, output=DummyOutput())

        async def main() -> str:
            pipe.send_text("qy")
            while not app.is_done:  # the screen is closing: the match ends now
                await trio.lowlevel.checkpoint()
            return "match over"

        async def farewell() -> None:
            said_goodbye.append(True)

        assert run_with_trio(app, main, farewell) == "match over"
    assert not said_goodbye, "the match was over: nobody to say goodbye to"
