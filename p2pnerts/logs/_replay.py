"""A recorded match stepped through commit by commit (`p2pnerts replay`): the committed
order rebuilt from one seat's game log, and each commit's running digest computed again
and compared with the one the log recorded.

Theory of operation
-------------------
A log records the digest after every commit, but not which message each commit was.
`_replaying` finds that out as the seat did: it feeds the log's frames, in order and at
their times, to a new replica of the seat (the protocol's own code, its own messages
taken from the log), which commits what the seat committed and folds every commit into
the running digest; each digest is then compared with the log's, and a difference is
reported, never smoothed over.

The public table after each commit is kept. A seat's face-down cards are not on it (no
other seat saw them during the round); they come from the secret its deck revealed after
the round, checked as the round's audit checks it (`check_deck`), with the round's moves
applied again. Where the log holds no such reveal (the round was cut short, the log torn)
the replay says so, and shows those cards face down: it never guesses them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from p2pnerts.errors import UsageError
from p2pnerts.logs._format import LogError, LogReader
from p2pnerts.logs._replaying import Dealt, Driver, Step
from p2pnerts.protocol import (
    Leave,
    Message,
    Play,
    Ready,
    Reveal,
    RoundOver,
    Shuffle,
    StartView,
    check_deck,
    order_key,
    public_deal,
    with_own_deck,
)
from p2pnerts.rules import (
    BadOptions,
    Card,
    IllegalMove,
    Match,
    State,
    TableOptions,
    apply,
    options_from_summary,
)
from p2pnerts.words import OUTCOMES, move_words

__all__ = ["Dealt", "Replay", "ReplayError", "Step", "describe", "replay"]


class ReplayError(UsageError):
    """The log cannot be replayed: no such file, or not a game log."""

    context = "replay"


@dataclass(frozen=True, slots=True)
class Replay:
    """A seat's log replayed: every commit with its table and digests."""

    path: Path
    seat: int
    """The seat whose log it is."""
    names: tuple[str, ...]
    options: TableOptions
    steps: tuple[Step, ...]
    unreplayed: tuple[int, ...]
    """Commits the log records with a digest that the replay never made (each a
    difference; a commit recorded with none, the seat did not know either: it came back
    past it)."""
    torn: int
    """Bytes of a torn tail dropped from the log (0: it ends whole)."""
    notes: tuple[str, ...]
    """What else the replay met: frames that do not decode, frames the seat refused."""
    deals: Mapping[int, Dealt]
    shuffle: Shuffle
    table_id: str = ""
    _views: dict[tuple[int, int], list[State] | str] = field(default_factory=dict, compare=False)

    @property
    def seating(self) -> tuple[int, ...]:
        """The deck each seat plays."""
        return self.options.seating(len(self.names))

    @property
    def differing(self) -> list[int]:
        """The commits whose digest is not the log's, and those the replay never reached."""
        return [s.number for s in self.steps if s.matches is False] + list(self.unreplayed)

    def differing_words(self) -> str:
        """How many digests differ from the log, in words ('' if none does)."""
        n = len(self.differing)
        return "" if not n else f"{n} digest differs" if n == 1 else f"{n} digests differ"

    def round_starts(self) -> list[int]:
        """The index of the first step of each round on the table."""
        return [i for i, s in enumerate(self.steps) if i == 0 or s.round != self.steps[i - 1].round]

    def totals(self, index: int) -> tuple[int, ...]:
        """Every deck's match points after step ``index``."""
        decks = max(self.seating) + 1
        return Match.of_points(self.options, decks, self.steps[index].scores).totals

    def round_over(self, index: int) -> RoundOver | None:
        """The end of the round on the table at step ``index``, if it has ended by then."""
        number = self.steps[index].round
        for step in reversed(self.steps[: index + 1]):
            for event in step.events:
                if isinstance(event, RoundOver) and event.round == number:
                    return event
        return None

    def table(self, index: int, seat: int) -> State | None:
        """The table after step ``index`` as ``seat`` saw it: its own face-down cards known
        where the log shows them (`hidden` says why not)."""
        step = self.steps[index]
        states = self._seen(step.round, self.seating[seat])
        if step.public is None or isinstance(states, str) or step.moves >= len(states):
            return step.public
        return states[step.moves]

    def hidden(self, index: int, seat: int) -> str:
        """Why ``seat``'s face-down cards are not shown after step ``index`` ('': they are)."""
        step = self.steps[index]
        seen = self._seen(step.round, self.seating[seat])
        return seen if isinstance(seen, str) and step.public is not None else ""

    def _seen(self, number: int, deck: int) -> list[State] | str:
        """Round ``number``'s tables with ``deck``'s cards known, move by move; or why the
        log cannot show them."""
        if (number, deck) not in self._views:
            self._views[number, deck] = self._play_round(number, deck)
        return self._views[number, deck]

    def _play_round(self, number: int, deck: int) -> list[State] | str:
        order, why = self.deck_order(number, deck)
        if why:
            return why
        this = self.deals[number]
        state = with_own_deck(public_deal(self.options, self.seating, this.shown), deck, order)
        states = [state]
        for move, tie in this.moves:
            try:
                state, _ = apply(state, move, tie=tie)
            except IllegalMove:
                break  # the deck contradicts a move: the round's audit told it
            states.append(state)
        return states

    def deck_order(self, number: int, deck: int) -> tuple[tuple[Card, ...], str]:
        """``deck``'s order in round ``number``, or why the log cannot tell it."""
        this, before = self.deals.get(number), self.deals.get(number - 1)
        if this is None or deck not in this.shown:
            return (), f"deck {deck + 1} was not dealt in round {number}"
        secret = this.secrets.get(deck)
        if secret is None or this.seed is None or before is None:
            return (), f"face-down cards not in the log (no reveal of round {number}'s secret)"
        order, why = check_deck(
            self.options,
            self.shuffle,
            deck,
            number,
            this.seed,
            before.pledges.get(deck),
            secret,
            this.shown[deck],
        )
        return order, why and f"face-down cards not known: {why}"

    def summary(self, index: int, card: Callable[[Card], str] = str) -> str:
        """Step ``index``'s message in a few words: ``Play by Bea: 7♥ to pile 2 (landed)``."""
        step = self.steps[index]
        return describe(step.message, self.names, card, step.outcome)

    def key(self, index: int) -> tuple[int, int, int]:
        """Step ``index``'s place in the agreed order (`order_key`)."""
        message = self.steps[index].message
        return order_key(message, len(self.names), self.options.tie_rule)

    def to_json(self) -> dict[str, Any]:
        commits = [
            {
                "round": step.round,
                "index": step.number,
                "message": self.summary(k),
                "key": list(self.key(k)),
                "recorded": None if step.recorded is None else step.recorded.hex(),
                "recomputed": step.digest.hex(),
                "match": step.matches,
            }
            for k, step in enumerate(self.steps)
        ]
        return {
            "log": str(self.path),
            "table": self.table_id,
            "seat": self.seat,
            "torn": self.torn,
            "commits": commits,
            "unreplayed": list(self.unreplayed),
            "differing": len(self.differing),
            "notes": list(self.notes),
        }


def describe(
    message: Message, names: Sequence[str], card: Callable[[Card], str] = str, outcome: int = 0
) -> str:
    """A committed message in a few words, with what became of a play."""
    who = names[message.sender] if 0 <= message.sender < len(names) else f"seat {message.sender}"
    match message:
        case Play(move=move):
            return f"Play by {who}: {move_words(move, card)} ({OUTCOMES[outcome]})"
        case Ready(round=number):
            return f"Ready from {who} for round {number}"
        case Reveal(round=number):
            return f"Reveal from {who} of its round-{number} secret"
        case Leave():
            return f"Leave: {who} leaves the table"
        case StartView(view=view):
            return f"StartView from {who}: view {view} begins"
    return f"{type(message).__name__} from {who}"


def replay(path: Path) -> Replay:
    """Replay the log at ``path`` (`ReplayError` if it is not one), reading it a record at
    a time."""
    try:
        with LogReader(path) as log:
            seat, names, options, keys = _table(path, log.header)
            driver = Driver(log, seat, options, keys)
            driver.run()
    except LogError as exc:
        raise ReplayError(str(exc)) from None
    return Replay(
        path=path,
        seat=seat,
        names=names,
        options=options,
        steps=tuple(driver.steps),
        unreplayed=driver.unreplayed(),
        torn=log.torn,
        notes=tuple(driver.notes),
        deals=driver.deals,
        shuffle=driver.replica.shuffle,
        table_id=str(log.header["table"]),
    )


def _table(
    path: Path, header: dict[str, Any]
) -> tuple[int, tuple[str, ...], TableOptions, list[bytes]]:
    """The seat, the names, the options and the seats' keys a log's header gives."""
    try:
        seat, roster = int(header["seat"]), header["roster"]
        names = tuple(str(row[1]) for row in roster)
        keys = [bytes.fromhex(row[4]) for row in roster]
        options = options_from_summary(header["options"])
        options.seating(len(names))
    except (KeyError, TypeError, IndexError, ValueError, BadOptions) as exc:
        raise ReplayError(f"{path}: a header this version cannot read ({exc})") from None
    if not 0 <= seat < len(names):
        raise ReplayError(f"{path}: a header whose seat is not at its table")
    return seat, names, options, keys
