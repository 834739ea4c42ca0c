"""A table that commits by a majority changes members (`_majority`, `_handover`): a seat
whose Leave commits is left out at once, one silent for `Timing.depart_after` too, and
what was still open is settled alike at every seat of the new view; a hiccup shorter
than that leaves nobody out."""

from __future__ import annotations

from typing import Any

import pytest
from _table import Table, order

from p2pnerts.protocol import (
    PeerExcluded,
    PeerLeft,
    PeerRefused,
    PlayCommitted,
    PlayReturned,
    Status,
    ViewInstalled,
)
from p2pnerts.protocol._codec import decode_payload
from p2pnerts.protocol._commits import Commits
from p2pnerts.protocol._messages import Ballot, CommitFrame, Rejoin, StartView, Tally
from p2pnerts.rules import NERTS, NEW_FOUNDATION, Card, Suit, TableOptions, ToFoundation, TurnStock

AH0 = Card(0, 1, Suit.HEARTS)


def _table(players: int) -> Table:
    """Seat 0 shows the ace of hearts on its Nerts pile."""
    opts = TableOptions(rounds=50)
    table = Table(players, opts, majority=True)
    orders = [order(0, ["AH"], ["2H", "9C", "9S", "KD"], opts)]
    orders += [order(s, ["QS"], ["2H", "9C", "9S", "KD"], opts) for s in range(1, players)]
    table.start(orders)
    assert all(r.public is not None for r in table.replicas), "the round never started"
    return table


def _commits(table: Table, seat: int) -> Commits:
    majority = table.replicas[seat].majority
    assert majority is not None
    return majority.commits


def _members(table: Table, seat: int) -> tuple[int, ...]:
    """The members seat's commits count votes among."""
    majority = table.replicas[seat].majority
    assert majority is not None
    return majority.commits.members


def test_seats_that_leave_are_left_out_and_the_rest_commit_among_themselves() -> None:
    table = _table(4)
    table.replicas[3].leave(table.now)
    table.flush()
    table.settle()
    for seat in range(3):
        assert [e.seat for e in table.of(seat, PeerLeft)] == [3]
        assert [e.view for e in table.of(seat, ViewInstalled)] == [1]
        assert _members(table, seat) == (0, 1, 2)
    table.agree()
    table.replicas[2].leave(table.now)
    table.flush()
    table.settle()
    assert table.replicas[2].status is Status.LEFT
    for seat in range(2):
        assert [e.seat for e in table.of(seat, PeerLeft)] == [3, 2]
        assert _members(table, seat) == (0, 1)
    # Two seats of four: a quorum of the table as it started could never be had again.
    turn = table.replicas[0].intend(TurnStock(0), table.now)
    table.flush()
    table.settle()
    for seat in range(2):
        assert [e.move for e in table.of(seat, PlayCommitted)][-1] == turn
    table.run_for(0.5)  # (the canonical order passes a play once each member's clock has)
    live = table.replicas[:2]
    assert live[0].committed == live[1].committed
    assert live[0].digest == live[1].digest


def test_a_hiccup_leaves_nobody_out_and_a_seat_silent_past_the_wait_is_left_out() -> None:
    table = _table(4)
    wait = table.timing.depart_after
    table.paused.add(3)
    table.run_for(wait / 2)
    table.paused.discard(3)
    table.settle()
    assert all(r.view == 0 and r.members == frozenset(range(4)) for r in table.replicas)
    table.paused.add(3)
    table.run_for(wait + 1)
    for seat in range(3):
        assert [e.seat for e in table.of(seat, PeerExcluded)] == [3]
        assert _members(table, seat) == (0, 1, 2)
        assert 3 not in table.replicas[seat].seated
    ace = table.replicas[0].intend(ToFoundation(0, AH0, NERTS, NEW_FOUNDATION), table.now)
    table.flush()
    table.settle()
    for seat in range(3):
        assert [e.move for e in table.of(seat, PlayCommitted)] == [ace]
    table.paused.discard(3)
    table.settle()
    _back(table, 3, [ace])


def test_silent_seats_that_leave_no_quorum_are_left_out_as_at_a_table_of_acks() -> None:
    # Five members: one silent seat leaves a quorum of four playing on, and is waited for;
    # two leave three, no quorum, so that nothing commits: they are left out once silent
    # for `exclude_after` (the table of acknowledgement's wait), not `depart_after`.
    table = _table(5)
    short = table.timing.exclude_after
    assert 4 * short < table.timing.depart_after
    table.paused.add(4)
    table.run_for(2 * short)
    assert not any(table.of(seat, PeerExcluded) for seat in range(4))
    table.paused.add(3)
    table.run_for(1.5 * short)
    for seat in range(3):
        assert sorted(e.seat for e in table.of(seat, PeerExcluded)) == [3, 4]
        assert _members(table, seat) == (0, 1, 2)
    ace = table.replicas[0].intend(ToFoundation(0, AH0, NERTS, NEW_FOUNDATION), table.now)
    table.flush()
    table.settle()
    for seat in range(3):
        assert [e.move for e in table.of(seat, PlayCommitted)] == [ace]


def test_a_silent_seat_of_three_members_is_left_out_as_at_a_table_of_acks() -> None:
    # Four seats, one gone: at three members the quorum is all three.
    table = _table(4)
    table.replicas[3].leave(table.now)
    table.flush()
    table.settle()
    assert _members(table, 0) == (0, 1, 2)
    table.paused.add(2)
    table.run_for(1.5 * table.timing.exclude_after)
    for seat in range(2):
        assert [e.seat for e in table.of(seat, PeerExcluded)] == [2]
        assert _members(table, seat) == (0, 1)


def _back(table: Table, seat: int, landed: list[object]) -> None:
    """``seat`` is let back in: a member again at every seat, seated, its table the
    others' (``landed``: the plays that landed since it was left out, which it sees), and
    its next play commits everywhere on one digest."""
    back = table.replicas[seat]
    assert back.status is Status.NORMAL
    players = len(table.replicas)
    for other in range(players):
        assert _members(table, other) == tuple(range(players))
        assert seat in table.replicas[other].seated
    assert back.public == table.replicas[(seat + 1) % players].public
    foundations = back.public.foundations  # type: ignore[union-attr]
    assert [f.rank for f in foundations] == [1] * len([m for m in landed if m is not None])
    turn = back.intend(TurnStock(seat), table.now)
    table.flush()
    table.settle()
    for other in range(players):
        assert [e.move for e in table.of(other, PlayCommitted)][-1] == turn
    table.run_for(0.5)
    table.agree()
    assert len({r.committed for r in table.replicas}) == 1


def test_a_play_open_as_the_members_change_is_settled_alike_at_every_seat() -> None:
    table = _table(5)
    table.paused |= {3, 4}
    ace = table.replicas[0].intend(ToFoundation(0, AH0, NERTS, NEW_FOUNDATION), table.now)
    table.flush()
    table.settle()
    for seat in range(3):  # three votes of the four a quorum of five needs
        assert not table.of(seat, PlayCommitted) and not table.of(seat, PlayReturned)
    table.run_for(table.timing.depart_after + 1)
    for seat in range(3):
        assert _members(table, seat) == (0, 1, 2)
    landed = [[e.move for e in table.of(seat, PlayCommitted)] for seat in range(3)]
    returned = [[e.move for e in table.of(seat, PlayReturned)] for seat in range(3)]
    assert landed in ([[ace]] * 3, [[]] * 3)
    assert returned == [[ace] if not landed[0] else []] * 3
    why = {e.reason for seat in range(3) for e in table.of(seat, PlayReturned)}
    assert why <= {"the table changed members before enough seats held it"}
    foundations = {tuple(table.replicas[s].public.foundations) for s in range(3)}  # type: ignore[union-attr]
    assert len(foundations) == 1
    table.run_for(0.5)
    live = table.replicas[:3]
    assert len({r.committed for r in live}) == 1
    assert len({r.digest for r in live}) == 1


def test_what_a_seat_committed_before_it_was_left_out_stands_at_the_others() -> None:
    table = _table(5)
    table.paused.add(4)
    ace = table.replicas[0].intend(ToFoundation(0, AH0, NERTS, NEW_FOUNDATION), table.now)
    table.flush()
    for seat in (1, 2, 3):
        table.deliver(0, seat)
    table.cut |= {frozenset((0, seat)) for seat in range(1, 5)}  # its outcome goes nowhere
    for seat in (1, 2, 3):
        table.deliver(seat, 0)
    assert [e.move for e in table.of(0, PlayCommitted)] == [ace]
    table.down.add(0)
    table.run_for(table.timing.depart_after + 1)
    for seat in (1, 2, 3):
        assert _members(table, seat) == (1, 2, 3)
        assert [e.move for e in table.of(seat, PlayCommitted)] == [ace]


def test_a_play_settled_in_that_a_seat_never_held_reaches_it_with_the_change() -> None:
    table = _table(5)
    table.held.add(frozenset((0, 3)))  # seat 3 never hears seat 0's ace
    ace = table.replicas[0].intend(ToFoundation(0, AH0, NERTS, NEW_FOUNDATION), table.now)
    table.flush()
    for seat in (1, 2, 4):
        table.deliver(0, seat)
        table.deliver(seat, 0)
    assert [e.move for e in table.of(0, PlayCommitted)] == [ace]
    table.deliver(0, 1)  # the outcome reaches seat 1 alone: then seats 0 and 4 are gone
    table.down |= {0, 4}
    table.held.clear()
    table.links[0, 3].clear()
    table.run_for(table.timing.depart_after + 1)
    for seat in (1, 2, 3):
        assert _members(table, seat) == (1, 2, 3)
        assert [e.move for e in table.of(seat, PlayCommitted)] == [ace]
    public = table.replicas[3].public
    assert public is not None and [f.rank for f in public.foundations] == [1]


def test_a_seat_restarted_after_it_was_left_out_comes_back_into_the_table() -> None:
    table = _table(4)
    disk = table.crash(3)
    table.run_for(table.timing.depart_after + 1)
    assert all(_members(table, seat) == (0, 1, 2) for seat in range(3))
    ace = table.replicas[0].intend(ToFoundation(0, AH0, NERTS, NEW_FOUNDATION), table.now)
    table.flush()
    table.settle()
    table.restart(3, disk)
    table.run_for(3.0)
    assert table.replicas[3].by_majority
    assert not any(table.of(seat, PeerRefused) for seat in range(3))
    _back(table, 3, [ace])


def test_a_seat_cut_off_with_a_play_nobody_held_comes_back_without_it() -> None:
    table = _table(4)
    table.cut |= {frozenset((3, other)) for other in range(3)}  # what it sends is lost
    turn = table.replicas[3].intend(TurnStock(3), table.now)
    table.run_for(table.timing.depart_after + 1)
    for seat in range(3):
        assert _members(table, seat) == (0, 1, 2)
    ace = table.replicas[0].intend(ToFoundation(0, AH0, NERTS, NEW_FOUNDATION), table.now)
    table.flush()
    table.settle()
    table.cut.clear()
    table.run_for(3.0)
    assert not any(e.move == turn for s in range(4) for e in table.of(s, PlayCommitted))
    _back(table, 3, [ace])


@pytest.mark.parametrize("withheld", [False, True])
def test_a_play_its_sender_keeps_open_is_settled_by_a_change_that_leaves_nobody_out(
    withheld: bool,
) -> None:
    """Seat 3 and seat 0 race their twos of hearts onto the ace; seats 1 and 3 hold seat
    3's first, seats 0 and 2 seat 0's (a later clock), so the votes on seat 3's split two
    to two and only its sender's Tally decides it. Honest, it sends one; withheld, seat
    3's play stays open, and seat 0's waits behind it on the foundation, until a change
    of members every seat stays in settles both, `Timing.settle_after` on."""
    table = _table(4)
    if withheld:
        cheat = table.replicas[3]
        take = cheat.take_frames

        def no_own_tallies() -> list[tuple[CommitFrame, int | None]]:
            return [(f, to) for f, to in take() if not (isinstance(f, Tally) and f.seat == 3)]

        cheat.take_frames = no_own_tallies  # type: ignore[method-assign]
    late, landed = _twos_of_hearts(table)
    for src, dest in ((3, 1), (0, 2), (0, 1), (3, 2), (3, 0), (0, 3)):
        table.deliver(src, dest)
    table.run_for(table.timing.settle_after - 0.5)
    committed = [[e.move for e in table.of(s, PlayCommitted)][1:] for s in range(4)]
    assert committed == [[] if withheld and s < 3 else [landed] for s in range(4)]
    table.run_for(1.0)
    for seat in range(4):
        assert [e.move for e in table.of(seat, PlayCommitted)][1:] == [landed]
        assert [e.move for e in table.of(seat, PlayReturned)] == [late]
        assert [e.view for e in table.of(seat, ViewInstalled)] == ([1] if withheld else [])
        assert table.of(seat, PeerExcluded) == [] and _members(table, seat) == (0, 1, 2, 3)
    table.agree()


def _lose_a_ballot(table: Table) -> tuple[ToFoundation, ToFoundation]:
    """Seat 3's two of hearts reaches seats 1 and 2 before seat 0's (a later clock), seat 0
    holding its own first: two votes for it besides its sender's, one late. Seat 2's Ballot
    is lost on the way to seat 3 (a link that broke), so the sender counts two for and one
    late, and a poller needs all four for: no seat can decide it by its own count."""
    landed, late = _twos_of_hearts(table)
    table.deliver(3, 1)
    table.deliver(3, 2)
    lost = table.links[2, 3]
    kept = [m for m in lost if not (isinstance(m, Ballot) and m.to == 3)]
    assert len(kept) < len(lost)
    lost.clear()
    lost.extend(kept)
    for src, dest in ((3, 0), (0, 1), (0, 2), (0, 3)):
        table.deliver(src, dest)
    return landed, late


def test_a_ballot_lost_on_the_way_to_the_sender_is_handed_on_by_a_seat_that_polls() -> None:
    """The seats that poll on seat 3's play get seat 2's Ballot in answer and hand it on to
    seat 3, which decides the play on it: it lands at every seat before the sender's own
    poll is due (`POLL_MOST`), with no change of members."""
    table = _table(4)
    handed: list[tuple[int, Ballot]] = []
    sender = table.replicas[3]
    receive = sender.receive

    def watched(message: Any, now: float, *, via: int | None = None) -> None:
        if isinstance(message, Ballot) and via is not None and via != message.sender:
            handed.append((via, message))
        receive(message, now, via=via)

    sender.receive = watched  # type: ignore[method-assign]
    landed, late = _lose_a_ballot(table)
    table.run_for(0.75)
    assert 2 in {ballot.sender for _, ballot in handed}  # (with those seat 3 held already)
    assert {ballot.seat for _, ballot in handed} == {3}
    for seat in range(4):
        assert [e.move for e in table.of(seat, PlayCommitted)][1:] == [landed]
        assert [e.move for e in table.of(seat, PlayReturned)] == [late]
        assert table.of(seat, ViewInstalled) == []
    table.agree()


def test_a_ballot_lost_on_the_way_to_the_sender_is_asked_for_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As above, but no seat hands a Ballot on: no seat can decide the play. The sender
    polls on its own play too, a second on; seat 2 answers with its Ballot again, and the
    play lands with no change of members."""
    monkeypatch.setattr(Commits, "_hand_on", lambda self, ballot, play: None)
    table = _table(4)
    landed, late = _lose_a_ballot(table)
    table.run_for(0.75)
    assert [e.move for e in table.of(3, PlayCommitted)][1:] == []  # (no seat decides it)
    table.run_for(1.0)
    for seat in range(4):
        assert [e.move for e in table.of(seat, PlayCommitted)][1:] == [landed]
        assert [e.move for e in table.of(seat, PlayReturned)] == [late]
        assert table.of(seat, ViewInstalled) == []
    table.agree()


def _twos_of_hearts(table: Table) -> tuple[ToFoundation, ToFoundation]:
    """Seat 0 starts hearts; then seats 3 and 0 play their twos of hearts on it, seat 0's
    at a later clock, both on their links yet: (seat 3's, seat 0's)."""
    table.play(0, ToFoundation(0, AH0, NERTS, NEW_FOUNDATION))
    three = table.replicas[3].intend(ToFoundation(3, Card(3, 2, Suit.HEARTS), 0, 0), table.now)
    table.flush()
    for _ in range(2):
        table.replicas[0].send_ack(table.now)  # (seat 0's play sorts after seat 3's)
    zero = table.replicas[0].intend(ToFoundation(0, Card(0, 2, Suit.HEARTS), 0, 0), table.now)
    table.flush()
    assert isinstance(three, ToFoundation) and isinstance(zero, ToFoundation)
    return three, zero


def test_a_seat_that_tallies_its_own_plays_needs_no_ack_to_say_how_far_it_has_passed() -> None:
    """Four seats each turn their stock twenty times a second for 4 s, 320 plays: each
    seat's Tally of its own play says how far it has passed the canonical order
    (`passed`), so no seat passes `TELL_EVERY` plays untold and each sends only its
    heartbeat Ack, about one a second; and every seat still lets go of what all have
    passed. Before, each seat also sent an Ack every 32 plays it passed: 10 each in the
    4 s."""
    table = _table(4)
    acks = _counting_acks(table)
    _turn_stocks(table, 80, every=0.05, held_at_most=4 * 25)  # (about a second's plays)
    assert max(acks) <= 4 + 1, acks  # (a heartbeat a second)


def test_seats_busy_playing_still_let_go_of_what_every_seat_has_passed() -> None:
    """Every seat turns its stock ten times a second for 4 s, so none is ever quiet for a
    heartbeat; each still tells how far it has passed the canonical order within a second
    (`Timing.tell_passed`), and every seat lets go of the plays all have passed. Before,
    a busy seat told nobody, and each seat held every play of the round. Each tells it in
    the Tally of each play of its own, so none sends an Ack to say it: before, each sent
    one a second all the same, 4 each in the 4 s, one frame a play more at 14 seats."""
    table = _table(3)
    acks = _counting_acks(table)
    _turn_stocks(table, 40, every=0.1, held_at_most=3 * 15)  # (about a second's plays)
    assert acks == [0, 0, 0]


def test_a_seat_that_passed_plays_it_has_not_told_of_acks_within_a_second() -> None:
    """A seat that passes another seat's plays tells how far within `Timing.tell_passed`
    of the first it has not told of, however busy it is, and owes nothing once it has."""
    table = _table(3)
    table.replicas[0].intend(TurnStock(0), table.now)
    table.flush()
    table.settle()
    seat = table.replicas[1]
    commits = _commits(table, 1)
    assert commits.untold >= 1
    assert seat._tell() == commits.untold_since + table.timing.tell_passed
    seat.send_ack(table.now)
    assert (commits.untold, commits.untold_since) == (0, float("inf"))
    assert seat._tell() == float("inf")


def _counting_acks(table: Table) -> list[int]:
    """How many Acks each seat of ``table`` sends from now on, counted as it sends them."""
    acks = [0] * table.players
    for seat, replica in enumerate(table.replicas):

        def counted(now: float, seat: int = seat, send: Any = replica.send_ack) -> None:
            acks[seat] += 1
            send(now)

        replica.send_ack = counted  # type: ignore[method-assign]
    return acks


def _turn_stocks(table: Table, times: int, *, every: float, held_at_most: int) -> None:
    """Every seat turns its stock ``times`` times, once ``every`` seconds: each commits
    every turn, none holds more than ``held_at_most`` plays after it, and all agree."""
    seats = range(table.players)
    for _ in range(times):
        for seat in seats:
            table.replicas[seat].intend(TurnStock(seat), table.now)
        table.flush()
        table.settle()
        table.advance(every)
    held = [len(_commits(table, seat).order.held) for seat in seats]
    assert all(r.committed >= table.players * times for r in table.replicas)
    assert max(held) <= held_at_most, held
    table.settle()
    table.agree()


def test_a_seat_let_back_in_is_carried_the_rounds_earlier_changes_without_their_holdings() -> None:
    """A seat coming back replays the round from what the StartView that lets it in
    carries, the round's earlier StartViews among it. Each is carried with its votes, and
    so with every member's holding: 14 processes of level-8 bots on 2 cores changed
    members 11 times in one round, their StartViews grew 56, 110, 146, 195, 243 KB, and
    the next, 282 KB, outgrew a frame. A StartView is now signed over a digest of its
    votes and carried without them: a change is under two hundred bytes (its members,
    cuts and lives, at 5 seats): 168, 170, 168 and 171 bytes, where these four were 2,722,
    3,316, 554 and 553."""
    table = _table(5)
    for _ in range(2):  # seat 5 left out and let back in, twice: four changes
        disk = table.crash(4)
        table.run_for(table.timing.depart_after + 1)
        table.restart(4, disk)
        table.run_for(3.0)
        assert _members(table, 0) == tuple(range(5))
    carry = table.replicas[0].membership.base.to_carry([], frozenset(), (4,))
    starts = [len(p) for p in carry if isinstance(decode_payload(p), StartView)]
    assert len(starts) == 4
    assert max(starts) < 1024, starts
    table.settle()
    table.agree()


def test_a_seat_that_voted_past_the_views_that_would_let_it_in_is_let_in_above_its_vote() -> None:
    """A seat shut out of a view that never took hold asks from the view it came from,
    further back than its own, and installs no view at or below the last it voted for.
    Its Rejoin says that view (``above``), and the members let it in above it at once:
    not into the next view, which it would ignore, and then one view after another, each
    changed again when its change's timeout passes without a word from the seat (a real
    table of 14 went through views 37 to 44 so, and the seat, waiting for 47, never came
    back in the round)."""
    table = _table(5)
    table.crash(4)
    table.run_for(table.timing.depart_after + 1)
    assert [e.view for e in table.of(0, ViewInstalled)] == [1]
    out = table.replicas[4]
    asks = out.signer.sign(Rejoin(4, 0, out.clock + 1, 1, out.round, above=8))
    for seat in range(4):
        table.replicas[seat].receive(asks, table.now, via=4)
    table.run_for(1.0)
    for seat in range(4):
        assert table.of(seat, ViewInstalled)[1:] == [ViewInstalled(10, (0, 1, 2, 3, 4))]


def test_a_seat_let_back_in_holds_no_play_of_a_seat_the_same_change_leaves_out() -> None:
    """The coordinator of a change that lets one seat back in and leaves another out keeps
    what reaches it while the members change, the play of the seat left out among it; the
    seat coming back is carried none of it. Held there, no member would have voted on that
    play, and that seat's canonical order would have stuck behind it: it folded nothing
    more in the view, and a later change settled the play in below plays the others had
    passed, folded at two places (a real table of 14: "B12's table differs from ours!")."""
    table = _table(5)
    table.crash(4)
    table.run_for(table.timing.depart_after + 1)
    assert _members(table, 0) == (0, 1, 2, 3)
    silent = {frozenset((3, other)) for other in range(5) if other != 3}
    table.held |= silent  # seat 3 hears nothing, and nothing of it is heard: it votes for nothing
    turn = table.replicas[3].intend(TurnStock(3), table.now)
    table.flush()
    table.restart(4, table.replicas[4].disk)  # asks to come back: seats 0, 1 and 2 vote
    coordinator = 2  # (of view 2: 2 % 5)
    for voter in (0, 1, 2):
        table.deliver(4, voter)
    while table.replicas[coordinator].status is Status.NORMAL:
        table.advance(0.05)  # (what they send waits on the links)
    table.held.discard(frozenset((3, coordinator)))
    table.deliver(3, coordinator)  # seat 3's play reaches the coordinator as it changes
    table.held.add(frozenset((3, coordinator)))
    table.run_for(2.0)
    assert [e.view for e in table.of(0, ViewInstalled)] == [1, 2]
    live = (0, 1, 2, 4)
    for seat in live:
        assert _members(table, seat) == live
        assert all(sender != 3 for sender, _ in _commits(table, seat).order.held)
    for seat in live:
        table.replicas[seat].intend(TurnStock(seat), table.now)
        table.flush()
    table.run_for(1.0)
    for seat in live:
        assert not any(e.move == turn for e in table.of(seat, PlayCommitted))
    assert len({table.replicas[s].committed for s in live}) == 1
    assert len({table.replicas[s].digest for s in live}) == 1
