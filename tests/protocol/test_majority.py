"""Replicas that commit by version 3's majority rule (`_majority`), driven against each other
directly: a play lands once a quorum holds it, a race is decided alike everywhere, and a
frame or a message that breaks the rule is refused."""

from __future__ import annotations

from dataclasses import replace

import pytest
from _table import Table, order

from p2pnerts.protocol import (
    LocalProtocolError,
    PeerExcluded,
    PeerRefused,
    PeerStalled,
    PeerSuspected,
    Play,
    PlayCommitted,
    PlayReturned,
    RemoteProtocolError,
    RoundStarted,
)
from p2pnerts.protocol._messages import Ack, Ballot, Message, Tally
from p2pnerts.rules import (
    NERTS,
    NEW_FOUNDATION,
    Card,
    Suit,
    TableOptions,
    ToFoundation,
    TurnStock,
)

AH0 = Card(0, 1, Suit.HEARTS)


def _table(players: int, *, majority: bool = True) -> Table:
    """Seat 0 shows the ace of hearts on its Nerts pile; every seat has the two of hearts
    on its first work pile."""
    opts = TableOptions()
    table = Table(players, opts, majority=majority)
    orders = [order(0, ["AH"], ["2H", "9C", "9S", "KD"], opts)]
    orders += [order(s, ["QS"], ["2H", "9C", "9S", "KD"], opts) for s in range(1, players)]
    table.start(orders)
    return table


def _two_of_hearts(seat: int) -> ToFoundation:
    return ToFoundation(seat, Card(seat, 2, Suit.HEARTS), 0, 0)


def test_a_play_lands_at_its_sender_once_a_quorum_holds_it_however_slow_the_rest() -> None:
    table = _table(4)
    assert all(r.public is not None for r in table.replicas), "the round never started"
    ace = table.replicas[0].intend(ToFoundation(0, AH0, NERTS, NEW_FOUNDATION), table.now)
    table.flush()
    table.deliver(0, 1)
    table.deliver(0, 2)  # seat 3's laptop is slow: the play has not reached it yet
    assert table.of(0, PlayCommitted) == []
    table.deliver(1, 0)  # one Ballot: two votes of the three a quorum of four needs
    assert table.of(0, PlayCommitted) == []
    table.deliver(2, 0)
    assert [e.move for e in table.of(0, PlayCommitted)] == [ace]
    public = table.replicas[0].public
    assert public is not None and [f.rank for f in public.foundations] == [1]
    assert table.replicas[3].public is not None and table.replicas[3].public.foundations == ()
    table.settle()
    for seat in range(4):
        assert [e.move for e in table.of(seat, PlayCommitted)] == [ace]
    table.agree()


def test_a_card_onto_a_foundation_whose_ace_has_not_landed_waits_for_it() -> None:
    """An ace and a play onto another foundation are not ordered (`_spots`), so a seat can
    hold a card onto a foundation decided in before it holds the ace that started it: the
    card waits for the ace, and lands after it, as everywhere."""
    table = _table(4)
    slow = frozenset((0, 3))
    table.held.add(slow)  # seat 3 hears nothing of seat 0's
    ace = table.replicas[0].intend(ToFoundation(0, AH0, NERTS, NEW_FOUNDATION), table.now)
    table.flush()
    table.settle()
    assert all(table.of(s, PlayCommitted) for s in range(3)) and not table.of(3, PlayCommitted)
    two = table.replicas[1].intend(_two_of_hearts(1), table.now)
    table.flush()
    table.settle()
    assert [e.move for e in table.of(1, PlayCommitted)] == [ace, two]
    assert table.replicas[3].public is not None and table.replicas[3].public.foundations == ()
    assert not table.of(3, PlayCommitted) and not table.of(3, PlayReturned)
    table.held.discard(slow)
    table.settle()
    for seat in range(4):
        assert [e.move for e in table.of(seat, PlayCommitted)] == [ace, two], seat
        public = table.replicas[seat].public
        assert public is not None and [f.rank for f in public.foundations] == [2]
    table.run_for(0.5)
    table.agree()


@pytest.mark.parametrize("ace_at_once", [False, True])
def test_a_card_onto_a_foundation_no_ace_started_before_it_is_returned_everywhere(
    ace_at_once: bool,
) -> None:
    """A cheat plays its two of hearts onto foundation 0 before any ace; seat 0's ace then
    starts foundation 0 (as soon as the play reaches the seats, or once it is settled in
    the canonical order). Every seat returns the two, with one reason, and lands the ace."""
    table = _table(4)
    cheat = table.replicas[2]
    move = _two_of_hearts(2)
    number, view = cheat.inplay.number, cheat.view
    cheat.send(table.now, lambda clock, seq: Play(2, view, clock, seq, number, move))
    table.flush()
    if ace_at_once:
        for seat in (0, 1, 3):
            table.deliver(2, seat)
    else:
        table.settle()
        table.run_for(0.5)
    ace = table.replicas[0].intend(ToFoundation(0, AH0, NERTS, NEW_FOUNDATION), table.now)
    table.flush()
    table.settle()
    table.run_for(0.5)
    for seat in range(4):
        assert [e.move for e in table.of(seat, PlayCommitted)] == [ace], seat
        returned = [(e.move, e.reason) for e in table.of(seat, PlayReturned)]
        assert returned == [(move, "its foundation was not started before it")], seat
    table.agree()


def test_a_card_onto_a_foundation_never_started_is_returned_as_the_members_change() -> None:
    """Seat 3 falls silent, so the canonical order stops and the cheat's two, decided in,
    waits for an ace that never comes until the others leave seat 3 out: the change of
    members resolves every play of the view, and the two is returned at every seat."""
    table = _table(4)
    table.cut |= {frozenset((3, other)) for other in range(3)}
    cheat = table.replicas[2]
    move = _two_of_hearts(2)
    number, view = cheat.inplay.number, cheat.view
    cheat.send(table.now, lambda clock, seq: Play(2, view, clock, seq, number, move))
    table.flush()
    table.settle()
    assert not any(table.of(s, PlayReturned) for s in range(3))  # (it waits)
    table.run_for(12.0)
    for seat in range(3):
        assert [e.seat for e in table.of(seat, PeerExcluded)] == [3], seat
        returned = [(e.move, e.reason) for e in table.of(seat, PlayReturned)]
        assert returned == [(move, "its foundation was not started before it")], seat
    table.down.add(3)
    table.agree()


def test_an_acknowledged_table_commits_nothing_before_every_member_holds_it() -> None:
    table = _table(4, majority=False)
    table.replicas[0].intend(ToFoundation(0, AH0, NERTS, NEW_FOUNDATION), table.now)
    table.flush()
    for seat in (1, 2):
        table.deliver(0, seat)
    table.advance(table.timing.ack_delay)
    for seat in (1, 2):
        table.deliver(seat, 0)
    assert table.of(0, PlayCommitted) == []  # seat 3 has not said it holds the play


@pytest.mark.parametrize("players", [3, 5])
def test_a_race_onto_one_foundation_is_decided_alike_at_every_seat(players: int) -> None:
    table = _table(players)
    table.play(0, ToFoundation(0, AH0, NERTS, NEW_FOUNDATION))
    table.level_clocks([0, 1])
    plays = [table.replicas[s].intend(_two_of_hearts(s), table.now) for s in (0, 1)]
    table.flush()
    table.settle()
    verdicts = set()
    for seat in range(players):
        landed = [e.seat for e in table.of(seat, PlayCommitted) if e.move in plays]
        back = [e.seat for e in table.of(seat, PlayReturned) if e.move in plays]
        assert sorted(landed + back) == [0, 1], (seat, landed, back)
        verdicts.add((tuple(landed), tuple(back)))
    # Equal clocks: both stay by the tie rule, or one came back late (a quorum voted for
    # the other first); whichever, every seat alike.
    assert len(verdicts) == 1, verdicts
    table.run_for(0.5)  # heartbeats carry how far each seat passed the canonical order
    table.agree()
    assert min(r.committed for r in table.replicas) >= players + 3  # Readies and the plays


def test_an_ordered_message_without_its_senders_vote_is_refused() -> None:
    table = _table(3)
    sender = table.replicas[0]
    sender.intend(ToFoundation(0, AH0, NERTS, NEW_FOUNDATION), table.now)
    table.flush()
    sent = table.links[0, 1].pop()
    assert isinstance(sent, Play) and len(sent.below) == 3
    bare = sender.signer.sign(replace(sent, below=(), sig=b""))
    with pytest.raises(
        RemoteProtocolError,
        match=r"Play\.below: expected 3 numbers at a table that commits by a majority, got 0",
    ):
        table.replicas[1].receive(bare, table.now)
    assert [e.seat for e in table.replicas[1].take_events() if isinstance(e, PeerRefused)] == [0]


def test_a_seat_committing_by_a_majority_at_an_acknowledged_table_is_refused() -> None:
    majority, acknowledged = _table(3), _table(3, majority=False)
    majority.replicas[0].intend(ToFoundation(0, AH0, NERTS, NEW_FOUNDATION), majority.now)
    majority.flush()
    sent = majority.links[0, 1].pop()
    assert isinstance(sent, Play)
    why = r"Play\.below: expected 0 numbers at a table that commits by acknowledgement, got 3"
    with pytest.raises(RemoteProtocolError, match=why):
        acknowledged.replicas[1].receive(sent, acknowledged.now)
    table = acknowledged
    ballot = Ballot(1, 0, 5, 1, 0, 0, 1, bytes(16), True, (1, 0, 0))
    with pytest.raises(RemoteProtocolError, match="Ballot at a table that commits by ack"):
        table.replicas[0].receive(table.replicas[1].signer.sign(ballot), table.now)


def test_a_tally_that_claims_a_quorum_it_never_had_refuses_its_sender() -> None:
    table = _table(5)
    ace = ToFoundation(0, AH0, NERTS, NEW_FOUNDATION)
    table.replicas[0].intend(ace, table.now)
    table.flush()
    table.deliver(0, 1)
    table.deliver(0, 2)
    cheat = table.replicas[1]
    held = table.replicas[2].majority
    assert held is not None
    number = held.commits.voter.have[0]  # the ace: seat 0's last ordered message
    witness = held.commits.order.held[(0, number)].witness
    below = (number, *held.commits.voter.have[1:])
    forged = Tally(1, 0, cheat.clock + 1, 1, 0, number, witness, True, below, ())
    with pytest.raises(RemoteProtocolError):
        table.replicas[2].receive(cheat.signer.sign(forged), table.now)
    assert [e.seat for e in table.replicas[2].take_events() if isinstance(e, PeerRefused)] == [1]
    assert table.of(2, PlayCommitted) == []


def _ace_decided_but_at_seat_3() -> tuple[Table, object, Tally]:
    """Seat 0 starts hearts, held by seats 1 to 3 and decided in on seats 1's and 2's
    Ballots: the table, the move, and seat 0's Tally, still on its way to seat 3."""
    table = _table(4)
    ace = table.replicas[0].intend(ToFoundation(0, AH0, NERTS, NEW_FOUNDATION), table.now)
    table.flush()
    for seat in (1, 2, 3):
        table.deliver(0, seat)
    for seat in (1, 2):
        table.deliver(seat, 0)
    tally = next(m for m in table.links[0, 3] if isinstance(m, Tally))
    return table, ace, tally


def test_a_tally_handed_on_by_another_seat_counts_and_a_forged_one_refuses_its_carrier() -> None:
    table, ace, tally = _ace_decided_but_at_seat_3()
    table.links[0, 3].clear()  # seat 3 never hears seat 0's outcome: it polls, and is answered
    forged = replace(tally, ok=False, witness=b"", below=())
    with pytest.raises(RemoteProtocolError, match="seat 2's link carried a Tally of seat 0"):
        table.replicas[3].receive(forged, table.now, via=2)
    assert [e.seat for e in table.replicas[3].take_events() if isinstance(e, PeerRefused)] == [2]
    table.replicas[3].receive(tally, table.now, via=1)
    table.flush()
    assert [e.move for e in table.of(3, PlayCommitted)] == [ace]


def test_a_ballot_handed_on_to_the_plays_sender_counts_and_a_bad_one_refuses_its_carrier() -> None:
    """Seat 0's ace reaches seats 1 to 3; seat 1's Ballot reaches seat 0, seats 2's and 3's
    are lost on the way (a poller got them: `Commits._hand_on`). Seat 2's, handed on by seat
    1, is the third vote a quorum of four needs, and the play lands. A carrier that hands on
    a Ballot its voter did not sign, one on another seat's play, or the sender's own vote
    back to it is refused, never the voter it names."""
    table = _table(4)
    ace = table.replicas[0].intend(ToFoundation(0, AH0, NERTS, NEW_FOUNDATION), table.now)
    table.flush()
    for seat in (1, 2, 3):
        table.deliver(0, seat)
    lost = {seat: [m for m in table.links[seat, 0] if isinstance(m, Ballot)] for seat in (2, 3)}
    for seat in (2, 3):
        table.links[seat, 0].clear()
    table.deliver(1, 0)
    assert table.of(0, PlayCommitted) == []
    sender = table.replicas[0]
    (ballot,) = lost[2]
    sender.receive(ballot, table.now, via=1)
    table.flush()
    assert [e.move for e in table.of(0, PlayCommitted)] == [ace]
    bent = replace(ballot, ok=False, below=())  # (seat 2's signature no longer fits)
    on_another = replace(lost[3][0], seat=1)
    assert sender.majority is not None
    commits = sender.majority.commits
    own = commits.box.cast(commits.voter.votes[(ballot.seat, ballot.number)], 2, 0, 99)
    for carrier, frame in ((3, bent), (2, on_another), (1, own)):
        with pytest.raises(RemoteProtocolError, match=f"seat {carrier}'s link carried a Ballot"):
            sender.receive(frame, table.now, via=carrier)
        refused = [e.seat for e in sender.take_events() if isinstance(e, PeerRefused)]
        assert refused == [carrier]


def test_a_refused_seats_tally_handed_on_by_an_honest_seat_is_dropped() -> None:
    """Seat 3 has refused seat 0; seat 1, not told so yet, answers seat 3's poll with seat
    0's Tally: seat 3 drops it and refuses no one else. Before, it refused seat 1 for
    carrying a refused seat's frame: at the red team's table of three, once both honest
    peers had refused a cheat, the bot refused the host so and the two parted."""
    table, _, tally = _ace_decided_but_at_seat_3()
    table.replicas[3].refuse(0, "it broke the protocol")
    table.replicas[3].take_events()
    table.replicas[3].receive(tally, table.now, via=1)
    assert not table.replicas[3].take_events() and not table.replicas[3].gate.refuses(1)
    with pytest.raises(RemoteProtocolError, match="seat 0 broke the protocol"):
        table.replicas[3].receive(tally, table.now)  # (on its own link: refused, as before)


def test_a_deck_pledges_though_another_decks_reveal_commits_before_its_ready() -> None:
    # At a majority's table a Reveal and another deck's Ready commute, so one seat may
    # commit the Reveal first; the Ready still sorts before it, and pledges there too.
    opts = TableOptions()
    table = Table(5, opts, majority=True)
    table.choose(1, [order(s, ["QS"], ["2H", "9C", "9S", "KD"], opts) for s in range(5)])
    slow = frozenset((1, 2))
    table.held.add(slow)  # seat 2's Ready of round 0 reaches seat 1 last (a quorum is 4)
    for seat in range(5):
        table.deal(seat)
    table.flush()
    table.settle()
    zero = table.replicas[1].dealing.rounds[0]
    assert zero.shares and 2 not in zero.pledges  # a Reveal committed there before it
    table.held.discard(slow)
    table.settle()
    table.run_for(1.0)
    assert 2 in zero.pledges
    assert all(table.of(s, RoundStarted) for s in range(5))
    table.agree()


def test_a_seat_silent_for_three_seconds_is_not_left_out_and_the_others_commit_meanwhile() -> None:
    table = _table(4)
    cut = {frozenset((3, other)) for other in range(3)}
    table.held |= cut  # seat 3's laptop hangs: nothing reaches it, nothing leaves it
    ace = table.replicas[0].intend(ToFoundation(0, AH0, NERTS, NEW_FOUNDATION), table.now)
    table.flush()
    table.settle()
    assert [e.move for e in table.of(0, PlayCommitted)] == [ace]  # a quorum of three
    table.run_for(3.0)
    assert all(table.of(s, PeerExcluded) == [] for s in range(4))
    assert all(r.next_deadline() > table.now for r in table.replicas)  # nothing spins
    table.held -= cut
    table.settle()
    assert [e.move for e in table.of(3, PlayCommitted)] == [ace]
    table.run_for(0.5)
    table.agree()


def test_a_seat_heard_by_its_ballots_alone_is_not_suspected_where_they_arrive() -> None:
    # Seat 3's broadcasts, its heartbeat among them, are lost on the way; its Ballots on
    # seat 0's plays still reach seat 0. A seat voting on the plays is not silent there
    # (SPEC §6.2); seat 1, which hears nothing of it, suspects it after 1.5 s.
    table = _table(4)
    assert [r.timing.heartbeat for r in table.replicas] == [0.5] * 4  # (0.25 s by Acks)
    table.tamper[3] = lambda message: []
    for _ in range(6):  # a stock turn every half second, each voted on by seat 3
        table.play(0, TurnStock(0))
        table.run_for(0.5)
    assert [e.seat for e in table.of(1, PeerSuspected)] == [3]
    assert table.of(0, PeerSuspected) == []
    assert table.of(1, PeerExcluded) == []  # (a quorum plays on: nobody is left out)


@pytest.mark.parametrize("plays", [False, True], ids=["acks", "tallies-too"])
def test_a_member_that_never_tells_it_passed_more_is_left_out_and_the_table_plays_on(
    plays: bool,
) -> None:
    # Seat 3 votes, and its Acks come (and, where it plays, its Tallies), but they never
    # tell it passed more of the canonical order than its first did. Every play since waits
    # for its word to be let go: before its words counted as a stall, the three held them
    # all until each, crowded, made no more (after 186 plays, for good). Playing every
    # quarter second, it sends no Ack: its Tallies are judged by how far they say it
    # passed alone once the three are crowded (after 46 plays each), for 2 s.
    table = _table(4)
    told: list[tuple[int, ...]] = []

    def frozen(message: Message) -> list[Message]:
        if isinstance(message, Ack):
            told.append(message.passed)
            return [replace(message, passed=told[0])]
        return [message]

    table.tamper[3] = frozen
    cheat = table.replicas[3].majority
    assert cheat is not None
    box = cheat.commits.box
    tally = box.tally
    box.tally = lambda play, members, view, stamp, passed: tally(play, members, view, stamp, ())  # type: ignore[method-assign]
    made = refused = 0
    for _ in range(100):
        for seat in (0, 1, 2, 3) if plays and 3 in table.replicas[0].members else (0, 1, 2):
            try:
                table.play(seat, TurnStock(seat))
            except LocalProtocolError as exc:
                assert seat != 3 and "too many plays" in str(exc)
                refused += 1
            else:
                made += seat != 3
        table.run_for(0.25)
    for seat in (0, 1, 2):
        assert 3 in {e.seat for e in table.of(seat, PeerExcluded)}
        assert PeerStalled(3, passed=True) in table.of(seat, PeerStalled)  # (barred a while)
        assert table.replicas[seat].members == {0, 1, 2}
        majority = table.replicas[seat].majority
        assert majority is not None and not majority.crowded()
    assert made + refused == 300
    assert refused == 0 if not plays else 0 < refused <= 3 * 12  # (at most 3 s crowded)


@pytest.mark.parametrize(
    ("votes", "true_of"),
    [(True, None), (False, None), (True, 0)],
    ids=["voting", "never-voting", "true-of-seat-0"],
)
def test_a_member_that_never_says_it_passed_or_holds_more_is_left_out_too(
    votes: bool, true_of: int | None
) -> None:
    # Seat 3's Acks come, but each says what its first did: how far it passed, and what it
    # holds of each seat's messages. A member that holds less than this seat held when it
    # passed a play is excused (its link from some seat may be down), and before, seat 3
    # was excused so for good: the three were crowded after 189 plays and refused all 111
    # after, none left out. An Ack that claims nothing new of anyone's messages excuses
    # nothing (its sender hears from nobody), nor one that says it holds fewer of a seat's
    # messages than its Ballots on that seat's plays showed. ``true_of``: it says truly
    # what it holds of that seat's messages, so that its Acks claim more; seat 0 excuses
    # it still, but the other two hold its Ballots against it, and leave it out.
    # Without the Ballots held against it the table stops; without the rule on claiming
    # nothing new, a member that never votes stops it.
    table = _table(4)
    first: list[Ack] = []

    def frozen(message: Message) -> list[Message]:
        if isinstance(message, Ack):
            first.append(first[0] if first else message)
            have = list(first[0].have)
            if true_of is not None:
                have[true_of] = message.have[true_of]
            return [replace(message, passed=first[0].passed, have=tuple(have))]
        return [message]

    table.tamper[3] = frozen
    if not votes:  # (commit frames go out past `tamper`)
        cheat = table.replicas[3]
        frames = cheat.take_frames
        cheat.take_frames = lambda: [(f, to) for f, to in frames() if not isinstance(f, Ballot)]  # type: ignore[method-assign]
    made = refused = 0
    for _ in range(100):
        for seat in (0, 1, 2):
            try:
                table.play(seat, TurnStock(seat))
            except LocalProtocolError as exc:
                assert "too many plays" in str(exc)
                refused += 1
            else:
                made += 1
        table.run_for(0.25)
    assert (made, refused) == (300, 0)
    for seat in (0, 1, 2):
        assert 3 in {e.seat for e in table.of(seat, PeerExcluded)}
        stalled = PeerStalled(3, passed=True) in table.of(seat, PeerStalled)
        assert stalled == (seat != true_of)
        # (Seat 0, which saw no stall, bars it from nothing: let back in, it is left out
        # again, and the table plays on meanwhile.)
        assert true_of is not None or table.replicas[seat].members == {0, 1, 2}
