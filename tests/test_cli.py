"""The ``p2pnerts`` command as a user meets it."""

from __future__ import annotations

import pytest

from p2pnerts.cli import main


def test_play_shows_a_whole_round_and_names_the_winner(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--seed", "3", "--pace", "0"]) == 0
    out = capsys.readouterr().out
    assert "4 players, seed 3" in out
    assert "to foundation #" in out
    assert "played  Nerts  bonus  round  total" in out
    assert out.rstrip().splitlines()[-1].startswith("Winner: ")


def test_play_is_the_same_game_for_the_same_seed(capsys: pytest.CaptureFixture[str]) -> None:
    main(["play", "--seed", "11", "--bots", "2", "--pace", "0"])
    first = capsys.readouterr().out
    main(["play", "--seed", "11", "--bots", "2", "--pace", "0"])
    assert capsys.readouterr().out == first
    main(["play", "--seed", "12", "--bots", "2", "--pace", "0"])
    assert capsys.readouterr().out != first


def test_play_runs_a_match_of_several_rounds(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--seed", "5", "--bots", "5", "--rounds", "3", "--pace", "0"]) == 0
    out = capsys.readouterr().out
    assert "Round 3" in out and "Round 4" not in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["play", "--bots", "0"], "must be 1 to 13, not 0"),
        (["play", "--bots", "many"], "not a whole number: 'many'"),
        (["play", "--rounds", "0"], "must be 1 to 1000"),
        (["fly"], "invalid choice"),
    ],
)
def test_bad_arguments_give_a_one_line_error(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(args)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err
