"""What the lab saw happen, step by step: the lines of the time-space diagram, and the notes
a teacher points at (races, ties, a Nerts call with plays in the air, suspicions, views).

The `Chronicle` watches a `Simulation` (it is one of its watchers): every message sent and
received, every commit frame of a majority's table, and every replica after each step with
the events it told. A verdict is told by every replica alike; the chronicle notes it once,
from the first replica to reach it, with the reason the agreed order gives — the two
plays' ordering keys side by side.

At a majority's table (protocol version 3) each play is voted on by a Ballot from each
other member to its sender, and decided by the Tally its sender counts: the Tally carries
the Ballots of a quorum and goes to every seat. The chronicle draws each frame, keeps each
play's first Tally (`Count`: who voted for it, who late, who was not waited for) and tells
it in the notes on that play: a race's, and a play's that came back late.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from p2pnerts.lab._records import Count, Kind, Line, Mark, Note, key_words, seat_list
from p2pnerts.protocol import (
    Ack,
    Ballot,
    CommitFrame,
    Event,
    Message,
    PeerExcluded,
    PeerRecovered,
    PeerRejoined,
    PeerSuspected,
    Play,
    PlayCommitted,
    PlayReturned,
    Poll,
    RemoteProtocolError,
    Replica,
    RoundOver,
    RoundStarted,
    Status,
    Tally,
    ViewInstalled,
    decode_carried,
    order_key,
    order_reason,
    spots_conflict,
)
from p2pnerts.rules import NEW_FOUNDATION, CallNerts, TieRule, ToFoundation

_UNSEEN = (-1, -1, b"")
"""A replica not seen playing in a view (since it was let back in)."""
LINES = 600
"""Diagram lines kept (the screen shows the newest that fit)."""


class Chronicle:
    """The diagram's lines and the notes of one run, as a `Watcher` of its `Simulation`."""

    def __init__(
        self,
        peers: int,
        tie_rule: TieRule,
        *,
        majority: bool = False,
        depart_after: float = 10.0,
        exclude_after: float = 2.0,
    ) -> None:
        self.peers, self.tie_rule = peers, tie_rule
        self.majority = majority
        """A majority's table: its plays are decided by Ballots and Tallies."""
        self.depart_after, self.exclude_after = depart_after, exclude_after
        """How long a silent member is waited for before a view leaves it out: at a
        majority's table, and at a table that commits by acknowledgement."""
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
        self._numbered: dict[tuple[int, int], Message] = {}
        """At a majority's table, each ordered message by its sender and number (the
        Ballots, Tallies and Polls name a play so)."""
        self.counts: dict[tuple[int, int], Count] = {}
        """At a majority's table, each play's first Tally, by its (seat, clock)."""
        self._member_lists = [tuple(range(peers))] * peers
        """Each replica's members, as last stepped."""
        self._suspecting: dict[int, set[int]] = {}
        """Per seat suspected, the seats that suspect it now."""
        self._noted_back: set[int] = set()
        """Seats noted heard again after the silence they are (or were last) in."""
        self._gains: list[list[tuple[float, int]]] = [[] for _ in range(peers)]
        """Per seat, when it applied another play (a commit's time at a majority's table,
        where plays apply as they are decided), and how many it had then."""

    # --- the Watcher's three calls -----------------------------------------------------

    def sent(self, seat: int, message: Message, now: float) -> None:
        below: tuple[int, ...] = getattr(message, "below", ())
        if len(below) > seat:  # an ordered message at a majority's table: it names its number
            self._numbered[seat, below[seat]] = message
        if isinstance(message, Play):
            self._sent_play(seat, message)
        text = f"{_kind(message)} L={message.clock} {_gist(message)}".rstrip()
        self._line(now, Mark.SEND, seat, text, quiet=isinstance(message, Ack))

    def arrived(self, src: int, dst: int, message: Message, now: float) -> None:
        text = f"{_kind(message)} L={message.clock}"
        self._line(now, Mark.ARRIVE, dst, text, src=src, quiet=isinstance(message, Ack))

    def framed(self, seat: int, frame: CommitFrame, to: int | None, now: float) -> None:
        """A commit frame sent: a Ballot to a play's sender (or a poller; or one a poller
        hands on to the play's sender), a Tally to every seat (or handed on to a poller), a
        Poll to every seat."""
        play = self._named(frame.seat, frame.number)
        match frame:
            case Ballot(ok=ok):
                who = "" if frame.sender == seat else f"hands on {frame.sender + 1}'s "
                text = f"{who}Ballot L={frame.clock} {'for' if ok else 'late'} {play}"
            case Tally(ok=ok):
                count = self._count(seat, frame)
                who = "" if frame.sender == seat else f"{frame.sender + 1}'s "
                if count is not None and frame.sender == seat and to is None:
                    votes = [v for v, vote in count.votes if vote == ok]
                    said = "in: for" if ok else "back: late"
                    text = f"Tally L={frame.clock} {play} {said} {seat_list(sorted(votes))}"
                else:
                    text = f"hands on {who}Tally L={frame.clock} {play}"
            case _:
                carrying = ", carrying it" if isinstance(frame, Poll) and frame.play else ""
                text = f"Poll L={frame.clock} on {play}{carrying}"
        self._line(now, Mark.SEND, seat, text)

    def frame_arrived(self, src: int, dst: int, frame: CommitFrame, now: float) -> None:
        text = f"{_kind(frame)} L={frame.clock}"
        match frame:
            case Ballot(ok=ok) | Tally(ok=ok):
                text += (" for" if ok else " late") if isinstance(frame, Ballot) else ""
                text += "" if isinstance(frame, Ballot) else (" in" if ok else " back")
        self._line(now, Mark.ARRIVE, dst, text, src=src)

    def stepped(self, seat: int, replica: Replica, events: Sequence[Event], now: float) -> None:
        gained = replica.committed - self._committed[seat]
        self._committed[seat] = replica.committed
        self._member_lists[seat] = tuple(sorted(replica.members))
        if gained > 0:
            self._line(now, Mark.COMMIT, seat, f"commits {gained} (now {replica.committed})")
        for event in events:
            self._event(seat, event, now, replica)
        self._caught_up(seat, replica, now)

    def applied(self, seat: int, since: float) -> int:
        """How many plays ``seat`` applied (committed, where every member acknowledges)
        since simulated time ``since``."""
        gains = self._gains[seat]
        before = next((n for t, n in reversed(gains) if t < since), 0)
        return (gains[-1][1] if gains else 0) - before

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

    def _event(self, seat: int, event: Event, now: float, replica: Replica) -> None:
        match event:
            case PlayCommitted() | PlayReturned():
                if isinstance(event, PlayCommitted):
                    self._gain(seat, now)
                self._verdict(seat, event, now, replica)
            case PeerRecovered(seat=back, silent_for=silent) if back in replica.members:
                self._heard_again_note(seat, back, silent or 0.0, now, len(replica.members))
            case PeerSuspected(seat=silent):
                suspecting = self._suspecting.setdefault(silent, set())
                if not suspecting:  # a new silence
                    self._noted_back.discard(silent)
                suspecting.add(seat)
                self._line(now, Mark.NEWS, seat, f"suspects {silent + 1}", alert=True)
                self._note(
                    now,
                    Kind.SUSPECT,
                    f"seat {seat + 1} suspects seat {silent + 1}",
                    f"nothing heard from it for {_span(replica.timing.suspect_after)}: "
                    "no message, no heartbeat",
                    (seat, silent),
                )
            case ViewInstalled(view=view, members=members):
                self._view(seat, view, members, now)
            case PeerExcluded(seat=out):
                self._suspecting.pop(out, None)
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

    def _gain(self, seat: int, now: float) -> None:
        gains = self._gains[seat]
        gains.append((now, (gains[-1][1] if gains else 0) + 1))

    def _heard_again_note(
        self, seat: int, back: int, silent: float, now: float, members: int
    ) -> None:
        """A silent member heard again, still a member: noted once a silence, from the
        first seat to hear it of those that suspected it, if most members did (cut off
        alone, it suspected each of the others too: those are not noted)."""
        self._line(now, Mark.NEWS, seat, f"hears {back + 1} again", alert=True)
        suspecting = self._suspecting.get(back, set())
        most = len(suspecting) > members // 2
        suspecting.discard(seat)
        if back in self._noted_back or not most:
            return
        self._noted_back.add(back)
        applied = self.applied(seat, now - silent)
        text = f"seat {seat + 1} hears seat {back + 1} again after {silent:.1f} s: still a member"
        if self.majority:
            why = (
                f"the others played on, {applied} plays applied at seat {seat + 1}; a seat is "
                f"left out only after {self.depart_after:g} s"
            )
        else:
            why = (
                f"every commit waited for it, {applied} plays committed at seat {seat + 1}; a "
                f"seat is left out after {self.exclude_after:g} s"
            )
        self._note(now, Kind.HICCUP, text, why, (back,))

    def _named(self, seat: int, number: int) -> str:
        """A play named by a commit frame, as the diagram names it: 2's L=92."""
        message = self._numbered.get((seat, number))
        if message is None:
            return f"{seat + 1}'s #{number}"
        if isinstance(message, Play):
            return f"{seat + 1}'s L={message.clock}"
        return f"{seat + 1}'s {_kind(message)}"

    def _count(self, seat: int, tally: Tally) -> Count | None:
        """A play's Tally as a `Count`, kept the first time one is sent (None if the play
        is none the chronicle saw sent)."""
        message = self._numbered.get((tally.seat, tally.number))
        if message is None:
            return None
        key = (message.sender, message.clock)
        count = self.counts.get(key)
        if count is not None:
            return count
        votes: list[tuple[int, bool]] = [(message.sender, True)] if tally.ok else []
        for payload in tally.ballots:
            try:
                ballot = decode_carried(payload, tally)
            except RemoteProtocolError:
                continue  # (a Tally its receivers refuse: nothing to count)
            votes.append((ballot.sender, ballot.ok))
        members = self._member_lists[seat]
        count = Count(*key, tally.ok, tuple(votes), members, seat, self.step)
        self.counts[key] = count
        return count

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

    def _verdict(
        self, seat: int, event: PlayCommitted | PlayReturned, now: float, replica: Replica
    ) -> None:
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
            self._returned(seat, play, event, now, replica)
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

    def _returned(
        self, seat: int, play: Play, event: PlayReturned, now: float, replica: Replica
    ) -> None:
        move = play.move
        self._line(now, Mark.BACK, seat, f"{play.sender + 1}'s L={play.clock} back", alert=True)
        count = self.counts.get((play.sender, play.clock))
        if count is not None and not count.ok:
            self._late(play, count, now, replica)
            return
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
        reason = self.reason(winner, play) + self._counted(winner, play)
        self._note(now, kind, text, reason, seats, (winner, play))

    def _counted(self, *plays: Play) -> str:
        """At a majority's table, the Tallies that decided ``plays`` in: '; both voted in
        by a quorum, 3 of 4: seat 2's by 1 2 3, seat 4's by 2 3 4' (the seats a Tally
        leaves out were not waited for)."""
        counts = [self.counts.get((p.sender, p.clock)) for p in plays]
        known = [c for c in counts if c is not None and c.ok]
        if not known:
            return ""
        both = "both" if len(known) == 2 else "voted"
        quorum = f"a quorum, {known[0].quorum} of {len(known[0].members)}"
        each = ", ".join(f"seat {c.seat + 1}'s by {seat_list(c.voters)}" for c in known)
        return f"; {both} voted in by {quorum}: {each}".replace("voted voted", "voted")

    def _late(self, play: Play, count: Count, now: float, replica: Replica) -> None:
        """A play a quorum voted late: each of them had held a later play on its spot."""
        move = play.move
        what = str(move.card) if isinstance(move, ToFoundation) else _kind(play)
        text = f"LATE: seat {play.sender + 1}'s {what} L={play.clock} came back"
        later = self._later_on_spot(play, replica)
        late = seat_list(sorted(v for v, ok in count.votes if not ok))
        held = "a later play on its spot"
        if later is not None:
            held = f"seat {later.sender + 1}'s {_gist(later) or type(later.move).__name__}"
            held += f" L={later.clock}"
        reason = f"voted late by {late} (no quorum of {count.quorum} left): they held {held} first"
        plays = (play,) if later is None else (play, later)
        self._note(now, Kind.LATE, text, reason, tuple(p.sender for p in plays), plays)

    def _later_on_spot(self, play: Play, replica: Replica) -> Play | None:
        """The play of this round sorting soonest after ``play`` on a spot of its (the
        replica's spots: a foundation, the row of them, a deck, the whole table)."""
        majority = replica.majority
        if majority is None:
            return None
        key, spots = self.key(play), majority.spots(play)
        later = [
            other
            for other in self._plays.values()
            if self.key(other) > key and spots_conflict(spots, majority.spots(other))
        ]
        return min(later, key=self.key, default=None)

    def numbered(self, seat: int, number: int) -> Message | None:
        """At a majority's table, ``seat``'s ordered message of that number, if seen sent."""
        return self._numbered.get((seat, number))

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


def _rank(play: Play) -> int:
    move = play.move
    return move.card.rank if isinstance(move, ToFoundation) else -1


def _card(play: Play) -> str:
    move = play.move
    return str(move.card) if isinstance(move, ToFoundation) else "card"


def _kind(message: Message | CommitFrame) -> str:
    return type(message).__name__


def _gist(message: Message) -> str:
    if isinstance(message, Play):
        move = message.move
        if isinstance(move, ToFoundation):
            where = "new f" if move.foundation == NEW_FOUNDATION else f"f{move.foundation + 1}"
            return f"{move.card}→{where}"
        return "Nerts!" if isinstance(move, CallNerts) else ""
    return ""


def _span(seconds: float) -> str:
    """A length of time as the notes say it: "a second", "1.5 s"."""
    return "a second" if seconds == 1 else f"{seconds:g} s"
