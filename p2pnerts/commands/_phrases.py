"""A private table's passphrase as a person makes one: three generated words offered
(``host --passphrase`` with none), and a word of warning for one that is weak.

The words come from the BIP-39 English list (the `mnemonic` package): 2,048 common words
of 3 to 8 letters, no two alike in their first four, so each is easy to say aloud, hear
and type. Three of them, drawn by the OS's randomness, are one of 8.6 billion passphrases;
against a host that allows 20 wrong guesses a minute (`net._guesses`), that is some
400 years of guessing on average.
"""

from __future__ import annotations

import re
import secrets
import sys
from functools import cache

from mnemonic import Mnemonic

GENERATED_WORDS = 3
STRONG_WORDS = 3
"""A passphrase of this many words or more is not called weak, whatever its length."""
STRONG_LENGTH = 16
"""Nor one of this many characters or more."""


@cache
def _words() -> list[str]:
    return list(Mnemonic("english").wordlist)


def generated() -> str:
    """A new passphrase: `GENERATED_WORDS` words from the list, joined by '-'."""
    return "-".join(secrets.choice(_words()) for _ in range(GENERATED_WORDS))


def weakness(passphrase: str) -> str | None:
    """Why ``passphrase`` is weak against a stranger's online guesses (a word or two, and
    short: the kind of passphrase people choose, and guess), or None."""
    words = [w for w in re.split(r"[\W_]+", passphrase) if w]
    if len(words) >= STRONG_WORDS or len(passphrase) >= STRONG_LENGTH:
        return None
    many = "one word" if len(words) <= 1 else f"{len(words)} words"
    return f"{many}, {len(passphrase)} characters"


def tell_passphrase(passphrase: str, *, offered: bool) -> None:
    """Tell the host's person the passphrase made up for them (``offered``), or warn them
    that the one they chose is weak; nothing for a strong one of their own."""
    if offered:
        print(
            f"This table's passphrase: {passphrase}  (say it to the players; they give it"
            " with --passphrase or --ask-passphrase)",
            flush=True,
        )
    elif (why := weakness(passphrase)) is not None:
        print(
            f"p2pnerts: warning: the passphrase is weak ({why}): anyone on the network may"
            " try 5 guesses a minute from an address, 20 in all; --passphrase with no words"
            " makes up three",
            file=sys.stderr,
            flush=True,
        )
