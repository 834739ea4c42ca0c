"""Rows of styled text that remember what each stretch shows: what a screen is drawn in."""

from __future__ import annotations

from dataclasses import dataclass, field

from prompt_toolkit.utils import get_cwidth

from p2pnerts.ui._snapshot import Hit

Fragment = tuple[str, str]
_ASCII = str.maketrans("─│‥·»✓…␣‹›↑↓→←★×●▶◀▸✗◆↯", "-|~.>+._<>^v><*xo><>x*!")
"""One ASCII character for each other one the screen uses (suits are letters already)."""


@dataclass(slots=True)
class Row:
    """One screen row being built: styled fragments, and what each stretch shows."""

    frags: list[Fragment] = field(default_factory=list)
    width: int = 0
    hits: list[tuple[int, int, Hit]] = field(default_factory=list)
    cut: bool = False
    """Whether `clip` cut off something a person would have read (not only spaces)."""

    def add(self, text: str, style: str = "", hit: Hit | None = None) -> Row:
        wide = cells(text)
        if hit is not None:
            self.hits.append((self.width, self.width + wide, hit))
        self.frags.append((style, text))
        self.width += wide
        return self

    def pad(self, column: int, style: str = "") -> Row:
        if self.width < column:
            self.add(" " * (column - self.width), style)
        return self

    def clip(self, width: int) -> Row:
        """The row cut to ``width`` columns."""
        if self.width <= width:
            return self
        out, left = Row(hits=[h for h in self.hits if h[0] < width], cut=self.cut), width
        for style, text in self.frags:
            kept = cut(text, max(left, 0))
            out.frags.append((style, kept))
            out.cut |= bool(text[len(kept) :].strip())
            left -= cells(text)
        out.width = sum(cells(text) for _, text in out.frags)
        return out.pad(width)  # (a wide character cut at the edge leaves a column)

    def beside(self, other: Row, column: int) -> Row:
        """This row padded (or cut) to ``column``, then ``other`` after it."""
        left = self.clip(column).pad(column)
        joined = Row(left.frags + other.frags, column + other.width, list(left.hits))
        joined.hits += [(a + column, b + column, hit) for a, b, hit in other.hits]
        joined.cut = left.cut or other.cut
        return joined


@dataclass(slots=True)
class Frame:
    """A rendered screen: exactly ``height`` rows of at most ``width`` columns."""

    rows: list[Row]

    def hit(self, x: int, y: int) -> Hit | None:
        if not 0 <= y < len(self.rows):
            return None
        for start, end, hit in self.rows[y].hits:
            if start <= x < end:
                return hit
        return None

    def to_ascii(self) -> Frame:
        """The frame with every character outside ASCII replaced by one that is not."""
        for row in self.rows:
            row.frags = [(style, text.translate(_ASCII)) for style, text in row.frags]
        return self

    def text(self) -> str:
        """The screen as plain text (for captures and tests)."""
        return "\n".join("".join(t for _, t in row.frags).rstrip() for row in self.rows)


def cells(text: str) -> int:
    """How many columns ``text`` takes on a terminal (an emoji or a CJK character: two)."""
    return get_cwidth(text)


def cut(text: str, width: int) -> str:
    """As much of ``text``, from its start, as ``width`` columns hold."""
    if cells(text) <= width:
        return text
    used = 0
    for at, char in enumerate(text):
        used += get_cwidth(char)
        if used > width:
            return text[:at]
    return text


def fit(text: str, width: int) -> str:
    """``text``, or as much of it as ``width`` columns hold with "…" saying there is more."""
    return text if cells(text) <= width else cut(text, max(width - 1, 0)) + "…"


def filled(text: str, width: int) -> str:
    """``text`` cut to ``width`` columns and filled out to them with spaces."""
    text = cut(text, width)
    return text + " " * (width - cells(text))


def rule(title: str, width: int, style: str = "class:title") -> Row:
    row = Row().add("─ ", "class:rule").add(title, style).add(" ", "class:rule")
    return row.add("─" * max(width - row.width, 0), "class:rule")
