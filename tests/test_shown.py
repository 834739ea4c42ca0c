"""Text from outside is shown as text: a fake host's reason, carrying terminal controls,
reaches a joining bot's standard error escaped, never as controls."""

from __future__ import annotations

import subprocess
import sys

import pytest
import trio

from p2pnerts.cli import _ends
from p2pnerts.net import JoinError
from p2pnerts.protocol import Refuse, encode
from p2pnerts.words import shown

HOSTILE = "go away\x1b]0;pwned\x07\x1b[2J\x9b31m\u202e"


def test_controls_are_escaped_and_everything_else_kept() -> None:
    assert shown(HOSTILE) == "go away\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\u202e"
    assert shown("Zoë ♥ 7\nnext") == "Zoë ♥ 7\nnext"


def test_an_error_carrying_a_peers_words_is_printed_escaped(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _ends(JoinError(f"refused: {HOSTILE}")) == JoinError.status
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\x07" not in err and "\\x1b]0;pwned" in err


async def test_a_fake_hosts_refusal_reaches_a_bots_terminal_as_text() -> None:
    async def fake_host(stream: trio.SocketStream) -> None:
        await stream.receive_some(4096)  # the bot's Hello, whatever it says
        await stream.send_all(encode(Refuse(HOSTILE)))
        await trio.sleep(1)

    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            listeners = await nursery.start(trio.serve_tcp, fake_host, 0)
            port = listeners[0].socket.getsockname()[1]
            bot = [sys.executable, "-m", "p2pnerts", "bot", "--join", f"127.0.0.1:{port}"]
            done = await trio.run_process(
                bot, capture_stdout=True, capture_stderr=True, check=False, stdin=subprocess.DEVNULL
            )
            nursery.cancel_scope.cancel()
    err = done.stderr.decode()
    assert done.returncode != 0 and "go away" in err, err
    assert not any(c in err for c in "\x1b\x07\x9b\u202e"), err
