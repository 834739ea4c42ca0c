"""Game logs: every frame and commit of a real match on loopback, read back whole, and a log
cut anywhere reads back as the records before the cut."""

from __future__ import annotations

import datetime
import json
import os
import random
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest
import trio
from _hosting import hosted

from p2pnerts import sim
from p2pnerts.bots import BotDriver, SimpleBot, SimpleBots
from p2pnerts.cli import main
from p2pnerts.driver import Pace
from p2pnerts.logs import (
    COMMIT,
    MAGIC,
    RECEIVED,
    SENT,
    SHIVIZ_REGEX,
    GameLog,
    TraceError,
    prune,
    read_log,
    trace,
)
from p2pnerts.net import MatchResult, Player, TableSpec, join_table
from p2pnerts.net._gamelog import keep_log
from p2pnerts.protocol import Ack, Message, Seat, decode
from p2pnerts.rules import TableOptions
from p2pnerts.sim import MIXES, SimConfig


def _player(name: str, seed: int, logs: Path, lines: list[str]) -> Player:
    rng = random.Random(seed)
    bot = BotDriver(SimpleBot(random.Random(seed)), Pace(0.005, 0.005))
    player = Player(name, rng, bot, lines.append)
    player.log_dir = logs
    return player


async def _match(logs: list[Path], lines: list[str]) -> dict[int, MatchResult]:
    """A one-round match of two seats on loopback, seat k logging in ``logs[k]``."""
    results: dict[int, MatchResult] = {}
    spec = TableSpec("Den & co", 2, TableOptions(rounds=1))
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            port = await hosted(nursery, spec, _player("Ann", 1, logs[0], lines), results)
            results[1] = await join_table("127.0.0.1", port, _player("Bea", 2, logs[1], lines))
    return results


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Path], list[str]]:
    base = tmp_path_factory.mktemp("logs")
    dirs = [base / "ann", base / "bea"]
    lines: list[str] = []
    results = trio.run(_match, dirs, lines)
    assert len(set(results.values())) == 1
    return [next(d.glob("*.p2plog")) for d in dirs], lines


def test_each_seat_logs_its_frames_and_commits_and_the_digests_agree(
    played: tuple[list[Path], list[str]],
) -> None:
    paths, _ = played
    assert [p.name.split("-seat")[1] for p in paths] == ["1.p2plog", "2.p2plog"]
    # Named after the table, whichever way it was joined: Bea dialled an address, and the
    # host's Welcome told her the table's name.
    assert "-Den-co-seat1" in paths[0].name and "-Den-co-seat2" in paths[1].name
    logs = [read_log(path) for path in paths]
    digests = []
    for seat, (header, records) in enumerate(logs):
        assert header["seat"] == seat and header["name"] == "Den & co"
        assert [row[1] for row in header["roster"]] == ["Ann", "Bea"]
        kinds = {record[0] for record in records}
        assert {SENT, RECEIVED, COMMIT} <= kinds
        times = [record[1] for record in records]
        assert times == sorted(times), "appended as they happened"
        sent = [decode(r[3]) for r in records if r[0] == SENT]
        heard = [decode(r[3]) for r in records if r[0] == RECEIVED]
        assert all(isinstance(m, Message) and m.sender == seat for m in sent)
        assert all(isinstance(m, Message) and m.sender == 1 - seat for m in heard)
        commits = [r for r in records if r[0] == COMMIT]
        assert [r[2] for r in commits] == list(range(1, len(commits) + 1))
        digests.append({r[2]: r[3] for r in commits})
    common = set(digests[0]) & set(digests[1])
    assert len(common) > 10
    assert all(digests[0][n] == digests[1][n] for n in common)


def test_each_seats_log_of_a_real_match_replays_with_every_digest_it_recorded(
    played: tuple[list[Path], list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    for path in played[0]:
        assert main(["replay", str(path), "--json"]) == 0
        commits = json.loads(capsys.readouterr().out)["commits"]
        recorded = [r for r in read_log(path)[1] if r[0] == COMMIT]
        assert len(commits) == len(recorded) > 0
        assert all(c["match"] is True for c in commits)


def test_a_log_cut_at_any_byte_reads_back_as_the_whole_records_before_the_cut(
    played: tuple[list[Path], list[str]], tmp_path: Path
) -> None:
    path = played[0][0]
    data = path.read_bytes()
    header, records = read_log(path)
    rng = random.Random(5)
    cut = tmp_path / "cut.p2plog"
    header_end = None
    for offset in sorted(rng.sample(range(len(data)), 300)) + [len(data) - 1]:
        cut.write_bytes(data[:offset])
        try:
            got_header, got = read_log(cut)
        except ValueError:
            assert header_end is None, "once the header is whole, a cut log always reads"
            continue
        header_end = header_end or offset
        assert got_header == header
        assert got == records[: len(got)]
    assert len(read_log(cut)[1]) == len(records) - 1  # one byte short: the last is torn


def test_a_damaged_record_ends_the_log_there(
    played: tuple[list[Path], list[str]], tmp_path: Path
) -> None:
    data = bytearray(played[0][0].read_bytes())
    _, records = read_log(played[0][0])
    data[len(data) // 2] ^= 0xFF
    damaged = tmp_path / "damaged.p2plog"
    damaged.write_bytes(bytes(data))
    _, got = read_log(damaged)
    assert 0 < len(got) < len(records) and got == records[: len(got)]


def test_a_file_that_is_not_a_log_is_a_clear_error(tmp_path: Path) -> None:
    other = tmp_path / "notes.p2plog"
    other.write_bytes(b"not a log at all")
    with pytest.raises(ValueError, match="not a p2pnerts game log"):
        read_log(other)
    other.write_bytes(MAGIC)
    with pytest.raises(ValueError, match="ends before its header"):
        read_log(other)
    # Nor a file at all: said as plainly, and by trace as by replay (trace said
    # "[Errno 2] No such file or directory: '…'").
    for path, fault in ((tmp_path / "gone.p2plog", "no such file"), (tmp_path, "cannot be read")):
        with pytest.raises(ValueError, match=f"^{re.escape(str(path))}: {fault}"):
            read_log(path)
        with pytest.raises(TraceError, match=f"^{re.escape(str(path))}: {fault}"):
            trace([path])


def test_old_logs_are_pruned_newest_kept(tmp_path: Path) -> None:
    for k in range(5):
        (tmp_path / f"{k}.p2plog").write_bytes(MAGIC)
        os.utime(tmp_path / f"{k}.p2plog", (1000 + k, 1000 + k))
    (tmp_path / "keep.txt").write_text("not a log")
    prune(tmp_path, 2)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["3.p2plog", "4.p2plog", "keep.txt"]


def test_a_log_another_peer_pruned_meanwhile_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Bots started together on one machine share the directory: one listed a log that
    # another removed before it looked at its time, and started with "no game log:
    # cannot write in ...: No such file or directory".
    for k in range(3):
        (tmp_path / f"{k}.p2plog").write_bytes(MAGIC)
        os.utime(tmp_path / f"{k}.p2plog", (1000 + k, 1000 + k))
    listed = sorted(tmp_path.glob("*.p2plog")) + [tmp_path / "gone.p2plog"]
    monkeypatch.setattr(Path, "glob", lambda self, pattern: iter(listed))
    prune(tmp_path, 2)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["1.p2plog", "2.p2plog"]


def test_a_log_that_cannot_be_written_is_said_once_and_the_match_is_played(
    tmp_path: Path,
) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("a file where the log directory would be")
    lines: list[str] = []
    results = trio.run(_match, [blocked / "logs", tmp_path / "bea"], lines)
    assert len(set(results.values())) == 1
    assert sum(line.startswith("no game log: cannot write in ") for line in lines) == 1
    assert list((tmp_path / "bea").glob("*.p2plog"))


def shiviz_problems(text: str) -> list[str]:
    """What breaks ShiViz's documented rules in a file meant for it, read as ShiViz reads
    it: the parser on the first line (with the event, host and clock groups), the
    executions' delimiter on the second, then events whose clock is a JSON object of counts
    naming their own host, that host's entry counting its events from 1 up by one, no
    other entry falling from one of its events to the next, and every other entry an event
    of that host already seen whose clock this one's covers (happens-before)."""
    problems = []
    first, second, *body = text.split("\n")
    if not all(f"(?<{group}>" in first for group in ("event", "host", "clock")):
        problems.append(f"no parser with event, host and clock on the first line: {first!r}")
    if second:
        problems.append("the second line is a delimiter: this file has one execution")
    parser = re.compile(first.replace("(?<", "(?P<"))
    found = list(parser.finditer("\n".join(body)))
    if 2 * len(found) != len([line for line in body if line]):
        problems.append("lines the parser does not take")
    seen: dict[str, list[dict[str, int]]] = {}
    for match in found:
        host, clock = match["host"], json.loads(match["clock"])
        if not isinstance(clock, dict) or not all(type(n) is int for n in clock.values()):
            problems.append(f"{host}'s clock is not an object of counts: {match['clock']}")
            continue
        own = seen.setdefault(host, [])
        if clock.get(host) != len(own) + 1:
            problems.append(f"{host}'s event {len(own) + 1} has {clock.get(host)}")
        if own and any(clock.get(h, 0) < n for h, n in own[-1].items()):
            problems.append(f"{host}'s event {len(own) + 1} forgets what its last one knew")
        for other, count in clock.items():
            before = seen.get(other, [])
            if other != host and not 1 <= count <= len(before):
                problems.append(f"{host} depends on {other}'s event {count}, not seen")
            elif other != host and any(clock.get(h, 0) < n for h, n in before[count - 1].items()):
                problems.append(f"{host}'s clock does not cover {other}'s event {count}")
        own.append(clock)
    return problems


def test_the_logs_of_a_match_trace_into_a_file_shiviz_takes(
    played: tuple[list[Path], list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "match.shiviz"
    assert main(["trace", *map(str, played[0]), "--shiviz", str(out)]) == 0
    assert "events of 2 peers (s1-Ann, s2-Bea)" in capsys.readouterr().out
    text = out.read_text()
    assert shiviz_problems(text) == []
    lines = text.split("\n")[2::2]
    assert any(re.match(r"receive .*Play L=\d+ from s[12]-(Ann|Bea)", line) for line in lines)
    assert any(re.search(r"\bcommits? #1\b.* digest ", line) for line in lines)
    merged = trace(played[0])
    received = [e for e in merged.events if e.kind == "receive"]
    assert received and all(e.matched is not None for e in received), "both logs are whole"
    for event in received:
        send = event.matched
        assert send is not None and event.clock[send.host] >= send.clock[send.host]


def test_the_validator_finds_what_shiviz_would_refuse() -> None:
    good = trace_text([("a", {"a": 1}), ("b", {"b": 1}), ("b", {"a": 1, "b": 2})])
    assert shiviz_problems(good) == []
    assert shiviz_problems(trace_text([("a", {"a": 2})]))  # does not start at 1
    assert shiviz_problems(trace_text([("b", {"a": 1, "b": 1})]))  # a's event 1 unseen
    forgets = [("a", {"a": 1}), ("a", {"a": 2}), ("b", {"a": 2, "b": 1}), ("b", {"a": 1, "b": 2})]
    assert shiviz_problems(trace_text(forgets))
    assert shiviz_problems(trace_text([("a", {"a": "1"})]))  # not a count


def trace_text(events: Sequence[tuple[str, Mapping[str, object]]]) -> str:
    lines = [SHIVIZ_REGEX, ""]
    for host, clock in events:
        lines += ["something", f"{host} {json.dumps(clock)}"]
    return "\n".join(lines) + "\n"


def test_logs_of_different_matches_are_not_traced_together(
    played: tuple[list[Path], list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    alone = (Seat(0, "Ann", "", 9),)
    other = GameLog.start(
        tmp_path, table=bytes(16), name="Elsewhere", seat=0, roster=alone, options="", now=0.0
    )
    other.close()
    assert main(["trace", str(played[0][1]), str(other.path)]) == 1
    assert "p2pnerts: trace: these logs are of different matches" in capsys.readouterr().err
    assert main(["trace", str(played[0][0]), str(played[0][0])]) == 1
    assert "two logs of seat 1 overlap in time" in capsys.readouterr().err
    assert main(["trace", str(tmp_path / "missing.p2plog")]) == 1
    assert "missing.p2plog" in capsys.readouterr().err


def test_a_simulated_run_with_faults_logs_every_peer_and_traces_for_shiviz(tmp_path: Path) -> None:
    config = SimConfig(4, 1, MIXES["heavy"])
    unlogged = sim.run(config, [3], SimpleBots())
    logged = sim.run(replace(config, log=str(tmp_path)), [3], SimpleBots())
    assert logged.digest == unlogged.digest, "logging changes nothing in the run"
    logs = sorted(tmp_path.glob("*-sim-seed-3-seat*.p2plog"))
    assert len(logs) == 4
    # One time of day for the simulated clock's 0 at every seat, which trace aligns the
    # logs by: each log's own, taken as it opened, put the seats apart on a loaded machine.
    assert len({read_log(log)[0]["started"] for log in logs}) == 1
    merged = trace(logs)
    for acks in (False, True):
        text = merged.part(acks=acks).shiviz()
        assert shiviz_problems(text) == []
        assert re.search(r"\b(StartView|ViewChange) L=", text), "heavy faults: views"
        assert (" Ack L=" in text) is acks


def test_a_majoritys_run_traces_its_ballots_and_tallies_each_to_its_send(tmp_path: Path) -> None:
    config = SimConfig(4, 1, MIXES["light"], majority=True)
    assert not sim.run(replace(config, log=str(tmp_path)), [2], SimpleBots()).violations
    merged = trace(sorted(tmp_path.glob("*.p2plog"))).part(end=3.0)
    votes = [e for e in merged.events if e.message in ("Ballot", "Tally")]
    assert {e.kind for e in votes} == {"send", "receive"}
    assert all(e.matched is not None for e in votes if e.kind == "receive")
    text = merged.shiviz()
    assert shiviz_problems(text) == []
    assert re.search(r"send Ballot L=\d+ on s\d's #\d+: for, after \[", text)
    assert re.search(r"send Tally L=\d+ of s\d's #\d+: in, \d Ballots view 0", text)
    assert re.search(r"receive Tally L=\d+ from s\d", text)


@pytest.fixture(scope="module")
def one_round(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The logs of one round of four simulated peers, 344 plays: its whole trace for ShiViz,
    with the Acks, is 637 KB."""
    logs = tmp_path_factory.mktemp("one-round")
    report = sim.run(SimConfig(4, 1, log=str(logs)), [2], SimpleBots())
    assert report.tally.plays > 300 and not report.violations
    return sorted(logs.glob("*.p2plog"))


def test_one_round_for_shiviz_without_the_acks_is_under_100_kb_and_parses(
    one_round: list[Path],
) -> None:
    merged = trace(one_round)
    whole = merged.part(acks=True).shiviz()
    text = merged.part().shiviz()
    assert shiviz_problems(text) == [] and shiviz_problems(whole) == []
    assert len(text.encode()) < 100_000 < len(whole.encode())
    assert " Ack L=" not in text and " Ack L=" in whole
    plays = [e for e in merged.events if e.kind == "send" and e.message == "Play"]
    assert len(plays) > 100 and all(play.text in text for play in plays)
    commits = {e.text.split()[1] for e in merged.events if e.kind == "commit"}
    assert f"#{len(commits)} digest " in text, "the last commit is in the file"


def test_a_part_counts_its_clocks_over_the_events_it_keeps(one_round: list[Path]) -> None:
    merged = trace(one_round)
    acks = Counter(e.kind for e in merged.events if e.message == "Ack")
    part = merged.part()
    assert part.left_out == {"Acks sent": acks["send"], "Acks received": acks["receive"]}
    assert len(part.events) == len(merged.events) - acks.total()
    for host in part.hosts:
        own = [e.clock[host] for e in part.events if e.host == host]
        assert own == list(range(1, len(own) + 1))
    kept = {id(event) for event in part.events}
    for event in part.events:
        send = event.matched
        if send is not None:  # every receive kept has its send kept: only Acks were left out
            assert id(send) in kept and all(event.clock[h] >= n for h, n in send.clock.items())
    window = merged.part(1.0, 1.2)
    assert window.events and all(1.0 <= e.at <= 1.2 for e in window.events)
    assert shiviz_problems(window.shiviz()) == []
    assert window.note().startswith("seconds 1 to 1.2 of the match; left out: ")


def test_a_window_of_the_match_is_drawn_as_a_mermaid_sequence_diagram(
    played: tuple[list[Path], list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    merged = trace(played[0])
    whole = merged.part().mermaid().splitlines()
    assert whole[:5] == [
        "```mermaid",
        "sequenceDiagram",
        whole[2],
        "    participant s1 as s1-Ann",
        "    participant s2 as s2-Bea",
    ]
    assert re.fullmatch(
        r"    %% the whole match; left out: [\d,]+ Acks sent and [\d,]+ .*", whole[2]
    )
    assert whole[-1] == "```"
    arrows = [line for line in whole if "->>" in line]
    # A Play says its move: "Play L=7 (5♥ from Nerts up) seq 3 view 0".
    move = r"(.+ to pile \d|.+ up|turn stock|stuck|Nerts!)"
    play = rf"    s[12]->>s[12]: Play L=\d+ \({move}\) seq \d+ view 0"
    assert any(re.fullmatch(play, a) for a in arrows), arrows
    assert not any(": Ack " in a for a in arrows) and any(
        ": Ack " in a for a in merged.part(acks=True).mermaid().splitlines()
    )
    notes = [line for line in whole if line.startswith("    Note over s1: ")]
    assert re.fullmatch(r"    Note over s1: commits? #1(-#\d+)? digest [0-9a-f]{8}", notes[0])
    last = max(e.at for e in merged.events)
    empty = merged.part(last + 1, last + 2).mermaid().splitlines()
    assert empty == [*whole[:2], empty[2], *whole[3:5], "```"]
    middle = merged.part(last / 3, 2 * last / 3).mermaid().splitlines()
    assert 6 < len(middle) < len(whole)
    out, shiviz = tmp_path / "window.md", tmp_path / "window.shiviz"
    args = ["trace", *map(str, played[0]), "--mermaid", str(out), "--shiviz", str(shiviz)]
    assert main([*args, "--window", ":1"]) == 0
    assert out.read_text().startswith("```mermaid\nsequenceDiagram\n    %% seconds 0 to 1 ")
    assert shiviz_problems(shiviz.read_text()) == []
    said = capsys.readouterr().err
    assert said.startswith(f"p2pnerts trace: {shiviz} and {out} show seconds 0 to 1 of the ")
    assert "Acks received" in said and "(--acks keeps them)" in said
    assert main([*args, "--acks"]) == 0
    assert " Ack L=" in shiviz.read_text() and ": Ack L=" in out.read_text()
    assert "the whole match, every frame" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["trace", str(played[0][0]), "--window", "5:1"])


async def test_a_stopped_log_hears_nothing_more_of_its_peer(tmp_path: Path) -> None:
    """As a match winds down a link may still hand the peer a message: the log, stopped,
    must no longer be hooked to hear it (a peer died on "write to closed file" so)."""
    peer = SimpleNamespace(
        table=bytes(16),
        name="Ann",
        seat=0,
        roster=(),
        replica=SimpleNamespace(by_majority=False, on_commit=[]),
        traffic=[],
        frame_traffic=[],
        watchers=[],
    )
    stop = keep_log(peer, tmp_path, "", print)  # type: ignore[arg-type]
    assert stop is not None and len(peer.traffic) == len(peer.frame_traffic) == 1
    assert len(peer.watchers) == 1
    hear = peer.traffic[0]
    stop()
    assert peer.traffic == peer.frame_traffic == peer.watchers == peer.replica.on_commit == []
    assert peer.log_path.stat().st_size > 0  # (its header, written as it began)
    with pytest.raises(ValueError, match="closed file"):
        hear(False, 1, Ack(1, 0, 1, 1, (), 0, bytes(16)))  # (what a hook left behind met)


def test_a_seat_that_came_back_in_a_new_process_is_one_lane_over_its_logs(
    tmp_path: Path,
) -> None:
    """Bea's process stopped and a new one took up her seat: two logs of seat 2, one lane,
    its clock going on from the first to the second at an event that says so."""
    roster = (Seat(0, "Ann", "", 9), Seat(1, "Bea", "", 10))
    wall = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)

    def log(seat: int, start: float) -> GameLog:
        at = wall + datetime.timedelta(seconds=start)
        table, name = bytes(16), "t"
        return GameLog.start(
            tmp_path,
            table=table,
            name=name,
            seat=seat,
            roster=roster,
            options="",
            now=start,
            wall=at,
        )

    first, second = (Ack(1, 0, 1, n, (n, 0), 0, bytes(16)) for n in (1, 2))
    ann, bea, again = log(0, 0.0), log(1, 0.0), log(1, 5.0)
    bea.frame(True, None, first, 1.0)
    ann.frame(False, 1, first, 1.1)
    again.frame(True, None, second, 6.0)
    ann.frame(False, 1, second, 6.1)
    for each in (ann, bea, again):
        each.close()
    merged = trace([ann.path, again.path, bea.path])  # (in any order)
    assert merged.hosts == ("s1-Ann", "s2-Bea")
    lane = [(e.kind, e.clock) for e in merged.events if e.host == "s2-Bea"]
    assert lane == [("send", {"s2-Bea": 1}), ("restart", {"s2-Bea": 2}), ("send", {"s2-Bea": 3})]
    (restart,) = (e for e in merged.events if e.kind == "restart")
    assert restart.text == "a new process takes up the seat (its log 2 of 2)" and restart.at == 5.0
    received = [e.clock for e in merged.events if e.host == "s1-Ann"]
    assert received == [{"s1-Ann": 1, "s2-Bea": 1}, {"s1-Ann": 2, "s2-Bea": 3}]
    assert shiviz_problems(merged.part(acks=True).shiviz()) == []
    assert "Note over s2: a new process takes up the seat" in merged.part(acks=True).mermaid()
    with pytest.raises(TraceError, match="two logs of seat 2 overlap in time"):
        trace([ann.path, bea.path, bea.path])
