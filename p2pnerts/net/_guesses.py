"""A private table's host counts the passphrases tried against it (SPEC §2.9).

SPAKE2 lets each run of the handshake test one guess, online, and no more: so what
stands between a stranger and a word like 'kitchen' is how many runs the host allows.
A run counts as a wrong guess whenever the opener got the host's proof (its SPAKE2 key
at work) and did not prove the passphrase back: a newcomer that says "wrong passphrase",
and one that goes quiet with the proof in hand, which is what an attacker does. The host
allows `PER_ADDRESS` a minute from one address and `IN_ALL` a minute from everyone;
beyond that it refuses the opener before any run, saying when to try again, and its
person reads each wrong guess and each limit reached.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

import trio

from p2pnerts.net._handshake import answer_link
from p2pnerts.net._link import Connection
from p2pnerts.protocol import Hello, SeatKey, TableSecret
from p2pnerts.words import shown

WINDOW = 60.0
"""Seconds over which wrong guesses are counted."""
PER_ADDRESS = 5
"""Wrong guesses one address may make in a `WINDOW`."""
IN_ALL = 20
"""Wrong guesses the table takes in a `WINDOW`, from every address together: a stranger
with many addresses tries at most this many a minute (some 29,000 a day, where a
passphrase of three generated words is one of 8 billion)."""


class Guesses:
    """A private table's passphrase at its host, and the wrong guesses tried against it."""

    def __init__(self, secret: TableSecret, report: Callable[[str], None]) -> None:
        self.secret = secret
        self._report = report
        self._wrong: dict[str, deque[float]] = {}
        self._all: deque[float] = deque()

    def refusal(self, address: str) -> str | None:
        """Why ``address`` may not try the passphrase now (the limits reached); None when
        it may."""
        now = self._prune()
        mine = self._wrong.get(address, deque())
        if len(mine) >= PER_ADDRESS:
            wait = mine[0] + WINDOW - now
            return f"try again in {wait:.0f} s: too many wrong passphrases from {address}"
        if len(self._all) >= IN_ALL:
            wait = self._all[0] + WINDOW - now
            return f"try again in {wait:.0f} s: too many wrong passphrases from everyone"
        return None

    def wrong(self, address: str, who: str) -> None:
        """Count a wrong guess from ``address`` (``who``: its name, shown), and tell."""
        now = self._prune()
        mine = self._wrong.setdefault(address, deque())
        mine.append(now)
        self._all.append(now)
        self._report(
            f"a wrong passphrase from {address} ({who}): {len(mine)} of {PER_ADDRESS} a"
            f" minute from there, {len(self._all)} of {IN_ALL} in all"
        )
        if len(mine) == PER_ADDRESS:
            self._report(f"{address} is refused the passphrase for {WINDOW:.0f} s")
        elif len(self._all) == IN_ALL:
            self._report(f"every newcomer is refused the passphrase for {WINDOW:.0f} s")

    def _prune(self) -> float:
        """Forget the guesses older than the window, and the addresses left with none (so
        at most `IN_ALL` are kept); the time now."""
        now = trio.current_time()
        while self._all and self._all[0] <= now - WINDOW:
            self._all.popleft()
        for address, mine in list(self._wrong.items()):
            while mine and mine[0] <= now - WINDOW:
                mine.popleft()
            if not mine:
                del self._wrong[address]
        return now


async def answer_private(
    conn: Connection,
    theirs: Hello,
    mine: Hello,
    key: SeatKey,
    guesses: Guesses | None,
    address: str,
) -> str | None:
    """`answer_link`, at a private table (``guesses`` not None) counting the run as a wrong
    guess from ``address`` unless the opener proves the passphrase, and refusing it before
    any run once the limits are reached. None once the opener is proven; else why not."""
    if guesses is None:
        return await answer_link(conn, theirs, mine, key)
    if theirs.pake and (limited := guesses.refusal(address)) is not None:
        return limited
    refused = await answer_link(conn, theirs, mine, key, guesses.secret)
    if refused is not None and theirs.pake:
        guesses.wrong(address, shown(theirs.name))
    return refused
