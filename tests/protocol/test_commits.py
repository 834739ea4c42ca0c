"""Version 3's commit at one seat (`_commits.Commits`), run at tables of 2 to 14 seats over
real frames (`_commit_table`): every honest seat resolves every play alike, commits the
plays that conflict in key order, reaches one canonical order, and refuses every forged
Tally of a cheat; plays whose sender falls silent are decided by polls; what every seat has
passed is let go of everywhere."""

from __future__ import annotations

import random

import pytest
from _commit_table import Table, assert_agreed, run
from test_spots import onto

from p2pnerts.protocol import RemoteProtocolError, Signer
from p2pnerts.protocol._commits import AHEAD, Commits
from p2pnerts.protocol._messages import Ballot, Poll, Tally
from p2pnerts.protocol._polling import LATE, POLL_AFTER, POLL_BLOCKING, POLL_MOST
from p2pnerts.protocol._spots import Spotted, Vote, decide


@pytest.mark.parametrize(("seats", "seed"), [(2, 1), (3, 2), (4, 3), (6, 4), (14, 5)])
def test_every_seat_resolves_every_play_alike_in_key_order_where_plays_conflict(
    seats: int, seed: int
) -> None:
    table = run(seed, seats, 40 if seats > 8 else 60)
    assert_agreed(table)
    assert set(table.outcomes) == set(table.plays)  # every play resolved
    assert all(len(canon) == len(table.plays) for canon in table.canon)  # and passed
    assert not table.refused


@pytest.mark.parametrize(("seats", "seed"), [(4, 3), (5, 1), (6, 4), (7, 1)])
def test_a_cheats_forged_tallies_and_two_faced_ballots_are_refused_and_the_rest_agree(
    seats: int, seed: int
) -> None:
    table = run(seed, seats, 60, cheat=seats - 1)
    assert_agreed(table)
    cheat_plays = [p for p in table.plays if p[0] == table.cheat]
    assert cheat_plays and all(p in table.outcomes for p in cheat_plays)
    refused_senders = {sender for _, sender in table.refused}
    assert refused_senders == {table.cheat}
    assert {dst for dst, _ in table.refused} == set(table.honest)


@pytest.mark.parametrize(("seats", "seed"), [(4, 21), (6, 1), (14, 25)])
def test_the_plays_of_a_seat_gone_silent_are_decided_by_polls_unless_their_votes_split(
    seats: int, seed: int
) -> None:
    table = run(seed, seats, 40 if seats > 8 else 60, silent=0)
    assert_agreed(table, everywhere=False)
    silent = sorted((p for p in table.plays if p[0] == table.silent), key=lambda p: p[1])

    def split(play: tuple[int, int]) -> bool:
        """Whether a poller's count of every vote cast on ``play`` decides nothing."""
        votes = {s: me.voter.votes[play] for s, me in enumerate(table.seats_)}
        return decide(table.plays[play], votes, range(seats), seats, polled=True) is None

    for seat in range(1, seats):
        # A play still open is split, or sorts after one that is and waits on it.
        still = [p for p in table.plays if p not in table.resolutions[seat]]
        splits = {p for p in still if split(p)}
        first = min((table.plays[p].key for p in splits), default=None)
        assert all(p in splits or (first and first < table.plays[p].key) for p in still)
    # Its last play, made as it fell silent, which no Tally of its own decided: polls did.
    last = silent[-1]
    assert all(last in table.resolutions[s] for s in range(1, seats))


@pytest.mark.parametrize(("seats", "seed"), [(4, 31), (6, 32)])
def test_a_tally_lost_on_its_way_is_handed_on_to_the_seats_that_poll(seats: int, seed: int) -> None:
    """Seat 0's Tallies reach seat 1 alone; the others poll, and seat 1 hands them on, so
    every play is resolved everywhere, the split ones too, which no poll could decide."""
    table = run(seed, seats, 60, lossy=0)
    assert_agreed(table)
    assert table.relayed > 0


def test_frames_on_plays_not_asked_about_or_far_ahead_are_refused() -> None:
    """A seated cheat cannot make a seat count a Ballot it never asked for, nor keep Tallies
    and votes on plays far past any it holds; a Tally a little ahead of its play waits."""
    table = Table(4, random.Random(0), reports=False)  # (nothing let go of)
    table.play(0)
    table.run_until(1.0)
    me, cheat = table.seats_[1], table.seats_[3]
    signer = cheat.box.signer
    held = table.plays[(0, 1)]
    vote = cheat.voter.votes[held.id]
    unasked = cheat.box.cast(vote, 1, 0, 99)  # to seat 1, which polled on nothing
    ahead = me.order.have[0] + AHEAD + 1
    far = signer.sign(Tally(3, 0, 99, 1, 0, ahead, bytes(16), True, (ahead, 0, 0, 0), ()))
    for frame in (unasked, far, Poll(3, 0, 99, 1, 0, ahead), Poll(3, 0, 99, 1, 9, 1)):
        with pytest.raises(RemoteProtocolError):
            me.take(frame, table.now)
    assert (0, ahead) not in me.voter.votes and not me._early
    table.play(0)  # seat 0's next play: its Tally may come to seat 2 before the play does
    table.run_until(table.now + 1.0)
    tally = next(t for t in table.seats_[0]._tallies.values() if t.number == 2)
    early = Commits(2, 4, Signer.computed(2, 4), range(4), lambda: 1)
    early.hold(held, table.now)
    early.take(tally, table.now)  # its play not held yet: kept
    early.hold(table.plays[(0, 2)], table.now)
    assert (0, 2) in early.order.outcomes


@pytest.mark.parametrize(("seats", "seed", "plays"), [(4, 41, 400), (14, 42, 300)])
def test_what_every_seat_has_passed_is_let_go_of_and_frames_on_it_after_are_dropped(
    seats: int, seed: int, plays: int
) -> None:
    """What a seat keeps follows the plays in the air, not the length of the match: at the
    end every seat has let go of every play, and a frame on one that comes after is dropped
    unread (asked again, a seat could not give the vote it gave)."""
    table = run(seed, seats, plays)
    assert_agreed(table)
    assert set(table.outcomes) == set(table.plays)
    assert table.kept_most < plays // 3, table.kept_most  # (kept all: every play)
    for me in table.seats_:
        assert not me.order.held and not me.order.resolved and not me.order.outcomes
        assert not me.voter.votes and not me.box._ballots and not me._tallies
        spots = [*me.voter._at.values(), *me.voter._under.values()]
        assert all(not keys for seats in spots for keys, _ in seats.values())
    me, other = table.seats_[1], table.seats_[2]
    vote = Vote((1, 1), 2, True, (0,) * seats, b"w")
    for late in (Poll(2, 0, 10**6, 1, 0, 1), other.box.cast(vote, 1, 0, 10**6)):
        me.take(late, table.now)
        assert not me.take_outgoing() and not me.voter.votes and not me.box._ballots


ACE, HOME = b"ace: a witness..", b"home: another..."


def test_a_tally_of_another_play_under_a_number_held_is_refused_and_noted() -> None:
    """Seat 0 sends seats 2 and 3 an ace onto a new foundation and seat 1 a move on its
    tableau under the same number; its Tally of the ace, genuine, reaches seat 1: refused,
    and the ace's witness noted, for the replica to ask for the play (the proof)."""
    seats = [Commits(s, 4, Signer.computed(s, 4), range(4), lambda: 1) for s in range(4)]
    ace = seats[0].make(1, (1, 0), onto(0, -1), ACE, 0.0)
    other = Spotted(0, 1, (1, 0), onto(0), ace.below, HOME)
    for voter in (2, 3):
        seats[voter].hold(ace, 0.0)
        for ballot, _ in seats[voter].take_outgoing():
            seats[0].take(ballot, 0.0)
    tally = next(frame for frame, _ in seats[0].take_outgoing() if isinstance(frame, Tally))
    assert tally.ok and tally.witness == ACE
    seats[1].hold(other, 0.0)
    with pytest.raises(RemoteProtocolError):
        seats[1].take(tally, 0.0)
    assert seats[1].other_copies == {ace.id: ACE} and ace.id not in seats[1].order.outcomes


def test_a_poll_that_overtakes_its_play_is_answered_once_the_play_comes_or_late_after_a_while() -> (
    None
):
    """Seat 2 polls seat 1 on seat 0's play before the play reaches seat 1: seat 1 answers
    nothing yet, then votes for it when it comes; on a play that never comes, it votes late
    after `POLL_MOST`, once seat 0 is known to have made it (else a cheat's poll on a play
    not made yet would have it vote late in advance). (Voting late at once sent back plays
    that only came slowly.)"""
    seats = [Commits(s, 4, Signer.computed(s, 4), range(4), lambda: 1) for s in range(4)]
    play = seats[0].make(1, (1, 0), onto(0, 1), ACE, 0.0)
    seats[1].take(Poll(2, 0, 1, 1, 0, 1), 0.0)
    seats[1].take(Poll(2, 0, 1, 1, 0, 2), 0.0)  # (its play 2, which never comes)
    assert seats[1].take_outgoing() == [] and seats[1].deadline() == float("inf")
    seats[1].hold(play, 0.05)
    answers = [(f, to) for f, to in seats[1].take_outgoing() if to == 2]
    assert [(f.number, f.ok) for f, _ in answers if isinstance(f, Ballot)] == [(1, True)]
    seats[1].tick(POLL_MOST)  # (it polls on play 1 itself, held a while with no outcome)
    unasked = [f for f, to in seats[1].take_outgoing() if to == 2 and isinstance(f, Ballot)]
    assert unasked == [] and (0, 2) not in seats[1].voter.votes
    seats[1].hear(0, 5, (), made=2)  # seat 0 made its play 2: it was kept from seat 1
    assert seats[1].deadline() == POLL_MOST
    seats[1].tick(POLL_MOST)
    late = [f for f, to in seats[1].take_outgoing() if to == 2 and isinstance(f, Ballot)]
    assert [(f.number, f.ok) for f in late] == [(2, False)]


def test_a_seat_polled_before_it_knew_an_outcome_hands_the_tally_on_once_it_does() -> None:
    """Seat 2 polls seat 1 on seat 0's play before seat 0's Tally reaches seat 1: seat 1
    answers with its Ballot, and hands the Tally on to seat 2 when it comes (a sender's
    Tally reaches the seats one by one, and a poll that split waits on it). Not back to
    the seat it came from; and a seat that decides the play itself tells every seat once."""
    seats = [Commits(s, 4, Signer.computed(s, 4), range(4), lambda: 1) for s in range(4)]
    play = seats[0].make(1, (1, 0), onto(0, 1), ACE, 0.0)
    for voter in (1, 3):
        seats[voter].hold(play, 0.0)
    seats[1].take(Poll(2, 0, 1, 1, 0, 1), 0.01)
    seats[1].take(Poll(3, 0, 1, 1, 0, 1), 0.01)
    answers = seats[1].take_outgoing()
    assert [(type(f).__name__, to) for f, to in answers] == [
        ("Ballot", 0),
        ("Ballot", 2),
        ("Ballot", 3),
    ]
    for frame, to in [*answers, *seats[3].take_outgoing()]:
        if to == 0:
            seats[0].take(frame, 0.02)
    tally = next(f for f, to in seats[0].take_outgoing() if isinstance(f, Tally))
    seats[1].take(tally, 0.03)
    assert seats[1].take_outgoing() == [(tally, 2), (tally, 3)]
    seats[1].take(Poll(2, 0, 1, 1, 0, 1), 0.04)  # asked again: the Tally is on its way
    assert seats[1].take_outgoing() == []
    seats[1].take(Poll(2, 0, 1, 1, 0, 1), 0.03 + POLL_MOST)  # and again, a while on
    assert seats[1].take_outgoing() == [(tally, 2)]
    seats[3].take(tally, 0.03)  # seat 3 polled no one: nothing to hand on
    assert not [f for f, _ in seats[3].take_outgoing() if isinstance(f, Tally)]


def test_a_member_that_knows_the_outcome_answers_a_poll_with_the_tally_once_a_while() -> None:
    """Seat 1 knows the outcome of seat 0's play. A Poll on it is answered with the Tally
    alone (a Ballot would tell the poller nothing the Tally does not), and the same
    poller's next Poll within `POLL_MOST` with nothing: the Tally is on its way, and on a
    loaded machine a poller's wait may be shorter than the way (handed on at every poll,
    Tallies made most of a storm's frames: 94 a play at 14 seats, where 13 do)."""
    seats = [Commits(s, 4, Signer.computed(s, 4), range(4), lambda: 1) for s in range(4)]
    play = seats[0].make(1, (1, 0), onto(0, 1), ACE, 0.0)
    for voter in (1, 2, 3):
        seats[voter].hold(play, 0.0)
        for frame, to in seats[voter].take_outgoing():
            if to == 0:
                seats[0].take(frame, 0.0)
    tally = next(f for f, _ in seats[0].take_outgoing() if isinstance(f, Tally))
    seats[1].take(tally, 0.01)
    assert seats[1].take_outgoing() == []

    def answers(poller: int, at: float) -> list[tuple[str, int | None]]:
        seats[1].take(Poll(poller, 0, 1, 1, 0, 1), at)
        return [(type(f).__name__, to) for f, to in seats[1].take_outgoing()]

    assert answers(2, 0.02) == [("Tally", 2)]
    assert answers(2, 0.5) == []
    assert answers(3, 0.5) == [("Tally", 3)]
    assert answers(2, 0.02 + POLL_MOST) == [("Tally", 2)]


def test_a_seat_polls_on_a_play_once_it_is_late_for_what_this_table_takes() -> None:
    """Seat 0 of 4 has learnt the outcomes of seat 1's plays 40 ms after it held each (a
    loaded machine): the usual time is 40 ms, and a play is late at `LATE` times that. A
    play of seat 1 that nothing waits on is polled on at the later of `POLL_AFTER` and
    that; once seat 0's own play names it below, at that, not `POLL_BLOCKING` on. A
    constant wait shorter than what every play takes polled on every play, and the
    polls, their answers and the Tallies handed on made the machine slower still."""
    seats = [Commits(s, 4, Signer.computed(s, 4), range(4), lambda: 1) for s in range(4)]
    me, sender = seats[0], seats[1]
    assert me.polls.usual() == 0.0 and me.polls.late(POLL_BLOCKING) == POLL_BLOCKING
    for number in range(1, 6):
        at = float(number)
        play = sender.make(number, (number, 1), onto(1, number), bytes([number]) * 16, at)
        for voter in (0, 2, 3):
            seats[voter].hold(play, at)
            for frame, to in seats[voter].take_outgoing():
                if to == 1:
                    sender.take(frame, at)
        tally = next(f for f, _ in sender.take_outgoing() if isinstance(f, Tally))
        me.take(tally, at + 0.040)
    assert me.polls.usual() == pytest.approx(0.040)
    assert me.polls.late(POLL_BLOCKING) == pytest.approx(LATE * 0.040)
    assert LATE * 0.040 > POLL_BLOCKING
    late = sender.make(6, (6, 1), onto(1, 7), HOME, 10.0)
    me.hold(late, 10.0)
    assert me.deadline() == pytest.approx(10.0 + max(POLL_AFTER, LATE * 0.040))
    mine = me.make(1, (7, 0), onto(0, 7), ACE, 10.001)
    assert mine.below[1] == 6
    assert me.deadline() == pytest.approx(10.0 + LATE * 0.040)


def test_the_members_poll_on_a_late_play_one_after_another() -> None:
    """Seat 1's play, held at seats 0, 2 and 3, and nothing more of seat 1: counting back
    from its sender, seat 0 polls on it first, `POLL_AFTER` on, seat 3 at twice that and
    seat 2 at three times. Seat 0's poll decides it, and its Tally reaches the others before
    their turn comes: one poll, where each seat that waited polled on its own (a table of 14
    on one core polled each play some 13 times, and the polls fed the load)."""
    seats = [Commits(s, 4, Signer.computed(s, 4), range(4), lambda: 1) for s in range(4)]
    play = seats[1].make(1, (1, 1), onto(1), HOME, 0.0)
    for seat in (0, 2, 3):
        seats[seat].hold(play, 0.0)
        seats[seat].take_outgoing()  # (each votes to seat 1, silent now: lost)
    due = [seats[seat].deadline() for seat in (0, 3, 2)]
    assert due == pytest.approx([POLL_AFTER, 2 * POLL_AFTER, 3 * POLL_AFTER])
    seats[0].tick(POLL_AFTER)
    polls = 0
    moving = True
    while moving:
        moving = False
        for seat in (0, 2, 3):
            for frame, to in seats[seat].take_outgoing():
                polls += isinstance(frame, Poll)
                for other in [to] if to is not None else (0, 2, 3):
                    if other not in (seat, 1):
                        seats[other].take(frame, POLL_AFTER)
                        moving = True
    assert all(play.id in seats[seat].order.outcomes for seat in (0, 2, 3))
    seats[3].tick(2 * POLL_AFTER)
    seats[2].tick(3 * POLL_AFTER)
    polls += sum(isinstance(f, Poll) for s in (2, 3) for f, _ in seats[s].take_outgoing())
    assert polls == 1


def _blocked(carried: bool) -> Commits:
    """Seat 0 of 4, whose play onto foundation 1, decided in, waits on seat 1's play there
    that sorts before it (held at time 0, by a Poll's carry if ``carried``)."""
    seats = [Commits(s, 4, Signer.computed(s, 4), range(4), lambda: 1) for s in range(4)]
    first = seats[1].make(1, (1, 1), onto(1, 1), HOME, 0.0)
    seats[0].hold(first, 0.0, carried=carried)
    mine = seats[0].make(1, (2, 0), onto(0, 1), ACE, 0.0)
    assert mine.below[1] == 1  # (it names seat 1's play)
    seats[0].take_outgoing()
    for voter in (2, 3):
        seats[voter].hold(first, 0.0)
        seats[voter].hold(mine, 0.0)
        for frame, to in seats[voter].take_outgoing():
            if to == 0:
                seats[0].take(frame, 0.0)
    assert mine.id in seats[0].order.outcomes and seats[0].resolved() == []
    return seats[0]


@pytest.mark.parametrize(("foundation", "due"), [(1, POLL_BLOCKING), (2, POLL_AFTER)])
def test_a_play_this_seat_s_own_play_names_below_is_polled_on_as_it_goes_out(
    foundation: int, due: float
) -> None:
    """Seat 0 holds seat 1's play onto foundation 1, then sends its own play: onto the same
    foundation, it names seat 1's below it and, decided in, will wait on it, so seat 0
    polls on it `POLL_BLOCKING` after it held it, before any vote on its own play has come;
    onto another foundation, it names nothing there, and the poll waits `POLL_AFTER`."""
    seats = [Commits(s, 4, Signer.computed(s, 4), range(4), lambda: 1) for s in range(4)]
    first = seats[1].make(1, (1, 1), onto(1, 1), HOME, 0.0)
    me = seats[0]
    me.hold(first, 0.0)
    mine = me.make(1, (2, 0), onto(0, foundation), ACE, 0.002)
    assert (mine.below[1] == 1) == (foundation == 1)
    assert mine.id not in me.order.outcomes
    assert me.deadline() == pytest.approx(due)
    me.take_outgoing()
    me.tick(due)
    assert [(f.seat, f.number) for f, _ in me.take_outgoing() if isinstance(f, Poll)] == [(1, 1)]


def test_a_play_that_a_play_decided_in_waits_on_is_polled_sooner_and_again_sooner() -> None:
    """Seat 0's own play waits on seat 1's, held without an outcome: seat 0 polls on it
    `POLL_BLOCKING` after it held it, and again after as long (not `POLL_AFTER`), each
    wait twice the last; and at once where a Poll carried it (its poller waited already)."""
    me = _blocked(carried=False)
    assert me.deadline() == pytest.approx(POLL_BLOCKING)
    me.tick(POLL_BLOCKING)
    assert [(f.seat, f.number) for f, _ in me.take_outgoing() if isinstance(f, Poll)] == [(1, 1)]
    assert me.deadline() == pytest.approx(2 * POLL_BLOCKING)
    me.tick(2 * POLL_BLOCKING)
    assert me.deadline() == pytest.approx(4 * POLL_BLOCKING)
    assert POLL_BLOCKING < POLL_AFTER
    carried = _blocked(carried=True)
    assert carried.deadline() == 0.0
