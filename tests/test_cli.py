"""The ``p2pnerts`` command as a user meets it."""

from __future__ import annotations

import argparse
import gc
import io
import random
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from mnemonic import Mnemonic

from p2pnerts import __version__
from p2pnerts.cli import _ends, _parser, main
from p2pnerts.commands import _seats
from p2pnerts.commands._config import SeatConfig, hosting, passphrase_from, seat_from
from p2pnerts.commands._locate import address_of
from p2pnerts.commands._phrases import tell_passphrase, weakness
from p2pnerts.commands._seats import fit_out, run_headless
from p2pnerts.errors import UsageError
from p2pnerts.logs import SENT, read_log
from p2pnerts.net import GONE_AFTER, JoinError, Player
from p2pnerts.net._peer import MAJORITY_SAID
from p2pnerts.protocol import PROTOCOL_VERSION, Ready, decode


def exit_status(args: list[str]) -> int | str | None:
    """What ``p2pnerts ARGS`` exits with: argparse's errors exit, the commands' return."""
    try:
        return main(args)
    except SystemExit as exit_:
        return exit_.code


def test_play_runs_a_table_on_this_machine_to_the_winner(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["play", "--headless", "--bots", "2", "--seed", "3", "--rounds", "1", "--level", "10"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "3 players on this machine, bots of level 10 drawn from seed 3" in out
    assert "round 1 starts" in out and "round 1 over" in out
    assert " played " in out
    *_, told, last = out.rstrip().splitlines()
    assert last.startswith("match over after 1 round: You ")
    # The game log it wrote, told just before the summary: `replay` and `trace` read it.
    assert told.startswith("game log: ") and told.endswith(".p2plog")
    log = Path(told.removeprefix("game log: "))
    assert log.is_file() and log.parent.name == "logs"
    assert main(["replay", str(log), "--json"]) == 0  # every digest recomputed, and agreed
    # The bots beside the person log too, under the table's name, so `trace` draws the
    # whole table.
    table = read_log(log)[0]["table"]
    headers = {p: read_log(p)[0] for p in log.parent.glob("*.p2plog")}
    logs = sorted(
        (p for p, h in headers.items() if h["table"] == table), key=lambda p: headers[p]["seat"]
    )
    assert [p.name.split("-", 2)[2] for p in logs] == [
        f"this-machine-seat{k}.p2plog" for k in (1, 2, 3)
    ]
    capsys.readouterr()
    assert main(["trace", *map(str, logs)]) == 0
    assert "of 3 peers (s1-You, s2-Bot_2, s3-Bot_3)" in capsys.readouterr().out


@pytest.mark.parametrize("command", [["bot", "--join", "127.0.0.1:9"], ["join", "--headless"]])
def test_no_seed_fixes_a_seats_deal_secrets(command: list[str]) -> None:
    # The seed draws the bots' choices only: a seat whose deal secrets came from it could
    # be brute-forced against a round's public pledges, its deck known before its reveal.
    args = _parser().parse_args([*command, "--seed", "3"])
    seat = seat_from(args, bot=command[0] == "bot")
    assert seat.seed == 3 and not _seats._player(seat, random.Random(3)).seeded


def test_two_matches_started_with_one_seed_deal_different_decks(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Before version 3, a seed drew the deal secrets too: the same seed dealt the same
    # decks, which a spectator could find by trying seeds against the round's pledges.
    def dealt() -> tuple[tuple[int, ...], ...]:
        args = ["play", "--headless", "--bots", "1", "--seed", "3", "--rounds", "1"]
        assert main([*args, "--level", "10"]) == 0
        told = capsys.readouterr().out.rstrip().splitlines()[-2]
        _, records = read_log(Path(told.removeprefix("game log: ")))
        readies = [decode(r[3]) for r in records if r[0] == SENT]
        return tuple(tuple(m.face_up) for m in readies if isinstance(m, Ready) and m.round == 1)

    first, second = dealt(), dealt()
    assert first and second and first != second


def test_play_without_a_game_log_tells_none(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["play", "--headless", "--bots", "1", "--seed", "3", "--rounds", "1", "--level", "10"]
    assert main([*args, "--no-log"]) == 0
    out = capsys.readouterr().out
    assert "game log" not in out
    assert out.rstrip().splitlines()[-1].startswith("match over after 1 round: You ")


def test_play_with_teams_names_each_team_by_its_players(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["play", "--headless", "--teams", "2+1", "--seed", "3", "--rounds", "1", "--level", "10"]
    assert main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "3 players on this machine" in lines[0]
    assert "table 'this machine' open on port" in lines[2] and "teams=2+1" in lines[2]
    mate = next(line for line in lines if line.startswith("You are in team 1 of 2, with "))
    mate, part = mate.removeprefix("You are in team 1 of 2, with ").split(" — ")
    assert mate == "Bot 2"  # in seat 2, beside you in seat 1
    team = f"You & {mate}"
    assert part == "your part: the stock and the waste"  # the first of a team's seats
    assert any(line.startswith("You played ") for line in lines)
    over = next(line for line in lines if line.startswith("round 1 over"))
    assert f"): {team} " in over and over.count(",") == 1, over
    summary = lines[-1]
    assert summary.startswith(f"match over after 1 round: {team} ") and summary.count(",") == 1


def test_play_at_a_majoritys_table_says_so_where_it_opens_and_as_play_begins(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["play", "--headless", "--bots", "3", "--seed", "3", "--rounds", "1", "--level", "10"]
    assert main([*args, "--majority", "--no-log"]) == 0
    lines = capsys.readouterr().out.splitlines()
    # The line the host opens with is the rules it announces (`p2pnerts tables` lists them).
    assert lines[2].endswith(": 4 seats, rounds=1, commits by a majority"), lines[:3]
    assert MAJORITY_SAID in lines
    assert lines[-1].startswith("match over after 1 round: ")


def test_a_table_of_this_machines_bots_alone_commits_by_acknowledgement_unless_told() -> None:
    seat = SeatConfig("You")  # told neither --majority nor --acks
    assert seat.majority is None
    # play, and host --bots filling the table: no link leaves the machine.
    assert hosting(seat, 4, 3).majority is False and hosting(seat, 14, 13).majority is False
    # A seat left for another machine: as the table's size says (`net.Player.majority`).
    assert hosting(seat, 4, 2).majority is None and hosting(seat, 6, 0).majority is None
    for told in (True, False):
        assert hosting(replace(seat, majority=told), 4, 3).majority is told


def test_host_with_teams_and_no_seats_seats_the_teams() -> None:
    argv = [sys.executable, "-m", "p2pnerts", "host", "--name", "x", "--teams", "2+2"]
    host = subprocess.Popen(
        [*argv, "--headless", "--no-advertise"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert host.stdout is not None
        first = host.stdout.readline()
    finally:
        host.kill()
        host.communicate()
    assert "4 seats" in first and "teams=2+2" in first, first


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["play", "--bots", "0"], "must be 1 to 13, not 0"),
        (["play", "--bots", "many"], "not a whole number: 'many'"),
        (["play", "--rounds", "0"], "must be 1 to 1,000"),
        (["arena", "--rounds", "0"], "--rounds: must be 1 to 1,000,000, not 0"),
        (["play", "--idle", "1"], "--idle: must be"),
        (["host", "--name", "x", "--seats", "40"], "must be 2 to 14, not 40"),
        (["host", "--seats", "3"], "the following arguments are required: --name"),
        (["host", "--name", "x", "--stock-turn", "2"], "invalid choice: 2"),
        (
            ["host", "--name", "x", "--seats", "3", "--teams", "2+2"],
            "teams 2+2 seat 4 players: that takes --seats 4 (or no --seats), not --seats 3",
        ),
        (["play", "--bots", "2", "--teams", "2+2"], "that takes --bots 3 (or no --bots)"),
        (["play", "--teams", "3+3+3+3+3"], "teams 3+3+3+3+3 seat 15 players: 14 at most"),
        (["play", "--teams", "2+4"], "a team has 1 to 3 players, not 4"),
        (["bot"], "the following arguments are required: --join"),
        (["bot", "--join", "Den", "--gone-after", "5"], "must be 10 to 86,400, not 5"),
        (["sim", "--faults", "storm"], "'storm' is not one of"),
        (["sim", "--majority", "--peers", "3"], "--majority takes 4 peers or more (at 3 the"),
        (["host", "--name", " "], "--name: a table's name cannot be empty or blank"),
        (["host", "--name", "a\tb"], "--name: a table's name cannot hold control characters"),
        (["host", "--name", "x" * 201], "--name: a table's name is at most 200 bytes in UTF-8"),
        (["host", "--name", "x", "--player", "E" * 33], "at most 32 characters, not 33"),
        (["join", "--player", ""], "--player: a name cannot be empty or blank"),
        (["bot", "--join", "x", "--name", "E\x1b[31m"], "--name: a name cannot hold control"),
        (["watch", "x", "--name", "\x07"], "--name: a name cannot hold control characters"),
        (["join", "127.0.0.1:99999"], "HOST:PORT: the port must be 1 to 65,535, not 99,999"),
        (["bot", "--join", "10.0.0.1:0"], "--join: the port must be 1 to 65,535, not 0"),
        (["watch", "Den:70000", "--headless"], "the port must be 1 to 65,535, not 70,000"),
        (["join", "x" * 201], "a table's name is at most 200 bytes in UTF-8"),
        (["fly"], "invalid choice"),
    ],
)
def test_bad_arguments_give_a_one_line_error(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert exit_status(args) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_a_bot_that_cannot_reach_its_table_says_so_and_fails(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["bot", "--join", "127.0.0.1:1"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("p2pnerts: cannot join: cannot reach 127.0.0.1:1")
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("command", ["play", "host", "join", "bot", "tables", "sim"])
def test_every_command_has_help(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([command, "--help"])
    assert exit_.value.code == 0
    assert f"usage: p2pnerts {command}" in capsys.readouterr().out


@pytest.mark.parametrize("command", ["play", "host", "join", "bot"])
def test_the_help_of_a_command_that_keeps_logs_says_where(
    command: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # docs/classroom.md sends a teacher to `play --help` for where the logs are.
    monkeypatch.setenv("P2PNERTS_DATA_DIR", str(tmp_path))
    with pytest.raises(SystemExit):
        main([command, "--help"])
    assert str(tmp_path / "logs") in "".join(capsys.readouterr().out.split())  # (wrapped)


@pytest.mark.parametrize(
    ("command", "verb"), [("join", "join"), ("bot", "join"), ("watch", "watch")]
)
def test_the_host_key_option_says_what_the_command_does_only_for_that_key(
    command: str, verb: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert f"--host-key XXXX:XXXX:XXXX {verb} only if the host proves this key" in said


@pytest.mark.parametrize(
    ("args", "usage"),
    [
        (["play", "--bogus"], "usage: p2pnerts play [options]"),
        (["join", "a", "b"], "usage: p2pnerts join [options] [NAME|HOST:PORT]"),
        (["sim", "--peers", "99"], "usage: p2pnerts sim [options]"),
        (["bot"], "usage: p2pnerts bot [options]"),
        (["bogus"], "usage: p2pnerts [options] COMMAND"),
    ],
)
def test_a_bad_argument_is_told_first_in_one_line_then_the_commands_short_usage(
    args: list[str], usage: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert exit_status(args) == 2
    first, second, *rest = capsys.readouterr().err.splitlines()
    command = " ".join(["p2pnerts", *args[:1]]) if args != ["bogus"] else "p2pnerts"
    assert first.startswith(f"{command}: error: ")
    assert second.startswith(usage) and second.endswith(f"(every option: {command} --help)")
    assert rest == []


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["play", "--levle", "3"], "--levle (did you mean --level?) 3"),
        (["play", "--seeed=4"], "--seeed=4 (did you mean --seed?)"),
        (["play", "--bogus"], "--bogus"),  # nothing close: no guess
        (["join", "--name", "Ann"], "--name (a table's name goes without an option; the player"),
        (["bot", "--join", "t", "--player", "Cy"], "--player (a bot's name is --name) Cy"),
    ],
)
def test_an_unknown_option_is_told_with_the_one_meant_where_that_is_plain(
    args: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert exit_status(args) == 2
    first = capsys.readouterr().err.splitlines()[0]
    assert first.startswith(f"p2pnerts {args[0]}: error: unrecognized arguments: {said}")
    assert first.count("(") == said.count("(")


def test_version_names_the_package_and_the_protocol(capsys: pytest.CaptureFixture[str]) -> None:
    assert exit_status(["--version"]) == 0
    assert (
        capsys.readouterr().out.strip() == f"p2pnerts {__version__} (protocol {PROTOCOL_VERSION})"
    )


def test_a_person_is_named_by_their_login_unless_they_say_otherwise(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LOGNAME", "ann")
    args = ["host", "--name", "x", "--headless", "--no-advertise", "--seats", "2", "--bots", "1"]
    args += ["--level", "10"]  # the bots as fast as the table allows: the names are the point
    assert main([*args, "--rounds", "1"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("match over after 1 round: ann ")
    assert main([*args, "--rounds", "1", "--player", "Bea"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("match over after 1 round: Bea ")


@pytest.mark.parametrize(
    ("login", "named"),
    [("a" * 40, "a" * 32), ("  ann  ", "ann"), ("ann\x1b[2J", "Player")],
)
def test_a_login_that_is_no_name_for_the_table_gives_one_that_is(
    login: str, named: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Sent as it was, a login name over 32 characters made a table nobody could join (each
    # joiner refused the host's Hello) and a control character reached others' terminals.
    monkeypatch.setenv("LOGNAME", login)
    monkeypatch.setenv("USER", login)
    assert _parser().parse_args(["host", "--name", "x"]).player == named
    assert _parser().parse_args(["join"]).player == named


def test_a_bot_named_by_a_long_policy_class_goes_by_a_name_the_table_takes() -> None:
    spec = "my_bots.py:" + "Patient" * 6
    args = _parser().parse_args(["bot", "--join", "x", "--policy", spec])
    assert seat_from(args, bot=True).name == ("Patient" * 6)[:32]


def test_join_headless_needs_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["join", "--headless"]) == 2
    assert "--headless needs a table" in capsys.readouterr().err


@pytest.mark.parametrize(
    "args", [["play"], ["join"], ["join", "Kitchen"], ["host", "--name", "x", "--no-advertise"]]
)
def test_the_table_screen_without_a_terminal_is_a_one_line_error(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    # Under pytest neither standard input nor output is a terminal.
    assert exit_status(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("p2pnerts: error: the table screen needs a terminal (with --headless")
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("args", [["watch", "127.0.0.1:9"], ["watch", "Den", "--ask-passphrase"]])
def test_the_watch_screen_without_a_terminal_is_a_one_line_error(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    # It failed inside prompt_toolkit with a traceback, after asking for the passphrase.
    assert exit_status(args) == 2
    err = capsys.readouterr().err
    needs = "the watch screen needs a terminal (--headless prints a line per commit and race)"
    assert err == f"p2pnerts: error: {needs}\n"


def test_an_error_inside_tasks_is_one_line_too(capsys: pytest.CaptureFixture[str]) -> None:
    group = BaseExceptionGroup("tasks", [ExceptionGroup("inner", [JoinError("no seat left")])])
    assert _ends(group) == 1
    assert capsys.readouterr().err == "p2pnerts: cannot join: no seat left\n"
    assert _ends(ExceptionGroup("tasks", [JoinError("x"), ValueError("a bug")])) is None


def _passphrase_args(*given: str) -> argparse.Namespace:
    args, _ = _parser().parse_known_args(["bot", "--join", "Den", *given])
    return args


def test_the_passphrase_comes_from_the_option_the_environment_or_standard_input(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert passphrase_from(_passphrase_args()) is None
    assert passphrase_from(_passphrase_args("--passphrase", "open sesame")) == "open sesame"
    monkeypatch.setenv("DEN_SECRET", "from the environment")
    assert passphrase_from(_passphrase_args("--passphrase-env", "DEN_SECRET")) == (
        "from the environment"
    )
    monkeypatch.setattr("sys.stdin", io.StringIO("from a pipe\nnot this\n"))
    assert passphrase_from(_passphrase_args("--ask-passphrase")) == "from a pipe"


@pytest.mark.parametrize(
    ("given", "complaint"),
    [
        (["--passphrase-env", "P2PNERTS_TEST_UNSET"], "P2PNERTS_TEST_UNSET is not set"),
        (["--passphrase", ""], "a passphrase is 1 to 1024 bytes"),
        (["--ask-passphrase"], "no passphrase given"),
    ],
)
def test_a_passphrase_that_cannot_be_had_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, given: list[str], complaint: str
) -> None:
    monkeypatch.delenv("P2PNERTS_TEST_UNSET", raising=False)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    with pytest.raises(UsageError, match=complaint):
        passphrase_from(_passphrase_args(*given))


def test_host_passphrase_with_no_words_makes_up_three_and_shows_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args, _ = _parser().parse_known_args(["host", "--name", "Den", "--passphrase", "--seed", "1"])
    made = [seat_from(args) for _ in range(2)]
    words = made[0].passphrase.split("-") if made[0].passphrase else []
    assert len(words) == 3 and all(w in Mnemonic("english").wordlist for w in words)
    assert made[0].offered and made[0].passphrase != made[1].passphrase  # no seed fixes it
    tell_passphrase(made[0].passphrase or "", offered=True)
    assert capsys.readouterr().out.startswith(f"This table's passphrase: {made[0].passphrase} ")
    args, _ = _parser().parse_known_args(["host", "--name", "Den", "--passphrase", "kitchen"])
    assert seat_from(args).passphrase == "kitchen" and not seat_from(args).offered
    # A joiner's --passphrase still takes words only.
    with pytest.raises(SystemExit):
        _parser().parse_args(["join", "Den", "--passphrase"])


@pytest.mark.parametrize(
    ("passphrase", "why"),
    [
        ("kitchen", "one word, 7 characters"),
        ("Tr0ub4dor&3", "2 words, 11 characters"),
        ("open sesame", "2 words, 11 characters"),
        ("correct horse battery staple", None),
        ("correcthorsebatterystaple", None),
        ("lemon-orbit-seven", None),
    ],
)
def test_a_host_is_warned_of_a_weak_passphrase_of_its_own(
    capsys: pytest.CaptureFixture[str], passphrase: str, why: str | None
) -> None:
    assert weakness(passphrase) == why
    tell_passphrase(passphrase, offered=False)
    err = capsys.readouterr().err
    assert (err == "") == (why is None)
    assert passphrase not in err  # (the warning never prints the passphrase)
    if why is not None:
        assert err.startswith(f"p2pnerts: warning: the passphrase is weak ({why}): ")


def test_the_commands_without_a_screen_start_without_the_screens_library() -> None:
    # A bot, a headless seat, the simulator and the arena need no prompt_toolkit: the
    # command line loads it only for a command that shows a screen (each bot process of
    # a table starts that much sooner). In a fresh interpreter, as a command starts.
    probe = (
        "import sys, p2pnerts.cli\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'prompt_toolkit'"
        " or m.startswith(('p2pnerts.ui', 'p2pnerts.commands._screen', 'p2pnerts.lab._desk'))))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    # ... and the lab's names load its screen when asked for.
    asked = "import sys, p2pnerts.lab as lab; lab.Desk; print('prompt_toolkit' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", asked], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"


def test_gone_after_is_the_seats_and_reaches_its_player_whoever_plays_it() -> None:
    # `--gone-after S`: when the seat counts the table gone (`net._waits.forsaken`); a
    # bot ends its match then, a person is offered the end.
    args = _parser().parse_args(["bot", "--join", "127.0.0.1:1", "--gone-after", "30"])
    seat = seat_from(args, bot=True)
    assert seat.gone_after == 30
    assert _seats._player(seat, random.Random(1)).gone_after == 30
    person = Player("Ann", random.Random(1), None, print)
    assert fit_out(person, seat).gone_after == 30 and person.driver is None
    default = seat_from(_parser().parse_args(["join", "Den"]))
    assert default.gone_after == GONE_AFTER


def test_a_table_is_found_at_host_port_or_by_its_name() -> None:
    assert address_of("192.168.1.5:4000") == ("192.168.1.5", 4000)
    assert address_of("[fe80::1]:4000") == ("fe80::1", 4000)  # (an IPv6 address, bracketed)
    assert address_of("den.local:4000") == ("den.local", 4000)
    for name in ("Den", "Den:", ":4000", "Den:four", "Kitchen table"):
        assert address_of(name) is None, name


async def _frozen() -> int:
    return gc.get_freeze_count()


def test_a_headless_run_puts_what_the_process_made_at_start_out_of_the_collectors_way() -> None:
    # Full collections walking every module's objects were an 8-seat table's slowest
    # commits (tools/bench.py net); the table screen freezes them too (ui._app).
    gc.unfreeze()
    try:
        assert run_headless(_frozen) > 10_000
    finally:
        gc.unfreeze()
