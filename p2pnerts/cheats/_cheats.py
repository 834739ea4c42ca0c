"""Seats that lie on the wire, for demonstrations and tests: ``p2pnerts bot --cheat KIND``.

A cheating seat plays with a real replica, honestly, and lies only in what it sends: after
its first few messages it rewrites them as one attack. Each kind is an attack the protocol
detects: every honest peer names the seat ("broke the protocol and is refused from now
on"), leaves it out, and finishes the match without it, all alike; a headless peer that saw
it ends with exit status 3. See protocol/SECURITY.md for what each check defends.

One kind lies in its links (`LINK_CHEATS`): ``cut-links`` talks to the host alone, refusing
every other seat's connection; the others cannot hear it, and leave it out.

Two kinds lie about the deal (`DEAL_CHEATS`): ``stack-deck`` deals its own deck stacked
(its replica shuffles with `stacked`, `Cheat.shuffle`), ``lie-about-deck`` reveals a secret
it never pledged. Every honest peer's audit fails the seat's deck and voids its round, alike.

Five kinds lie in version 3's commit frames (`FRAME_CHEATS`), at a table that commits by a
majority (``--majority``; elsewhere there are none, and they play honestly): ``vote-late``
and ``vote-at-random`` bend every Ballot they cast on another seat's play (the same on a
play whoever asks: never two things), ``forge-tally`` sends Tallies of its own plays short
of a quorum, ``keep-tallies`` keeps the outcomes of its own plays to itself, ``forge-poll``
polls on each of its plays carrying a copy it did not sign (`Cheat.frames`).
"""

from __future__ import annotations

import hashlib
from dataclasses import replace

from p2pnerts.protocol import (
    Ack,
    Ballot,
    CommitFrame,
    Message,
    Play,
    Poll,
    Ready,
    Reveal,
    Shuffle,
    StartView,
    Tally,
    encode_payload,
    shuffle,
)
from p2pnerts.rules import Card, DeclareStuck, TableOptions, new_deck

CHEATS: dict[str, str] = {
    "clock-bomb": "an Ack stamped with the largest clock the codec allows",
    "view-bomb": "an Ack stamped with a view far beyond the table's",
    "backdate": "every play stamped with clock 1, to sort before plays already agreed",
    "overclaim": "Acks that claim messages no seat has sent",
    "forge-view": "a StartView that leaves a seat out, from a seat that may not start it",
    "no-ack": "talks on, but its Acks never acknowledge anything new: no play can commit",
    "replay": "sends its first Ready again in place of an Ack, as a new message",
    "impersonate": "sends Acks in another seat's name on its own connection",
    "garbage": "a frame of bytes that decode to no message, in place of an Ack",
    "flood": "every Ack sent a thousand times over",
    "stack-deck": "deals its own deck stacked: its Nerts pile plays out ace to king",
    "lie-about-deck": "reveals another secret than the one it pledged for its deck",
    "equivocate": "signs a play and another move under one number: each seat is told one",
    "cut-links": "keeps its link to the host but refuses every other seat's, and dials none",
    "vote-late": "votes every other seat's play late, whatever it holds (--majority)",
    "vote-at-random": "votes for or late on each play as a coin falls, each asker told alike "
    "(--majority)",
    "forge-tally": "sends the Tally of each of its plays with one Ballot fewer than it rests "
    "on (--majority)",
    "keep-tallies": "keeps the outcomes of its own plays to itself: sends no Tally of them "
    "(--majority)",
    "forge-poll": "after each Tally of its own plays, polls on the play carrying a copy of it "
    "with another move, not signed so (--majority)",
    "never-passed": "its Acks and Tallies never say it passed more of the canonical order than "
    "the first it lies in: every seat holds every play since (--majority)",
    "never-holds": "as never-passed, and its Acks never say it holds more of any seat's "
    "messages either, as if its links brought nothing (--majority)",
}
"""Every kind of cheat, with what it does."""
DEAL_CHEATS = frozenset({"stack-deck", "lie-about-deck"})
"""The kinds the round's audit catches (and voids), rather than a check on arrival."""
LINK_CHEATS = frozenset({"cut-links"})
"""The kinds that lie in whom they link to, not in what they send: no peer can name the
seat that cut a link, but the view change leaves out the seat that more seats cannot hear
(SPEC §6.4)."""
FRAME_CHEATS = frozenset(
    {
        "vote-late",
        "vote-at-random",
        "forge-tally",
        "keep-tallies",
        "forge-poll",
        "never-passed",
        "never-holds",
    }
)
"""The kinds that lie in version 3's commit frames: at a table that commits by a majority
only (a table that commits by acknowledgement sends none, and they play it honestly)."""

HONEST_FIRST = 12
"""How many messages a cheat sends honestly first (its Ready, and play under way)."""
FLOOD = 1000
"""How many times over the flood sends each Ack."""
PLAYS_KEPT = 16
"""How many of its own plays ``forge-poll`` keeps, to carry changed."""
GARBAGE = len(b"\xc1" * 16).to_bytes(4, "big") + b"\xc1" * 16
"""A whole frame whose bytes are no msgpack at all (0xc1 is never used)."""

Lie = Message | bytes | tuple[int, Message]
"""What a cheat puts on the wire: a message for every seat, a frame as it is, or a
message for one seat alone, (seat, message)."""


class Cheat:
    """Rewrites what one seat's replica sends, as the attack ``kind`` (one of `CHEATS`)."""

    def __init__(self, kind: str, honest_first: int = HONEST_FIRST) -> None:
        if kind not in CHEATS:
            raise ValueError(f"no cheat {kind!r}: one of {', '.join(CHEATS)}")
        self.kind = kind
        self._honest = honest_first
        self.lies = 0
        """How many messages it has lied in so far."""
        self._frozen: tuple[int, ...] | None = None
        """What ``no-ack`` says it holds, and ``never-passed`` how far it passed."""
        self._first: Ready | None = None
        self._held: tuple[int, ...] | None = None
        """What ``never-holds`` says it holds."""
        self._players = 0
        self._votes: dict[tuple[int, int], tuple[bool, tuple[int, ...]]] = {}
        """Per play (seat, number), what this cheat's Ballots say of it: said once, the
        same to whoever asks (two things would prove it a cheat at once)."""
        self._plays: dict[int, Play] = {}
        """Its own plays by number, the last few (``forge-poll`` carries a changed copy)."""

    def shuns(self, seat: int) -> bool:
        """Whether this cheat refuses a link with ``seat`` (``cut-links``: all but the host)."""
        return self.kind == "cut-links" and seat != 0

    def shuffle(self, options: TableOptions, seat_deck: int) -> Shuffle | None:
        """How this cheat's replica shuffles: ``stack-deck`` stacks its own deck."""
        if self.kind != "stack-deck":
            return None

        def stacking(deck: int, number: int, secret: bytes, seed: bytes) -> tuple[Card, ...]:
            if deck == seat_deck:
                return stacked(deck, options)
            return shuffle(deck, number, secret, seed, options=options)

        return stacking

    def __call__(self, message: Message) -> list[Lie]:
        """What goes on the wire in place of ``message``."""
        if isinstance(message, Ready) and self._first is None:
            self._first = message
        if isinstance(message, Ack):
            self._players = len(message.have)
        if isinstance(message, Play) and message.below:
            self._plays[message.below[message.sender]] = message
            if len(self._plays) > PLAYS_KEPT:
                del self._plays[min(self._plays)]
        if self._honest > 0:
            self._honest -= 1
            return [message]
        match self.kind, message:
            case "garbage", Ack():
                self.lies += 1
                return [GARBAGE]
            case "flood", Ack():
                self.lies += 1
                return [message] * FLOOD
            case "equivocate", Play() if not self.lies:
                self.lies += 1
                return self._equivocate(message)
            case "impersonate", Ack():
                self.lies += 1
                return self._impersonate(message)
        deal = self.kind in DEAL_CHEATS
        forged = self._lie_about_deal(message) if deal else self._forge(message)
        if forged is not message:
            self.lies += 1
        return [forged]

    def frames(self, frame: CommitFrame, to: int | None) -> list[tuple[CommitFrame, int | None]]:
        """What goes on the wire in place of commit ``frame`` to seat ``to`` (None: to every
        other seat): honest until the cheat has sent its first messages honestly."""
        if self._honest > 0 or self.kind not in FRAME_CHEATS:
            return [(frame, to)]
        match self.kind, frame:
            case "vote-late" | "vote-at-random", Ballot() if frame.seat != frame.sender:
                frame = self._vote(frame)
            case "forge-tally", Tally() if frame.seat == frame.sender and frame.ballots:
                frame = replace(frame, ballots=frame.ballots[:-1])
            case "keep-tallies", Tally() if frame.seat == frame.sender:
                self.lies += 1
                return []
            case "never-passed" | "never-holds", Tally() if frame.seat == frame.sender:
                if self._frozen is None:
                    self._frozen = frame.passed
                frame = replace(frame, passed=self._frozen)
            case "forge-poll", Tally() if frame.seat == frame.sender:
                play = self._plays.get(frame.number)
                if play is None:
                    return [(frame, to)]
                self.lies += 1
                changed = replace(play, move=DeclareStuck(play.sender))
                poll = Poll(frame.sender, frame.view, frame.clock, 1, frame.seat, frame.number)
                return [(frame, to), (replace(poll, play=encode_payload(changed)), None)]
            case _:
                return [(frame, to)]
        self.lies += 1
        return [(frame, to)]

    def _vote(self, ballot: Ballot) -> Ballot:
        """``ballot`` as this cheat votes: late (``vote-late``), or for or late as a coin
        falls (``vote-at-random``: a hash of the play), each play voted once for all."""
        play = (ballot.seat, ballot.number)
        if play not in self._votes:
            if self.kind == "vote-late":
                ok = False
            else:
                coin = hashlib.sha256(repr(play).encode()).digest()[0]
                ok = coin % 2 == 0
            below = ballot.below if ballot.ok else (0,) * self._players
            if ok and ballot.seat < len(below):  # (of the sender: the play itself)
                below = tuple(ballot.number if s == ballot.seat else b for s, b in enumerate(below))
            self._votes[play] = (ok, below if ok else ())
        ok, below = self._votes[play]
        return replace(ballot, ok=ok, below=below)

    def _forge(self, message: Message) -> Message:
        match self.kind, message:
            case "clock-bomb", Ack():
                return replace(message, clock=2**63 - 1)
            case "view-bomb", Ack():
                return replace(message, view=2**62)
            case "backdate", Play():
                return replace(message, clock=1)
            case "overclaim", Ack():
                return replace(message, have=tuple(n + 1000 for n in message.have))
            case "forge-view", Ack():
                return _forged_start(message)
            case "no-ack", Ack():
                if self._frozen is None:
                    self._frozen = message.have
                return replace(message, have=self._frozen)
            case "never-passed", Ack():
                if self._frozen is None:
                    self._frozen = message.passed
                return replace(message, passed=self._frozen)
            case "never-holds", Ack():
                if self._frozen is None:
                    self._frozen = message.passed
                if self._held is None:
                    self._held = message.have
                return replace(message, passed=self._frozen, have=self._held)
            case "replay", Ack() if self._first is not None:
                return replace(self._first, view=message.view, seq=message.seq)
        return message

    def _equivocate(self, play: Play) -> list[Lie]:
        """The play to the first other seat, and to every other seat a DeclareStuck signed
        under the same view, number and clock."""
        others = [s for s in range(self._players) if s != play.sender]
        other = replace(play, move=DeclareStuck(play.sender))
        return [(seat, play if seat == others[0] else other) for seat in others]

    def _impersonate(self, ack: Ack) -> list[Lie]:
        """The Ack in the next seat's name, to every other seat: the seat it names too. (Sent
        as its own, the forged sender would decide where it goes, and the seat it names
        would not get it; a seat that gets none learns of the lie only by the gap it leaves
        in the cheat's numbers, if the cheat says anything more.)"""
        forged = replace(ack, sender=(ack.sender + 1) % self._players)
        return [(seat, forged) for seat in range(self._players) if seat != ack.sender]

    def _lie_about_deal(self, message: Message) -> Message:
        if self.kind == "lie-about-deck" and isinstance(message, Reveal) and message.round:
            return replace(message, secret=hashlib.sha256(message.secret).digest())
        return message


def stacked(deck: int, options: TableOptions) -> tuple[Card, ...]:
    """Deck ``deck`` stacked to win: its Nerts pile, top first, the spades from ace up."""
    cards = list(new_deck(deck, jokers=options.jokers))
    spades = sorted((c for c in cards if c.suit == 0 and c.rank), key=lambda c: -c.rank)
    pile = spades[-options.nerts_pile :]
    return (*pile, *(c for c in cards if c not in pile))


def _forged_start(ack: Ack) -> StartView:
    """A StartView in place of an Ack: the next view, started by a seat that is not its
    coordinator, leaving out the seat after the sender."""
    players, me = len(ack.have), ack.sender
    view = ack.view + 1
    while view % players == me:
        view += 1
    dropped = (me + 1) % players
    return StartView(
        me,
        view,
        ack.clock,
        ack.seq,
        voted_in=ack.view,
        members=tuple(s for s in range(players) if s != dropped),
        quorums=(),
        cuts=ack.have,
        joined=(),
        joined_from=(),
        lives=(0,) * players,
        seated=tuple(range(players)),
        round=1,
        base_committed=0,
        base_digest=bytes(16),
        carried=(),
        scores=(),
    )
