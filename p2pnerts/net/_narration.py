"""A seat's events told in words: one narration for the headless output and the screen.

A `Narrator` tells what a seat's replica reports, as that seat's player hears it: with
``you``, the seat itself is "You" (the table screen); without, every seat goes by its
name (a headless peer's output). Each telling is table news (rounds, seats coming and
going, audits) or a play (foundation plays, races, Nerts calls): the headless commands
print the news and show the plays only to whoever asked to watch them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from p2pnerts.protocol import (
    AuditFailed,
    AutoApplied,
    Diverged,
    Event,
    PeerExcluded,
    PeerLeft,
    PeerRecovered,
    PeerRefused,
    PeerRejoined,
    PeerStalled,
    PeerSuspected,
    PlayCommitted,
    PlayReturned,
    RejoinedTable,
    Returned,
    RoundMissed,
    RoundOver,
    RoundStarted,
    ShutOut,
    SitOut,
)
from p2pnerts.rules import (
    ROTATED,
    CallNerts,
    Card,
    DeclareStuck,
    Move,
    Rotate,
    SlideUnder,
    ToFoundation,
    ToWork,
    TurnStock,
    part_in_words,
)
from p2pnerts.words import YOU, deck_names, either, move_words, says, together, whose


@dataclass(frozen=True, slots=True)
class Told:
    """One event in words: a play, or news of the table."""

    text: str
    play: bool = False


@dataclass(frozen=True, slots=True)
class Narrator:
    """Tells seat ``seat``'s events in words, the seats named ``names``.

    ``seating`` is the deck of each seat (teammates share one); ``card`` writes a card
    (the screen may ask for ASCII suits); with ``scores`` a round's end lists every deck's
    points (the screen shows them in a table of its own instead).
    """

    names: tuple[str, ...]
    seating: tuple[int, ...]
    seat: int
    you: bool = False
    card: Callable[[Card], str] = str
    scores: bool = True

    def name(self, seat: int | None) -> str:
        """A seat's name as this seat's player reads it."""
        if seat is None:
            return "nobody"
        return YOU if self.you and seat == self.seat else self.names[seat]

    def team(self, teams: int) -> str:
        """Which team this seat plays in, of ``teams``, with whom, and its part."""
        me, mates = self.name(self.seat), self._mates(self.seat)
        part = part_in_words(self.seat, sorted([self.seat, *mates]))
        names = together([self.name(s) for s in mates])
        with_whom = f"with {names} — {whose(me, within=True)} part: {part}" if mates else "alone"
        return f"{says(me, 'is')} in team {self.seating[self.seat] + 1} of {teams}, {with_whom}"

    def tell(self, event: Event, moved_first: Sequence[int] | None = None) -> Told | None:
        """``event`` in words, or None if it is not told.

        ``moved_first`` names the teammates known to have moved first on a shared tableau
        when a play of this seat's goes back (None: not known; any teammate may have, when
        the play lost a race).
        """
        match event:
            case PlayCommitted() | PlayReturned() | AutoApplied():
                text = self._play(event, moved_first)
                return None if text is None else Told(text, play=True)
        text = self._news(event)
        return None if text is None else Told(text)

    def _news(self, event: Event) -> str | None:
        name = self.name
        match event:
            case RoundStarted(again=True) | RoundOver(again=True):
                return None  # told before this seat came back and replayed the round
            case RoundStarted(round=number):
                return f"round {number} starts"
            case RoundOver():
                return self._round_over(event)
            case RoundMissed(round=number, points=points):
                return f"round {number} over while you were away: {self._points(points)}"
            case PeerSuspected(seat=seat):
                return f"{says(name(seat), 'is')} silent"
            case PeerRecovered(seat=seat, silent_for=silent):
                return f"{says(name(seat), 'is')} heard again" + _after(silent, "silent")
            case PeerExcluded(seat=seat):
                return f"{says(name(seat), 'is')} left out; the table plays on"
            case PeerRejoined(seat=seat, away_for=float(away)):
                return f"{says(name(seat), 'is')} back" + _after(away, "away")
            case PeerRejoined(seat=seat):
                return f"{says(name(seat), 'is')} back at the table"
            case PeerLeft(seat=seat) if seat != self.seat:
                return f"{name(seat)} left the table; the others play on"
            case AuditFailed(round=number, seat=seat, reason=reason, points=None):
                return f"audit of round {number} failed {name(seat)}: {reason}"
            case AuditFailed(round=number, seat=seat, reason=reason, points=points):
                return (
                    f"audit of round {number} failed {name(seat)}: {reason}; "
                    f"{whose(name(seat))} round is void and scores {points:+d}"
                )
            case Diverged(seat=seat):
                return f"{whose(name(seat))} table differs from ours!"
            case PeerStalled(seat=seat, passed=False):
                return f"{name(seat)} talks on but acknowledges nothing: left out for a while"
            case PeerStalled(seat=seat):
                return (
                    f"{name(seat)} talks on but never says it passed more of the order: "
                    "left out for a while"
                )
            case PeerRefused(seat=seat, reason=reason):
                return f"{name(seat)} broke the protocol and is refused from now on: {reason}"
            case ShutOut(away_for=float(away)):
                return f"you were away for {_seconds(away)}; the others left you out and played on"
            case ShutOut():
                return "the others went on without you: rejoining"
            case Returned(away_for=away):
                return f"you were away for {_seconds(away)}; the table waited for you"
            case RejoinedTable(points=int(points)):
                me = self.names[self.seat].removesuffix(" (you)")  # (the screen marks it)
                return f"welcome back, {me}: your seat {self.seat + 1}, " + (
                    "1 point" if points == 1 else f"{points} points"
                )
            case RejoinedTable():
                return "you are back in"
            case SitOut(deals_next=True):
                return "you sit out this round (it began while you were away); you deal in the next"
            case SitOut():
                # (The next round's deck was to be pledged in a Ready of this one, §5.1.)
                return (
                    "you sit out this round (it began while you were away) and the next;"
                    " you deal in the one after"
                )
        return None

    def _round_over(self, over: RoundOver) -> str:
        """A round's end: who ended it, whether this seat sat it out, and (unless the
        screen shows them) every deck's points."""
        caller = over.caller
        if caller is not None:
            who = f"{self.name(caller)} called Nerts"
        else:
            who = "everyone stuck" if over.dealt else "no deck was dealt in"
        sat_out = bool(over.dealt) and self.seating[self.seat] not in over.dealt
        how = f"you sat out; {who}" if sat_out else who
        if not self.scores:
            # The screen has just told the call as a play: say only how it ended.
            told = how if sat_out or caller is None else ""
            return f"round {over.round} over" + (f" ({told})" if told else "")
        decks = self._decks()
        points = ", ".join(f"{decks[s.deck]} {s.points:+d}" for s in over.scores)
        return f"round {over.round} over ({how}): {points}"

    def _decks(self) -> tuple[str, ...]:
        return deck_names([self.name(s) for s in range(len(self.names))], self.seating)

    def _points(self, points: Sequence[int]) -> str:
        """Every deck's points in a round: ``Ann +12, Bea -4``."""
        decks = self._decks()
        return ", ".join(f"{decks[deck]} {p:+d}" for deck, p in enumerate(points))

    def _play(
        self, event: PlayCommitted | PlayReturned | AutoApplied, moved_first: Sequence[int] | None
    ) -> str | None:
        name = self.name
        match event:
            case AutoApplied(move=Rotate()):
                return "everyone was stuck: every stock turned over, its top card to the bottom"
            case PlayCommitted(seat=seat, move=ToFoundation(card=card), tie=tie):
                return f"{name(seat)} played {self.card(card)}" + (
                    ": a tie, both stay" if tie else ""
                )
            case PlayCommitted(seat=seat, move=CallNerts()):
                return f"{name(seat)} called Nerts!"
            case PlayCommitted(seat=seat, move=DeclareStuck()) if self.you and seat == self.seat:
                return "you are stuck: waiting for the others (or play a card)"
            case PlayReturned():
                return self._returned(event, moved_first)
        return None

    def _returned(self, event: PlayReturned, moved_first: Sequence[int] | None) -> str | None:
        """Who took the spot of a play that went back: the winner of a race; or, on a team's
        tableau, the teammates (one of whose moves, ordered first, changed the tableau
        under it). Only this seat's own plays are told when neither is known."""
        seat, move, winner = event.seat, event.move, event.winner
        mine = self.you and seat == self.seat
        loser = self.name(seat)
        if isinstance(move, ToFoundation) and winner is not None:
            beaten = "you" if loser == YOU else loser
            back = ": it goes back" if loser == YOU else ""
            return f"{self.name(winner)} beat {beaten} to {self.card(move.card)}{back}"
        if not mine and not isinstance(move, ToFoundation):
            return None
        if isinstance(move, TurnStock) and event.reason == ROTATED:
            moved_first = ()  # no teammate took it: the stocks rotated under it
        if moved_first is None:
            moved_first = self._mates(seat) if event.raced else ()
        what = self._gone_back(seat, move)
        if moved_first:
            return f"{either([self.name(s) for s in moved_first])} moved first: {what}"
        return f"{what}: {event.reason}" if mine else None

    def _gone_back(self, seat: int, move: Move) -> str:
        """A play that went back, in a few words: ``your 7♥ goes back``."""
        name = self.name(seat)
        owner = "your" if name == YOU else whose(name)
        match move:
            case ToFoundation(card=card) | ToWork(card=card) | SlideUnder(card=card):
                return f"{owner} {self.card(card)} goes back"
            case TurnStock():
                return f"{owner} stock turn is undone"
        return f"{owner} {move_words(move, self.card)} did not count"

    def _mates(self, seat: int) -> list[int]:
        """The other seats playing ``seat``'s deck."""
        deck = self.seating[seat]
        return [s for s, d in enumerate(self.seating) if d == deck and s != seat]


def _seconds(seconds: float) -> str:
    return f"{seconds:.1f} s"


def _after(seconds: float | None, how: str) -> str:
    """`` after 5.2 s away``, when the time is known."""
    return "" if seconds is None else f" after {_seconds(seconds)} {how}"
