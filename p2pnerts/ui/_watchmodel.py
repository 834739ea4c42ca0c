"""What a spectator's screen shows (`p2pnerts watch`): the streams the seats send it, folded.

The seats decide everything; this only keeps what the screen (or a headless line) reads:
the latest `Scene` of the seat it watches through (the host), every seat's clock, the
committed order with its keys, the races and ties with the reason the order gives, and the
messages for the time-space diagram: each drawn from its sender's own stream, so a message
between two seats that are not the host shows between their lanes.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from p2pnerts.net import SeenAt, Sight
from p2pnerts.protocol import (
    Ack,
    CommitFrame,
    Decided,
    LinkMessage,
    Message,
    Outcome,
    Play,
    RemoteProtocolError,
    Scene,
    Seen,
    decode_any,
    decode_payload,
    order_reason,
)
from p2pnerts.rules import NEW_FOUNDATION, TieRule, ToFoundation
from p2pnerts.ui._leave import Leave
from p2pnerts.ui._snapshot import Look
from p2pnerts.ui._words import message_gist
from p2pnerts.words import OUTCOMES

KEPT = 400
"""Commits and diagram arrows kept (the screen shows the latest)."""

Key = tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class Commit:
    """One committed message, as the watched seat decided it."""

    index: int
    key: Key
    seat: int
    kind: str
    what: str
    outcome: int
    race: str = ""
    """For a race lost or a tie: what happened and the reason the order gives."""


@dataclass(frozen=True, slots=True)
class Arrow:
    """One message of the time-space diagram, or (``commit``) a commit at the watched seat."""

    at: int
    """Milliseconds after the sending seat began to play (each seat counts from its start)."""
    sender: int
    to: int
    """The seat it went to; −1: every other seat."""
    label: str
    quiet: bool = False
    """An Ack (the heartbeat too): hidden unless asked for."""
    commit: bool = False


class WatchModel:
    """The spectator's screen's state, changed only by `hear` and the keys."""

    def __init__(self, where: str, look: Look | None = None) -> None:
        self.where = where
        self.look = look or Look()
        self.scene: Scene | None = None
        self.clocks: list[int] = []
        self.commits: deque[Commit] = deque(maxlen=KEPT)
        self.races: deque[Commit] = deque(maxlen=KEPT)
        self.arrows: deque[Arrow] = deque(maxlen=KEPT)
        self.acks = False
        """Whether the diagram shows Acks (they are also the heartbeat: many)."""
        self.help = False
        self.leave = Leave("Stop watching?", "watch on")
        self.ended = ""
        """Why the watch ended, once it has (the table closed, a refusal...)."""
        self.hearing: set[int] = set()
        """The seats other than the watched one whose own streams come in."""
        self._at = 0
        self._placed: dict[int, tuple[Key, int]] = {}
        """Per foundation this round, the key and seat of the play that last went there."""
        self._started = 0
        """Foundations started this round (a new one takes the next number)."""
        self._round = 0

    # --- what the table says -------------------------------------------------------------------

    def hear(self, sight: Sight) -> Commit | None:
        """Take one frame of the stream; the commit it tells, if it tells one."""
        match sight:
            case Scene():
                self.scene = sight
                self.clocks = [
                    max(a, b) for a, b in zip(sight.clocks, self._padded(sight), strict=True)
                ]
            case Seen():
                self._seen(sight, self.seat)
            case SeenAt():
                self.hearing.add(sight.seat)
                self._seen(sight.seen, sight.seat)
            case Decided():
                return self._decided(sight)
        return None

    def _padded(self, scene: Scene) -> list[int]:
        return (self.clocks + [0] * len(scene.clocks))[: len(scene.clocks)]

    def _seen(self, seen: Seen, at: int) -> None:
        """A message seat ``at`` sent or received. A receipt is drawn only when its sender's
        own stream does not come in (that stream draws the send, with every receiver)."""
        message = _said(seen.frame)
        if message is None:
            return
        sender, to = (at, seen.other) if seen.out else (message.sender, at)
        if sender < len(self.clocks):
            self.clocks[sender] = max(self.clocks[sender], message.clock)
        if at == self.seat:
            self._at = seen.at
        if not seen.out and (sender == self.seat or sender in self.hearing):
            return
        label = f"{type(message).__name__} L={message.clock} {message_gist(message, self.look)}"
        self.arrows.append(Arrow(seen.at, sender, to, label, isinstance(message, Ack)))

    def _decided(self, decided: Decided) -> Commit | None:
        message = _message(decided.frame)
        if message is None:
            return None
        key = (decided.clock, decided.call, decided.rank)
        what = message_gist(message, self.look)
        race = self._race(message, key, decided) if isinstance(message, Play) else ""
        commit = Commit(
            decided.index, key, message.sender, type(message).__name__, what, decided.outcome, race
        )
        self.commits.append(commit)
        if race:
            self.races.append(commit)
        label = f"#{decided.index} ({key[0]},{key[1]},{key[2]}) {OUTCOMES[decided.outcome]}"
        self.arrows.append(Arrow(self._at, self.seat, self.seat, label, commit=True))
        return commit

    def _race(self, play: Play, key: Key, decided: Decided) -> str:
        """What a race lost or a tie comes to, and why (the empty text for neither); and
        remember where each foundation play went, for the races to come."""
        if play.round != self._round:
            self._round, self._placed, self._started = play.round, {}, 0
        move = play.move
        if decided.outcome == Outcome.LATE:  # (any play, not only to a foundation)
            return decided.reason
        if not isinstance(move, ToFoundation):
            return ""
        foundation = move.foundation
        if decided.outcome == Outcome.RETURNED:
            return self._lost(play, key, decided, self._placed.get(foundation))
        if foundation == NEW_FOUNDATION:
            foundation, self._started = self._started, self._started + 1
        earlier = self._placed.get(foundation)
        self._placed[foundation] = (key, play.sender)
        if decided.outcome == Outcome.TIED:
            other = f" with {self.name(earlier[1])}" if earlier else ""
            return f"tie{other}: equal clocks L={key[0]}, both stay"
        return ""

    def _lost(self, play: Play, key: Key, decided: Decided, earlier: tuple[Key, int] | None) -> str:
        """What a foundation play returned comes to: a race lost to an earlier key."""
        if decided.winner < 0:
            return ""
        lost = f"race lost to {self.name(decided.winner)}"
        beaten = earlier is not None and earlier[1] == decided.winner
        why = self._why(earlier, key, play.sender) if earlier and beaten else ""
        return f"{lost}: {why or decided.reason}"

    def _why(self, earlier: tuple[Key, int], key: Key, seat: int) -> str:
        """The reason the order gives one play before the other (`order_reason`)."""
        (first, winner), scene = earlier, self.scene
        rule = scene.options.tie_rule if scene is not None else TieRule.SEAT
        seats = len(scene.names) if scene is not None else max(winner, seat) + 1
        return order_reason((winner, first), (seat, key), seats, rule)

    # --- what the screen reads --------------------------------------------------------------

    @property
    def seat(self) -> int:
        """The seat whose peer the spectator watches through."""
        return 0 if self.scene is None else self.scene.seat

    def name(self, seat: int) -> str:
        names = () if self.scene is None else self.scene.names
        return names[seat] if 0 <= seat < len(names) else f"seat {seat + 1}"  # (as lanes count)

    def arrows_shown(self) -> list[Arrow]:
        return [a for a in self.arrows if self.acks or not a.quiet]


def _message(frame: bytes) -> Message | None:
    """A carried frame's message; None if it does not decode (the seat is not to be
    trusted more than anyone)."""
    try:
        return decode_payload(frame)
    except RemoteProtocolError:
        return None


def _said(frame: bytes) -> Message | CommitFrame | None:
    """A message a seat sent or received, or (at a majority's table) a commit frame; None
    if it is neither or does not decode."""
    try:
        said = decode_any(frame)
    except RemoteProtocolError:
        return None
    return None if isinstance(said, LinkMessage) else said


def commit_line(commit: Commit, model: WatchModel) -> str:
    """One commit in a line (the headless output): its place, key, seat, what, outcome."""
    clock, call, rank = commit.key
    head = f"#{commit.index} ({clock},{call},{rank}) {model.name(commit.seat)} {commit.kind}"
    what = f" {commit.what}" if commit.what else ""
    tail = f" — {commit.race}" if commit.race else ""
    return f"{head}{what}: {OUTCOMES[commit.outcome]}{tail}"
