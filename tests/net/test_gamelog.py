"""Game logs: every frame and commit of a real match on loopback, read back whole, and a log
cut anywhere reads back as the records before the cut."""

from __future__ import annotations

import json
import os
import random
import re
from dataclasses import replace
from pathlib import Path

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
from p2pnerts.protocol import Message, Seat, decode
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
    # Named after the table where the seat knows its name: the host does, a seat that
    # joined by address does not.
    assert "-Den-co-seat1" in paths[0].name and "-table-seat2" in paths[1].name
    logs = [read_log(path) for path in paths]
    digests = []
    for seat, (header, records) in enumerate(logs):
        assert header["seat"] == seat and header["name"] == ("Den & co", "")[seat]
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
    """What breaks ShiViz's documented rules in a file meant for it: the parser on the first
    line (with the event, host and clock groups), the executions' delimiter on the second,
    then events whose clock is JSON naming their own host, that host's entry counting its
    events from 1 up by one, and every other entry an event of that host already seen whose
    clock this one's covers (happens-before)."""
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
        own = seen.setdefault(host, [])
        if clock.get(host) != len(own) + 1:
            problems.append(f"{host}'s event {len(own) + 1} has {clock.get(host)}")
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
    assert any(line.startswith("receive Play ") for line in lines)
    assert any(line.startswith("commit #1 digest ") for line in lines)
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


def trace_text(events: list[tuple[str, dict[str, int]]]) -> str:
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
    assert "two logs of one seat" in capsys.readouterr().err
    assert main(["trace", str(tmp_path / "missing.p2plog")]) == 1
    assert "missing.p2plog" in capsys.readouterr().err


def test_a_simulated_run_with_faults_logs_every_peer_and_traces_for_shiviz(tmp_path: Path) -> None:
    config = SimConfig(4, 1, MIXES["heavy"])
    unlogged = sim.run(config, [3], SimpleBots())
    logged = sim.run(replace(config, log=str(tmp_path)), [3], SimpleBots())
    assert logged.digest == unlogged.digest, "logging changes nothing in the run"
    logs = sorted(tmp_path.glob("*-sim-seed-3-seat*.p2plog"))
    assert len(logs) == 4
    text = trace(logs).shiviz()
    assert shiviz_problems(text) == []
    assert "receive StartView" in text or "receive ViewChange" in text, "heavy faults: views"


def test_a_window_of_the_match_is_drawn_as_a_mermaid_sequence_diagram(
    played: tuple[list[Path], list[str]], tmp_path: Path
) -> None:
    merged = trace(played[0])
    whole = merged.mermaid().splitlines()
    assert whole[:3] == [
        "sequenceDiagram",
        "    participant s1 as s1-Ann",
        "    participant s2 as s2-Bea",
    ]
    arrows = [line for line in whole if "->>" in line]
    assert any(re.fullmatch(r"    s[12]->>s[12]: Play L=\d+ seq \d+ view 0", a) for a in arrows)
    assert not any(": Ack " in a for a in arrows) and any(
        ": Ack " in a for a in merged.mermaid(acks=True).splitlines()
    )
    assert any(line.startswith("    Note over s1: commit #1 digest ") for line in whole)
    last = max(e.at for e in merged.events)
    assert merged.mermaid(last + 1, last + 2).splitlines() == whole[:3]
    middle = merged.mermaid(last / 3, 2 * last / 3).splitlines()
    assert 3 < len(middle) < len(whole)
    out = tmp_path / "window.mmd"
    assert main(["trace", *map(str, played[0]), "--mermaid", str(out), "--window", ":1"]) == 0
    assert out.read_text().startswith("sequenceDiagram\n")
    with pytest.raises(SystemExit):
        main(["trace", str(played[0][0]), "--window", "5:1"])
