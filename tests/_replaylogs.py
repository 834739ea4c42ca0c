"""Game logs for the replay's tests: a simulated match's, and a log rewritten with one
record changed (each record framed again, so that the change reads as whole)."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack

from p2pnerts import sim
from p2pnerts.bots import SimpleBots
from p2pnerts.logs import MAGIC, read_log
from p2pnerts.sim import MIXES, SimConfig


def sim_logs(
    directory: Path,
    *,
    seed: int = 7,
    rounds: int = 3,
    faults: str = "none",
    peers: int = 3,
    majority: bool = False,
) -> list[Path]:
    """The logs of a simulated match (of three seats, by default), seat by seat."""
    config = SimConfig(peers, rounds, MIXES[faults], log=str(directory), majority=majority)
    report = sim.run(config, [seed], SimpleBots())
    assert not report.violations
    return sorted(directory.glob("*.p2plog"))


def rewritten(
    path: Path, out: Path, change: Callable[[int, list[Any]], list[Any] | None]
) -> list[Any]:
    """Write ``path``'s log to ``out`` with the first record that ``change`` changes
    (given its index and the record) as it returns it; returns that record as it was."""
    header, records = read_log(path)
    body = [["header", header["clock"], header], *records]
    for index, record in enumerate(records):
        changed = change(index, record)
        if changed is not None:
            body[index + 1] = changed
            break
    else:
        raise AssertionError("no record to change")
    write_log(out, body)
    return records[index]


def write_log(out: Path, records: list[list[Any]]) -> None:
    """A log of ``records`` (its header first), each framed whole."""
    with out.open("wb") as file:
        file.write(MAGIC)
        for record in records:
            packed = msgpack.packb(record, use_bin_type=True)
            file.write(struct.pack(">II", len(packed), zlib.crc32(packed)) + packed)
