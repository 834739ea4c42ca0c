"""The seat's state file: what a peer keeps to come back after a crash."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from p2pnerts.net import KeptSeats, SeatFile, SeatFileError
from p2pnerts.net._seatfile import KEPT_FOR
from p2pnerts.protocol import Disk, Seat, SeatKey
from p2pnerts.rules import TableOptions, TieRule, shuffled_deck

KEYS = [SeatKey.from_secret(bytes([n + 1]) * 32) for n in range(3)]


def _saved() -> SeatFile:
    options = TableOptions(stock_turn=1, rounds=3, tie_rule=TieRule.ROTATE, jokers=True)
    order = shuffled_deck(2, options, random.Random(4))
    roster = tuple(Seat(n, f"P{n}", "127.0.0.1", 4000 + n, KEYS[n].public) for n in range(3))
    disk = Disk(5, order, b"salt" * 4, 7, pledges=((0, b"p" * 32), (2, b"q" * 32)))
    return SeatFile(bytes(range(16)), 2, roster, options, disk, KEYS[2].secret)


def test_a_saved_seat_reads_back_the_same(tmp_path: Path) -> None:
    path = tmp_path / "seat.json"
    _saved().save(path)
    assert SeatFile.load(path) == _saved()
    assert not path.with_name("seat.json.part").exists()


def test_a_file_written_before_pledges_were_kept_reads_with_none(tmp_path: Path) -> None:
    path = tmp_path / "seat.json"
    _saved().save(path)
    document = json.loads(path.read_text())
    del document["disk"]["pledges"]
    path.write_text(json.dumps(document))
    assert SeatFile.load(path).disk.pledges == ()


def test_a_joiner_finds_its_seat_kept_by_the_table_or_by_where_its_host_is(
    tmp_path: Path,
) -> None:
    seats = KeptSeats(tmp_path / "seats")
    assert (
        seats.find("P2", bytes(16)) is None and seats.find("P2", host=("127.0.0.1", 4000)) is None
    )
    saved = _saved()
    path = seats.path(saved.table, saved.seat)
    path.parent.mkdir()
    saved.save(path)
    assert seats.find("P2", saved.table) == (path, saved)
    assert seats.find("P2", host=("127.0.0.1", 4000)) == (path, saved)
    assert seats.find("P2", host=("127.0.0.1", 4001)) is None
    assert seats.find("P1", saved.table) is None, "another player's seat"
    old = time.time() - KEPT_FOR - 60
    os.utime(path, (old, old))  # a match long over
    assert seats.find("P2", saved.table) is None and not path.exists()


def test_old_seat_files_are_tidied_past_one_another_process_removed_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seats = KeptSeats(tmp_path)
    old = time.time() - KEPT_FOR - 60
    for k in range(3):
        (tmp_path / f"{k}.json").write_text("{}")
        os.utime(tmp_path / f"{k}.json", (old, old))
    # Listed first, then gone before its time was read: the files after it are tidied too.
    listed = [tmp_path / "gone.json", *sorted(tmp_path.glob("*.json"))]
    monkeypatch.setattr(Path, "glob", lambda self, pattern: iter(listed))
    assert seats.find("P2", bytes(16)) is None
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("change", "complaint"),
    [
        (lambda d: d.update({"p2pnerts-seat": 1}), "format 2 expected"),
        (lambda d: d.update(key=KEYS[1].secret.hex()), "the key is not seat 2's"),
        (lambda d: d["roster"][2].__setitem__(4, KEYS[0].public.hex()), "not seat 2's"),
        (lambda d: d.update(seat=3), "seat must be a whole number 0 to 2"),
        (lambda d: d["options"].update(work_piles=7), "4 or 5 work piles"),
        (lambda d: d["options"].update(colour="red"), "unknown options"),
        (lambda d: d["disk"].update(order=[3 << 6]), "no card has code 192"),
        (lambda d: d["roster"][1].__setitem__(3, 70000), "port must be"),
        (lambda d: d.pop("table"), "'table'"),
        (lambda d: d.update(private="no"), "private must be true or false"),
        (lambda d: d.update(majority=1), "majority must be true or false"),
        (lambda d: d["disk"].update(pledges=[[3, "00" * 32]]), "a pledge's deck must be"),
        (lambda d: d["disk"].update(pledges=[[0, "00"]]), "pledge must be 32 bytes"),
    ],
)
def test_a_damaged_state_file_is_refused_saying_why(
    tmp_path: Path, change: object, complaint: str
) -> None:
    path = tmp_path / "seat.json"
    _saved().save(path)
    document = json.loads(path.read_text())
    assert callable(change)
    change(document)
    path.write_text(json.dumps(document))
    with pytest.raises(SeatFileError, match=complaint) as caught:
        SeatFile.load(path)
    assert str(path) in str(caught.value)


def test_a_state_file_that_is_not_json_is_one_line_of_error_from_the_command(
    tmp_path: Path,
) -> None:
    path = tmp_path / "seat.json"
    path.write_text("{half")
    args = ["bot", "--join", "127.0.0.1:9", "--state", str(path)]
    done = subprocess.run(
        [sys.executable, "-m", "p2pnerts", *args], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert done.stderr.startswith("p2pnerts: error: ")
    assert "not a p2pnerts state file" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert path.read_text() == "{half", "a bad file is left as it was"


@pytest.mark.parametrize(
    "command",
    [
        ["host", "--name", "Den", "--headless", "--no-advertise"],
        ["bot", "--join", "Den"],
    ],
)
def test_a_state_file_of_another_table_is_one_line_of_error_and_left_as_it_was(
    tmp_path: Path, command: list[str]
) -> None:
    path = tmp_path / "seat.json"
    replace(_saved(), name="Kitchen").save(path)
    kept = path.read_text()
    done = subprocess.run(
        [sys.executable, "-m", "p2pnerts", *command, "--state", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr == (
        f"p2pnerts: error: {path} keeps a seat at table 'Kitchen', not 'Den': another table's\n"
    )
    assert path.read_text() == kept


def test_the_table_name_is_kept_and_a_file_without_one_still_reads(tmp_path: Path) -> None:
    path = tmp_path / "seat.json"
    replace(_saved(), name="Kitchen").save(path)
    assert SeatFile.load(path).name == "Kitchen"
    document = json.loads(path.read_text())
    del document["name"]
    path.write_text(json.dumps(document))
    assert SeatFile.load(path) == _saved()


def test_whether_the_table_is_private_is_kept_and_a_file_that_does_not_say_is_private(
    tmp_path: Path,
) -> None:
    path = tmp_path / "seat.json"
    replace(_saved(), private=False).save(path)
    assert not SeatFile.load(path).private
    document = json.loads(path.read_text())
    del document["private"]
    path.write_text(json.dumps(document))
    assert SeatFile.load(path).private  # (spectators then need the passphrase given again)


def test_how_the_table_commits_is_kept_and_a_file_that_does_not_say_commits_by_acks(
    tmp_path: Path,
) -> None:
    path = tmp_path / "seat.json"
    replace(_saved(), majority=True).save(path)
    assert SeatFile.load(path).majority  # (a seat back from it commits so again)
    document = json.loads(path.read_text())
    del document["majority"]
    path.write_text(json.dumps(document))
    assert not SeatFile.load(path).majority


@pytest.mark.skipif(sys.platform == "win32", reason="Windows keeps no POSIX file modes")
def test_the_state_file_holding_the_seat_key_is_readable_by_its_owner_alone(
    tmp_path: Path,
) -> None:
    path = tmp_path / "seat.json"
    _saved().save(path)
    assert path.stat().st_mode & 0o777 == 0o600
