"""The red team at a table that commits by a majority (``--majority``): a seated cheat as a
real process, against a headless host and one honest bot, as `test_processes` runs them at
a table that commits by acknowledgement. One case per mechanism: a commit frame that fails
its check, a deal that fails its audit (on arrival, and at the match's end), and two plays
signed under one number."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from test_processes import LIMIT, _bot, _host, _summary
from test_processes import _no_process_outlives_its_test as _no_process_outlives_its_test

from p2pnerts.cheats import FRAME_CHEATS

TABLE = ("--seats", "3", "--rounds", "1", "--level", "9", "--nerts-pile", "4", "--majority")
"""A one-round table of three with 4-card Nerts piles, every seat committing by a majority."""


def _at_a_majoritys_table(kind: str, stats: Path) -> tuple[list[str], list[int], str]:
    """The host (its figures in ``stats``), an honest bot B1 and a bot C cheating as
    ``kind``, all with ``--majority``: what the honest two said, their exit statuses, and
    what C said (for a failure's message)."""
    with _host(*TABLE, "--stats", str(stats)) as (host, port):
        honest = _bot(port, "B1", "--majority")
        cheat = _bot(port, "C", "--majority", "--cheat", kind)
        out, _ = honest.communicate(timeout=LIMIT)
        host_out, _ = host.communicate(timeout=LIMIT)  # bounded: a host that hangs fails
        cheat.kill()
        cheat_out, _ = cheat.communicate(timeout=LIMIT)
    assert host.returncode is not None and honest.returncode is not None
    return [host_out, out], [host.returncode, honest.returncode], f"--- C said:\n{cheat_out}"


def _alike(said: list[str], why: str) -> None:
    """Both honest peers say the same ``why`` line and end on the same result."""
    lines = [[line for line in seen.splitlines() if re.search(why, line)] for seen in said]
    assert lines[0] and lines[0] == lines[1], lines
    assert _summary(said[0]) == _summary(said[1])


def test_a_seat_whose_tally_claims_a_quorum_it_never_had_is_refused_alike(tmp_path: Path) -> None:
    """``forge-tally`` sends the Tally of each of its plays one Ballot short: every honest
    peer's check of its Ballots refuses it, with the same words, leaves it out and ends the
    round without it; both exit 3."""
    stats = tmp_path / "host.json"
    said, status, cheat = _at_a_majoritys_table("forge-tally", stats)
    assert "forge-tally" in FRAME_CHEATS
    assert status == [3, 3], f"{said}{cheat}"
    for seen in said:
        assert "C is left out; the table plays on" in seen, f"{seen}{cheat}"
        assert "p2pnerts: this table could not be trusted: " in seen
    why = r"^C broke the protocol and is refused from now on: seat \d's Tally: its Ballots"
    _alike(said, why + " do not decide it so$")
    assert len(json.loads(stats.read_text())["refused"]) == 1


@pytest.mark.parametrize("kind", ["stack-deck", "lie-about-deck"])
def test_a_seat_cheating_on_its_deal_at_a_majoritys_table_is_voided_alike(
    kind: str, tmp_path: Path
) -> None:
    """``stack-deck`` deals itself a winning deck; ``lie-about-deck`` reveals a secret it
    never pledged, so that (its replica holding the Reveal it made, the others the lie) its
    Reveal never resolves: it is left out for withholding it, its round void. Before, the
    honest peers waited for the last round's audit as long as at a table that commits by
    acknowledgement, some 4 s less than a majority's table takes to leave such a seat out:
    they ended the match with C's round scored as played, and exit 0."""
    stats = tmp_path / "host.json"
    said, status, cheat = _at_a_majoritys_table(kind, stats)
    assert status == [3, 3], f"{said}{cheat}"
    _alike(said, r"^audit of round 1 failed C: .*; C's round is void and scores [-+]?\d+$")
    for seen in said:
        assert "failed the audit of its deal" in seen
    figures = json.loads(stats.read_text())
    assert [re.sub(r"seat \d", "seat", f) for f in figures["audits_failed"]] == ["seat, round 1"]


@pytest.fixture(scope="module")
def equivocated(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[list[str], list[int], str]:
    """One table of three where ``equivocate`` sends its play to the host and a stuck
    declaration under the same number to B1 (read by the two tests below)."""
    return _at_a_majoritys_table("equivocate", tmp_path_factory.mktemp("eq") / "host.json")


def test_a_play_sent_two_ways_under_one_number_parts_no_digests(
    equivocated: tuple[list[str], list[int], str],
) -> None:
    """At a table of three neither copy can have the three votes a quorum needs, so the
    play is returned; each honest seat folds it as its place alone, not as the copy it
    holds, and the two end on one table. Before, each folded its own copy, and the host and
    B1 reported each other's table as differing, again and again."""
    said, _, cheat = equivocated
    for seen in said:
        assert "table differs from ours" not in seen, f"{seen}{cheat}"
        assert "match over after 1 round" in seen, f"{seen}{cheat}"
    assert _summary(said[0]) == _summary(said[1])


def test_a_seat_that_signs_two_plays_under_one_number_is_named(
    equivocated: tuple[list[str], list[int], str],
) -> None:
    """The sender's Tally returning the play carries both honest seats' Ballots, each naming
    the copy its voter held: each honest seat shows the copy it holds to every seat, and the
    other, holding both, each signed by C under one number, refuses C with the same words,
    shows both, and leaves it out; both exit 3. Before, nobody named it (a strict xfail)."""
    said, status, cheat = equivocated
    _alike(said, r"signed two different messages as its message \d+ of view \d+")
    for seen in said:
        assert "C is left out; the table plays on" in seen, f"{seen}{cheat}"
    assert status == [3, 3], f"{said}{cheat}"
