"""The golden frames of version 3's majority commit, for python tools/golden.py.

One story at a table of 4 seats that commits by a majority (every process given
``--majority``; SPEC's notes, "The commit frames: Ballot, Tally and Poll"): seat 0 is
dealt round 1 and seat 2 plays onto a foundation, each ordered message carrying its
sender's own vote in ``below``; seats 1 and 3 vote for the play in signed Ballots, seat 0
votes it late; seat 2 counts a quorum (3 of 4: its own vote and two Ballots) and sends
the outcome as a Tally carrying the two Ballots (each without what the Tally says once:
its view, its play and its witness); seat 0 polls on seat 1's play 9, carrying it as it
holds it, and seat 3, whose link from seat 1 brought it seat 1's plays up to 7 only (so
it cannot take the copy the poll carries ahead of play 8), never holds it and votes it late
with no witness. Then seat 2 restarts
and asks back in: seats 0, 1 and 3 vote for view 1, each bringing its holding (the play
and its Tally, named by hash in the signed ``holding``, the payloads in ``pool``), and
seat 1, the coordinator, lets seat 2 back in with a StartView carrying the round's
ordered messages, the Rejoin, the votes and one pool for them.

Every Ballot and the Tally are made and checked by the commit's own code (`BallotBox`),
and every holding is written as a replica writes one (`_handover.write`), so that the
frames are ones an honest seat sends and every seat takes.
"""

from __future__ import annotations

from p2pnerts.protocol import Play, Ready, Rejoin, StartView, ViewChange, order_key, witness
from p2pnerts.protocol._ballots import BallotBox
from p2pnerts.protocol._changes import Holding
from p2pnerts.protocol._codec import encode_payload
from p2pnerts.protocol._handover import pooled, write
from p2pnerts.protocol._messages import Ballot, CommitFrame, Message, Poll, Tally, bare
from p2pnerts.protocol._spots import Spotted, Vote, spots_of
from p2pnerts.rules import NERTS, Card, TableOptions, ToFoundation

from .frames import SHOWN, signed, signer
from .values import DIGEST, NEXT, C, H

PLAYERS = 4
MEMBERS = (0, 1, 2, 3)

READY = signed(Ready(0, 0, 3, 7, 1, NEXT, SHOWN, below=(3, 0, 0, 0)))
"""Seat 0's Ready of round 1: its third ordered message (after round 0's Ready and Reveal),
sent as its message 7 (Acks count in ``seq``, not in the number ``below`` names)."""
PLAY = signed(
    Play(2, 0, 17, 9, 1, ToFoundation(2, Card(2, 7, H), NERTS, 3, None, (Card(2, 1, C),)),
         below=(3, 0, 4, 2))
)  # fmt: skip
"""Seat 2's fourth ordered message, sent as its message 9."""
PLAYED = Spotted(
    2, 4, order_key(PLAY, PLAYERS, TableOptions().tie_rule), spots_of(PLAY.move, 2), PLAY.below,
    witness(PLAY),
)  # fmt: skip
"""The play as the rule sees it, at every seat."""


def _ballot(voter: int, to: int, vote: Vote, clock: int) -> Ballot:
    return BallotBox(voter, PLAYERS, signer(voter)).cast(vote, to, 0, clock)


FOR_1 = _ballot(1, 2, Vote(PLAYED.id, 1, True, (3, 0, 4, 2), PLAYED.witness), 19)
FOR_3 = _ballot(3, 2, Vote(PLAYED.id, 3, True, (3, 0, 4, 3), PLAYED.witness), 20)
LATE = _ballot(0, 2, Vote(PLAYED.id, 0, False, (), PLAYED.witness), 21)
UNSEEN = _ballot(3, 0, Vote((1, 9), 3, False, (), b""), 26)
POLLED = signed(Play(1, 0, 23, 14, 1, ToFoundation(1, Card(1, 1, C), 2, 5), below=(3, 9, 0, 0)))
"""Seat 1's ninth ordered message, held at seat 0."""
POLL = Poll(0, 0, 25, 1, 1, 9, encode_payload(POLLED))


def _tally() -> Tally:
    box = BallotBox(2, PLAYERS, signer(2))
    for ballot in (LATE, FOR_1, FOR_3):
        box.count(ballot)
    tally = box.tally(PLAYED, MEMBERS, 0, lambda: 22, (17, 0, 1))
    assert tally is not None and tally.ok, "a quorum of three decides the play in"
    for seat in MEMBERS:  # every seat takes it: signed, and its Ballots decide it so
        BallotBox(seat, PLAYERS, signer(seat)).check(tally, PLAYED, MEMBERS)
    return tally


TALLY = _tally()
HAVE = (3, 9, 4, 3)
"""Per seat, the number of its last play held at seats 0, 1 and 3 when seat 2 asks back in."""
REJOIN = signed(Rejoin(2, 0, 1, 1, 1))
"""Seat 2, restarted holding its deck of round 1, asks back in from view 0."""


def _vote(seat: int, clock: int, seq: int, have: tuple[int, ...]) -> ViewChange:
    holding, pool = write(
        Holding(seat, 0, MEMBERS, HAVE, (PLAYED,), (), (TALLY,)), {PLAYED.id: PLAY}
    )
    vote = ViewChange(
        seat, 0, clock, seq, new_view=1, suspects=(), have=have, committed=9, holding=holding,
        pool=tuple(pool),
    )  # fmt: skip
    return signed(vote)


VOTES = (
    _vote(0, 30, 12, (12, 20, 11, 14)),
    _vote(1, 31, 21, (13, 20, 11, 14)),
    _vote(3, 29, 15, (13, 20, 11, 14)),
)
START = signed(
    StartView(
        1, 1, 40, 22, voted_in=0, members=MEMBERS, quorums=((0, MEMBERS),),
        cuts=(13, 21, 11, 14), joined=(2,), joined_from=(0,), lives=(0, 0, 1, 0),
        seated=MEMBERS, round=1, base_committed=9, base_digest=DIGEST,
        carried=(encode_payload(READY), encode_payload(PLAY), encode_payload(REJOIN)),
        scores=(), votes=tuple(encode_payload(bare(v)) for v in VOTES),
        pool=tuple(pooled(v.pool for v in VOTES)),
    )
)  # fmt: skip

COMMIT_FRAMES: list[tuple[str, Message | CommitFrame, str]] = [
    (
        "ready-majority",
        READY,
        "The ready frame's deal at a table that commits by a majority: seat 0's Ready of"
        " round 1 carries its own vote in below, one number per seat. Its own entry, 3, is"
        " the message's number, its place among seat 0's ordered messages (round 0's Ready"
        " and Reveal came first); seq 7 counts its Acks too. Of the other seats, the last"
        " message of each it held that must come before this one: none (0).",
    ),
    (
        "play-majority",
        PLAY,
        "The play-to-foundation move at a table that commits by a majority, sent as seat 2's"
        " message 9: below names it seat 2's ordered message 4, and says seat 0's message 3"
        " and seat 3's message 2 come before it; of seat 1 nothing.",
    ),
    (
        "ballot-for",
        FOR_1,
        "Seat 1's vote for play-majority (seat 2's play 4), to seat 2 alone: the witness of"
        " the play it holds under that number, ok, and per seat the last play it held that"
        " must come before it (of seat 2, the number itself). Outside the sequence (seq 1);"
        " signed, so that a Tally can carry it to every seat.",
    ),
    (
        "ballot-late",
        LATE,
        "Seat 0 votes play-majority late: it had voted for a play that sorts after it on one"
        " of its spots first. The witness of the play it holds; below empty.",
    ),
    (
        "ballot-unseen",
        UNSEEN,
        "Seat 3 answers seat 0's poll (the poll frame) on seat 1's play 9, which it never"
        " held (its link from seat 1 had brought plays up to 7 only, so it could not take"
        " the copy the poll carried, ahead of play 8): late, with no witness (empty) and"
        " below empty, to seat 0, the seat that polled.",
    ),
    (
        "tally-in",
        TALLY,
        "Seat 2 counted play-majority in, on a quorum of 3 of 4: its own vote (the play's"
        " below) and seats 1's and 3's Ballots, which the Tally carries without what it says"
        " once (their view, play and witness: the ballot-for frame first, each whole again"
        " as its voter signed it); seat 0's late vote is not among the"
        " grounds. below is per seat the most any of the three named. Sent to every seat,"
        " signed by seat 2, the seat that counted it.",
    ),
    (
        "poll",
        POLL,
        "Seat 0 waited too long on the outcome of seat 1's play 9 and asks every member for"
        " its Ballot on it (and its Tally, if it holds one), carrying the play as seat 0"
        " holds it: seat 1's signed message, whole (a Play moving the ace of clubs from its"
        " work pile 2 to a new foundation), which a member whose link from seat 1 has"
        " brought play 8 but not 9 holds at once, and votes on. Not signed; seq 1.",
    ),
    (
        "view-change-holding",
        VOTES[0],
        "At a table that commits by a majority, seat 0 votes for view 1 (seat 2 asked back"
        " in) bringing its holding, signed: a msgpack array of the view's members, have"
        " (per seat, the number of the last play held), then the plays, Ballots and Tallies"
        " it holds, each named by the 16-byte BLAKE2b hash of its payload (here"
        " play-majority and tally-in, no Ballots: the play is decided), and the outcomes the"
        " last change settled (none). pool carries the named payloads, outside the"
        " signature.",
    ),
    (
        "start-view-majority",
        START,
        "Seat 1, coordinator of view 1, lets seat 2 back in at a table that commits by a"
        " majority: carried holds the round's ordered messages (ready-majority,"
        " play-majority), then seat 2's signed Rejoin; votes holds the signed ViewChanges of"
        " seats 0, 1 and 3, each with its holding and without its pool; pool holds every"
        " payload their holdings name, once (the play and its Tally, which all three hold).",
    ),
]
