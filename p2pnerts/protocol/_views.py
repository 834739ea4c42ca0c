"""Membership: views, the exclusion of a silent seat, rejoining, and what a replica keeps.

Theory of operation
-------------------
A *view* is a numbered set of members; commits wait for every member, so a member that
falls silent would hold the table up forever. After `Timing.exclude_after` of silence, a
member starts a *view change*: it broadcasts ViewChange(v'), stops committing and stops
sending plays; every member that hears it does the same. The coordinator of view v' is
seat ``v' mod seats`` — fixed by the number alone, so two peers that disagree on the
membership still never start the same view twice — and v' is the first view number whose
coordinator is a member the peer does not suspect. Once the coordinator holds votes for
v' from every member it does not suspect, cast in its own view, and they are a majority
of that view's members, it broadcasts
StartView: the voters (plus any seat asking to rejoin) as the new members, its own
``have`` vector as the *cut* of every seat's messages, and every ordered message of the
current round it has committed or holds, *carried*.

Why that is safe: a message commits anywhere only once every member acknowledged holding
it, so the coordinator — a member — holds every message committed anywhere; anything of
a departed seat beyond its cut was committed nowhere and is dropped. A member that
installs the StartView holds every carried message, so a carried message commits once
every new member has acknowledged the StartView itself. The StartView is ordered too
(its clock exceeds every carried message's), and at its commit the departed seats'
tableaux are declared stuck so that the round can still end. A minority never gathers a
majority of votes: it waits, and commits nothing on its own. A view change that does not
finish within `Timing.view_change_timeout` moves on to the next view number, and so to
the next coordinator.

A replica that learns it was left out — a StartView without it, or the others talking in
a view it never installed — is *out*: it broadcasts Rejoin until a StartView lists it in
``joined``. A restarted replica starts out. A rejoining seat starts its sequence
numbers again at 1 in the view it joins; messages from its earlier life, sent in an
older view, are dropped by everyone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import StrEnum

from p2pnerts.protocol._codec import decode_payload, encode_payload
from p2pnerts.protocol._errors import RemoteProtocolError
from p2pnerts.protocol._events import (
    Event,
    PeerExcluded,
    PeerRejoined,
    ShutOut,
    ViewInstalled,
)
from p2pnerts.protocol._messages import (
    Leave,
    Message,
    Ordered,
    Play,
    Ready,
    Rejoin,
    StartView,
    ViewChange,
)
from p2pnerts.rules import Card, DeclareStuck, Move, State

STASH_LIMIT = 100_000
"""Messages from views not yet installed that a replica holds back, at most."""


def bare(message: Message) -> Message:
    """A message as it is hashed and carried: a StartView without what it carries (that is
    read once, on arrival, and is not part of the order)."""
    if isinstance(message, StartView) and message.carried:
        return replace(message, carried=())
    return message


class Status(StrEnum):
    NORMAL = "playing"
    CHANGING = "regrouping after a silent seat"
    OUT = "rejoining"
    LEFT = "left"


@dataclass(frozen=True, slots=True)
class Timing:
    """The replica's tunables, in seconds."""

    ack_delay: float = 0.005
    heartbeat: float = 0.25
    suspect_after: float = 1.0
    exclude_after: float = 2.0
    view_change_timeout: float = 2.0


@dataclass(frozen=True, slots=True)
class Disk:
    """What a peer keeps on disk to come back after a crash: its current deck."""

    round: int = 0
    order: tuple[Card, ...] = ()
    salt: bytes = b""
    view: int = 0
    """The last view it was in: Rejoin messages older than the view it joined are stale."""


@dataclass(frozen=True, slots=True)
class Pending:
    """An ordered message waiting to commit.

    ``carrier`` is (coordinator, sequence number) of the StartView that carried it: every
    member that holds that StartView holds this message too.
    """

    key: tuple[int, int, int]
    message: Ordered | StartView
    carrier: tuple[int, int] | None


@dataclass(slots=True)
class Round:
    """What a replica keeps about one round until its audit is done."""

    number: int
    order: tuple[Card, ...] = ()
    salt: bytes = b""
    readies: dict[int, Ready] = field(default_factory=dict)
    shown: dict[int, tuple[Card, ...]] = field(default_factory=dict)
    log: list[tuple[Move, bool]] = field(default_factory=list)
    reveals: dict[int, tuple[bytes, tuple[Card, ...]]] = field(default_factory=dict)
    ended: bool = False
    audited: bool = False
    participants: frozenset[int] = frozenset()
    """The seats at the table when the round's first Ready committed: play starts once
    each of them still seated has its Ready committed."""


class Views:
    """The membership half of `Replica`, and the state both halves share."""

    def __init__(self, seat: int, players: int, timing: Timing, now: float) -> None:
        self.seat = seat
        self.players = players
        self.timing = timing
        self.clock = 0
        self.committed = 0
        self.round = 0
        """The last round this seat dealt for."""
        self.playing = 0
        """The round on the table (0 before the first is dealt in)."""
        self.public: State | None = None
        self.private: State | None = None
        self.status = Status.NORMAL
        self.view = 0
        self.members: frozenset[int] = frozenset(range(players))
        self.suspected: set[int] = set()
        self.joined_view = [0] * players
        self.have = [0] * players
        self.acked = [[0] * players for _ in range(players)]
        self.acked[seat] = self.have
        self.heard = [now] * players
        self.pending: list[Pending] = []
        self.out: list[Message] = []
        self.sent: list[Message] = []
        self.events: list[Event] = []
        self.chain = bytes(16)
        self.digests: dict[int, bytes] = {0: self.chain}
        self.disk_kept = Disk()
        self.match_scores: list[tuple[int, ...]] = []
        self._last_sent = now
        self._ack_due: float | None = None
        self._awaited: dict[int, list[tuple[int, bytes]]] = {}
        self._rounds: dict[int, Round] = {}
        self._display: State | None = None
        self._mine: list[Play] = []
        self._hand: Play | None = None
        self._placed: dict[int, tuple[int, int]] = {}
        self._seated: frozenset[int] = frozenset(range(players))
        self._base = (0, self.chain)
        self._base_seated = self._seated
        self._base_scores: tuple[tuple[int, ...], ...] = ()
        self._base_round = 0
        self._since_base: list[Ordered | StartView] = []
        self._changing_to = 0
        self._change_started = now
        self._votes: dict[int, dict[int, ViewChange]] = {}
        self._rejoiners: dict[int, float] = {}
        self._stash: list[Message] = []
        self._stash_since: float | None = None

    # Provided by Replica.
    send: Callable[[float, Callable[[int, int], Message]], Message]
    send_ack: Callable[[float], None]
    commit_ready: Callable[[float], None]
    add_pending: Callable[[Ordered | StartView, tuple[int, int] | None], None]
    apply_everywhere: Callable[[Move], None]
    receive: Callable[[Message, float], None]

    # --- the commit rule --------------------------------------------------------------------

    def held_by_all(self, entry: Pending) -> bool:
        """Whether every member has acknowledged holding this message."""
        if entry.carrier is not None:
            seat, seq = entry.carrier
        else:
            seat, seq = entry.message.sender, entry.message.seq
        return all(self.acked[r][seat] >= seq for r in self.members)

    def note_committed(self, message: Ordered | StartView) -> None:
        """Keep what a StartView would carry: every ordered message of the current round."""
        if isinstance(message, Ready) and message.round > self._base_round:
            self._base = (self.committed, self.chain)
            self._base_seated = self._seated
            self._base_scores = tuple(self.match_scores)
            self._base_round = message.round
            self._since_base = []
            self.round_data(message.round).participants = self._seated
        self._since_base.append(message)

    def round_data(self, number: int) -> Round:
        return self._rounds.setdefault(number, Round(number))

    # --- filtering what arrives -----------------------------------------------------------

    def admit(self, message: Message, now: float) -> bool:
        """Whether a message is for this view; holds back those from a view not yet here."""
        sender = message.sender
        if self.status is Status.LEFT:
            return False
        if self.status is Status.OUT:
            if isinstance(message, StartView) and self.seat in message.joined:
                self._install_as_rejoiner(message, now)
            else:
                self._hold_back(message, now)
            return False
        if message.view < self.joined_view[sender]:
            return False  # from the sender's earlier life
        if message.view > self.view:
            starts = isinstance(message, StartView) and sender in self.members
            if not starts or any(m.sender == sender for m in self._stash):
                self._hold_back(message, now)  # FIFO: after what came before it
                return False
        return sender in self.members

    def _hold_back(self, message: Message, now: float) -> None:
        if len(self._stash) < STASH_LIMIT:
            self._stash.append(message)
        if self._stash_since is None:
            self._stash_since = now

    # --- view changes -----------------------------------------------------------------------

    def tick_views(self, now: float) -> None:
        if self.status is Status.NORMAL:
            silent = [
                s
                for s in self.members
                if s != self.seat and now - self.heard[s] >= self.timing.exclude_after
            ]
            if silent or self._fresh_rejoiners(now):
                self._start_view_change(self._next_view(self.view), now)
        elif self.status is Status.CHANGING:
            if now - self._change_started >= self.timing.view_change_timeout:
                self._start_view_change(self._next_view(self._changing_to), now)
            else:
                self._maybe_start_view(now)
        waited = self._stash_since is not None and (
            now - self._stash_since >= self.timing.view_change_timeout
        )
        if waited and self.status in (Status.NORMAL, Status.CHANGING):
            self._shut_out(now)  # the others went on in a view this replica never got

    def view_deadlines(self) -> list[float]:
        """When `tick_views` next has something to do."""
        times = []
        if self.status is Status.NORMAL:
            times += [
                self.heard[s] + self.timing.exclude_after for s in self.members if s != self.seat
            ]
        if self.status is Status.CHANGING:
            times.append(self._change_started + self.timing.view_change_timeout)
        if self._stash_since is not None:
            times.append(self._stash_since + self.timing.view_change_timeout)
        return times

    def coordinator(self, view: int) -> int:
        """The one seat that may start view ``view``: the same at every peer, whatever
        membership each believes in, so that no view number is ever started twice."""
        return view % self.players

    def _next_view(self, after: int) -> int:
        """The first view after ``after`` whose coordinator is a member not suspected."""
        view = after + 1
        while self.coordinator(view) not in self.members - self.suspected:
            view += 1
        return view

    def _start_view_change(self, new_view: int, now: float) -> None:
        self.status = Status.CHANGING
        self._changing_to = new_view
        self._change_started = now
        suspects = tuple(sorted(self.suspected & self.members))
        have, committed = tuple(self.have), self.committed
        vote = self.send(
            now,
            lambda c, s: ViewChange(
                self.seat, self.view, c, s, new_view, suspects, have, committed
            ),
        )
        assert isinstance(vote, ViewChange)
        self._votes.setdefault(new_view, {})[self.seat] = vote
        self._maybe_start_view(now)

    def take_vote(self, vote: ViewChange, now: float) -> None:
        self._votes.setdefault(vote.new_view, {})[vote.sender] = vote
        target = self._changing_to if self.status is Status.CHANGING else self.view
        if vote.new_view > target:
            self._start_view_change(vote.new_view, now)
        else:
            self._maybe_start_view(now)

    def _maybe_start_view(self, now: float) -> None:
        new_view = self._changing_to
        if self.status is not Status.CHANGING or self.coordinator(new_view) != self.seat:
            return
        votes = self._votes.get(new_view, {})
        voters = {s for s, vote in votes.items() if s in self.members and vote.view == self.view}
        needed = self.members - self.suspected
        rejoining = self._fresh_rejoiners(now) - voters
        # A member that restarted counts towards the majority: it can install only one
        # view (the one whose votes were cast in the view it rejoins from), so two groups
        # can still never both go on with it.
        backing = voters | (rejoining & self.members)
        if not needed <= voters or 2 * len(backing) <= len(self.members):
            return
        joined = tuple(sorted(rejoining))
        members = tuple(sorted(voters | set(joined)))
        carried = self._to_carry(self.members - voters, joined)
        base_committed, base_digest = self._base
        cuts, scores = tuple(self.have), self._base_scores
        seated = tuple(sorted(self._base_seated))
        number = max(self._base_round, 1)
        voted_in = self.view
        start = self.send(
            now,
            lambda c, s: StartView(
                self.seat,
                new_view,
                c,
                s,
                voted_in,
                members,
                cuts,
                joined,
                seated,
                number,
                base_committed,
                base_digest,
                carried,
                scores,
            ),
        )
        assert isinstance(start, StartView)
        self._install(start, now)

    def _to_carry(self, departed: frozenset[int], joined: tuple[int, ...]) -> tuple[bytes, ...]:
        """What a StartView carries: for a seat coming back, everything of the round; for
        members only, the messages of the seats that leave (the rest they hold already).
        A StartView carried again is carried without what it carried itself."""
        messages = [*self._since_base, *(p.message for p in self.pending)]
        if not joined:
            messages = [m for m in messages if m.sender in departed]
        return tuple(encode_payload(bare(m)) for m in messages)

    def take_start_view(self, start: StartView, now: float) -> None:
        if start.view <= self.view or start.voted_in != self.view:
            return  # stale, or built from votes of a view this replica has left
        if self.seat not in start.members:
            self._shut_out(now)
            return
        self._install(start, now)

    def _install(self, start: StartView, now: float) -> None:
        """Move to the view a StartView begins, as a member that was already in."""
        departed = self.members - set(start.members)
        self.view, self.members = start.view, frozenset(start.members)
        self.status = Status.NORMAL
        self._votes = {v: b for v, b in self._votes.items() if v > self.view}
        self._stash_since = None
        carrier = (start.sender, start.seq)
        for seat in sorted(departed | set(start.joined)):
            self.have[seat] = min(self.have[seat], start.cuts[seat])
        kept = []
        for entry in self.pending:
            sender, seq = entry.message.sender, entry.message.seq
            if sender in departed or sender in start.joined:
                if seq > start.cuts[sender]:
                    continue  # committed nowhere: the view drops it
                entry = Pending(entry.key, entry.message, carrier)
            kept.append(entry)
        self.pending = kept
        self._take_carried(start, carrier, set(departed) | set(start.joined))
        self.add_pending(start, None)
        for seat in start.joined:
            self._reset_seat(seat, start.view)
        self.events.append(ViewInstalled(start.view, start.members))
        self.events += [PeerExcluded(s) for s in sorted(departed - set(start.joined))]
        self.events += [PeerRejoined(s) for s in start.joined]
        if start.joined:
            # A rejoining seat may lack what this replica sent since the cut: send it again.
            self.out += [m for m in self.sent if m.seq > start.cuts[self.seat]]
        self.send_ack(now)
        self._replay_stash(now)

    def _take_carried(
        self, start: StartView, carrier: tuple[int, int], changed: set[int] | None
    ) -> None:
        """Hold what a StartView carries: a rejoining replica (``changed`` None) takes all of
        it; a member only the messages of seats that left or rejoin, ``changed`` (the rest
        reach it on their own FIFO links)."""
        for payload in start.carried:
            message = decode_payload(payload)
            if not isinstance(message, Ready | Play | Leave | StartView):
                raise RemoteProtocolError("a StartView carried a message that is not ordered")
            sender = message.sender
            if changed is None:
                if any(p.message == message for p in self.pending):
                    continue
            elif sender not in changed or message.seq <= self.have[sender]:
                continue
            self.have[sender] = max(self.have[sender], message.seq)
            self.add_pending(message, carrier)

    def _reset_seat(self, seat: int, view: int) -> None:
        """A seat (re)joins in ``view``: its sequence numbers start again."""
        self.joined_view[seat] = view
        self.have[seat] = 0
        for row in self.acked:
            row[seat] = 0
        if seat != self.seat:
            self.acked[seat] = [0] * self.players
        self.heard[seat] = max(self.heard)
        self.suspected.discard(seat)
        self._rejoiners.pop(seat, None)

    def commit_start_view(self, start: StartView) -> None:
        """At its place in the order, a view's departures and arrivals reach the game."""
        self._seated = frozenset(start.members)

    def commit_leave(self, seat: int) -> None:
        self._seated = self._seated - {seat}

    def away(self) -> list[int]:
        """Seats that cannot move this round: not at the table, or not dealt in."""
        this = self._rounds.get(self.playing)
        dealt = set(this.readies) if this is not None else set()
        return [s for s in range(self.players) if s not in self._seated or s not in dealt]

    def keep_absent_stuck(self) -> None:
        """Seats away from the table count as stuck, so the others can still rotate."""
        public = self.public
        if public is None or public.ended is not None:
            return
        for seat in self.away():
            if not public.tableau_of(seat).stuck:
                self.apply_everywhere(DeclareStuck(seat))
                public = self.public
                assert public is not None

    # --- being out, and coming back ----------------------------------------------------------

    def _shut_out(self, now: float) -> None:
        self.status = Status.OUT
        self.events.append(ShutOut(self.view))
        self.send_rejoin(now)

    def send_rejoin(self, now: float) -> None:
        self._last_sent = now
        self.out.append(Rejoin(self.seat, self.view, max(self.clock, 1), 1, self.disk_kept.round))

    def tick_out(self, now: float) -> None:
        if now - self._last_sent >= self.timing.heartbeat:
            self.send_rejoin(now)

    def take_rejoin(self, rejoin: Rejoin, now: float) -> None:
        if rejoin.view < self.joined_view[rejoin.sender]:
            return  # sent before that seat rejoined, arriving late
        if self.status in (Status.NORMAL, Status.CHANGING):
            self._rejoiners[rejoin.sender] = now
            if rejoin.sender in self.members:
                self.heard[rejoin.sender] = 0.0  # it lost its state: let it go, then back

    def _fresh_rejoiners(self, now: float) -> set[int]:
        return {s for s, t in self._rejoiners.items() if now - t <= self.timing.exclude_after}

    def _install_as_rejoiner(self, start: StartView, now: float) -> None:
        """Come back into a view from nothing but the StartView and this seat's disk."""
        self.view, self.members = start.view, frozenset(start.members)
        self.status = Status.NORMAL
        self.clock = max(self.clock, start.clock)
        self.pending, self.sent, self._votes = [], [], {}
        self.suspected.clear()
        self.have[:] = [0] * self.players
        for row in self.acked:
            row[:] = [0] * self.players
        self.joined_view = [0] * self.players
        for seat in start.joined:
            self.joined_view[seat] = start.view
        self.committed, self.chain = start.base_committed, start.base_digest
        self.digests = {self.committed: self.chain}
        self._awaited = {}
        self._base, self._base_round, self._since_base = (self.committed, self.chain), 0, []
        self.match_scores = list(start.scores)
        # The carried messages replay the table from the first Ready of round start.round.
        self.playing = start.round - 1
        self.public = self.private = self._display = None
        self._mine, self._hand, self._placed = [], None, {}
        self._rounds = {}
        disk = self.disk_kept
        self.round = max(disk.round, self.playing)
        if disk.round >= start.round:
            this = self.round_data(disk.round)
            this.order, this.salt = disk.order, disk.salt
        self._seated = self._base_seated = frozenset(start.seated)
        carrier = (start.sender, start.seq)
        self._take_carried(start, carrier, None)
        for seat in range(self.players):
            # Joined seats (this one too) number their messages afresh from 1.
            self.have[seat] = 0 if seat in start.joined else start.cuts[seat]
        self.have[start.sender] = start.seq
        self.add_pending(start, carrier)
        self.heard = [now] * self.players
        self.events.append(ViewInstalled(start.view, start.members))
        self.send_ack(now)
        self._replay_stash(now)

    def _replay_stash(self, now: float) -> None:
        stash, self._stash, self._stash_since = self._stash, [], None
        for message in stash:
            if message.view <= self.view:
                self.receive(message, now)
            else:
                self._hold_back(message, now)
