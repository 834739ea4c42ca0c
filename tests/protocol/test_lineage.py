"""Where each member of a view came from, and when a view is known never to take hold."""

from __future__ import annotations

from dataclasses import replace

from p2pnerts.protocol import Ack, Message, Rejoin, StartView, ViewChange
from p2pnerts.protocol._codec import encode_payload
from p2pnerts.protocol._lineage import Lineage


def _view_13() -> StartView:
    """View 13 of four seats, voted in view 11 by seats 1 and 3, letting seat 0 back in
    from view 10 (the sibling views of churn-2+2-4p-3r-seed92)."""
    return StartView(
        1,
        13,
        100,
        7,
        voted_in=11,
        members=(0, 1, 3),
        quorums=((11, (1, 2, 3)), (10, (0, 1, 2, 3))),
        cuts=(0, 7, 5, 5),
        joined=(0,),
        joined_from=(10,),
        lives=(13, 0, 0, 0),
        seated=(0, 1, 2, 3),
        round=2,
        base_committed=0,
        base_digest=bytes(16),
        carried=(),
        scores=(),
    )


def _vote(sender: int, view: int, new_view: int) -> ViewChange:
    return ViewChange(sender, view, 101, 6, new_view=new_view, suspects=(), have=(), committed=0)


def _talk(sender: int, view: int) -> Ack:
    return Ack(sender, view, 102, 6, have=(0, 0, 0, 0), committed=0, digest=bytes(16))


def _in_13(seat: int) -> Lineage:
    lineage = Lineage(seat)
    lineage.begin(_view_13(), origin=11)
    return lineage


def test_a_voter_voting_where_it_voted_for_a_later_view_is_gone_and_the_view_stillborn() -> None:
    """Seat 3 will never install view 13: the membership counts it gone, and leaves the
    view if the others are too few to go on without it (`Membership.leave_if_gone`: a
    real table of four, a seat alone in a view its two voters voted past, each side voting
    for the same views from its own, for good)."""
    lineage = _in_13(1)
    assert lineage.take_vote(_vote(3, 11, 14))
    assert lineage.stillborn and lineage.origin == 11
    assert lineage.gone == {3: 101}


def test_other_votes_leave_the_view_as_it_is() -> None:
    lineage = _in_13(1)
    assert not lineage.take_vote(_vote(3, 11, 13))  # the vote that made this view
    assert not lineage.take_vote(_vote(3, 13, 16))  # cast in this view
    assert not lineage.take_vote(_vote(0, 11, 14))  # a seat let in as rejoining, not a voter
    assert not lineage.take_vote(_vote(2, 11, 14))  # no member
    assert not lineage.stillborn and not lineage.gone


def test_a_voter_talking_from_a_view_between_is_gone_and_the_view_stillborn() -> None:
    lineage = _in_13(1)
    assert not lineage.went_elsewhere(_talk(3, 11))
    assert not lineage.went_elsewhere(_talk(3, 14))  # may have installed this view first
    assert not lineage.stillborn
    assert lineage.went_elsewhere(_talk(3, 12))
    assert set(lineage.gone) == {3} and lineage.stillborn


def test_a_rejoining_seat_talking_from_a_view_between_is_gone_but_proves_nothing() -> None:
    # Out of a stillborn view, it may ask from where it came from again, and come here.
    lineage = _in_13(1)
    assert lineage.went_elsewhere(_talk(0, 12))
    assert set(lineage.gone) == {0} and not lineage.stillborn


def test_what_a_rejoining_seat_said_before_it_asked_shows_nothing() -> None:
    """Seat 0 asked from view 10 after it was shut out of view 12, a stillborn view (its
    carried Rejoin says it installs nothing at or below 12): its Ack of view 12, arriving
    here after the StartView, was sent before it asked. (Taken as gone for it, every seat
    of a table of four that let them all back in went out again at once, for good:
    `tests/protocol/test_schedules.py`, four seats, seed 46.)"""
    asked = Rejoin(0, 10, 99, 1, 2, above=12)
    lineage = Lineage(1)
    lineage.begin(replace(_view_13(), carried=(encode_payload(asked),)), origin=11)
    assert not lineage.went_elsewhere(_talk(0, 12))
    assert not lineage.went_elsewhere(_talk(0, 11))
    assert not lineage.gone and not lineage.stillborn
    # Without a Rejoin above 12 (the one carried says above 10) the Ack shows it gone.
    lineage.begin(replace(_view_13(), carried=(encode_payload(replace(asked, above=10)),)), 11)
    assert lineage.went_elsewhere(_talk(0, 12))


def test_a_rejoining_seat_gone_by_a_vote_for_this_view_or_a_later_one_makes_it_stillborn() -> None:
    lineage = _in_13(1)
    assert lineage.went_elsewhere(_vote(0, 11, 12))  # a vote for a view below this one
    assert not lineage.stillborn
    assert lineage.went_elsewhere(_vote(0, 11, 13))
    assert lineage.stillborn


def test_a_rejoin_of_a_member_sent_after_it_was_shown_gone_asks_again() -> None:
    lineage = _in_13(1)
    assert not lineage.asks_again(Rejoin(0, 10, 150, 1, 2))  # not gone: a late one
    lineage.went_elsewhere(_talk(0, 12))  # its clock: 102
    assert not lineage.asks_again(Rejoin(0, 10, 101, 1, 2))  # sent before
    assert lineage.asks_again(Rejoin(0, 10, 102, 1, 2))


def test_installing_a_view_starts_afresh() -> None:
    lineage = _in_13(1)
    lineage.take_vote(_vote(3, 11, 14))
    lineage.went_elsewhere(_talk(3, 12))
    lineage.begin(_view_13(), origin=10)
    assert not lineage.stillborn and lineage.gone == {} and lineage.origin == 10


def _view_15(voted_in: int, joined_from: int) -> StartView:
    """A later view, 15, of seats 0, 1 and 2: seats 0 and 2 its voters, from ``voted_in``,
    seat 1 let back in from ``joined_from``."""
    return replace(
        _view_13(),
        sender=0,
        view=15,
        voted_in=voted_in,
        members=(0, 1, 2),
        joined=(1,),
        joined_from=(joined_from,),
        lives=(0, 15, 0, 0),
    )


def test_a_member_talking_from_a_later_view_it_came_into_from_below_makes_it_stillborn() -> None:
    """Seat 1 talks from view 15, which let it in from view 12: it went from below view 13
    to above it, never installing it (the sibling views of heavy-4p-1r-seed198)."""
    for talk_first in (True, False):
        lineage = _in_13(3)
        steps: list[Message] = [_talk(1, 15), _view_15(voted_in=11, joined_from=12)]
        for message in steps if talk_first else steps[::-1]:
            lineage.from_later(message)
        assert lineage.stillborn, talk_first
        # The coordinator of view 15, seat 0, a member here, came from view 11: likewise.
        lineage = _in_13(3)
        lineage.from_later(_view_15(voted_in=11, joined_from=14))
        assert lineage.stillborn


def test_a_member_that_came_into_a_later_view_from_this_one_or_after_proves_nothing() -> None:
    lineage = _in_13(3)
    lineage.from_later(_view_15(voted_in=13, joined_from=14))  # built from this view
    lineage.from_later(_talk(1, 15))
    lineage.from_later(_talk(0, 15))
    lineage.from_later(_talk(2, 15))  # no member here
    assert not lineage.stillborn
    lineage.from_later(_talk(1, 16))  # a view whose StartView never came
    assert not lineage.stillborn
