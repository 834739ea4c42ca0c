"""The table screen for the commands that seat a person (play, host, join), loaded only
when one is shown, so that a bot, a headless seat or the simulator starts without
prompt_toolkit."""

from __future__ import annotations

from typing import TYPE_CHECKING

from p2pnerts.commands._config import SeatConfig

if TYPE_CHECKING:
    from p2pnerts.commands._screen import TableScreen
    from p2pnerts.commands._seats import Screen


def screen_for(seat: SeatConfig) -> Screen | None:
    """The table screen for a person's seat; none where a bot plays it."""
    return None if seat.headless else table_screen()


def table_screen() -> TableScreen:
    """The table screen, its modules loaded now."""
    from p2pnerts.commands._screen import TableScreen

    return TableScreen()
