"""A Poll carries the play it asks about (SPEC's commit frames, Poll): a member whose link
from the play's sender is slow holds the play from the poll, ahead of that link, and votes
at once; the link then brings it in line as held already. A Poll that carries what the
play's sender did not sign refuses the poller; one that carries another copy, signed,
proves the sender a cheat; one that does not come next is left to the sender's link."""

from __future__ import annotations

from dataclasses import replace

import pytest
from _table import Table, order

from p2pnerts.protocol import (
    Evidence,
    PeerRefused,
    Play,
    PlayCommitted,
    RemoteProtocolError,
    encode_payload,
)
from p2pnerts.protocol._messages import Poll
from p2pnerts.rules import (
    NERTS,
    NEW_FOUNDATION,
    Card,
    DeclareStuck,
    Suit,
    TableOptions,
    ToFoundation,
)

OPTIONS = TableOptions()
AH3 = Card(3, 1, Suit.HEARTS)
ACE = ToFoundation(3, AH3, NERTS, NEW_FOUNDATION)


def _table() -> Table:
    """Four seats by a majority; seat 3 shows the ace of hearts on its Nerts pile."""
    table = Table(4, OPTIONS, majority=True)
    orders = [order(s, ["QS"], ["2H", "9C", "9S", "KD"], OPTIONS) for s in range(3)]
    orders.append(order(3, ["AH"], ["2H", "9C", "9S", "KD"], OPTIONS))
    table.start(orders)
    return table


def _slow_ace(table: Table) -> Play:
    """Seat 3 plays its ace; it reaches seats 0 and 2, then every link of seat 3 goes slow
    (what goes either way waits): seat 1 never got the play, and seat 3 hears no Ballot."""
    table.replicas[3].intend(ACE, table.now)
    table.flush()
    play = next(m for m in table.links[3, 0] if isinstance(m, Play))
    table.held |= {frozenset((3, s)) for s in range(3)}
    for seat in (0, 2):
        table.links[seat, 3].clear()
        table.replicas[seat].receive(play, table.now, via=3)
        table.links[3, seat].remove(play)
    table.flush()
    return play


def _other_copy(table: Table, play: Play) -> Play:
    """Another play seat 3 signs under the same number: its ace to foundation 0."""
    assert isinstance(play.move, ToFoundation)
    move = replace(play.move, foundation=0)
    return table.replicas[3].signer.sign(replace(play, move=move, sig=b""))


def test_a_seat_whose_link_from_the_sender_is_slow_takes_the_play_from_a_poll_and_votes() -> None:
    """Seats 0 and 2 poll on seat 3's ace, which they hold with no outcome after 0.1 s,
    carrying it; seat 1 holds it from the poll and answers; a poller counts four votes
    (seat 3's own and three Ballots) and tells every seat. Seat 1 commits the ace though
    its link from seat 3 brought nothing; when that link is back, it brings the play in
    line, held already, and nobody is refused: one digest. Without the play carried, seat 1
    could not vote, and no poller could count the four."""
    table = _table()
    play = _slow_ace(table)
    table.run_for(0.5)
    assert [e.move for e in table.of(1, PlayCommitted)] == [play.move]
    assert any(isinstance(m, Play) for m in table.links[3, 1])  # (still on its way)
    table.held.clear()
    table.settle()
    table.run_for(1)
    assert all(not table.of(s, PeerRefused) for s in range(4))
    assert all([e.move for e in table.of(s, PlayCommitted)] == [play.move] for s in range(4))
    table.agree()


def test_without_the_play_carried_the_slow_seat_waits_for_its_link() -> None:
    """The same table with each Poll's play left out: seat 1 cannot vote, and commits the
    ace only once its link from seat 3 is back (the test above fails without carrying)."""
    table = _table()
    play = _slow_ace(table)
    for replica in table.replicas:
        replica.majority.commits._carry = lambda play: b""  # type: ignore[union-attr]
    table.run_for(0.5)
    assert table.of(1, PlayCommitted) == []
    table.held.clear()
    table.settle()
    assert [e.move for e in table.of(1, PlayCommitted)] == [play.move]


def test_a_poll_that_carries_what_the_sender_did_not_sign_refuses_the_poller() -> None:
    table = _table()
    play = _slow_ace(table)
    number = play.below[3]
    forged = table.replicas[0].signer.sign(replace(play, sig=b""))  # (seat 0's key, not 3's)
    poll = Poll(0, 0, play.clock + 5, 1, 3, number, encode_payload(forged))
    with pytest.raises(RemoteProtocolError, match="did not sign as its play"):
        table.replicas[1].receive(poll, table.now, via=0)
    assert [e.seat for e in table.replicas[1].take_events() if isinstance(e, PeerRefused)] == [0]
    assert not table.replicas[1].gate.refuses(3)


def test_a_poll_that_carries_another_signed_copy_proves_the_sender_a_cheat() -> None:
    """Seat 3 signed two plays as its play 1; seat 1 holds one from its link, and a Poll
    brings the other: seat 1 refuses seat 3 and shows both to every seat."""
    table = _table()
    play = _slow_ace(table)
    table.held.discard(frozenset((3, 1)))
    table.deliver(3, 1)
    assert table.replicas[1].majority.held_copy(play) == play  # type: ignore[union-attr]
    other = _other_copy(table, play)
    poll = Poll(0, 0, play.clock + 5, 1, 3, play.below[3], encode_payload(other))
    table.replicas[1].receive(poll, table.now, via=0)
    refused = [e for e in table.replicas[1].take_events() if isinstance(e, PeerRefused)]
    assert [e.seat for e in refused] == [3] and "two different messages" in refused[0].reason
    table.flush()
    shown = [m for m in table.links[1, 0] if isinstance(m, Evidence)]
    assert shown and {encode_payload(play), encode_payload(other)} <= set(shown[-1].messages)


def test_the_sender_link_bringing_another_copy_after_a_poll_proves_it_a_cheat() -> None:
    """Seat 1 holds seat 3's play from a Poll; its link from seat 3 then brings another
    copy under that number: seat 1 refuses seat 3 as a cheat, with both kept."""
    table = _table()
    play = _slow_ace(table)
    table.run_for(0.5)
    assert table.replicas[1].majority.held_copy(play) == play  # type: ignore[union-attr]
    other = _other_copy(table, play)
    queue = table.links[3, 1]
    queue[queue.index(play)] = other
    table.held.discard(frozenset((3, 1)))
    with pytest.raises(RemoteProtocolError, match="two plays as its play"):
        table.deliver(3, 1)
    refused = [e for e in table.replicas[1].take_events() if isinstance(e, PeerRefused)]
    assert [e.seat for e in refused] == [3] and "two different messages" in refused[0].reason


def test_a_carried_play_that_does_not_come_next_is_left_to_the_senders_link() -> None:
    """A Poll on seat 3's play 2, carried, at a seat that never held its play 1: nothing
    is taken, nobody refused; the link brings both in order later."""
    table = _table()
    play = _slow_ace(table)
    ahead = table.replicas[3].signer.sign(
        replace(play, below=(*play.below[:3], play.below[3] + 1), clock=play.clock + 1, sig=b"")
    )
    poll = Poll(0, 0, play.clock + 5, 1, 3, play.below[3] + 1, encode_payload(ahead))
    table.replicas[1].receive(poll, table.now, via=0)
    assert table.replicas[1].majority.held_copy(ahead) is None  # type: ignore[union-attr]
    assert not any(isinstance(e, PeerRefused) for e in table.replicas[1].take_events())


def test_a_poll_refused_for_its_play_changes_nothing_and_one_out_of_range_is_refused() -> None:
    """Seat 2 holds seat 3's play: a Poll on it carrying a copy seat 3 did not sign is
    refused before seat 2 answers it (no Ballot goes back, nothing changes); a Poll on a
    seat not at the table, carrying a play, is refused as such, not an error of seat 2's
    own. (The fuzzer over commit frames found both: the answer went before the refusal,
    and the seat out of range raised an IndexError.)"""
    table = _table()
    play = _slow_ace(table)
    replica = table.replicas[2]
    replica.take_frames()
    forged = replace(play, move=DeclareStuck(3))  # (seat 3's signature, another move)
    poll = Poll(0, 0, play.clock + 5, 1, 3, play.below[3], encode_payload(forged))
    with pytest.raises(RemoteProtocolError, match="did not sign as its play"):
        replica.receive(poll, table.now, via=0)
    assert replica.take_frames() == []
    table2 = _table()
    play2 = _slow_ace(table2)
    stray = Poll(1, 0, play2.clock + 5, 1, 7, 1, encode_payload(play2))
    with pytest.raises(RemoteProtocolError, match="seat 7"):
        table2.replicas[2].receive(stray, table2.now, via=1)


def _two_aces() -> tuple[Table, Play]:
    """Four seats by a majority; seat 3 plays the ace of hearts, which reaches seats 0 and
    2 but not seat 1 (seat 3's link to it is slow both ways); then seat 0, which holds that
    ace, plays its ace of spades. Seat 1 holds seat 0's ace and its outcome, in, with seat
    3's ace named below it: a play its link from seat 3 has not brought."""
    table = Table(4, OPTIONS, majority=True)
    nerts = [["AS"], ["QS"], ["QS"], ["AH"]]
    table.start([order(s, nerts[s], ["2H", "9C", "9S", "KD"], OPTIONS) for s in range(4)])
    table.held.add(frozenset((3, 1)))
    table.replicas[3].intend(ACE, table.now)
    _deliver(table)
    hearts = next(m for m in table.links[3, 1] if isinstance(m, Play))
    spades = ToFoundation(0, Card(0, 1, Suit.SPADES), NERTS, NEW_FOUNDATION)
    table.replicas[0].intend(spades, table.now)
    _deliver(table)
    return table, hearts


def _deliver(table: Table) -> None:
    """Deliver what the links carry until nothing moves, with no time passing."""
    table.flush()
    while sum(table.deliver(src, dest) for src, dest in list(table.links)):
        pass


def _committed_at_seat_1(table: Table, seconds: float) -> list[Card]:
    """The cards seat 1 has seen go up after ``seconds`` more, 5 ms at a time."""
    for _ in range(round(seconds / 0.005)):
        table.advance(0.005)
        _deliver(table)
    return [e.move.card for e in table.of(1, PlayCommitted) if isinstance(e.move, ToFoundation)]


def test_a_seat_lacking_a_play_its_commits_wait_on_gets_it_from_a_member() -> None:
    """Seat 1 polls on seat 3's ace, which it lacks, 10 ms on (`POLL_BLOCKING`); seats 0
    and 2 hold it and poll seat 1 back carrying it, and their outcome follows: seat 1 lands
    both aces in order within 50 ms, while its link from seat 3 still holds the ace. Then
    that link brings it in line as held already: nobody is refused, and one digest."""
    table, hearts = _two_aces()
    assert _committed_at_seat_1(table, 0.05) == [AH3, Card(0, 1, Suit.SPADES)]
    assert hearts in table.links[3, 1]  # (still on its way)
    table.held.clear()
    table.settle()
    assert all(not table.of(s, PeerRefused) for s in range(4))
    table.agree()


def test_without_the_play_brought_the_seat_lacking_it_waits_for_its_link() -> None:
    """The same table with no play brought back: seat 1 lands neither ace until its link
    from seat 3 is back (the test above fails without it)."""
    table, hearts = _two_aces()
    for replica in table.replicas:
        replica.majority.commits._bring = lambda play, to: None  # type: ignore[union-attr, method-assign]
    assert _committed_at_seat_1(table, 0.5) == []
    assert hearts in table.links[3, 1]
    table.held.clear()
    table.settle()
    assert _committed_at_seat_1(table, 0.0) == [AH3, Card(0, 1, Suit.SPADES)]
