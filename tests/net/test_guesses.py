"""A private table's host counts wrong passphrases (SPEC §2.9): per address and in all,
within a minute, on trio's clock."""

from __future__ import annotations

import trio

from p2pnerts.net._guesses import IN_ALL, PER_ADDRESS, WINDOW, Guesses
from p2pnerts.protocol import TableSecret


def _guesses() -> tuple[Guesses, list[str]]:
    told: list[str] = []
    return Guesses(TableSecret("lemon-orbit-seven"), told.append), told


async def test_an_address_is_refused_after_its_wrong_guesses_until_the_minute_is_over(
    autojump_clock: trio.abc.Clock,
) -> None:
    guesses, told = _guesses()
    for _ in range(PER_ADDRESS):
        assert guesses.refusal("10.0.0.5") is None
        guesses.wrong("10.0.0.5", "Eve")
        await trio.sleep(1)
    assert guesses.refusal("10.0.0.5") == (
        "try again in 55 s: too many wrong passphrases from 10.0.0.5"
    )
    assert guesses.refusal("10.0.0.6") is None  # another address may still try
    assert told[-1] == "10.0.0.5 is refused the passphrase for 60 s"
    await trio.sleep(WINDOW - PER_ADDRESS + 0.5)  # the first guess is a minute old
    assert guesses.refusal("10.0.0.5") is None


async def test_the_table_takes_only_so_many_wrong_guesses_from_everyone(
    autojump_clock: trio.abc.Clock,
) -> None:
    guesses, told = _guesses()
    for n in range(IN_ALL):
        guesses.wrong(f"10.0.1.{n}", "Eve")
    assert guesses.refusal("10.0.2.1") == (
        "try again in 60 s: too many wrong passphrases from everyone"
    )
    assert told[-1] == "every newcomer is refused the passphrase for 60 s"
    await trio.sleep(WINDOW)
    assert guesses.refusal("10.0.2.1") is None
    # Addresses whose guesses are a minute old are forgotten as the next one counts.
    guesses.wrong("10.0.3.1", "Eve")
    assert list(guesses._wrong) == ["10.0.3.1"]
