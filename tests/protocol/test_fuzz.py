"""Fuzzing the wire and the replica, bounded for CI (tools/fuzz.py runs it for longer).

Random bytes, mutated golden frames and messages with random headers never crash a peer:
the codec returns a message (which encodes back to itself) or raises RemoteProtocolError,
and a replica either takes a message or refuses it with RemoteProtocolError, changing
nothing when it refuses. The same holds at a table that commits by a majority
(``Replica(majority=True)``) for its commit frames, Ballots, Tallies and Polls bent from
those a real play makes (any field the codec allows, signed again by their sender or not,
carried on any seat's link), and for ordered messages with any ``below``; and there no
bent frame makes a seat learn an outcome the play's honest Ballots do not prove.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import msgpack
from _table import Table, order
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_validation import _state

from p2pnerts.protocol import (
    PROTOCOL_VERSION,
    CommitFrame,
    FrameDecoder,
    Message,
    Play,
    RemoteProtocolError,
    Replica,
    decode,
    encode,
)
from p2pnerts.protocol._codec import decode_carried, encode_carried, encode_payload
from p2pnerts.protocol._messages import Ballot, Ordered, Poll, Tally
from p2pnerts.rules import (
    NERTS,
    NEW_FOUNDATION,
    Card,
    DeclareStuck,
    Suit,
    TableOptions,
    ToFoundation,
)

GOLDEN = [
    bytes.fromhex(frame["hex"])
    for frame in json.loads((Path(__file__).parents[2] / "protocol" / "golden.json").read_text())[
        "frames"
    ]
]
OPTIONS = TableOptions()
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    """A golden frame with a few of its bytes changed, cut short, or grown."""
    frame = bytearray(draw(st.sampled_from(GOLDEN)))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(frame) - 1))
        frame[at] = draw(st.integers(0, 255))
    if draw(st.booleans()):
        frame = frame[: draw(st.integers(0, len(frame)))]
    return bytes(frame) + draw(st.binary(max_size=8))


def _items() -> st.SearchStrategy[object]:
    scalars = st.one_of(
        st.integers(-(2**63), 2**64 - 1), st.binary(max_size=70), st.text(max_size=40),
        st.booleans(), st.none(),
    )  # fmt: skip
    return st.recursive(scalars, lambda inner: st.lists(inner, max_size=8), max_leaves=30)


@st.composite
def shaped(draw: st.DrawFn) -> bytes:
    """A frame of the right version and a known kind, with items of any msgpack type."""
    kind = draw(st.sampled_from([*range(1, 14), *range(16, 26)]))
    items = draw(st.lists(_items(), max_size=18))
    payload: bytes = msgpack.packb([PROTOCOL_VERSION, kind, *items], use_bin_type=True)
    return len(payload).to_bytes(4, "big") + payload


def _decoded_or_refused(data: bytes) -> list[object]:
    try:
        return list(FrameDecoder().feed(data))
    except RemoteProtocolError:
        return []


@FUZZ
@given(st.one_of(st.binary(max_size=400), mutated(), shaped()))
def test_any_bytes_decode_to_messages_that_encode_back_or_to_a_remote_error(data: bytes) -> None:
    for message in _decoded_or_refused(data):
        assert decode(encode(message)) == message  # type: ignore[arg-type]


def _dealt() -> Table:
    table = Table(3, OPTIONS)
    table.start([order(s, ["QS"], ["2H", "9C", "9S", "KD"], OPTIONS) for s in range(3)])
    return table


def _received(replica: Replica, message: Message, now: float) -> bool:
    """Give ``message`` to ``replica``: True if taken; if refused, nothing changed."""
    before = _state(replica)
    try:
        replica.receive(message, now)
    except RemoteProtocolError:
        assert _state(replica) == before
        return False
    return True


@FUZZ
@given(mutated())
def test_a_replica_takes_or_refuses_any_frame_and_a_refusal_changes_nothing(data: bytes) -> None:
    table = _dealt()
    for message in _decoded_or_refused(data):
        if isinstance(message, Message):  # not a link frame: those never reach a replica
            _received(table.replicas[1], message, table.now)


BIG = 2**63 - 1


@FUZZ
@given(
    st.sampled_from([1, 2]),
    st.integers(0, BIG),
    st.integers(0, BIG),
    st.integers(1, BIG),
    st.integers(0, 3),
)
def test_a_replica_takes_or_refuses_any_header_and_a_refusal_changes_nothing(
    dest: int, view: int, clock: int, seq: int, which: int
) -> None:
    """Seat 0's next Ack, with any header values the codec allows, to another seat."""
    table = _dealt()
    table.replicas[0].send_ack(table.now)
    message = table.replicas[0].take_outgoing()[-1]
    bent = [
        replace(message, view=view),
        replace(message, clock=clock),
        replace(message, seq=seq),
        replace(message, view=view % 4, clock=clock % 1000, seq=seq % 8),
    ][which]
    for arrived in _decoded_or_refused(encode(bent)):  # what a peer decodes of it, if any
        assert isinstance(arrived, Message)
        _received(table.replicas[dest], arrived, table.now)


# --- a table that commits by a majority ----------------------------------------------------

MAJORITY_FUZZ = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
ACE = ToFoundation(0, Card(0, 1, Suit.HEARTS), NERTS, NEW_FOUNDATION)
"""Seat 0's play: the ace of hearts from its Nerts pile onto a new foundation."""


@functools.cache
def _majority_dealt() -> Table:
    """3 seats committing by a majority, round 1 dealt: seat 0 shows the ace of hearts."""
    table = Table(3, OPTIONS, majority=True)
    orders = [order(0, ["AH"], ["2H", "9C", "9S", "KD"], OPTIONS)]
    orders += [order(s, ["QS"], ["2H", "9C", "9S", "KD"], OPTIONS) for s in (1, 2)]
    table.start(orders)
    return table


class Voted:
    """Seat 0's play, held at seats 1 and 2, their Ballots on the way to seat 0, and the
    Tally seat 0 sends once they arrive (a quorum at 3 seats is all three)."""

    def __init__(self) -> None:
        table = copy.deepcopy(_majority_dealt())
        table.replicas[0].intend(ACE, table.now)
        table.flush()
        self.play = next(m for m in table.links[0, 1] if isinstance(m, Play))
        table.deliver(0, 1)
        table.deliver(0, 2)
        self.ballots = [next(m for m in table.links[v, 0] if isinstance(m, Ballot)) for v in (1, 2)]
        self.table = table
        later = copy.deepcopy(table)
        later.deliver(1, 0)
        later.deliver(2, 0)
        self.tally = next(m for m in later.links[0, 1] if isinstance(m, Tally))
        self.poll = Poll(
            2, 0, self.tally.clock, 1, 0, self.play.below[0], encode_payload(self.play)
        )
        signers = [r.signer for r in table.replicas]
        other = replace(self.play, move=DeclareStuck(0), sig=b"")
        self.carried = [
            b"",
            encode_payload(self.play),
            encode_payload(replace(other, sig=self.play.sig)),  # (not what seat 0 signed)
            encode_payload(signers[0].sign(other)),  # (another copy, signed: a proof)
            encode_payload(self.tally),
            b"\xc1" * 8,
        ]
        """What a Poll may carry: nothing, the play, copies of it, what is no play."""
        ballot = self.ballots[0]
        self.bent_ballots = [
            signers[1].sign(replace(ballot, ok=False, below=(), sig=b"")),
            signers[1].sign(replace(ballot, below=(0, 0, 0), sig=b"")),
            signers[1].sign(replace(ballot, view=1, sig=b"")),
            signers[2].sign(replace(ballot, sender=2, sig=b"")),
        ]
        """Ballots their voters may sign but a Tally cannot rest on as seat 0's was."""


VOTED = functools.cache(Voted)


def _commit_state(replica: Replica) -> tuple[object, ...]:
    """Everything a commit frame or an ordered message could move at a majority's seat, but
    what a genuine frame proves even when it is refused (`Commits.take`): the proofs of a
    voter that said two things, and the plays a signed Ballot or Tally names by another
    witness (`Commits.other_copies`: a Tally that names one fails its check, the play it
    holds being another, and the mark stays)."""
    majority = replica.majority
    assert majority is not None
    commits = majority.commits
    return (
        _state(replica),
        majority.made,
        list(majority._arrived),
        dict(majority.plays.messages),
        list(majority.plays._waiting),
        dict(majority.plays.outcomes),
        list(majority._queued),
        dict(commits.order.held),
        dict(commits.order.outcomes),
        list(commits.order.have),
        dict(commits.voter.votes),
        list(commits.voter.have),
        {play: dict(ballots) for play, ballots in commits.box._ballots.items()},
        dict(commits._tallies),
        {play: list(tallies) for play, tallies in commits._early.items()},
        {play: (at, set(seats)) for play, (at, seats) in commits._asked.items()},
        dict(commits.polls._due),
        dict(commits.polls._wait),
        dict(commits.polls._held_at),
        set(commits.polls._carried_in),
        list(commits.polls._took),
        list(commits._made),
        list(commits._outgoing),
    )


def _offered(replica: Replica, message: Message | CommitFrame, now: float, via: int) -> bool:
    """Give ``message`` to ``replica`` on ``via``'s link: True if taken; if refused, nothing
    changed."""
    before = _commit_state(replica)
    try:
        replica.receive(message, now, via=via)
    except RemoteProtocolError:
        assert _commit_state(replica) == before
        return False
    return True


_NUMBER = st.one_of(st.integers(0, 6), st.just(BIG))
_FIELDS = {
    "sender": st.integers(0, 3),
    "view": st.integers(0, 2),
    "clock": st.one_of(st.integers(1, 60), st.just(BIG)),
    "seq": st.integers(1, 3),
    "to": st.integers(0, 3),
    "seat": st.integers(0, 3),
    "number": st.one_of(st.integers(1, 6), st.just(BIG)),
    "ok": st.booleans(),
    "below": st.lists(_NUMBER, max_size=4).map(tuple),
}


def _on_honest_ballots(tally: Tally, honest: list[Ballot]) -> bool:
    """Whether every Ballot ``tally`` carries is one of the ``honest`` ones, whole again."""
    try:
        return all(decode_carried(payload, tally) in honest for payload in tally.ballots)
    except RemoteProtocolError:
        return False


@st.composite
def bent_frames(draw: st.DrawFn) -> tuple[CommitFrame, int, int]:
    """A Ballot, Tally or Poll of seat 0's play with up to three fields changed, signed
    again by its sender or not, and the seat it goes to and the seat whose link carries it."""
    voted = VOTED()
    frames: list[CommitFrame] = [*voted.ballots, voted.tally, voted.poll]
    frame = draw(st.sampled_from(frames))
    names = [n for n in (*_FIELDS, "witness", "ballots", "play") if hasattr(frame, n)]
    witnesses = st.sampled_from([b"", bytes(16), voted.tally.witness])
    carried: list[Ballot] = [*voted.ballots, *voted.bent_ballots]
    # Each as a Tally carries it, beside their whole payloads and the Tally's (not Ballots
    # as carried: refused).
    payloads = [encode_carried(b, w) for b in carried for w in (b"", voted.tally.witness)]
    payloads += [encode_payload(b) for b in carried] + [encode_payload(voted.tally)]
    ballots = st.lists(st.sampled_from(payloads), max_size=4).map(tuple)
    changes: dict[str, Any] = {}
    for name in draw(st.sets(st.sampled_from(names), max_size=3)):
        own = {"witness": witnesses, "ballots": ballots, "play": st.sampled_from(voted.carried)}
        changes[name] = draw(own[name] if name in own else _FIELDS[name])
    frame = replace(frame, **changes)
    if not isinstance(frame, Poll) and frame.sender < 3 and draw(st.booleans()):
        frame = voted.table.replicas[frame.sender].signer.sign(replace(frame, sig=b""))
    dest = draw(st.integers(0, 2))
    via = draw(st.sampled_from([s for s in range(3) if s != dest]))
    return frame, dest, via


@MAJORITY_FUZZ
@given(bent_frames())
def test_a_majority_seat_takes_or_refuses_any_commit_frame_and_learns_no_false_outcome(
    bent: tuple[CommitFrame, int, int],
) -> None:
    frame, dest, via = bent
    voted = VOTED()
    table = copy.deepcopy(voted.table)
    replica = table.replicas[dest]
    for arrived in _decoded_or_refused(encode(frame)):  # what a peer decodes of it, if any
        assert isinstance(arrived, CommitFrame)
        _offered(replica, arrived, table.now, via)
    honest = voted.tally
    if isinstance(frame, Tally) and _on_honest_ballots(frame, voted.ballots):
        # On the play's honest Ballots alone, only the honest outcome can be proven.
        assert replica.majority is not None
        learnt = replica.majority.commits.order.outcomes.get((honest.seat, honest.number))
        assert learnt is None or (learnt.ok, learnt.below) == (honest.ok, honest.below)


@MAJORITY_FUZZ
@given(
    st.one_of(
        st.lists(_NUMBER, max_size=4).map(tuple),
        st.tuples(st.integers(0, 2), _NUMBER),  # (its own vote, one entry changed)
    ),
    st.booleans(),
    st.sampled_from(["play", "leave"]),
    st.integers(1, 2),
)
def test_a_majority_seat_takes_or_refuses_an_ordered_message_with_any_below(
    below: tuple[int, ...], signed: bool, what: str, dest: int
) -> None:
    """Seat 0's next ordered message (its play, or its Reveal and Leave as it leaves) with
    ``below`` in place of its own vote (a pair: its own vote with entry ``below[0]`` made
    ``below[1]``); if taken, it named its own number, and the table goes on (every frame
    delivered, a refusal allowed, nothing else raised)."""
    table = copy.deepcopy(_majority_dealt())
    sender = table.replicas[0]
    if what == "play":
        sender.intend(ACE, table.now)
    else:
        sender.leave(table.now)
    sent = [m for m in sender.take_outgoing() if isinstance(m, Ordered) and m.sender == 0]
    last = sent[-1]
    if len(below) == 2 and below[0] < 3:
        at, number = below
        below = tuple(number if s == at else n for s, n in enumerate(last.below))
    bent = replace(last, below=below, sig=b"")
    if signed:
        bent = sender.signer.sign(bent)
    replica = table.replicas[dest]
    for message in sent[:-1]:  # (a Reveal first, as the seat leaves)
        replica.receive(message, table.now)
    number = last.below[0]
    for arrived in _decoded_or_refused(encode(bent)):
        assert isinstance(arrived, Ordered)
        if _offered(replica, arrived, table.now, 0):
            assert arrived.below[0] == number and len(arrived.below) == 3
    for _ in range(20):  # the table goes on: whatever is refused stays refused
        moved = 0
        for (src, to), queue in table.links.items():
            while queue:
                moved += 1
                with contextlib.suppress(RemoteProtocolError):
                    table.replicas[to].receive(queue.popleft(), table.now, via=src)
        table.flush()
        table.advance(table.timing.ack_delay)
        if not moved:
            break
