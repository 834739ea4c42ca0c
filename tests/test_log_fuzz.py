"""A game log is input from a stranger (teachers pass logs around): `replay` and `trace`
refuse a malformed one with their one-line error, never another exception, whatever its
header or records hold, and read one within memory for what they show, not for the log.
The logs are made by hand from a real one, field by field, and by hypothesis."""

from __future__ import annotations

import copy
import io
import json
import struct
import tracemalloc
import zlib
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2pnerts import sim
from p2pnerts.bots import SimpleBots
from p2pnerts.logs import LARGEST, MAGIC, ReplayError, TraceError, read_log, replay, trace
from p2pnerts.protocol import Ballot, Poll, Tally, decode
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


def test_a_log_of_another_protocol_version_is_refused_in_one_line_naming_it(
    real: tuple[dict[str, Any], list[list[Any]]], tmp_path: Path
) -> None:
    header, records = real
    older = write(tmp_path / "v2.p2plog", [["header", 0.0, {**header, "protocol": 2}], *records])
    for read, refusal in (
        (lambda: replay(older), ReplayError),
        (lambda: trace([older]), TraceError),
    ):
        with pytest.raises(refusal, match="written in protocol version 2, and this p2pnerts reads"):
            read()


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


@pytest.fixture(scope="module")
def majority(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], list[list[Any]]]:
    """One seat's log of a four-seat simulated round at a table that commits by a majority
    (its commit frames in it): its header and its first 300 records."""
    where = tmp_path_factory.mktemp("majority")
    options = TableOptions(rounds=1)
    config = sim.SimConfig(4, 1, sim.MIXES["none"], options, log=str(where), majority=True)
    sim.run(config, range(1, 2), SimpleBots())
    header, records = read_log(sorted(where.rglob("*.p2plog"))[0])
    return header, records[:300]


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(which=st.integers(0, 10_000), at=st.integers(0, 10_000), byte=st.integers(0, 255))
def test_a_commit_frame_changed_anywhere_is_read_or_refused_in_one_line(
    majority: tuple[dict[str, Any], list[list[Any]]],
    tmp_path_factory: pytest.TempPathFactory,
    which: int,
    at: int,
    byte: int,
) -> None:
    header, records = majority
    framed = [
        i
        for i, r in enumerate(records)
        if r[0] == "received" and isinstance(decode(r[3]), Ballot | Tally | Poll)
    ]
    index = framed[which % len(framed)]
    frame = bytearray(records[index][3])
    frame[at % len(frame)] = byte
    crafted = [*records[:index], [*records[index][:3], bytes(frame)], *records[index + 1 :]]
    path = tmp_path_factory.mktemp("commits") / "crafted.p2plog"
    refused_or_read(write(path, [["header", 0.0, header], *crafted]))


def peak(read: Callable[[], object]) -> int:
    """The most bytes of memory Python held at once while ``read`` ran."""
    tracemalloc.start()
    try:
        read()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_log_is_read_within_memory_for_what_is_shown_not_for_the_log(
    real: tuple[dict[str, Any], list[list[Any]]], tmp_path: Path
) -> None:
    # 48 frames of nearly the most a record holds, none of which decodes, end a real log:
    # each is shown as one line, so the log takes hardly more memory to replay or to trace
    # than it does without them (less than 8 records' worth more, where reading the log
    # whole, as bytes and as records, took 24 MiB more).
    header, records = real
    plain = write(tmp_path / "plain.p2plog", [["header", 0.0, header], *records])
    junk = [["received", 1.0, 1, b"\xff" * (LARGEST - 64)]] * 48
    padded = write(tmp_path / "padded.p2plog", [["header", 0.0, header], *records, *junk])
    assert padded.stat().st_size - plain.stat().st_size > 40 * LARGEST
    for read in (replay, lambda path: trace([path])):
        assert peak(partial(read, padded)) - peak(partial(read, plain)) < 8 * LARGEST


def test_a_record_longer_than_any_a_log_holds_is_refused_and_a_cut_one_is_a_torn_tail(
    real: tuple[dict[str, Any], list[list[Any]]], tmp_path: Path
) -> None:
    header, records = real
    path = write(tmp_path / "long.p2plog", [["header", 0.0, header], *records[:5]])
    whole = path.read_bytes()
    path.write_bytes(whole + _HEAD.pack(LARGEST + 1, 0) + bytes(LARGEST + 1))
    with pytest.raises(ReplayError, match=f"record 6 is {LARGEST + 1:,} bytes, more than a"):
        replay(path)
    with pytest.raises(TraceError, match="record 6 is"):
        trace([path])
    # A length the file does not hold, however large, is a record cut short: the tail a
    # crash leaves, read up to.
    path.write_bytes(whole + _HEAD.pack(2**32 - 1, 0) + bytes(100))
    assert replay(path).torn == 108


def test_a_roster_name_longer_than_a_seats_is_refused(
    real: tuple[dict[str, Any], list[list[Any]]], tmp_path: Path
) -> None:
    # trace repeats a seat's name in every frame from it, and replay in every commit.
    header, records = real
    crafted = copy.deepcopy(header)
    crafted["roster"][1][1] = "n" * 33
    path = write(tmp_path / "named.p2plog", [["header", 0.0, crafted], *records])
    with pytest.raises(ReplayError, match="roster row 2 is not a seat"):
        replay(path)
    with pytest.raises(TraceError, match="roster row 2 is not a seat"):
        trace([path])


def test_a_trace_is_written_as_json_an_event_at_a_time_as_json_dump_writes_it_whole(
    real: tuple[dict[str, Any], list[list[Any]]], tmp_path: Path
) -> None:
    header, records = real
    merged = trace([write(tmp_path / "one.p2plog", [["header", 0.0, header], *records])])
    out = io.StringIO()
    merged.write_json(out)
    assert len(merged.events) > 100 and out.getvalue() == json.dumps(merged.to_json())
