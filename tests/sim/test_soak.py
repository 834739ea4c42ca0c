"""The release soak (tools/soak.py): every table in turn, one report, the failures named."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from p2pnerts.sim import SeedResult, ViolationReport, run_seed

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

import soak


def test_the_soak_deals_seeds_to_every_table_in_turn_until_the_rounds_are_asked() -> None:
    assert soak.plan(6) == 3  # 2p, 3p and 4p without faults: two rounds each
    every = sum(table.rounds for table in soak.TABLES)
    assert soak.plan(every) == len(soak.TABLES)
    assert {t.mix for t in soak.TABLES} >= {"none", "heavy", "partition", "crash", "churn"}
    assert {t.peers for t in soak.TABLES} >= {2, 14} and any(t.teams for t in soak.TABLES)


def test_a_clean_soak_reports_every_table_it_ran_and_exits_0(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert soak.main(["--rounds", "6", "--jobs", "1", "--quiet", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["runs"], report["rounds"], report["failures"]) == (3, 6, [])
    assert list(report["tables"]) == ["2p none", "3p none", "4p none"]
    assert all(row["plays"] > 0 for row in report["tables"].values())


def test_a_seed_that_breaks_an_invariant_is_named_with_the_command_that_replays_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def breaks_on_3_peers(job: tuple, seed: int) -> tuple[SeedResult, None]:  # type: ignore[type-arg]
        result, _ = run_seed(job, seed)
        if job[0].peers == 3:
            broken = ViolationReport(seed, 1.5, "committed logs differ", ())
            result = replace(result, violation=broken)
        return result, None

    monkeypatch.setattr(soak, "run_seed", breaks_on_3_peers)
    assert soak.main(["--rounds", "6", "--seed", "7", "--jobs", "1", "--quiet"]) == 1
    out = capsys.readouterr().out
    assert "FAILED 3p none seed 7: committed logs differ" in out
    assert "replay it: p2pnerts sim --peers 3 --faults none --rounds 2 --seed 7 --seeds 1" in out
    assert out.rstrip().endswith("1 seed failed")
