"""What the lab saw happen, step by step: the lines of the time-space diagram, and the notes
a teacher points at (races, ties, a Nerts call with plays in the air, suspicions, views).

The `Chronicle` watches a `Simulation` (it is one of its watchers): every message sent and
received, and every replica after each step with the events it told. A verdict is told by
every replica alike; the chronicle notes it once, from the first replica to reach it, with
the reason the agreed order gives — the two plays' ordering keys side by side.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from p2pnerts.protocol import (
    Ack,
    Event,
    Message,
    PeerExcluded,
    PeerRejoined,
    PeerSuspected,
    Play,
    PlayCommitted,
    PlayReturned,
    Replica,
    RoundOver,
    RoundStarted,
    Status,
    ViewInstalled,
    order_key,
    order_reason,
)
from p2pnerts.rules import CallNerts, TieRule, ToFoundation

Key = tuple[int, int, int]
_UNSEEN = (-1, -1, b"")
"""A replica not seen playing in a view (since it was let back in)."""
LINES = 600
"""Diagram lines kept (the screen shows the newest that fit)."""


class Mark(Enum):
    """What a line of the time-space diagram shows, on one lane or between two: each has
    its own glyph on the screen, and one meaning (the legend names each once)."""

    SEND = "send"
    ARRIVE = "arrive"
    COMMIT = "commit"
    BACK = "back"
    """A play's card sent back where it came from."""
    TIE = "tie"
    """Two plays with equal clocks for one spot, both cards staying (both-stay)."""
    NEWS = "news"
    FAULT = "fault"
    """A fault struck or lifted, by the lesson's script or by the teacher's key."""


@dataclass(frozen=True, slots=True)
class Line:
    """One line of the diagram: at ``seat``'s lane (from ``src``'s for an arrival)."""

    step: int
    time: float
    mark: Mark
    seat: int
    text: str
    src: int = -1
    quiet: bool = False
    """An Ack (a heartbeat, too): shown dim, and hidden when Acks are."""
    alert: bool = False


class Kind(Enum):
    """What a note is about: the points the lessons make."""

    RACE = "race"
    TIE = "tie"
    NERTS = "nerts"
    SUSPECT = "suspect"
    VIEW = "view"
    REJOIN = "rejoin"
    ROUND = "round"
    FAULT = "fault"


@dataclass(frozen=True, slots=True)
class Note:
    """Something worth pointing at, with the reason the order gives."""

    step: int
    time: float
    kind: Kind
    text: str
    reason: str = ""
    seats: tuple[int, ...] = ()
    keys: tuple[Key, ...] = ()
    """The ordering keys of the plays it is about."""


class Chronicle:
    """The diagram's lines and the notes of one run, as a `Watcher` of its `Simulation`."""

    def __init__(self, peers: int, tie_rule: TieRule) -> None:
        self.peers, self.tie_rule = peers, tie_rule
        self.step = 0
        """The step being taken (set by the lab before each)."""
        self.count = 0
        """How many things happened so far: a step is over once this has grown."""
        self.lines: deque[Line] = deque(maxlen=LINES)
        self.notes: list[Note] = []
        self._plays: dict[tuple[int, int], Play] = {}
        """Plays sent this round, by (seat, clock)."""
        self._decided: set[tuple[int, int]] = set()
        self._on: dict[int, list[Play]] = {}
        """Per foundation, the plays that stayed on it this round, in order."""
        self._at_call: dict[tuple[int, int], tuple[int, int]] = {}
        """Plays in the air when a Nerts call was sent: the call's (seat, clock) each."""
        self._called: Play | None = None
        """The Nerts call that ended this round, once it has committed."""
        self._round = 0
        self._committed: list[int] = [0] * peers
        self._views: set[tuple[int, tuple[int, ...]]] = set()
        self._seen: list[tuple[int, int, bytes]] = [_UNSEEN] * peers
        """Each replica as last stepped playing in a view: (view, committed, digest)."""
        self._back: set[int] = set()
        """Seats let back into a view and still rebuilding the table."""

    # --- the Watcher's three calls -----------------------------------------------------

    def sent(self, seat: int, message: Message, now: float) -> None:
        if isinstance(message, Play):
            self._sent_play(seat, message)
        text = f"{_kind(message)} L={message.clock} {_gist(message)}".rstrip()
        self._line(now, Mark.SEND, seat, text, quiet=isinstance(message, Ack))

    def arrived(self, src: int, dst: int, message: Message, now: float) -> None:
        text = f"{_kind(message)} L={message.clock}"
        self._line(now, Mark.ARRIVE, dst, text, src=src, quiet=isinstance(message, Ack))

    def stepped(self, seat: int, replica: Replica, events: Sequence[Event], now: float) -> None:
        gained = replica.committed - self._committed[seat]
        self._committed[seat] = replica.committed
        if gained > 0:
            self._line(now, Mark.COMMIT, seat, f"commits {gained} (now {replica.committed})")
        for event in events:
            self._event(seat, event, now)
        self._caught_up(seat, replica, now)

    def restarted(self, seat: int) -> None:
        """A crashed seat's replica starts again from its disk: it has committed nothing."""
        self._committed[seat] = 0
        self._seen[seat] = _UNSEEN

    def fault(self, now: float, text: str, by: str) -> None:
        """A fault struck or lifted, or refused, ``by`` the lesson or the teacher."""
        self._line(now, Mark.FAULT, -1, f"{by}: {text}", alert=True)
        self.notes.append(Note(self.step, now, Kind.FAULT, text))

    # --- notes --------------------------------------------------------------------------

    def _sent_play(self, seat: int, play: Play) -> None:
        self._plays[seat, play.clock] = play
        if isinstance(play.move, CallNerts):
            undecided = [key for key in self._plays if key not in self._decided]
            for key in undecided:
                if key[0] != seat:
                    self._at_call[key] = (seat, play.clock)

    def _event(self, seat: int, event: Event, now: float) -> None:
        match event:
            case PlayCommitted() | PlayReturned():
                self._verdict(seat, event, now)
            case PeerSuspected(seat=silent):
                self._line(now, Mark.NEWS, seat, f"suspects {silent + 1}", alert=True)
                self._note(
                    now,
                    Kind.SUSPECT,
                    f"seat {seat + 1} suspects seat {silent + 1}",
                    ("nothing heard from it for a second: no message, no heartbeat"),
                    (seat, silent),
                )
            case ViewInstalled(view=view, members=members):
                self._view(seat, view, members, now)
            case PeerExcluded(seat=out):
                self._line(now, Mark.NEWS, seat, f"leaves {out + 1} out", alert=True)
            case PeerRejoined(seat=back):
                self._line(now, Mark.NEWS, seat, f"lets {back + 1} back in", alert=True)
                if back not in self._back:
                    self._back.add(back)
                    self._seen[back] = _UNSEEN  # its commits from before count for nothing
            case RoundStarted(round=number) if not event.again:
                self._new_round(seat, number, now)
            case RoundOver(round=number, caller=caller) if not event.again:
                who = "everyone stuck" if caller is None else f"seat {caller + 1} called Nerts"
                self._line(now, Mark.NEWS, seat, f"round {number} over ({who})")

    def _new_round(self, seat: int, number: int, now: float) -> None:
        self._line(now, Mark.NEWS, seat, f"round {number} starts")
        if number > self._round:  # the first replica to start it: the plays are the round's
            self._round = number
            self._plays, self._decided, self._on, self._at_call = {}, set(), {}, {}
            self._called = None

    def _view(self, seat: int, view: int, members: tuple[int, ...], now: float) -> None:
        who = " ".join(str(m + 1) for m in members)
        self._line(now, Mark.NEWS, seat, f"view {view}: {who}", alert=True)
        if (view, members) in self._views:
            return
        self._views.add((view, members))
        out = [s + 1 for s in range(self.peers) if s not in members]
        seats = "seat" if len(out) == 1 else "seats"
        why = f"{seats} {' '.join(map(str, out))} left out" if out else "every seat is a member"
        # The first replica to install it: the other members install it as it reaches them.
        text = f"view {view} installed at seat {seat + 1}: members {who}"
        self._note(now, Kind.VIEW, text, why, members)

    def _caught_up(self, seat: int, replica: Replica, now: float) -> None:
        """Note a seat let back in once it has rebuilt the table: it plays in the view,
        having committed what another member of the view has (the same digest)."""
        if replica.status is Status.NORMAL:
            self._seen[seat] = (replica.view, replica.committed, replica.digest)
        for back in sorted(self._back):
            view, committed, _ = mine = self._seen[back]
            same = [s for s in range(self.peers) if s != back and self._seen[s] == mine]
            if mine == _UNSEEN or not same:
                continue
            self._back.remove(back)
            text = f"seat {back + 1} is back in the view and has caught up"
            reason = (
                f"it asked to rejoin, view {view} let it in, and it rebuilt the table from "
                f"the others: committed {committed}, as seat {same[0] + 1}"
            )
            self._note(now, Kind.REJOIN, text, reason, (back,))

    def _verdict(self, seat: int, event: PlayCommitted | PlayReturned, now: float) -> None:
        key = (event.seat, event.clock)
        play = self._plays.get(key)
        if key in self._decided or play is None:
            if isinstance(event, PlayReturned):
                self._line(now, Mark.BACK, seat, f"{event.seat + 1}'s L={event.clock} back")
            return
        self._decided.add(key)
        if isinstance(event, PlayCommitted):
            self._stays(seat, play, event, now)
        else:
            self._returned(seat, play, event, now)
        call = self._at_call.pop(key, None)
        if call is not None:
            self._at_the_call(play, self._plays[call], event, now)
        elif (called := self._ended_by(play)) is not None:
            self._at_the_call(play, called, event, now, made_after=True)

    def _stays(self, seat: int, play: Play, event: PlayCommitted, now: float) -> None:
        move = play.move
        if isinstance(move, CallNerts):
            self._called = play
            self._line(now, Mark.NEWS, seat, f"Nerts! by {play.sender + 1}", alert=True)
            return
        if not isinstance(move, ToFoundation):
            return
        placed = self._on.setdefault(move.foundation, [])
        if event.tie and placed:
            other = placed[-1]
            text = (
                f"TIE: seat {other.sender + 1}'s {_card(other)} and seat {play.sender + 1}'s "
                f"{move.card} on foundation {move.foundation + 1}"
            )
            reason = f"equal clocks L={play.clock}: both stay (tie rule both-stay)"
            self._note(now, Kind.TIE, text, reason, (other.sender, play.sender), (other, play))
            self._line(now, Mark.TIE, seat, f"tie: both stay L={play.clock}", alert=True)
        placed.append(play)

    def _returned(self, seat: int, play: Play, event: PlayReturned, now: float) -> None:
        move = play.move
        self._line(now, Mark.BACK, seat, f"{play.sender + 1}'s L={play.clock} back", alert=True)
        if not isinstance(move, ToFoundation) or not event.raced:
            return
        winner = next(
            (p for p in self._on.get(move.foundation, ()) if _rank(p) == move.card.rank), None
        )
        if winner is None:
            return
        text = (
            f"RACE: seat {winner.sender + 1}'s {_card(winner)} beat seat "
            f"{play.sender + 1}'s {move.card} to foundation {move.foundation + 1}"
        )
        kind = Kind.TIE if winner.clock == play.clock else Kind.RACE
        seats = (winner.sender, play.sender)
        self._note(now, kind, text, self.reason(winner, play), seats, (winner, play))

    def reason(self, first: Play, later: Play) -> str:
        """Why ``first`` comes before ``later`` in the agreed order, in the order's words."""
        a, b = (first.sender, self.key(first)), (later.sender, self.key(later))
        return order_reason(a, b, self.peers, self.tie_rule)

    def key(self, play: Play) -> tuple[int, int, int]:
        return order_key(play, self.peers, self.tie_rule)

    def _ended_by(self, play: Play) -> Play | None:
        """The Nerts call that ended the round, if ``play`` is ordered after it."""
        called = self._called
        if called is None or play is called or self.key(play) < self.key(called):
            return None
        return called

    def _at_the_call(
        self,
        play: Play,
        caller: Play,
        event: PlayCommitted | PlayReturned,
        now: float,
        *,
        made_after: bool = False,
    ) -> None:
        """A note on ``play``, in the air at ``caller``'s Nerts call or made after it."""
        when = "was made after" if made_after else "was in the air at"
        what = f"seat {play.sender + 1}'s play L={play.clock} {when} seat "
        what += f"{caller.sender + 1}'s Nerts call L={caller.clock}"
        if isinstance(event, PlayCommitted):
            reason = f"{self.reason(play, caller)}: ordered before the call, it counts"
        else:
            later, call = key_words(self.key(play)), key_words(self.key(caller))
            reason = f"key {later} after the call's {call}: it goes back"
        self._note(now, Kind.NERTS, what, reason, (play.sender, caller.sender), (play, caller))

    # --- recording ----------------------------------------------------------------------

    def _note(
        self,
        now: float,
        kind: Kind,
        text: str,
        reason: str,
        seats: tuple[int, ...],
        plays: tuple[Play, ...] = (),
    ) -> None:
        keys = tuple(self.key(play) for play in plays)
        self.notes.append(Note(self.step, now, kind, text, reason, seats, keys))

    def _line(
        self,
        now: float,
        mark: Mark,
        seat: int,
        text: str,
        *,
        src: int = -1,
        quiet: bool = False,
        alert: bool = False,
    ) -> None:
        self.count += 1
        self.lines.append(Line(self.step, now, mark, seat, text, src, quiet, alert))


def key_words(key: Key) -> str:
    """An ordering key as the screen writes it: (421,0,0)."""
    return f"({key[0]},{key[1]},{key[2]})"


def _rank(play: Play) -> int:
    move = play.move
    return move.card.rank if isinstance(move, ToFoundation) else -1


def _card(play: Play) -> str:
    move = play.move
    return str(move.card) if isinstance(move, ToFoundation) else "card"


def _kind(message: Message) -> str:
    return type(message).__name__


def _gist(message: Message) -> str:
    if isinstance(message, Play):
        move = message.move
        if isinstance(move, ToFoundation):
            return f"{move.card}→f{move.foundation + 1}"
        return "Nerts!" if isinstance(move, CallNerts) else ""
    return ""
