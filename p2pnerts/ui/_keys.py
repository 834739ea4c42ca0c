"""The table screen's key bindings, made from the model they act on."""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.filters import Condition, Filter
from prompt_toolkit.key_binding import KeyBindings, KeyBindingsBase, KeyPressEvent

from p2pnerts.rules import NERTS, WASTE
from p2pnerts.ui._keymap import unknown_key
from p2pnerts.ui._leave import with_leave
from p2pnerts.ui._model import TableModel

Handler = Callable[[KeyPressEvent], None]


def create_key_bindings(model: TableModel) -> KeyBindingsBase:
    """The keys of `KEYMAP`, each a call on ``model`` (leaving ends the application)."""
    kb = KeyBindings()
    helping = Condition(lambda: model.help)
    playing = ~helping

    def on(*keys: str, filter: Filter = playing) -> Callable[[Handler], Handler]:
        return kb.add(*keys, filter=filter)

    def call(action: Callable[[], None], *keys: str) -> None:
        on(*keys)(lambda _: action())

    call(lambda: model.pick(NERTS), "n")
    call(lambda: model.pick(WASTE), "w")
    for k in range(model.options.work_piles):
        call(lambda k=k: model.pick(k), str(k + 1))  # type: ignore[misc]
    call(lambda: model.deepen(1), "up")
    call(lambda: model.deepen(-1), "down")
    call(model.to_foundation, "f")
    call(model.best, "b")
    call(model.turn_stock, " ")
    call(model.call_nerts, "x")
    call(model.declare_stuck, "d")
    call(model.cancel, "escape")
    call(model.next_round, "enter")
    call(model.stop_waiting, "e")

    @on("c")
    def _classroom(event: KeyPressEvent) -> None:
        model.classroom = not model.classroom

    @on("a")
    def _acks(event: KeyPressEvent) -> None:
        model.acks = not model.acks

    @on("?")
    def _help(event: KeyPressEvent) -> None:
        model.help = True

    @on("?", filter=helping)
    @on("escape", filter=helping)
    def _unhelp(event: KeyPressEvent) -> None:
        model.help = False

    @on("<any>")
    def _other(event: KeyPressEvent) -> None:
        model.notice = unknown_key(event.key_sequence[0].key)

    @kb.add("q")  # (from the help too)
    def _quit(event: KeyPressEvent) -> None:
        if model.snap.over:
            event.app.exit()
        else:
            model.help, model.leave.asking = False, True

    return with_leave(kb, model.leave)
