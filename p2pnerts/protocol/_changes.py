"""Version 3's commit through a change of members: what each seat of the new view brings
(`Holding`) and what every one of them works out from the same holdings on its own
(`settlement`), which `_commits.Commits.install` then takes.

Theory of operation
-------------------
A change of members settles every play still open first. Each seat of the new view brings
the plays it holds that not every member has passed, its Ballots on those it has not
resolved, and the outcomes it knows: by their Tallies if it learnt them in this view, else
as the last change settled them. From the same holdings every seat works out the same
outcomes (by `_order.settle`): one a Tally proves or a change settled, else the one the
Ballots decide, else returned. What a holding carries that fails its check counts for
nothing, at every seat alike: a Ballot not signed by its voter or not of that view, a
Tally that does not prove its outcome. Plays none of them holds are returned with nothing
to carry, and every seat's plays up to the last any holding reaches count as held
(`Settlement.last`): a sender's plays go on numbered after it, whatever view it comes back
in. A holding of an earlier view than the others' (a seat coming back after it was left
out) counts for nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from p2pnerts.protocol._ballots import BallotBox, vote_of
from p2pnerts.protocol._errors import RemoteProtocolError
from p2pnerts.protocol._messages import Ballot, Tally
from p2pnerts.protocol._order import settle
from p2pnerts.protocol._spots import Decision, PlayId, Spotted, Vote


@dataclass(frozen=True, slots=True)
class Holding:
    """What one seat brings to a change of members (`Commits.holding`), for every seat of
    the new view to settle the plays still open from (`settlement`)."""

    seat: int
    view: int
    """The view it was made in: a change of members settles the open plays of one view."""
    members: tuple[int, ...]
    """That view's members, whose votes decide its plays."""
    have: tuple[int, ...]
    """Per seat, the number of its last play held there (those not carried, every member
    has passed)."""
    plays: tuple[Spotted, ...]
    """The plays it holds that not every member has passed, each seat's in its order."""
    ballots: tuple[Ballot, ...]
    """Its Ballots on those it has not resolved: its own, and those it counted."""
    tallies: tuple[Tally, ...]
    """The Tallies of those whose outcome it learnt from one in this view."""
    settled: tuple[Decision, ...] = ()
    """The outcomes of those known when the members last changed, which every seat of
    this view knew alike from then (the replica's proof: the StartView that began it)."""


@dataclass(frozen=True, slots=True)
class Settlement:
    """What a change of members settles: the plays the holdings carry (each seat's in its
    order), the outcome of each, and per seat the number up to which its plays count as
    held."""

    plays: list[Spotted]
    outcomes: dict[PlayId, Decision]
    last: list[int]


def settlement(box: BallotBox, members: Iterable[int], holdings: Iterable[Holding]) -> Settlement:
    """What the ``holdings`` of the seats among ``members`` settle, checked by ``box``
    (`_order.settle`, counted among the members of the view they were made in, the latest
    of theirs): the same at every seat that works it out from the same holdings."""
    players = box.players
    taken = _taken(players, members, holdings)
    if not taken:
        return Settlement([], {}, [0] * players)
    view, old = taken[0].view, taken[0].members
    copies: dict[PlayId, dict[bytes, Spotted]] = {}
    for holding in taken:
        for play in holding.plays:
            copies.setdefault(play.id, {}).setdefault(play.witness, play)
    known: dict[PlayId, Decision] = {}
    for holding in taken:
        for tally in holding.tallies:
            play_id = (tally.seat, tally.number)
            if play_id not in known:
                proof = _proven(box, tally, copies.get(play_id, {}).values(), old)
                if proof is not None:
                    known[play_id] = proof
    for holding in taken:
        for outcome in holding.settled:
            if outcome.play in copies:
                known.setdefault(outcome.play, outcome)
    chosen = {
        play_id: versions.get(known[play_id].witness) if play_id in known else None
        for play_id, versions in copies.items()
    }
    plays = sorted(
        (chosen[p] or next(iter(copies[p].values())) for p in copies), key=lambda p: p.id
    )
    votes: dict[PlayId, dict[int, Vote]] = {}
    for holding in taken:
        for ballot in holding.ballots:
            play_id = (ballot.seat, ballot.number)
            if play_id in copies and ballot.view == view and box.genuine(ballot):
                votes.setdefault(play_id, {}).setdefault(ballot.sender, vote_of(ballot))
    open_plays = [play for play in plays if play.id not in known]
    outcomes = {**settle(open_plays, votes, known, old, players), **known}
    last = [0] * players
    for holding in taken:
        last = [max(a, b) for a, b in zip(last, holding.have, strict=True)]
    for outcome in outcomes.values():
        last = [max(a, b) for a, b in zip(last, outcome.below or last, strict=True)]
    return Settlement(plays, outcomes, last)


def _taken(players: int, members: Iterable[int], holdings: Iterable[Holding]) -> list[Holding]:
    """The holdings a change settles from, by seat: of the seats of the new view, made in
    the latest view among theirs, naming its members as the first of them does, and one
    number a seat."""
    members = set(members)
    taken = [h for h in holdings if h.seat in members and len(h.have) == players]
    if not taken:
        return []
    view = max(h.view for h in taken)
    taken = sorted((h for h in taken if h.view == view), key=lambda h: h.seat)
    return [h for h in taken if h.members == taken[0].members]


def _proven(
    box: BallotBox, tally: Tally, versions: Iterable[Spotted], members: Iterable[int]
) -> Decision | None:
    """The outcome ``tally`` proves for one of ``versions`` of its play, counted among
    ``members``, if any."""
    for play in versions:
        try:
            return box.check(tally, play, members)
        except RemoteProtocolError:
            continue
    return None
