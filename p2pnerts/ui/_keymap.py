"""Every key of the table screen, as the help overlay and ``ui/KEYS.md`` list them."""

from __future__ import annotations

KEYMAP: tuple[tuple[str, str], ...] = (
    ("n", "select the top card of your Nerts pile"),
    ("w", "select the top card of your waste"),
    ("1 2 3 4 5", "select a work pile's top card; with one selected: move it there"),
    ("1-5 again", "the selected pile again: one card more in the block (or ↑ ↓)"),
    ("f", "send the selected card to a foundation"),
    ("b", "best move for the selected card (none selected: any card)"),
    ("space", "turn the stock onto the waste"),
    ("x", "call Nerts! (once your Nerts pile is empty)"),
    ("d", "declare stuck (declared for you when nothing can move)"),
    ("Esc", "drop the selection"),
    ("Enter", "ready for the first round, or after a round for the next one"),
    ("e", "end the match here while the table waits for a silent seat"),
    ("c  a", "show or hide the classroom pane: clocks, messages, peers; a: Acks"),
    ("?", "show or hide this help"),
    ("q  Ctrl-C", "quit (asks first mid-match; Ctrl-C always asks: again or y leaves)"),
    ("mouse", "click a card, then where it goes; click the stock to turn it"),
)
"""(keys, what they do), in the order the help lists them."""

SPOKEN = {" ": "space", "c-m": "Enter", "c-j": "Enter", "c-i": "Tab", "escape": "Esc"}
"""Keys whose names a person would not recognise as prompt_toolkit gives them."""


def unknown_key(key: str) -> str:
    """What a screen says of a key it has no use for: that it does nothing, and where the
    keys are listed (``key`` as prompt_toolkit names it)."""
    name = SPOKEN.get(key, getattr(key, "value", key))
    return f"{name!r} does nothing here: ? lists every key"
