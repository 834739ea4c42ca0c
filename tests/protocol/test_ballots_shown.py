"""What a member's Ballots on this seat's plays show it holds (`_shown.Shown`), against
what its Acks say: only a Ballot come a while before, and sent before the Ack, counts."""

from __future__ import annotations

from p2pnerts.protocol._shown import KEPT, Shown

WITHIN = 4.0


def test_an_ack_sent_after_a_ballot_a_while_old_may_not_say_less_than_it_showed() -> None:
    shown = Shown(4)
    shown.voted(3, view=2, clock=10, seq=7, now=0.0)
    assert shown.understates(3, 2, clock=12, holds=6, now=5.0, within=WITHIN)
    assert not shown.understates(3, 2, clock=13, holds=7, now=5.5, within=WITHIN)
    assert shown.most(3, 2) == 7
    assert shown.most(2, 2) == 0  # (another voter showed nothing)


def test_a_ballot_too_young_or_sent_after_the_ack_shows_nothing_yet() -> None:
    shown = Shown(4)
    shown.voted(3, view=2, clock=10, seq=7, now=0.0)
    # A message lost before the play may still be on its way to the voter, sent again.
    assert not shown.understates(3, 2, clock=12, holds=0, now=1.0, within=WITHIN)
    # An Ack sent before the Ballot (an earlier clock), come late over a stalled link.
    assert not shown.understates(3, 2, clock=9, holds=0, now=9.0, within=WITHIN)
    assert shown.understates(3, 2, clock=11, holds=0, now=9.0, within=WITHIN)


def test_what_a_ballot_showed_counts_in_its_own_view_alone() -> None:
    shown = Shown(4)
    shown.voted(3, view=2, clock=10, seq=7, now=0.0)
    assert shown.understates(3, 2, clock=12, holds=0, now=5.0, within=WITHIN)
    # In a later view, what a seat holds is told afresh (a seat let back in may have lost
    # what it held): a Ballot of an earlier view shows nothing there.
    shown.voted(3, view=2, clock=11, seq=8, now=0.5)
    assert not shown.understates(3, 3, clock=20, holds=0, now=6.0, within=WITHIN)
    assert shown.most(3, 3) == 0


def test_a_voter_that_sends_no_ack_keeps_no_more_than_its_last_ballots() -> None:
    shown = Shown(4)
    for n in range(1, KEPT * 3):
        shown.voted(3, view=2, clock=n, seq=n, now=n / 100)
    assert len(shown._come[3]) == KEPT  # (a busy seat's Ballots fill no memory)
    assert not shown.understates(3, 2, clock=KEPT * 3, holds=KEPT * 3 - 1, now=60.0, within=WITHIN)
    assert shown.most(3, 2) == KEPT * 3 - 1
