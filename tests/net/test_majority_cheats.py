"""The red team at a table that commits by a majority (its host given ``--majority``): a
seated cheat as a real process, against a headless host and two honest bots, as
`test_processes` runs them at a table that commits by acknowledgement. One case per
mechanism: a commit frame that fails its check, a deal that fails its audit (on arrival,
and at the match's end), and two plays signed under one number."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from test_processes import LIMIT, _bot, _host, _summary
from test_processes import _no_process_outlives_its_test as _no_process_outlives_its_test

from p2pnerts.cheats import FRAME_CHEATS

TABLE = ("--seats", "4", "--rounds", "1", "--level", "9", "--nerts-pile", "4", "--majority")
"""A one-round table of four with 4-card Nerts piles, its host committing by a majority (a
table of three would commit by acknowledgement: its quorum is every seat)."""


def _at_a_majoritys_table(kind: str, stats: Path) -> tuple[list[str], list[int], str]:
    """The host (its figures in ``stats``), honest bots B1 and B2 and a bot C cheating as
    ``kind``: what the honest three said, their exit statuses, and what C said (for a
    failure's message)."""
    with _host(*TABLE, "--stats", str(stats)) as (host, port):
        honest = [_bot(port, name) for name in ("B1", "B2")]
        cheat = _bot(port, "C", "--cheat", kind)
        outs = [bot.communicate(timeout=LIMIT)[0] for bot in honest]
        host_out, _ = host.communicate(timeout=LIMIT)  # bounded: a host that hangs fails
        cheat.kill()
        cheat_out, _ = cheat.communicate(timeout=LIMIT)
    status = [host.returncode, *(bot.returncode for bot in honest)]
    assert None not in status
    return [host_out, *outs], status, f"--- C said:\n{cheat_out}"


def _left_out(seen: str, why: str, cheat: str) -> None:
    """A seat refused while the round goes on is left out of it; a cheat whose first lie
    (on its first foundation play, which a poor deal can hold back to the Nerts call)
    reaches a seat only once the round is over has no round left to be left out of."""
    refused = re.search(why, seen, re.MULTILINE)
    assert refused is not None, f"{seen}{cheat}"
    over = re.search(r"^round 1 over ", seen, re.MULTILINE)
    if over is None or refused.start() < over.start():
        assert "C is left out; the table plays on" in seen, f"{seen}{cheat}"


def _alike(said: list[str], why: str) -> None:
    """Every honest peer says the same ``why`` line and ends on the same result."""
    lines = [[line for line in seen.splitlines() if re.search(why, line)] for seen in said]
    assert lines[0] and all(seen == lines[0] for seen in lines), lines
    assert len({_summary(seen) for seen in said}) == 1


def test_a_seat_whose_tally_claims_a_quorum_it_never_had_is_refused_alike(tmp_path: Path) -> None:
    """``forge-tally`` sends the Tally of each of its plays one Ballot short: every honest
    peer's check of its Ballots refuses it, with the same words, leaves it out and ends the
    round without it; all three exit 3. (Once, on busy cores, C's first play came with B1's
    Nerts call, and the refusal came after the round was over.)"""
    stats = tmp_path / "host.json"
    said, status, cheat = _at_a_majoritys_table("forge-tally", stats)
    assert "forge-tally" in FRAME_CHEATS
    assert status == [3, 3, 3], f"{said}{cheat}"
    why = r"^C broke the protocol and is refused from now on: seat \d's Tally: its Ballots"
    why += " do not decide it so$"
    for seen in said:
        _left_out(seen, why, cheat)
        assert "p2pnerts: this table could not be trusted: " in seen
    _alike(said, why)
    assert len(json.loads(stats.read_text())["refused"]) == 1


def test_a_seat_whose_poll_carries_a_play_it_did_not_sign_is_refused_alike(
    tmp_path: Path,
) -> None:
    """``forge-poll`` polls on each of its plays once its Tally is out, carrying a copy of
    the play with another move and the old signature: every honest peer holds the play
    itself, finds the copy is not what the seat signed, and refuses the poller with the
    same words; all three leave it out and exit 3."""
    stats = tmp_path / "host.json"
    said, status, cheat = _at_a_majoritys_table("forge-poll", stats)
    assert status == [3, 3, 3], f"{said}{cheat}"
    why = r"^C broke the protocol and is refused from now on: its Poll carried what seat \d"
    why += r" did not sign as its play \d+$"
    for seen in said:
        _left_out(seen, why, cheat)
    _alike(said, why)
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
    assert status == [3, 3, 3], f"{said}{cheat}"
    _alike(said, r"^audit of round 1 failed C: .*; C's round is void and scores [-+]?\d+$")
    for seen in said:
        assert "failed the audit of its deal" in seen
    figures = json.loads(stats.read_text())
    assert [re.sub(r"seat \d", "seat", f) for f in figures["audits_failed"]] == ["seat, round 1"]


@pytest.fixture(scope="module")
def equivocated(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[list[str], list[int], str]:
    """One table of four where ``equivocate`` sends its play to the host and a stuck
    declaration under the same number to B1 and B2 (read by the two tests below)."""
    return _at_a_majoritys_table("equivocate", tmp_path_factory.mktemp("eq") / "host.json")


def test_a_play_sent_two_ways_under_one_number_parts_no_digests(
    equivocated: tuple[list[str], list[int], str],
) -> None:
    """Each honest seat folds the play into its digest as its place alone, not as the copy
    it holds, and all three end on one table. Before (at a table of three, where neither
    copy could have the votes of a quorum and the play was returned), each folded its own
    copy, and the host and B1 reported each other's table as differing, again and again."""
    said, _, cheat = equivocated
    for seen in said:
        assert "table differs from ours" not in seen, f"{seen}{cheat}"
        assert "match over after 1 round" in seen, f"{seen}{cheat}"
    assert len({_summary(seen) for seen in said}) == 1


def test_a_seat_that_signs_two_plays_under_one_number_is_named(
    equivocated: tuple[list[str], list[int], str],
) -> None:
    """A Ballot or Tally that names another copy than the one a seat holds makes it show its
    copy to every seat; a seat then holding both, each signed by C under one number,
    refuses C, and every honest seat says the same words, shows both and leaves C out; all
    three exit 3. Before, nobody named it (a strict xfail)."""
    said, status, cheat = equivocated
    _alike(said, r"signed two different messages as its message \d+ of view \d+")
    for seen in said:
        assert "C is left out; the table plays on" in seen, f"{seen}{cheat}"
    assert status == [3, 3, 3], f"{said}{cheat}"


@pytest.mark.parametrize("kind", ["never-passed", "never-holds"])
def test_a_seat_that_never_says_it_passed_more_is_left_out_as_stalling(
    tmp_path: Path, kind: str
) -> None:
    """``never-passed`` plays and votes, but its Acks and Tallies never say it passed more
    of the canonical order than the first it lied in: every honest seat holds every play
    since. Its Acks say it holds what they held as they passed, so their words are stale:
    it stalls, and every honest seat leaves it out and bars it for a while; all three exit
    3. Before, the table held every play until each honest seat, crowded, could play none
    (three rounds of level 6: the three scored -26 each in the second, and the third never
    ended). ``never-holds`` says besides that it holds no more of anyone's messages, as a
    seat whose links from the others broke would: its Ballots on each honest seat's plays
    show that seat it holds them, and so its words are stale too (before, it was excused
    for good, and the table stopped as it did for ``never-passed``). A round of 13-card
    Nerts piles at level 6 lasts long enough to see it."""
    table = ("--seats", "4", "--rounds", "1", "--level", "6", "--majority")
    stats = tmp_path / "host.json"
    with _host(*table, "--stats", str(stats)) as (host, port):
        honest = [_bot(port, name, "--level", "6") for name in ("B1", "B2")]
        cheat = _bot(port, "C", "--level", "6", "--cheat", kind)
        said = [bot.communicate(timeout=LIMIT)[0] for bot in honest]
        said.insert(0, host.communicate(timeout=LIMIT)[0])
        cheat.kill()
        cheat_out = f"--- C said:\n{cheat.communicate(timeout=LIMIT)[0]}"
    assert kind in FRAME_CHEATS
    assert [host.returncode, *(bot.returncode for bot in honest)] == [3, 3, 3], f"{said}{cheat_out}"
    for seen in said:
        said_of_c = "C talks on but never says it passed more of the order: left out for a while"
        assert said_of_c in seen, seen + cheat_out
        assert "C is left out; the table plays on" in seen, f"{seen}{cheat_out}"
    assert len({_summary(seen) for seen in said}) == 1
