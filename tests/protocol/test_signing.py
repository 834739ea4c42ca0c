"""Every ordered message, vote and StartView is signed by its sender (SPEC §3.7): one
signed by another key, or changed after it was signed, is refused and changes nothing,
and a StartView may carry only messages their own senders signed — so no seat, the
coordinator included, can put a move in another seat's mouth."""

from __future__ import annotations

from dataclasses import replace

from _table import Table
from test_headers import _dealt, _refused

from p2pnerts.protocol import (
    SIGNED,
    Message,
    Play,
    Signer,
    StartView,
    ViewChange,
    decode_payload,
    encode_payload,
)
from p2pnerts.rules import DeclareStuck, TurnStock


def _next_play(table: Table, seat: int) -> Play:
    sender = table.replicas[seat]
    return Play(seat, sender.view, sender.clock + 1, sender.have[seat] + 1, 1, TurnStock(seat))


def test_a_play_signed_with_another_seats_key_is_refused() -> None:
    table = _dealt()
    play = table.replicas[2].signer.sign(_next_play(table, 0))  # seat 2 speaks for seat 0
    _refused(table, 1, play, "seat 0's Play is not signed by its key")


def test_a_play_changed_after_it_was_signed_is_refused() -> None:
    table = _dealt()
    signed = table.replicas[0].signer.sign(_next_play(table, 0))
    _refused(table, 1, replace(signed, move=DeclareStuck(0)), "not signed by its key")


def test_an_unsigned_play_is_refused() -> None:
    table = _dealt()
    _refused(table, 1, _next_play(table, 0), "not signed")


def test_a_start_view_carrying_a_move_its_seat_never_signed_is_refused() -> None:
    # The coordinator of view 1 (seat 1) leaves seat 0 out and carries a DeclareStuck "from"
    # it, signed with the only key it holds: its own.
    table = _dealt()
    one = table.replicas[1]
    fabricated = one.signer.sign(replace(_next_play(table, 0), move=DeclareStuck(0)))
    start = table.start_view(1, (1, 2), carried=(encode_payload(fabricated),))
    _refused(table, 2, one.signer.sign(start), "carries a Play not signed by seat 0")


def test_every_message_of_a_game_with_a_crash_and_a_view_change_verifies() -> None:
    table = _dealt()
    seen: list[Message] = []

    def keep(message: Message) -> list[Message | bytes]:
        seen.append(message)
        return [message]

    table.tamper = dict.fromkeys(range(3), keep)
    table.play(1, TurnStock(1))
    table.crash(0)
    table.run_for(6)  # seat 0 is left out: a StartView carries the round so far
    table.play(2, TurnStock(2))
    table.agree()
    checker = Signer.computed(1, 3)
    signed = [m for m in seen if isinstance(m, SIGNED)]
    starts = [m for m in signed if isinstance(m, StartView)]
    assert starts and any(s.carried for s in starts)
    carried = [decode_payload(p) for s in starts for p in s.carried]
    assert all(checker.genuine(m) for m in signed + carried)
    assert all(len(m.sig) == 64 for m in signed if isinstance(m, Play | StartView))


def _start_dropping_seat_0(table: Table, votes: tuple[ViewChange, ...]) -> StartView:
    # Seat 1 is the coordinator of view 1 (1 mod 3).
    start = table.start_view(1, (1, 2), votes=tuple(encode_payload(v) for v in votes))
    return table.replicas[1].signer.sign(start)


def _vote(table: Table, seat: int, signer: int) -> ViewChange:
    voter = table.replicas[seat]
    vote = ViewChange(
        seat,
        0,
        voter.clock + 1,
        voter.have[seat] + 1,
        new_view=1,
        suspects=(0,),
        have=tuple(voter.have),
        committed=voter.committed,
    )
    return table.replicas[signer].signer.sign(vote)


def test_a_view_its_coordinator_starts_without_its_members_votes_is_refused() -> None:
    # The coordinator alone wants seat 0 gone: seat 2 never voted for view 1.
    table = _dealt()
    start = _start_dropping_seat_0(table, (_vote(table, 1, 1),))
    _refused(table, 2, start, r"without the signed votes of its members \(votes from \[1\]")


def test_a_vote_the_coordinator_signed_for_another_seat_is_refused() -> None:
    table = _dealt()
    start = _start_dropping_seat_0(table, (_vote(table, 1, 1), _vote(table, 2, 1)))
    _refused(table, 2, start, "one not signed by its seat")


def test_a_view_with_every_members_signed_vote_passes_the_check() -> None:
    table = _dealt()
    start = _start_dropping_seat_0(table, (_vote(table, 1, 1), _vote(table, 2, 2)))
    two = table.replicas[2]
    two.gate.check(start, two.clock, two.view)  # raises nothing
    assert not two.gate.refuses(1)
