"""``p2pnerts sim`` as a user meets it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from p2pnerts.cli import main
from p2pnerts.sim import MIXES


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    status = main(["sim", *args, "--json"])
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    return status, report


def test_help_names_every_fault_mix(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["sim", "--help"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    assert all(f"  {name} " in out for name in MIXES)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--peers", "1"], "argument --peers: must be 2 to 14, not 1"),
        (["--peers", "15"], "argument --peers: must be 2 to 14, not 15"),
        (["--faults", "storm"], "argument --faults: 'storm' is not one of none, light,"),
        (["--tie-rule", "coin"], "argument --tie-rule: 'coin' is not one of both-stay"),
        (["--rounds", "0"], "argument --rounds: must be 1 to 1,000, not 0"),
        (["--teams", "2+4"], "argument --teams: a team has 1 to 3 players, not 4"),
        (["--teams", "2"], "argument --teams: "),
    ],
)
def test_bad_arguments_get_one_line_then_the_short_usage(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["sim", *args])
    assert exited.value.code == 2
    error, usage = capsys.readouterr().err.strip().splitlines()
    assert error.startswith("p2pnerts sim: error: ") and message in error
    assert usage.startswith("usage: p2pnerts sim [options]")


def test_teams_that_seat_another_number_than_the_peers_get_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for args, message in [
        (
            ["--teams", "2+2", "--peers", "5"],
            "teams 2+2 seat 4 players: that takes --peers 4 (or no --peers), not --peers 5",
        ),
        (["--teams", "3+3+3+3+3"], "teams 3+3+3+3+3 seat 15 players: 14 at most"),
    ]:
        assert main(["sim", *args]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert err == [f"p2pnerts: error: {message}"]


def test_a_table_of_teams_seats_the_teams_and_reports_their_races(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, report = _json(capsys, "--teams", "2+1+2", "--rounds", "2", "--seed", "1")
    assert status == 0, report["violations"]
    assert report["peers"] == 5 and report["teams"] == "2+1+2"
    assert report["rounds_completed"] == 2 and report["team_races"] > 0
    assert (
        _json(capsys, "--teams", "2+1+2", "--peers", "5", "--rounds", "2", "--seed", "1")[1]
        == report
    )
    main(["sim", "--teams", "2+2", "--rounds", "1", "--seed", "1"])
    out = capsys.readouterr().out
    assert out.startswith("p2pnerts sim — 4 peers in teams 2+2, faults light, seed 1")
    assert ", between teammates " in out


def test_a_majoritys_table_is_simulated_and_its_logs_replay(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = ["--majority", "--peers", "4", "--rounds", "1", "--seed", "1", "--faults", "crash"]
    assert main(["sim", *args, "--log", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("p2pnerts sim — 4 peers, faults crash, seed 1, 1 round each, commits")
    assert "  invariants         all held" in out
    status, report = _json(capsys, *args)
    assert status == 0 and report["majority"] is True
    logs = sorted(tmp_path.glob("*.p2plog"))
    assert len(logs) == 4
    for log in logs:
        assert main(["replay", str(log), "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["differing"] == 0


def test_json_reports_what_the_run_found_and_repeats_itself(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, report = _json(capsys, "--peers", "3", "--rounds", "2", "--seed", "4", "--seeds", "2")
    for key in (
        "seeds_run",
        "rounds_completed",
        "plays_committed",
        "races_resolved",
        "team_races",
        "ties",
        "returns",
        "faults_injected",
        "invariant_violations",
        "messages_per_play",
        "bytes_per_play",
        "commit_latency",
        "digest",
    ):
        assert key in report
    assert report["seeds"] == [4, 5] and report["seeds_run"] == 2
    assert status == (1 if report["invariant_violations"] else 0)
    assert (
        _json(capsys, "--peers", "3", "--rounds", "2", "--seed", "4", "--seeds", "2")[1] == report
    )


def test_the_summary_reads_plainly(capsys: pytest.CaptureFixture[str]) -> None:
    main(["sim", "--peers", "2", "--rounds", "1", "--seed", "3", "--sequencer"])
    out = capsys.readouterr().out
    assert out.startswith("p2pnerts sim — 2 peers, faults light, seed 3, 1 round each")
    assert "central sequencer" in out and "run digest" in out and "invariants" in out
