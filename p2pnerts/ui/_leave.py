"""Leaving a screen, the same on every one: Ctrl-C asks first, and a second Ctrl-C or ``y``
leaves; ``n`` or ``Esc`` stays. While the screen asks, no other key does anything, so a
line typed for the shell too soon changes nothing on the screen.

Every screen (the table, the lobby, the lab, the replay, the spectator's) keeps a `Leave`
in its model, draws its `words` while it asks, and adds its keys with `with_leave`; its
own ``q`` may quit at once or ask the same question (`Leave.asking`).
"""

from __future__ import annotations

from dataclasses import dataclass

from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import (
    ConditionalKeyBindings,
    KeyBindings,
    KeyBindingsBase,
    KeyPressEvent,
    merge_key_bindings,
)

from p2pnerts.ui._frame import Row, fit


@dataclass(slots=True)
class Leave:
    """A screen's question before it is left, and whether it is asking it now."""

    question: str = "Leave?"
    stay: str = "stay"
    """What answering no does, in words."""
    asking: bool = False

    @property
    def words(self) -> str:
        return f"{self.question} y or Ctrl-C: yes, leave   n or Esc: no, {self.stay}"

    def row(self, width: int) -> Row:
        """The question as a screen's line (in the alert style)."""
        return Row().add(fit(f" {self.words} ", width), "class:alert")


def with_leave(keys: KeyBindingsBase, leave: Leave) -> KeyBindingsBase:
    """A screen's ``keys``, and Ctrl-C asking `leave`'s question: while it asks, Ctrl-C
    or ``y`` ends the application, ``n`` or ``Esc`` stays, and every other key waits."""
    asking = Condition(lambda: leave.asking)
    kb = KeyBindings()

    @kb.add("c-c", filter=~asking)
    def _ask(event: KeyPressEvent) -> None:
        leave.asking = True

    @kb.add("<any>", filter=asking)
    def _wait(event: KeyPressEvent) -> None:
        pass

    @kb.add("c-c", filter=asking)
    @kb.add("y", filter=asking)
    def _leave(event: KeyPressEvent) -> None:
        event.app.exit()

    @kb.add("n", filter=asking)
    @kb.add("escape", filter=asking)
    def _stay(event: KeyPressEvent) -> None:
        leave.asking = False

    return merge_key_bindings([ConditionalKeyBindings(keys, ~asking), kb])
