"""The host keys a joiner remembers by table name: a changed key is a warning, files are
written whole, and a file that cannot be read is said and left as it is."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from p2pnerts.commands._locate import know
from p2pnerts.net import KnownHosts, KnownHostsError, Player, TableInfo
from p2pnerts.protocol import Welcome
from p2pnerts.rules import TableOptions

OLD, NEW = "1111:2222:3333", "aaaa:bbbb:cccc"


def _table(key: str) -> TableInfo:
    return TableInfo("Kitchen", "ab" * 16, 2, 1, 4, "", "lobby", "127.0.0.1", 4000, key)


def test_a_table_of_another_key_than_before_is_a_warning(tmp_path: Path) -> None:
    known = KnownHosts(tmp_path / "known.json", {"Kitchen": OLD})
    assert known.warning("Kitchen", OLD) is None
    assert known.warning("Elsewhere", NEW) is None  # never seen: nothing to compare
    warning = known.warning("Kitchen", NEW)
    assert warning is not None
    assert f"table 'Kitchen' now has host key {NEW}, not the {OLD} seen before" in warning


def test_the_key_is_remembered_in_a_file_written_whole(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "known.json"
    KnownHosts.load(path).remember("Kitchen", OLD)
    KnownHosts.load(path).remember("Den", NEW)
    again = KnownHosts.load(path)
    assert (again.seen("Kitchen"), again.seen("Den")) == (OLD, NEW)
    assert [p.name for p in path.parent.iterdir()] == ["known.json"]  # no part left over


@pytest.mark.parametrize(
    "text", ["{not json", "[]", '{"p2pnerts-known-hosts": 1, "tables": {"A": "zz"}}']
)
def test_a_file_that_cannot_be_read_is_a_clear_error_and_stays_as_it_was(
    tmp_path: Path, text: str
) -> None:
    path = tmp_path / "known.json"
    path.write_text(text)
    with pytest.raises(KnownHostsError, match=f"{path}: .*fix or remove it"):
        KnownHosts.load(path)
    assert path.read_text() == text


def test_joining_by_name_warns_of_a_changed_key_and_remembers_the_new_one(
    tmp_path: Path,
) -> None:
    path = tmp_path / "known.json"
    KnownHosts.load(path).remember("Kitchen", OLD)
    said: list[str] = []
    player = Player("Bea", random.Random(1), None, said.append)
    know(KnownHosts.load(path), player, _table(NEW), said.append)
    assert len(said) == 1 and said[0].startswith("warning: table 'Kitchen' now has host key")
    assert player.welcomed is not None
    player.welcomed(Welcome(bytes(16), 1, 4, TableOptions(), "t"))  # the host proved NEW
    assert KnownHosts.load(path).seen("Kitchen") == NEW
