"""Rows of styled text that remember what each stretch shows: what a screen is drawn in."""

from __future__ import annotations

from dataclasses import dataclass, field

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
        if hit is not None:
            self.hits.append((self.width, self.width + len(text), hit))
        self.frags.append((style, text))
        self.width += len(text)
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
            out.frags.append((style, text[: max(left, 0)]))
            out.cut |= bool(text[max(left, 0) :].strip())
            left -= len(text)
        out.width = width
        return out

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


def fit(text: str, width: int) -> str:
    """``text``, or as much of it as ``width`` columns hold with "…" saying there is more."""
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def rule(title: str, width: int, style: str = "class:title") -> Row:
    row = Row().add("─ ", "class:rule").add(title, style).add(" ", "class:rule")
    return row.add("─" * max(width - row.width, 0), "class:rule")
