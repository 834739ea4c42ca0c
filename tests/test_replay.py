"""``p2pnerts replay``: a recorded match's committed order rebuilt from one seat's log, every
running digest computed again and compared with the log's; a tampered log is caught, a
torn one replays as far as it reads, and bad input is one clear line."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from _replaylogs import rewritten, sim_logs, write_log

from p2pnerts.cli import main
from p2pnerts.logs import COMMIT, RECEIVED, ReplayError, load_log, read_log, replay
from p2pnerts.protocol import CommitFrame, Play, decode, encode
from p2pnerts.rules import TableOptions, TieRule, options_from_summary


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return sim_logs(tmp_path_factory.mktemp("logs"))


def replayed_json(path: Path, capsys: pytest.CaptureFixture[str], status: int = 0) -> Any:
    assert main(["replay", str(path), "--json"]) == status
    return json.loads(capsys.readouterr().out)


def commit_records(path: Path) -> list[list[Any]]:
    return [record for record in read_log(path)[1] if record[0] == COMMIT]


def test_every_digest_of_a_three_round_match_is_reproduced_from_each_seats_log(
    logs: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert len(logs) == 3
    for seat, path in enumerate(logs):
        out = replayed_json(path, capsys)
        recorded = commit_records(path)
        assert out["seat"] == seat and out["torn"] == 0 and out["differing"] == 0
        assert [c["index"] for c in out["commits"]] == [r[2] for r in recorded]
        assert [c["recorded"] for c in out["commits"]] == [r[3].hex() for r in recorded]
        assert all(c["match"] is True for c in out["commits"])
        assert all(c["recomputed"] == c["recorded"] for c in out["commits"])
        assert {c["round"] for c in out["commits"]} == {0, 1, 2, 3}
        plays = [c for c in out["commits"] if c["message"].startswith("Play by")]
        assert plays and all(len(c["key"]) == 3 for c in plays)


def test_the_seats_logs_agree_on_the_order_and_every_deck_shows_after_its_round(
    logs: list[Path],
) -> None:
    replays = [replay(path) for path in logs]
    orders = [[step.message for step in r.steps] for r in replays]
    assert orders[0] == orders[1] == orders[2]
    first = replays[0]
    for number in (1, 2, 3):
        for deck in range(3):
            order, why = first.deck_order(number, deck)
            assert why == "" and len(order) == 52
    last = len(first.steps) - 1
    assert all(first.hidden(last, seat) == "" for seat in range(3))
    own = first.table(last, 1)
    assert own is not None and None not in own.tableau_of(1).stock  # face-down cards known


def test_a_changed_digest_is_reported_as_differing(
    logs: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tampered = tmp_path / "digest.p2plog"

    def change(_: int, record: list[Any]) -> list[Any] | None:
        if record[0] == COMMIT and record[2] == 100:
            return [*record[:3], bytes(16)]
        return None

    rewritten(logs[0], tampered, change)
    out = replayed_json(tampered, capsys, status=1)
    assert out["differing"] == 1
    (bad,) = [c for c in out["commits"] if c["match"] is False]
    assert bad["index"] == 100 and bad["recorded"] == "00" * 16 != bad["recomputed"]


def test_a_changed_frame_is_reported_as_differing(
    logs: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tampered = tmp_path / "frame.p2plog"

    def change(_: int, record: list[Any]) -> list[Any] | None:
        if record[0] != RECEIVED:
            return None
        message = decode(record[3])
        if not isinstance(message, Play) or message.round != 2:
            return None
        return [*record[:3], encode(replace(message, clock=message.clock + 1))]

    rewritten(logs[1], tampered, change)
    out = replayed_json(tampered, capsys, status=1)
    assert out["differing"] > 0
    assert any("refused" in note for note in out["notes"])  # its signature no longer holds


def test_a_log_cut_at_random_bytes_replays_what_it_holds_and_says_the_tail_was_torn(
    logs: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = logs[2]
    data = path.read_bytes()
    whole = replay(path)
    cut = tmp_path / "cut.p2plog"
    rng = random.Random(11)
    for offset in sorted(rng.sample(range(200, len(data) - 1), 12)):
        cut.write_bytes(data[:offset])
        torn = load_log(cut).torn
        out = replayed_json(cut, capsys)
        assert out["torn"] == torn and out["differing"] == 0
        commits = out["commits"]
        assert [c["recomputed"] for c in commits] == [s.digest.hex() for s in whole.steps][
            : len(commits)
        ]
        recorded = len(commit_records(cut))
        assert all(c["match"] for c in commits[:recorded])
        assert all(c["match"] is None for c in commits[recorded:])  # recorded after the cut
    cut.write_bytes(data[:-1])
    assert main(["replay", str(cut), "--json"]) == 0
    assert "torn tail" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("content", "error"),
    [
        (None, "no such file"),
        (b"hello", "not a p2pnerts game log"),
        (b"p2pnerts log 1\n\x00\x00", "ends before its header"),
    ],
)
def test_bad_input_is_one_clear_line_and_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes | None, error: str
) -> None:
    path = tmp_path / "x.p2plog"
    if content is not None:
        path.write_bytes(content)
    assert main(["replay", str(path), "--json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("p2pnerts: replay: ") and error in err


def test_a_seat_or_round_the_log_does_not_hold_is_refused(
    logs: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", str(logs[0]), "--json", "--seat", "4"]) == 2
    assert "seat 4 is not at this table of 3" in capsys.readouterr().err
    assert main(["replay", str(logs[0]), "--json", "--round", "9"]) == 2
    assert "no round 9 (rounds 0 to 3)" in capsys.readouterr().err


def test_the_screen_needs_a_terminal(logs: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(logs[0])]) == 2
    assert "needs a terminal" in capsys.readouterr().err


def test_a_run_with_dropped_links_and_view_changes_replays_every_digest(tmp_path: Path) -> None:
    for path in sim_logs(tmp_path, seed=3, faults="links"):
        replayed = replay(path)
        assert replayed.differing == [] and replayed.steps
        assert all(step.matches for step in replayed.steps)


def test_a_majoritys_match_with_seats_left_out_and_back_replays_every_digest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Its logs hold the commit frames. Seats crash and come back, one left out in round 0
    # (its deck's secret not yet in its log: the replay takes the table's word that it came
    # back with its own), and plays come back late.
    paths = sim_logs(tmp_path, seed=11, rounds=2, faults="churn", peers=4, majority=True)
    late = []
    for path in paths:
        replayed = replay(path)
        assert replayed.differing == [] and not replayed.notes and len(replayed.steps) > 300
        assert all(step.matches for step in replayed.steps)
        late += [step for step in replayed.steps if step.outcome == 3]
    assert len(late) >= 4
    out = replayed_json(paths[-1], capsys)
    told = [c["message"] for c in out["commits"] if c["message"].endswith("(came back late)")]
    assert len(told) == sum(step.outcome == 3 for step in replay(paths[-1]).steps) > 0


def test_a_majoritys_log_without_its_votes_is_refused_in_one_line(tmp_path: Path) -> None:
    # As an earlier p2pnerts wrote it: no commit frames, and no word of the rule in its head.
    path = sim_logs(tmp_path, rounds=1, peers=4, majority=True)[0]
    header, records = read_log(path)
    header.pop("majority")
    kept = [r for r in records if r[0] == COMMIT or not isinstance(decode(r[3]), CommitFrame)]
    old = tmp_path / "old.p2plog"
    write_log(old, [["header", header["clock"], header], *kept])
    with pytest.raises(ReplayError, match="committing by a majority, and its log holds none"):
        replay(old)


def test_table_options_read_back_from_their_summary() -> None:
    for options in (
        TableOptions(),
        TableOptions(rounds=3, tie_rule=TieRule.ROTATE, teams=(2, 1), jokers=True),
        TableOptions(work_piles=5, nerts_pile=10, stock_turn=1, nerts_bonus=25, target=50),
    ):
        assert options_from_summary(options.summary()) == options
    with pytest.raises(ValueError, match="no table option"):
        options_from_summary("colour=blue")


def test_a_log_whose_header_this_version_cannot_read_is_refused(
    logs: list[Path], tmp_path: Path
) -> None:
    header, records = read_log(logs[0])
    odd = tmp_path / "odd.p2plog"
    write_log(odd, [["header", 0.0, {**header, "options": "colour=blue"}], *records])
    with pytest.raises(ReplayError, match="a header this version cannot read"):
        replay(odd)
    write_log(odd, [["header", 0.0, {**header, "majority": "yes"}], *records])
    with pytest.raises(ReplayError, match="'majority' is not true or false"):
        replay(odd)
