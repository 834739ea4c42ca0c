"""Version 3's commit on the wire at one seat: votes as signed Ballots, outcomes as Tallies
that carry them, and the checks a seat makes before it counts either.

Theory of operation
-------------------
The rule (`_spots`) and one seat's commits (`_order`) know votes and outcomes as values;
this part is what they become between seats, as SPEC's notes on version 3 lay them out
("The commit frames"). A member's vote on a play goes to the play's sender, or to a seat
that polled it, as a `Ballot` signed by the voter (`cast`). The seat that counts enough of
them (`count`: the sender, or a seat that polled the members) sends the outcome they
decide to every seat as a `Tally`, signed itself and carrying the signed Ballots it rests
on (`tally`, by `_spots.grounds`), so that any seat may hand it on. A seat takes a Tally
only if its sender signed it, every Ballot it carries is genuine, on that very play, and
together they decide it as the Tally says
(`check`, by `_spots.proven`): a seat that claims a quorum it never had, counts a late
vote as for, names less below than its voters did, or makes up a vote, is refused. A
Tally from a seat other than the play's sender is held to a poller's count (`_spots.decide`,
``polled``), whatever it claims.

A voter's Ballot on a play never changes (`_spots.Voter`), so two genuine Ballots of one
voter on one play that say different things prove it a cheat: one that told one asker one
thing and the next another. The box keeps every Ballot it counted or checked, and keeps such
a pair as the proof (`proofs`): a Ballot sent so is refused, while a Tally that carries one
still stands on its Ballots, since the rule keeps a sender's outcome and a poller's apart
from one such voter (`_spots.decide`).

Nothing here sends, keeps time or knows views beyond the one a frame names: the replica
stamps each frame and says who the members are.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable

from p2pnerts.protocol._codec import decode_carried, encode_carried
from p2pnerts.protocol._errors import RemoteProtocolError
from p2pnerts.protocol._messages import Ballot, Tally
from p2pnerts.protocol._signing import VERIFIED_KEPT, Signer
from p2pnerts.protocol._spots import Decision, PlayId, Spotted, Vote, decide, grounds, proven


@functools.lru_cache(maxsize=VERIFIED_KEPT)
def _carried(payload: bytes, tally: Tally) -> Ballot:
    """A Ballot ``tally`` carries, decoded once per process: each seat a Tally reaches reads
    the same Ballots (in a simulated table, every seat in the one process). A Ballot is a
    frozen value, so one decoding serves every reader; one that does not decode raises
    each time."""
    return decode_carried(payload, tally)


def vote_of(ballot: Ballot) -> Vote:
    """The rule's vote that ``ballot`` carries."""
    play = (ballot.seat, ballot.number)
    return Vote(play, ballot.sender, ballot.ok, ballot.below, ballot.witness)


def _says(ballot: Ballot) -> tuple[bytes, bool, tuple[int, ...]]:
    """What a Ballot says of its play, whoever it is sent to and whenever."""
    return ballot.witness, ballot.ok, ballot.below


class BallotBox:
    """One seat's Ballots: those it cast, counted and saw carried, per play and voter."""

    def __init__(self, seat: int, players: int, signer: Signer) -> None:
        self.seat = seat
        self.players = players
        self.signer = signer
        self._ballots: dict[PlayId, dict[int, Ballot]] = {}
        self.proofs: list[tuple[Ballot, Ballot]] = []
        """Pairs of genuine Ballots of one voter on one play that say different things."""

    def cast(self, vote: Vote, to: int, view: int, clock: int) -> Ballot:
        """This seat's ``vote`` as a signed Ballot to seat ``to``, kept (it counts its own
        vote when it decides a play it polled for)."""
        seat, number = vote.play
        ballot = Ballot(
            self.seat, view, clock, 1, to, seat, number, vote.witness, vote.ok, vote.below
        )
        ballot = self.signer.sign(ballot)
        self._keep(ballot)
        return ballot

    def count(self, ballot: Ballot) -> Vote:
        """Take a Ballot sent to this seat, or on a play of this seat's that a seat that polled
        hands on (`_commits.Commits._hand_on`); returns the vote it carries, to count.
        Raises `RemoteProtocolError` for a Ballot sent to another seat on another seat's
        play, not signed by its voter, of the wrong shape, or that says otherwise than a
        Ballot of its voter kept here (the pair kept as the proof)."""
        if ballot.to != self.seat and ballot.seat != self.seat:
            raise RemoteProtocolError(f"a Ballot for seat {ballot.to} came to seat {self.seat}")
        what = f"seat {ballot.sender}'s Ballot"
        self._check(ballot, what)
        if self._two_faced(ballot):
            raise RemoteProtocolError(f"{what} says otherwise than its voter said before")
        self._keep(ballot)
        return vote_of(ballot)

    def ballots(self, play: PlayId) -> tuple[Ballot, ...]:
        """The Ballots on ``play`` this seat holds, by voter."""
        return tuple(b for _, b in sorted(self._ballots.get(play, {}).items()))

    def genuine(self, ballot: Ballot) -> bool:
        """Whether ``ballot`` is signed by its voter and of a shape this table's can be."""
        try:
            self._check(ballot, "a Ballot")
        except RemoteProtocolError:
            return False
        return True

    def votes(self, play: PlayId) -> dict[int, Vote]:
        """The votes on ``play`` this seat holds, by voter."""
        return {voter: vote_of(b) for voter, b in self._ballots.get(play, {}).items()}

    def tally(
        self,
        play: Spotted,
        members: Iterable[int],
        view: int,
        stamp: Callable[[], int],
        passed: tuple[int, ...],
    ) -> Tally | None:
        """The outcome the votes held here decide for ``play``, as a signed Tally carrying
        the Ballots it rests on, sent at the clock ``stamp`` gives, saying how far this seat
        has ``passed`` the canonical order; None while they decide nothing (and ``stamp``
        is not called)."""
        members = tuple(members)
        held = self.votes(play.id)
        polled = play.seat != self.seat  # (`_spots.decide`: a poller needs more votes)
        rests_on = grounds(play, held, members, self.players, polled=polled)
        if not rests_on:
            return None
        ballots = self._ballots[play.id]
        # What a receiver checks: the outcome these Ballots decide by themselves.
        by_voter = {v.voter: v for v in rests_on}
        outcome = decide(play, by_voter, members, self.players, polled=polled)
        assert outcome is not None, "grounds decide what they are the grounds of"
        carried = tuple(encode_carried(ballots[vote.voter], outcome.witness) for vote in rests_on)
        seat, number = play.id
        decided = (outcome.witness, outcome.ok, outcome.below, carried)
        tally = Tally(self.seat, view, stamp(), 1, seat, number, *decided, passed)
        return self.signer.sign(tally)

    def check(self, tally: Tally, play: Spotted, members: Iterable[int]) -> Decision:
        """The outcome ``tally`` proves for ``play`` (which this seat holds), whichever seat
        handed it on. Raises `RemoteProtocolError` unless it is signed by the seat that
        counted it and every Ballot it carries is genuine, of its view, on this very play,
        and together they decide it as the Tally says, counted as that seat counts."""
        who = f"seat {tally.sender}'s Tally"
        if (tally.seat, tally.number) != play.id:
            raise RemoteProtocolError(f"{who} is not on play {play.id}")
        # (Each carried Ballot of the Tally's view and play: it says them.)
        ballots = [_carried(payload, tally) for payload in tally.ballots]
        forged = self.signer.first_forged((tally, *ballots))
        if forged is tally:
            raise RemoteProtocolError(f"{who} is not signed by its key")
        if forged is not None:
            raise RemoteProtocolError(
                f"a Ballot in {who} is not signed by seat {forged.sender}'s key"
            )
        for ballot in ballots:
            self._shape(ballot, f"a Ballot in {who}")
        votes = [vote_of(ballot) for ballot in ballots]
        outcome = Decision(play.id, tally.ok, tally.below, tally.witness)
        polled = tally.sender != play.seat
        if not proven(play, outcome, votes, members, self.players, polled=polled):
            raise RemoteProtocolError(f"{who}: its Ballots do not decide it so")
        for ballot in ballots:
            # A voter that told this seat otherwise is proven a cheat; the Tally still
            # stands on its Ballots (`_spots.decide`: a sender's outcome and a poller's
            # cannot part on one such voter).
            if not self._two_faced(ballot):
                self._keep(ballot)
        return outcome

    def forget(self, plays: Iterable[PlayId]) -> None:
        """Let go of the Ballots on ``plays``, passed everywhere (the proofs stay)."""
        for play in plays:
            self._ballots.pop(play, None)

    def _check(self, ballot: Ballot, what: str) -> None:
        if not self.signer.genuine(ballot):
            raise RemoteProtocolError(f"{what} is not signed by seat {ballot.sender}'s key")
        self._shape(ballot, what)

    def _shape(self, ballot: Ballot, what: str) -> None:
        """Refuse a genuine Ballot of a shape no Ballot of this table can have."""
        if not 0 <= ballot.seat < self.players:
            raise RemoteProtocolError(f"{what} is on a play of seat {ballot.seat}, not seated")
        if len(ballot.below) != (self.players if ballot.ok else 0):
            raise RemoteProtocolError(f"{what} names {len(ballot.below)} seats below its play")

    def _two_faced(self, ballot: Ballot) -> bool:
        """Whether a genuine ``ballot`` says otherwise than a Ballot of its voter on its play
        kept here: if so the pair is kept, the proof that the voter is a cheat."""
        kept = self._ballots.get((ballot.seat, ballot.number), {}).get(ballot.sender)
        if kept is None or _says(kept) == _says(ballot):
            return False
        self.proofs.append((kept, ballot))
        return True

    def _keep(self, ballot: Ballot) -> None:
        self._ballots.setdefault((ballot.seat, ballot.number), {}).setdefault(ballot.sender, ballot)
