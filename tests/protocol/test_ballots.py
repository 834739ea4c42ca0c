"""Version 3's commit frames: Ballots and Tallies through the real codec and signatures,
a play committed by them at every seat, and every forged Tally refused."""

from __future__ import annotations

import hashlib
from dataclasses import replace

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pnerts.protocol import (
    PROTOCOL_VERSION,
    RemoteProtocolError,
    Signer,
    decode_any,
    decode_carried,
    decode_payload,
    encode_carried,
    encode_payload,
)
from p2pnerts.protocol._ballots import BallotBox, vote_of
from p2pnerts.protocol._codec import decode_commit_frame
from p2pnerts.protocol._messages import Ballot, Poll, Tally
from p2pnerts.protocol._order import Order
from p2pnerts.protocol._spots import ALL, STARTS, Spotted, Voter, quorum

SEATS = 5
MEMBERS = tuple(range(SEATS))
VIEW = 0


def wire(frame: Ballot | Tally | Poll) -> Ballot | Tally | Poll:
    """A frame as another seat reads it: encoded, then decoded and checked."""
    return decode_commit_frame(encode_payload(frame))


def witness(name: str) -> bytes:
    return hashlib.blake2b(name.encode(), digest_size=16).digest()


class Table:
    """Seats that vote with signed Ballots and learn outcomes from Tallies."""

    def __init__(self) -> None:
        self.voters = [Voter(s, SEATS) for s in MEMBERS]
        self.orders = [Order(SEATS) for _ in MEMBERS]
        self.boxes = [BallotBox(s, SEATS, Signer.computed(s, SEATS)) for s in MEMBERS]
        self.clock = 0

    def stamp(self) -> int:
        self.clock += 1
        return self.clock

    def play(self, seat: int, spots: tuple[tuple[object, ...], ...] = (STARTS,)) -> Spotted:
        seq = self.voters[seat].have[seat] + 1
        play = self.voters[seat].make(seq, (self.stamp(), seat), spots, witness(f"{seat}/{seq}"))
        self.voters[seat].hold(play)
        self.orders[seat].hold(play)
        return play

    def ballot(self, voter: int, play: Spotted) -> Ballot:
        """``voter`` holds ``play`` and casts its vote to the sender, over the wire."""
        vote = self.voters[voter].hold(play)
        self.orders[voter].hold(play)
        ballot = wire(self.boxes[voter].cast(vote, play.seat, VIEW, self.stamp()))
        assert isinstance(ballot, Ballot)
        return ballot

    def decided(self, play: Spotted, voters: range | tuple[int, ...]) -> Tally:
        """The sender counts the Ballots of ``voters`` and tallies, over the wire."""
        box = self.boxes[play.seat]
        for voter in voters:
            box.count(self.ballot(voter, play))
        tally = box.tally(play, MEMBERS, VIEW, self.stamp, ())
        assert tally is not None
        decoded = wire(tally)
        assert isinstance(decoded, Tally)
        return decoded


def test_a_play_commits_at_every_seat_on_a_quorum_of_signed_ballots_carried_in_its_tally() -> None:
    table = Table()
    play = table.play(0)
    need = quorum(SEATS) - 1  # the sender's own vote is the play
    box = table.boxes[0]
    for voter in range(1, need):
        box.count(table.ballot(voter, play))
        assert box.tally(play, MEMBERS, VIEW, table.stamp, ()) is None  # not yet a quorum
    tally = table.decided(play, (need,))
    assert tally.ok and len(tally.ballots) == need
    for seat in MEMBERS:
        if seat > need:
            table.voters[seat].hold(play)
            table.orders[seat].hold(play)
        outcome = table.boxes[seat].check(tally, play, MEMBERS)
        table.orders[seat].learn(outcome)
        assert table.orders[seat].ready() == [(play.id, True)]


def _voted_late(table: Table) -> tuple[Spotted, list[Ballot]]:
    """Seat 2's play onto a foundation and seats 0's, 3's and 4's Ballots on it, each late:
    each held seat 1's play there first, which sorts after it."""
    later = table.play(1)  # one foundation's spot: the two plays conflict
    earlier = Spotted(2, 1, (0, 2), (STARTS,), (0, 0, 1, 0, 0), witness("2/1"))
    table.voters[2].hold(earlier)
    for voter in (0, 3, 4):
        table.voters[voter].hold(later)  # voted for the later play first: late on earlier
    return earlier, [table.ballot(voter, earlier) for voter in (0, 3, 4)]


def test_a_play_the_members_voted_late_is_returned_by_a_tally_of_their_ballots() -> None:
    table = Table()
    earlier, ballots = _voted_late(table)
    box = table.boxes[2]
    for ballot in ballots:
        assert not ballot.ok and ballot.below == ()
        box.count(ballot)
    tally = wire(box.tally(earlier, MEMBERS, VIEW, table.stamp, ()) or pytest.fail("undecided"))
    assert isinstance(tally, Tally) and not tally.ok
    assert table.boxes[4].check(tally, earlier, MEMBERS).ok is False


def forged(tally: Tally, **change: object) -> Tally:
    return replace(tally, **change)  # type: ignore[arg-type]


def test_every_forged_tally_is_refused() -> None:
    table = Table()
    play = table.play(0)
    need = quorum(SEATS) - 1
    tally = table.decided(play, range(1, need + 1))
    checker = table.boxes[SEATS - 1]
    signer0 = table.boxes[0].signer
    first = decode_carried(tally.ballots[0], tally)
    made_up = signer0.sign(replace(first, sig=b""))  # the decider signs a voter's ballot
    late = table.boxes[1].signer.sign(replace(first, ok=False, below=(), sig=b""))
    other_play = table.boxes[1].signer.sign(replace(first, number=2, sig=b""))

    def carrying(ballot: Ballot | bytes) -> Tally:
        """The Tally with its first Ballot replaced (a Ballot as the Tally carries it)."""
        payload = ballot if isinstance(ballot, bytes) else encode_carried(ballot, tally.witness)
        return forged(tally, ballots=(payload, *tally.ballots[1:]))

    again = msgpack.packb([*msgpack.unpackb(tally.ballots[0]), tally.witness])
    forgeries = {
        "short of a quorum": forged(tally, ballots=tally.ballots[1:]),
        "a ballot changed": carrying(replace(first, ok=False, below=())),
        "a ballot made up": carrying(made_up),
        "a late vote counted for": carrying(late),
        "a ballot on another play": carrying(other_play),  # (it carries the Tally's number)
        "a ballot whole, as sent": carrying(encode_payload(first)),
        "naming the Tally's witness again": carrying(again),
        "one voter twice": forged(tally, ballots=(tally.ballots[0], *tally.ballots[:-1])),
        "naming less below": forged(tally, below=tuple(0 for _ in tally.below)),
        "another witness": forged(tally, witness=witness("another")),
        "returned on votes for": forged(tally, ok=False, below=(), witness=b""),
        "of another view": forged(tally, view=VIEW + 1),
        "not a ballot": forged(tally, ballots=(encode_payload(Poll(1, VIEW, 3, 1, 0, 1)),)),
        "its signature broken": forged(tally, clock=tally.clock + 1),
        # Another seat's count (a poller's) needs a vote more than this Tally carries.
        "under another seat's name": table.boxes[1].signer.sign(forged(tally, sender=1, sig=b"")),
    }
    for name, tally_forged in forgeries.items():
        with pytest.raises(RemoteProtocolError):
            checker.check(tally_forged, play, MEMBERS)
            pytest.fail(f"took a tally {name}")
    assert checker.check(tally, play, MEMBERS).ok  # the genuine one still stands


def test_a_voter_that_says_two_things_on_one_play_is_caught_with_the_proof() -> None:
    table = Table()
    play = table.play(0, (ALL,))
    honest = table.ballot(1, play)
    box = table.boxes[0]
    assert box.count(honest).ok
    two_faced = table.boxes[1].signer.sign(replace(honest, ok=False, below=(), sig=b""))
    with pytest.raises(RemoteProtocolError, match="otherwise"):
        box.count(two_faced)
    assert box.proofs == [(honest, two_faced)]
    assert box.count(honest) == vote_of(honest)  # said again, the same: taken


def test_a_ballot_is_taken_only_by_the_seat_it_is_sent_to_and_signed_by_its_voter() -> None:
    table = Table()
    play = table.play(0)
    ballot = table.ballot(1, play)
    with pytest.raises(RemoteProtocolError, match="for seat 0"):
        table.boxes[2].count(ballot)
    with pytest.raises(RemoteProtocolError, match="not signed"):
        table.boxes[0].count(replace(ballot, clock=ballot.clock + 1))
    short = table.boxes[1].signer.sign(replace(ballot, below=ballot.below[:-1], sig=b""))
    with pytest.raises(RemoteProtocolError, match="names 4 seats"):
        table.boxes[0].count(short)


def test_a_seat_polled_on_a_play_it_never_held_votes_late_and_keeps_to_it() -> None:
    table = Table()
    play = table.play(0)
    poll = wire(Poll(3, VIEW, table.stamp(), 1, 0, play.seq))
    assert isinstance(poll, Poll)
    vote = table.voters[1].unseen((poll.seat, poll.number))
    answer = wire(table.boxes[1].cast(vote, poll.sender, VIEW, table.stamp()))
    assert isinstance(answer, Ballot) and not answer.ok and answer.witness == b""
    assert table.boxes[3].count(answer) == vote_of(answer)
    assert table.voters[1].hold(play) == vote  # the play comes: its vote stays late


def test_commit_frames_round_trip_off_a_link_and_nowhere_a_protocol_message_belongs() -> None:
    table = Table()
    play = table.play(0)
    tally = table.decided(play, (1, 2, 3))
    first = decode_carried(tally.ballots[0], tally)
    assert encode_carried(first, tally.witness) == tally.ballots[0]  # (as carried, again)
    for frame in (first, tally, Poll(1, VIEW, 7, 1, 0, 1)):
        payload = encode_payload(frame)
        assert decode_commit_frame(payload) == frame == decode_any(payload)
        with pytest.raises(RemoteProtocolError, match="where a protocol message belongs"):
            decode_payload(payload)  # (what a StartView carries, or an Evidence shows)
    ack_like = msgpack.packb([3, 3, 0, 0, 1, 1, [1], 0, bytes(16), []])
    with pytest.raises(RemoteProtocolError, match="not a commit frame"):
        decode_commit_frame(ack_like)
    ballot = msgpack.unpackb(encode_payload(first))
    for index, bad in ((9, b"12345"), (10, 1), (11, [1] * 65)):  # witness, ok, below
        broken = list(ballot)
        broken[index] = bad
        with pytest.raises(RemoteProtocolError):
            decode_commit_frame(msgpack.packb(broken))


def test_a_ballot_as_a_tally_carries_it_comes_back_whole_or_is_refused() -> None:
    # Carried, a Ballot leaves out what its Tally says once (its view, its play, and its
    # witness where it is the Tally's): a late vote in a returned Tally keeps its witness.
    table = Table()
    earlier, ballots = _voted_late(table)
    box = table.boxes[2]
    for ballot in ballots:
        box.count(ballot)
    returned = wire(box.tally(earlier, MEMBERS, VIEW, table.stamp, ()) or pytest.fail("undecided"))
    assert isinstance(returned, Tally) and returned.witness == b""
    for payload in returned.ballots:  # late votes naming the play they held: a witness each
        ballot = decode_carried(payload, returned)
        assert not ballot.ok and ballot.witness == earlier.witness and ballot.view == VIEW
        assert (ballot.seat, ballot.number, ballot.seq) == (2, earlier.seq, 1)
        assert len(msgpack.unpackb(payload)) == 7
        assert encode_carried(ballot, returned.witness) == payload
        assert len(payload) < len(encode_payload(ballot))
    items = msgpack.unpackb(returned.ballots[0])
    for index, bad in ((0, 64), (1, 0), (3, 1), (4, [1] * 65), (5, b"x" * 65), (6, b"123")):
        broken = list(items)
        broken[index] = bad
        with pytest.raises(RemoteProtocolError):
            decode_carried(msgpack.packb(broken), returned)
    for short_or_long in (items[:5], [*items, b""]):
        with pytest.raises(RemoteProtocolError, match=r"expected an array of 6\.\.7"):
            decode_carried(msgpack.packb(short_or_long), returned)


def _items() -> st.SearchStrategy[object]:
    scalars = st.one_of(
        st.integers(-1, 2**64 - 1), st.binary(max_size=20), st.booleans(), st.none(),
        st.sampled_from([b"", witness("0/1"), bytes(16)]),
    )  # fmt: skip
    return st.recursive(scalars, lambda inner: st.lists(inner, max_size=6), max_leaves=20)


@st.composite
def commit_payloads(draw: st.DrawFn) -> bytes:
    """A commit frame's payload of the right version and kind, with items of any type."""
    kind = draw(st.sampled_from([11, 12, 13]))
    items = draw(st.lists(_items(), max_size=13))
    payload: bytes = msgpack.packb([PROTOCOL_VERSION, kind, *items], use_bin_type=True)
    return payload


@settings(max_examples=300, deadline=None)
@given(commit_payloads(), st.data())
def test_any_commit_payload_decodes_to_a_frame_that_encodes_back_or_is_refused(
    payload: bytes, data: st.DataObject
) -> None:
    table = Table()
    play = table.play(0)
    try:
        frame = decode_commit_frame(payload)
    except RemoteProtocolError:
        return
    assert decode_commit_frame(encode_payload(frame)) == frame
    box = table.boxes[data.draw(st.integers(0, SEATS - 1))]
    try:  # a box takes it or refuses it, and raises nothing else
        if isinstance(frame, Tally):
            box.check(frame, play, MEMBERS)
        elif isinstance(frame, Ballot):
            box.count(frame)
    except RemoteProtocolError:
        pass
