"""The table in words: names of seats and teams, verbs that agree with them, counts, and
moves told in a few words.

`apart` tells two seats of one name apart ("root", "root (2)") and `marked` marks the
reader's own ("root (you)"); `together` and `deck_names` name a team by its players ("Ann &
Bea"); `says` and `whose` know that the ``play`` command's person is "You"; `counted`
writes "1 round", "2 rounds"; `move_words` tells a move ("7♥ to pile 2") and
`OUTCOMES` what became of it; `shown` is the
one guard on text from outside (a peer, a log, a file), its control characters written as
escapes. Pure text: it imports only `p2pnerts.rules`, so every layer above may speak
through it (net's narration, the screens, the replay).
"""

from p2pnerts.words._moves import OUTCOMES, move_words
from p2pnerts.words._names import (
    YOU,
    apart,
    counted,
    deck_names,
    either,
    marked,
    says,
    together,
    whose,
)
from p2pnerts.words._text import shown

__all__ = [
    "OUTCOMES",
    "YOU",
    "apart",
    "counted",
    "deck_names",
    "either",
    "marked",
    "move_words",
    "says",
    "shown",
    "together",
    "whose",
]
