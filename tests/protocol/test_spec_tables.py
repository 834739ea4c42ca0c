"""SPEC's tables of the frames (§2.7's link frames, §3.1's messages, and version 3's commit
frames in the notes) name every field of every kind, in the codec's order: a peer written
from SPEC alone lays its frames out as this one does."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from p2pnerts.protocol._layouts import _COMMIT_LAYOUT, _LAYOUT, _LINK_LAYOUT

SPEC = (Path(__file__).resolve().parents[2] / "protocol" / "SPEC.md").read_text("utf-8")


def _rows(section: str, upto: str, column: int) -> dict[int, tuple[str, list[str]]]:
    """The kinds table of one section: kind number → (name, its fields in order, from the
    table's ``column``)."""
    text = SPEC[SPEC.index(section) : SPEC.index(upto)]
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.split("|")[1:-1]]
        if len(cells) >= 3 and cells[0].isdigit() and cells[1].isalpha():
            fields = cells[column]
            while (bare := re.sub(r"\([^()]*\)", "", fields)) != fields:
                fields = bare  # (what a field holds, in brackets, names no field)
            rows[int(cells[0])] = (cells[1], re.findall(r"^`(\w+)`|, `(\w+)`", fields))
    return {k: (name, [a or b for a, b in found]) for k, (name, found) in rows.items()}


# §3.1 and the notes: | kind | name | ordered or signed | fields |; §2.7: | kind | name | fields |
MESSAGES = _rows("### 3.1 The header", "### 3.2 The kinds", 3)
LINK_FRAMES = _rows("### 2.7 Forming a table", "### 2.8 Keys", 2)
COMMIT_FRAMES = _rows("### The commit frames", "**Their size.**", 3)


@pytest.mark.parametrize(
    ("tables", "layout"),
    [(MESSAGES, _LAYOUT), (LINK_FRAMES, _LINK_LAYOUT), (COMMIT_FRAMES, _COMMIT_LAYOUT)],
    ids=["§3.1", "§2.7", "commit frames"],
)
def test_every_kind_is_in_spec_with_its_fields_in_order(
    tables: dict[int, tuple[str, list[str]]], layout: dict[type, tuple[int, Any]]
) -> None:
    coded = {kind: (t.__name__, [n for n, _ in fields]) for t, (kind, fields) in layout.items()}
    assert tables == coded


def test_the_header_names_this_version() -> None:
    assert "| 0 | `version` | int | = 3 | §2.5 |" in SPEC
