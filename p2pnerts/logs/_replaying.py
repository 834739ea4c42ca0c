"""Feeding a seat's game log to a replica of that seat, and gathering the commits it makes
(`p2pnerts.logs` reads them).

A log holds every frame its seat sent and received, in the order they happened, and the
digest after every commit (protocol/LOG.md), but not which message each commit was. It is
found out as the seat found it: a fresh replica of the seat — the protocol's own `Replica`,
not a copy of its rules — is fed the log again. Each frame received is received again at
its logged time, and time passes as the log says (``tick`` once the replica's deadline is
due). The replica is never asked to deal, to play or to sign: its own words come from the
log. Each message the seat sent goes out at its place in the log; when the replica would
send a message of its own accord (an Ack, a vote, a StartView) and the seat's next logged
message, sent before it received anything more, is of that kind, the logged one goes out
in its stead (`_Replaying.send`). The replica then commits what the seat committed, in the
same order, judges every race with the same arbiter and folds every commit into the
running digest with the same code.

At a table that commits by a majority the log holds the commit frames too. The replica
makes the seat's own Ballots and Tallies again from what it received (not signed: a seat
trusts its own), counts the others' as the seat did, and a commit is made where the seat
folded it, in the canonical order (`_Replaying.tell_commit`), with the events since the
last one (the plays that came back late among them).

A log that shows its seat asking to rejoin from scratch (a Rejoin its replica did not
ask) is of a seat that crashed and came back: a replica coming back takes over, as the
seat's did, and the commits go on from there. A seat let back in is taken to hold its
own deck, as the table checked then (`_Replaying.check_kept`: the log holds no secret).

The log is read a record at a time: what a record's turn needs from the records after it
(the seat's next message, where the next frame received is) is read ahead by readers of
its own (`_Ahead`), so that the replay holds its commits, never the log.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from p2pnerts.logs._format import COMMIT, RECEIVED, SENT, LogError, LogReader, frame_id
from p2pnerts.protocol import (
    Ack,
    CommitFrame,
    Disk,
    Event,
    Leave,
    LinkMessage,
    Message,
    Ordered,
    Pending,
    Play,
    ProtocolError,
    Ready,
    Rejoin,
    Replica,
    Reveal,
    SeatKey,
    Signer,
    StartView,
    Status,
    ViewChange,
    decode,
)
from p2pnerts.rules import Card, Move, State, TableOptions

NUMBERED = (Ack, Ready, Play, Leave, Reveal, ViewChange, StartView)
"""The kinds of message a seat numbers and sends through `Replica.send`."""


@dataclass(frozen=True, slots=True)
class Step:
    """One commit: the message, what became of it, the digests, and the table after it."""

    number: int
    """The commit's number, from 1."""
    message: Ordered | StartView
    outcome: int
    digest: bytes
    """The running digest after it, as the replay computed it."""
    recorded: bytes | None
    """The digest the log recorded for it (None: the log holds none)."""
    round: int
    """The round on the table after it (0 before the first is dealt)."""
    public: State | None
    moves: int
    """How many of its round's moves the table after it holds."""
    scores: tuple[tuple[int, ...], ...]
    """Every round's points per deck so far."""
    events: tuple[Event, ...]

    @property
    def matches(self) -> bool | None:
        """Whether the digest is the log's (None: the log holds none to compare)."""
        return None if self.recorded is None else self.recorded == self.digest


@dataclass(frozen=True, slots=True)
class Dealt:
    """What the log shows of one round's deal: the cards each deck dealt face up, the
    round's common seed, the secrets revealed after it and the pledges for the next."""

    shown: Mapping[int, tuple[Card, ...]]
    seed: bytes | None
    secrets: Mapping[int, bytes]
    pledges: Mapping[int, bytes]
    moves: tuple[tuple[Move, bool], ...]
    """Every move the round's table took, in order (and whether it stayed as a tie)."""


class _Plain(Signer):
    """Checks the seats' signatures, and signs nothing: the seat's own messages come from
    its log, signed as they were sent."""

    def __init__(self, seat: int, key: SeatKey, keys: list[bytes], table: bytes) -> None:
        super().__init__(key, keys, table)
        self.seat = seat

    def sign(self, message: Any) -> Any:
        return message

    def genuine(self, message: Message | CommitFrame) -> bool:
        # The seat's own words: from its log, or made here as it made them (a Ballot or a
        # Tally of its own, not signed again: its log does not hold its key).
        return message.sender == self.seat or super().genuine(message)


@dataclass(slots=True)
class _Made:
    """A commit as the replica made it, before its digest is folded."""

    number: int
    message: Ordered | StartView
    outcome: int
    round: int
    public: State | None
    moves: int
    scores: tuple[tuple[int, ...], ...]
    events: tuple[Event, ...]
    digest: bytes | None
    """The running digest after it, where it was folded at a majority's table (else: the
    log's, read once the frame's commits are gathered)."""


class _Ahead:
    """The records a replay looks ahead to, each kind read by a reader of its own as far
    as it is asked: the seat's next numbered message not sent yet, and the next frame
    received after a record."""

    def __init__(self, seat: int, log: LogReader) -> None:
        self._readers = [log.again(), log.again()]
        self._own = _numbered(seat, self._readers[0])
        self._heard = _heard(self._readers[1])
        self.own = next(self._own, None)
        """The seat's next numbered message as logged, (record index, message); None
        once every one has gone out."""
        self._next_heard = -1

    def take(self) -> Message:
        """The seat's next numbered message, gone out."""
        assert self.own is not None
        message, self.own = self.own[1], next(self._own, None)
        return message

    def heard_after(self, index: int) -> int:
        """The index of the first frame received after record ``index`` (larger than any
        index if none is)."""
        while self._next_heard <= index:
            self._next_heard = next(self._heard, sys.maxsize)
        return self._next_heard

    def close(self) -> None:
        for reader in self._readers:
            reader.close()


class _Replaying(Replica):
    """A seat's replica fed its log again, its own words taken from the log."""

    ahead: _Ahead
    horizon = 0
    """The record index of the next frame received: a message of the seat's own accord
    is one it sent before that."""
    logged: Message | None = None
    made: list[_Made]
    told = 0
    """At a majority's table, how many of the replica's events the commits made so far
    took (a commit takes the events since the one before it: the plays returned late
    too)."""
    scores: tuple[tuple[int, ...], ...] = ()
    """The match's points per round at the last commit, one tuple shared by the commits
    until a round's end changes them (a copy per commit grows with the match's length)."""

    def send(self, now: float, build: Callable[[int, int], Message]) -> Message:
        logged, self.logged = self.logged, None
        if logged is None:
            idea = build(self.acks.clock + 1, self.acks.have[self.seat] + 1)
            coming = self.ahead.own
            if coming is None or coming[0] >= self.horizon or type(coming[1]) is not type(idea):
                return idea  # the seat sent no such message here: none goes out
            logged = self.ahead.take()
        self.acks.clock = logged.clock - 1  # the clock it went out with
        return super().send(now, lambda _clock, _seq: logged)

    def check_kept(self, start: StartView) -> None:
        """Nothing to check: the seat's disk is not in its log (it deals nothing here), and
        the log shows the table let the seat back in."""

    def send_logged(self, index: int, now: float) -> None:
        """The seat's message at record ``index`` goes out, unless it went out already."""
        if self.ahead.own is not None and self.ahead.own[0] == index:
            logged = self.logged = self.ahead.take()
            self.send(now, lambda _clock, _seq: logged)

    def apply(self, message: Ordered | StartView, now: float) -> int:
        told = len(self.events)
        outcome = super().apply(message, now)
        if self.majority is None:
            self._made(self.log.committed + 1, message, outcome, told, None)
        return outcome

    def tell_commit(self, entry: Pending, outcome: int, *, content: bytes | None = None) -> None:
        super().tell_commit(entry, outcome, content=content)
        if self.majority is not None:  # folded in the canonical order, applied before it
            self._made(self.log.committed, entry.message, outcome, self.told, self.log.digest)
            self.told = len(self.events)

    def _made(
        self,
        number: int,
        message: Ordered | StartView,
        outcome: int,
        told: int,
        digest: bytes | None,
    ) -> None:
        if self.scores != (scores := tuple(self.match_scores)):
            self.scores = scores
        round_number = self.inplay.number
        this = self.dealing.rounds.get(round_number)
        moves = 0 if this is None else len(this.log)
        events = tuple(self.events[told:])
        self.made.append(
            _Made(
                number,
                message,
                outcome,
                round_number,
                self.inplay.public,
                moves,
                self.scores,
                events,
                digest,
            )
        )


class Driver:
    """Feeds a log to a replica of its seat, and gathers the commits it makes."""

    def __init__(self, log: LogReader, seat: int, options: TableOptions, keys: list[bytes]) -> None:
        self.log = log
        self.seat, self.options = seat, options
        computed = Signer.computed(seat, len(keys))  # a simulated table's keys
        if any(map(any, keys)):  # a table on the network: its keys, and its id
            self.signer = _Plain(seat, computed.key, keys, bytes.fromhex(log.header["table"]))
        else:
            self.signer = _Plain(seat, computed.key, list(computed.keys), computed.table)
        self.now = float(log.header["clock"])
        self.majority: bool = log.header["majority"]
        self.ahead = _Ahead(seat, log)
        self.replica = self._replica(None)
        self.rounds: dict[int, Any] = {}
        self.steps: list[Step] = []
        self.recorded: dict[int, bytes | None] = {}
        self.notes: list[str] = []
        self.deals: dict[int, Dealt] = {}

    def _replica(self, back_from: int | None) -> _Replaying:
        """A new replica of the seat, or (``back_from`` a view) one coming back."""
        players = len(self.signer.keys)
        if back_from is None:
            replica = _Replaying(
                self.seat,
                self.options,
                players,
                now=self.now,
                signer=self.signer,
                majority=self.majority,
            )
        else:  # it knows no deck: the disk it came back with is not in the log
            restarted = _Replaying.restart(
                self.seat,
                self.options,
                players,
                disk=Disk(view=back_from),
                now=self.now,
                signer=self.signer,
                majority=self.majority,
            )
            assert isinstance(restarted, _Replaying)
            replica = restarted
        replica.auto_stuck = False
        replica.ahead, replica.made = self.ahead, []
        return replica

    def run(self) -> None:
        """Feed the log to the replica, record by record (`LogError` if a record is not
        one a log holds)."""
        try:
            self._feed()
        finally:
            self.ahead.close()
        self._finish()

    def _feed(self) -> None:
        for index, record in enumerate(self.log):
            kind = record[0]
            if kind == COMMIT:
                self._recorded(index, record)
                continue
            message = self._message(index, record) if kind in (SENT, RECEIVED) else None
            if message is None:
                continue
            self.now = max(self.now, float(record[1]))
            self._pass_time(index, kind == RECEIVED)
            if kind == RECEIVED:
                self._receive(index, message, record[2])
            elif isinstance(message, CommitFrame):
                pass  # (the replica makes its own Ballots and Tallies again, as the seat did)
            elif isinstance(message, Rejoin):
                self._rejoin(message)
            else:
                self.replica.horizon = self.ahead.heard_after(index)
                self.replica.send_logged(index, self.now)
            self._gather()

    def _message(self, index: int, record: list[Any]) -> Message | CommitFrame | None:
        try:
            float(record[1])
            message = decode(record[3])
        except (ProtocolError, IndexError, TypeError, ValueError) as exc:
            self.notes.append(f"record {index + 1}: a frame that does not decode ({exc})")
            return None
        if not self.majority and isinstance(message, Ordered) and message.below:
            raise LogError(  # (its header does not say so: an earlier p2pnerts wrote it)
                f"record {index + 1}: this match was played committing by a majority, and its"
                " log holds none of the votes that commit it: it cannot be replayed"
            )
        return None if isinstance(message, LinkMessage) else message

    def _pass_time(self, index: int, receiving: bool) -> None:
        if self.now >= self.replica.next_deadline():
            self.replica.horizon = index if receiving else self.ahead.heard_after(index)
            self.replica.tick(self.now)

    def _receive(self, index: int, message: Message | CommitFrame, via: Any) -> None:
        self.replica.horizon = self.ahead.heard_after(index)
        try:
            self.replica.receive(message, self.now, via=via if isinstance(via, int) else None)
        except ProtocolError as exc:
            kind, who = type(message).__name__, message.sender + 1
            self.notes.append(f"record {index + 1}: seat {who}'s {kind} was refused: {exc}")

    def _rejoin(self, rejoin: Rejoin) -> None:
        """The seat asked to rejoin: if its replica here did not, the seat had crashed and
        came back."""
        if self.replica.status is Status.OUT:
            return
        self._keep_rounds()
        self.replica = self._replica(rejoin.view)

    def _recorded(self, index: int, record: list[Any]) -> None:
        try:
            number, digest = int(record[2]), record[3]
        except (IndexError, TypeError, ValueError):
            self.notes.append(f"record {index + 1}: a commit record that does not read")
            return
        self.recorded[number] = digest if isinstance(digest, bytes) else None

    def unreplayed(self) -> tuple[int, ...]:
        """The commits the log records with a digest that the replay did not make."""
        made = {step.number for step in self.steps}
        return tuple(sorted(n for n, d in self.recorded.items() if d is not None and n not in made))

    def _gather(self) -> None:
        """Take the commits the last frame made, each with its digest."""
        replica, last = self.replica, self.steps[-1].number if self.steps else 0
        for made in replica.made:
            if made.number <= last:
                continue  # made again by a replica coming back: the log counts it once
            fields = _fields(made)
            digest = fields.pop("digest") or replica.log.digests[made.number]
            self.steps.append(Step(digest=digest, recorded=None, **fields))
            last = made.number
        replica.made.clear()

    def _keep_rounds(self) -> None:
        self.rounds.update(self.replica.dealing.rounds)

    def _finish(self) -> None:
        """Give each step the digest the log recorded for it, and keep every round's deal."""
        for k, step in enumerate(self.steps):  # one at a time: no second list of steps
            self.steps[k] = replace(step, recorded=self.recorded.get(step.number))
        self._keep_rounds()
        self.deals = {
            number: Dealt(
                shown=dict(this.shown),
                seed=this.seed,
                secrets={deck: secret for deck, (_, secret) in this.shares.items()},
                pledges=dict(this.pledges),
                moves=tuple(this.log),
            )
            for number, this in self.rounds.items()
        }


def _fields(made: _Made) -> dict[str, Any]:
    return {name: getattr(made, name) for name in _Made.__slots__}


def _numbered(seat: int, log: LogReader) -> Iterator[tuple[int, Message]]:
    """The seat's numbered messages as it sent them, each once (a message is logged again
    when it is sent again to a seat that reconnects), with their record indices; up to a
    record that is not one a log holds, which the replay itself meets and refuses."""
    seen: set[bytes] = set()
    for index, record in _indexed(log):
        if record[0] != SENT:
            continue
        try:
            message = decode(record[3])
        except ProtocolError:
            continue
        if isinstance(message, NUMBERED) and message.sender == seat:
            copy = frame_id(record[3])
            if copy not in seen:
                seen.add(copy)
                yield index, message


def _heard(log: LogReader) -> Iterator[int]:
    """The record index of every frame received, as `_numbered` reads them."""
    return (index for index, record in _indexed(log) if record[0] == RECEIVED)


def _indexed(log: LogReader) -> Iterator[tuple[int, list[Any]]]:
    """The log's records with their indices, up to one that is not one a log holds."""
    try:
        yield from enumerate(log)
    except LogError:
        return
