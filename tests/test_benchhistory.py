"""The benchmarks' history (tools/benchhistory.py): figures named by their path, runs kept
in a file, and the last run on another commit compared."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

import benchhistory


def test_every_number_of_a_report_is_named_by_its_path_and_rows_by_what_they_are_about() -> None:
    report = {
        "tcp_rtt_us": 60,
        "speed": [{"peers": 4, "rounds_per_s": 5.5}, {"peers": 14, "rounds_per_s": 0.5}],
        "policies": [{"policy": "strong", "p99_ms": 2.0, "ok": True}],
        "rows": [{"x": 1}],
        "note": "text",
    }
    assert benchhistory.figures(report) == {
        "tcp_rtt_us": 60.0,
        "speed.4p.peers": 4.0,
        "speed.4p.rounds_per_s": 5.5,
        "speed.14p.peers": 14.0,
        "speed.14p.rounds_per_s": 0.5,
        "policies.strong.p99_ms": 2.0,
        "rows.0.x": 1.0,
    }


def test_a_run_is_compared_with_the_last_one_of_its_benchmark_on_another_commit(
    tmp_path: Path,
) -> None:
    path = tmp_path / "history.jsonl"
    benchhistory.record(path, "sim", {"speed": 4.0}, "aaa")
    benchhistory.record(path, "net", {"speed": 9.0}, "bbb")
    benchhistory.record(path, "sim", {"speed": 5.0}, "bbb")
    runs = benchhistory.read(path)
    assert [r["commit"] for r in runs] == ["aaa", "bbb", "bbb"]
    before = benchhistory.previous(runs, "sim", "bbb")
    assert before is not None and before["figures"] == {"speed": 4.0}
    assert benchhistory.previous(runs, "sim", "aaa") == runs[2]
    assert benchhistory.previous(runs, "ui", "ccc") is None
    lines = benchhistory.compare(before, runs[2])
    assert lines[0].startswith("since aaa (")
    assert lines[1].split() == ["speed", "4", "→", "5", "×1.250"]


def test_a_torn_line_is_skipped_and_the_file_keeps_its_last_runs(tmp_path: Path) -> None:
    path = tmp_path / "history.jsonl"
    benchhistory.record(path, "sim", {"speed": 1.0}, "aaa")
    with path.open("a", encoding="utf-8") as file:
        file.write('{"benchmark": "sim", "fig')
    for n in range(benchhistory.KEEP + 5):
        benchhistory.record(path, "sim", {"speed": float(n)}, f"c{n}")
    runs = benchhistory.read(path)
    assert len(runs) == benchhistory.KEEP
    assert runs[-1]["commit"] == f"c{benchhistory.KEEP + 4}"
    assert runs[0]["commit"] == "c5"
