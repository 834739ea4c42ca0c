"""A game log is input from a stranger (teachers pass logs around): `replay` and `trace`
refuse a malformed one with their one-line error, never another exception, whatever its
header or records hold. The logs are made by hand from a real one, field by field, and by
hypothesis."""

from __future__ import annotations

import copy
import struct
import zlib
from pathlib import Path
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2pnerts import sim
from p2pnerts.bots import SimpleBots
from p2pnerts.logs import MAGIC, ReplayError, TraceError, read_log, replay, trace
from p2pnerts.rules import TableOptions

_HEAD = struct.Struct(">II")


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], list[list[Any]]]:
    """One seat's log of a two-seat simulated round: its header and records."""
    where = tmp_path_factory.mktemp("logs")
    config = sim.SimConfig(2, 1, sim.MIXES["none"], TableOptions(rounds=1), log=str(where))
    sim.run(config, range(1, 2), SimpleBots())
    return read_log(sorted(where.rglob("*.p2plog"))[0])


def write(path: Path, records: list[Any]) -> Path:
    with open(path, "wb") as out:
        out.write(MAGIC)
        for record in records:
            body = msgpack.packb(record, use_bin_type=True)
            out.write(_HEAD.pack(len(body), zlib.crc32(body)) + body)
    return path


def refused_or_read(path: Path) -> None:
    """`replay` and `trace` of ``path``: each reads it or refuses it in its own words."""
    for read, refusal in ((lambda: replay(path), ReplayError), (lambda: trace([path]), TraceError)):
        try:
            read()
        except refusal as exc:
            assert str(exc) and "\n" not in str(exc).strip()


ODD: list[Any] = [None, True, -1, 2**64 - 1, 1.5, float("nan"), "", "x" * 300, b"\xff", [], {}]


@pytest.mark.parametrize(
    "field",
    ["p2pnerts", "protocol", "table", "name", "seat", "roster", "options", "started", "clock"],
)
def test_a_header_field_missing_or_odd_is_refused_in_one_line(
    real: tuple[dict[str, Any], list[list[Any]]], field: str, tmp_path: Path
) -> None:
    header, records = real
    for n, value in enumerate([*ODD, "missing"]):
        crafted = copy.deepcopy(header)
        if value == "missing":
            del crafted[field]
        else:
            crafted[field] = value
        refused_or_read(write(tmp_path / f"{n}.p2plog", [["header", 0.0, crafted], *records]))


def test_a_header_of_two_items_and_rosters_that_are_not_rosters_are_refused(
    real: tuple[dict[str, Any], list[list[Any]]], tmp_path: Path
) -> None:
    header, records = real
    refused_or_read(write(tmp_path / "two.p2plog", [["header", 0.0], *records]))
    rows = [[0, "Ann"], [5, "Ann", "", 1, "00"], [0, 1, 2, 3, 4], "row", [None] * 5]
    for n, row in enumerate(rows):
        crafted = copy.deepcopy(header)
        crafted["roster"] = [row, *header["roster"][1:]]
        refused_or_read(write(tmp_path / f"r{n}.p2plog", [["header", 0.0, crafted], *records]))


record_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**64 - 1),
    st.floats(allow_nan=True),
    st.text(max_size=8),
    st.binary(max_size=64),
    st.sampled_from(["sent", "received", "commit", "header"]),
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    at=st.integers(0, 10_000),
    record=st.lists(record_values, min_size=0, max_size=6),
    keep=st.integers(1, 40),
)
def test_any_record_put_among_real_ones_is_read_or_refused_in_one_line(
    real: tuple[dict[str, Any], list[list[Any]]],
    tmp_path_factory: pytest.TempPathFactory,
    at: int,
    record: list[Any],
    keep: int,
) -> None:
    header, records = real
    kept = records[:keep]
    crafted = [*kept[: at % (len(kept) + 1)], record, *kept[at % (len(kept) + 1) :]]
    path = tmp_path_factory.mktemp("fuzz") / "crafted.p2plog"
    refused_or_read(write(path, [["header", 0.0, header], *crafted]))


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(frame=st.binary(max_size=80), kind=st.sampled_from(["sent", "received"]))
def test_a_frame_that_is_not_one_is_read_or_refused_in_one_line(
    real: tuple[dict[str, Any], list[list[Any]]],
    tmp_path_factory: pytest.TempPathFactory,
    frame: bytes,
    kind: str,
) -> None:
    header, records = real
    crafted = [*records[:10], [kind, 1.0, 1, frame], *records[10:20]]
    path = tmp_path_factory.mktemp("frames") / "crafted.p2plog"
    refused_or_read(write(path, [["header", 0.0, header], *crafted]))
