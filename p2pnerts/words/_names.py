"""The table in words: the names of seats and teams, and verbs that agree with them.

Scores are per deck, and at a table of teams a deck is a team's: a team is named by its
players ("You & Bot 1"). The ``play`` command seats its person as "You", who plays
rather than plays*s*: `says` and `whose` know that one name.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

YOU = "You"
"""The name that takes the second person."""

_SECOND_PERSON = {"is": "are", "was": "were", "has": "have", "goes": "go"}


def together(names: Sequence[str]) -> str:
    """Names as one: "Ann", "Ann & Bea", "Ann, Bea & Cy"."""
    if len(names) < 2:
        return "".join(names)
    return f"{', '.join(names[:-1])} & {names[-1]}"


def apart(names: Iterable[str]) -> tuple[str, ...]:
    """Names told apart: a name a seat before it took is numbered by its place among the
    seats of that name ("root", "root (2)"), so that two people of one login name can be
    told apart on every screen and line."""
    given = tuple(names)
    taken = set(given)
    seen: dict[str, int] = {}
    shown: list[str] = []
    for name in given:
        seen[name] = count = seen.get(name, 0) + 1
        if count > 1:
            while f"{name} ({count})" in taken:
                count += 1
            seen[name] = count
            name = f"{name} ({count})"
            taken.add(name)
        shown.append(name)
    return tuple(shown)


def marked(names: Sequence[str], seat: int) -> tuple[str, ...]:
    """The names with ``seat``'s marked as the reader's own ("root (you)"), unless it is
    already "You"."""
    return tuple(
        f"{name} (you)" if s == seat and name != YOU else name for s, name in enumerate(names)
    )


def deck_names(names: Sequence[str], seats: Sequence[int]) -> tuple[str, ...]:
    """The name of every deck: its seat's, or its team's players together. ``seats`` is
    the deck of each seat (``TableOptions.seating``)."""
    decks = max(seats, default=-1) + 1
    players = [[n for n, d in zip(names, seats, strict=True) if d == deck] for deck in range(decks)]
    return tuple(together(team) for team in players)


def says(name: str, verb: str) -> str:
    """``name`` doing ``verb`` (given in the third person singular), agreeing:
    "Bot 1 plays", "You play"; "Bot 1 is", "You are"."""
    if name != YOU:
        return f"{name} {verb}"
    return f"{name} {_SECOND_PERSON.get(verb, verb.removesuffix('s'))}"


def whose(name: str, *, within: bool = False) -> str:
    """The possessive of a name: "Bot 1's", "Your" ("your" ``within`` a sentence)."""
    if name == YOU:
        return "your" if within else "Your"
    return f"{name}'s"


def counted(number: int, noun: str) -> str:
    """A number of things, the noun agreeing: "1 round", "3 rounds"."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def either(names: Sequence[str]) -> str:
    """One of the names, whichever it was: "Ann", "Ann or Bea"."""
    return " or ".join(names)
