"""Text from outside shown as text: a name, a reason or a log field that came from a peer,
a log or a file cannot move the cursor, retitle or recolour the terminal it is printed on."""

from __future__ import annotations

import unicodedata

_KEPT = frozenset("\n")
"""The one control character printed as itself: the end of a line."""

_BIDI = frozenset({"LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"})
"""The bidirectional embeddings, overrides and isolates, which reorder what follows."""


def shown(text: str) -> str:
    """``text`` with every control character (C0, DEL, C1 — ESC, BEL, the 8-bit CSI) and
    every bidirectional override written as an escape (``\\x1b``), the rest as it is."""
    if text.isprintable():
        return text
    return "".join(ch if ch in _KEPT or not _hidden(ch) else _escape(ch) for ch in text)


def _hidden(ch: str) -> bool:
    category = unicodedata.category(ch)
    return category == "Cc" or (category == "Cf" and unicodedata.bidirectional(ch) in _BIDI)


def _escape(ch: str) -> str:
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
