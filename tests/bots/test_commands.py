"""``p2pnerts arena``, and an author's policy playing as a peer at a real table."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from p2pnerts.cli import main
from p2pnerts.commands import _seats
from p2pnerts.net import Player

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "eager.py"
COMMAND = [sys.executable, "-m", "p2pnerts"]
LIMIT = 180


def _arena_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[dict[str, object], str]:
    assert main(["arena", "--rounds", "4", "--json", *args]) == 0
    out, err = capsys.readouterr()
    return json.loads(out), err


def test_arena_prints_json_with_its_progress_on_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # (One run: that a seed repeats its results is tests/arena/test_arena.py's to show.)
    first, err = _arena_json(capsys, "--seed", "9", "--policies", "baseline,strong")
    assert first["seats"] == ["baseline", "strong", "baseline", "strong"]
    assert "4/4 rounds" in err and "[####" in err
    results = first["results"]
    assert isinstance(results, list)
    assert [r["policy"] for r in results] == ["baseline", "strong"]


def test_arena_fast_prints_json_with_its_progress_on_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    data, err = _arena_json(capsys, "--fast", "--seed", "9", "--jobs", "1")
    assert data["fast"] is True and data["rounds"] == 4
    assert "4/4 rounds" in err and "[####" in err
    assert main(["arena", "--fast", "--rounds", "2", "--seed", "1", "--jobs", "1"]) == 0
    assert "on the rules alone (--fast)" in capsys.readouterr().out


def test_arena_prints_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", "--rounds", "6", "--players", "3", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("6 rounds at 3 players (baseline, strong, baseline), seed 1")
    assert re.search(r"^strong +-?\d+\.\d\d ± \d+\.\d\d +[+-]\d+\.\d\d ± \d", out, re.M)
    # One deal (its three rotations) gives no interval: the rounds of a deal are paired.
    assert main(["arena", "--rounds", "3", "--players", "3", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^strong +-?\d+\.\d\d ± inf +[+-]\d+\.\d\d ± inf", out, re.M)


@pytest.mark.parametrize(
    ("policies", "message"),
    [
        ("baseline,nobody", "is neither a policy"),
        ("a,b,c,d,e", "cannot share 4 seats"),
        ("strong,baseline,strong", "strong named twice"),
    ],
)
def test_arena_refuses_what_it_cannot_run(
    policies: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["arena", "--policies", policies, "--rounds", "1"]) == 2
    assert message in capsys.readouterr().err


def test_arena_seats_teams(capsys: pytest.CaptureFixture[str]) -> None:
    data, _ = _arena_json(capsys, "--seed", "3", "--teams", "2+1", "--policies", "strong,simple")
    assert data["seats"] == ["strong", "strong", "simple"] and data["teams"] == "2+1"
    assert main(["arena", "--teams", "2+2", "--players", "3", "--rounds", "1"]) == 2
    assert "teams 2+2 seat 4 players" in capsys.readouterr().err


def test_arena_ladder_refuses_teams_and_says_so_in_its_help(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["arena", "--ladder", "--teams", "2+2", "--rounds", "1"]) == 2
    assert "the ladder seats no teams" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["arena", "--help"])
    assert "--ladder" in capsys.readouterr().out


def test_arena_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["arena", "--help"])
    assert exit_.value.code == 0
    assert "usage: p2pnerts arena" in capsys.readouterr().out


def _host_and_bot(policy: str, rounds: int = 1) -> tuple[subprocess.CompletedProcess[str], str]:
    """A host process and a bot process playing ``policy`` (named Eager), over loopback:
    the bot's run, and what the host printed."""
    host = subprocess.Popen(
        [*COMMAND, "host", "--name", "guide", "--headless", "--no-advertise"]
        + ["--seats", "2", "--rounds", str(rounds), "--level", "10", "--seed", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert host.stdout is not None
        first = host.stdout.readline()
        match = re.search(r"open on port (\d+)", first)
        assert match, first
        bot = subprocess.run(
            [*COMMAND, "bot", "--join", f"127.0.0.1:{match.group(1)}", "--name", "Eager"]
            + ["--level", "9", "--policy", policy],
            capture_output=True,
            text=True,
            timeout=LIMIT,
        )
        host_out = host.stdout.read()
        host.wait(timeout=LIMIT)
    finally:
        if host.poll() is None:
            host.kill()
        host.wait()
        if host.stdout is not None:
            host.stdout.close()
    return bot, host_out


def test_the_guides_example_policy_plays_a_match_as_a_peer() -> None:
    bot, host_out = _host_and_bot(f"{EXAMPLE}:Eager")
    assert bot.returncode == 0, bot.stdout + bot.stderr
    # It says how often it looks (at its --level's pace), where nothing said it.
    assert (
        f"Eager has seat 2 of 2: {EXAMPLE}:Eager at level 9's pace, a look every 100 ms on "
        "average (--level 1-10 sets another)"
    ) in bot.stdout.splitlines()
    summary = [line for line in bot.stdout.splitlines() if line.startswith("match over")]
    assert summary and "Eager" in summary[0]
    assert summary[0] in host_out


RAISES = """
from p2pnerts.bots import SimpleBot

class Fails:
    def __init__(self, rng):
        self.inner, self.looks = SimpleBot(rng), 0

    def choose(self, view, seat):
        self.looks += 1
        if self.looks > 5:
            raise ZeroDivisionError("the author's bug")
        return self.inner.choose(view, seat)
"""


def test_a_policy_that_raises_is_told_once_and_its_seat_plays_the_match_out_stuck(
    tmp_path: Path,
) -> None:
    (tmp_path / "fails.py").write_text(RAISES, encoding="utf-8")
    bot, host_out = _host_and_bot(f"{tmp_path / 'fails.py'}:Fails", rounds=2)
    assert bot.returncode == 1, bot.stdout + bot.stderr  # the match ran, not as asked
    assert bot.stderr.count("Traceback (most recent call last)") == 1
    assert 'raise ZeroDivisionError("the author\'s bug")' in bot.stderr
    assert bot.stderr.rstrip().endswith(
        "Eager's policy raised ZeroDivisionError: it plays no more, and the seat plays on as stuck"
    )
    assert "ExceptionGroup" not in bot.stderr
    # Both peers played both rounds to the end and agree on the result.
    summary = [line for line in bot.stdout.splitlines() if line.startswith("match over")]
    assert summary and summary[0].startswith("match over after 2 rounds: ")
    assert summary[0] in host_out


def test_the_guide_shows_the_example_policy_as_it_is_in_examples() -> None:
    readme = (EXAMPLE.parents[1] / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    assert len(blocks) == 1
    assert "class Eager" in blocks[0]
    assert blocks[0] in EXAMPLE.read_text(encoding="utf-8")


def test_a_host_seats_local_bots_of_the_levels_asked_for(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    made: list[tuple[str, int]] = []
    real = _seats.bot_player

    def recording(name: str, number: int, *args: Any, **kwargs: Any) -> Player:
        made.append((name, number))
        return real(name, number, *args, **kwargs)

    monkeypatch.setattr(_seats, "bot_player", recording)
    args = ["host", "--name", "levels", "--headless", "--no-advertise", "--seats", "4"]
    args += ["--bots", "3", "--bot-level", "3,10", "--level", "9", "--rounds", "1"]
    args += ["--nerts-pile", "4"]  # a short round: with 13 cards it took up to 110 s
    assert main(args) == 0
    assert sorted(made) == [("Bot 2", 3), ("Bot 3", 10), ("Bot 4", 3), ("Player", 9)]
    # Seated one after another: each bot in the seat its name says, in every run.
    summary = capsys.readouterr().out.rstrip().splitlines()[-1]
    assert re.match(
        r"match over after 1 round: Player -?\d+, Bot 2 -?\d+, Bot 3 -?\d+, Bot 4 ", summary
    )
