"""The signing benchmark (python tools/bench.py sign) signs a Play as a seat sends one, and
verifies what it signed."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

from benchmarks.sign import bench_sign


def test_the_sign_benchmark_signs_a_play_that_could_go_on_the_wire_and_times_both() -> None:
    # (It signed a stock turn that named no rotation, which no seat may send: it stopped
    # with a traceback before timing anything.)
    figures = bench_sign(argparse.Namespace(messages=3, json=True))["sign"]
    assert figures["messages"] == 3
    assert figures["sign_us"] > 0
    assert figures["verify_us"] > 0
