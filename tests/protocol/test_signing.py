"""Every ordered message, vote and StartView is signed by its sender (SPEC §3.7): one
signed by another key, or changed after it was signed, is refused and changes nothing,
and a StartView may carry only messages their own senders signed — so no seat, the
coordinator included, can put a move in another seat's mouth."""

from __future__ import annotations

from dataclasses import replace

import pytest
from _table import Table
from test_headers import _dealt, _refused

from p2pnerts.protocol import (
    SIGNED,
    Message,
    Play,
    Rejoin,
    Signer,
    StartView,
    ViewChange,
    bare,
    decode_payload,
    digest_votes,
    encode_payload,
    signed_bytes,
)
from p2pnerts.protocol._identity import SeatKey, verify
from p2pnerts.rules import DeclareStuck, TurnStock


def _recorded(table: Table) -> list[Message]:
    """Every message the table's seats send from now on, in order."""
    seen: list[Message] = []

    def keep(message: Message) -> list[Message | bytes]:
        seen.append(message)
        return [message]

    table.tamper = dict.fromkeys(range(table.players), keep)
    return seen


def _next_play(table: Table, seat: int) -> Play:
    sender = table.replicas[seat]
    return Play(
        seat, sender.view, sender.clock + 1, sender.have[seat] + 1, 1, TurnStock(seat, rotation=0)
    )


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
    seen = _recorded(table)
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


def test_a_view_whose_votes_are_not_the_ones_its_coordinator_signed_is_refused() -> None:
    # The signature covers the votes' digest, not the votes: other genuine votes (seat 2's
    # vote for view 1 with other suspects) in the place of those signed are refused.
    table = _dealt()
    start = _start_dropping_seat_0(table, (_vote(table, 1, 1), _vote(table, 2, 2)))
    other = table.replicas[2].signer.sign(replace(_vote(table, 2, 2), suspects=(0, 1)))
    swapped = replace(start, votes=(start.votes[0], encode_payload(other)))
    assert table.replicas[2].signer.genuine(swapped)  # (the digest is what was signed)
    _refused(table, 2, swapped, "holds other votes than the ones it signed")


def test_a_start_view_carried_without_its_votes_is_still_its_coordinators() -> None:
    # What a later StartView carries of it: no votes, no carried messages, the digest.
    table = _dealt()
    start = _start_dropping_seat_0(table, (_vote(table, 1, 1), _vote(table, 2, 2)))
    again = decode_payload(encode_payload(bare(start)))
    assert isinstance(again, StartView) and not again.votes
    assert again.votes_digest == start.votes_digest == digest_votes(start.votes)
    assert Signer.computed(0, 3).genuine(again)
    assert not Signer.computed(0, 3).genuine(replace(again, members=(0, 1, 2)))


def test_a_view_with_every_members_signed_vote_passes_the_check() -> None:
    table = _dealt()
    start = _start_dropping_seat_0(table, (_vote(table, 1, 1), _vote(table, 2, 2)))
    two = table.replicas[2]
    two.gate.check(start, two.clock, two.view)  # raises nothing
    assert not two.gate.refuses(1)


# --- rejoins ----------------------------------------------------------------------------------


def _rejoin(table: Table, seat: int, *, view: int = 0) -> Rejoin:
    return Rejoin(seat, view, max(table.replicas[seat].clock, 1), 1, 0)


def test_an_unsigned_rejoin_is_refused() -> None:
    table = _dealt()
    _refused(table, 1, _rejoin(table, 0), "seat 0's Rejoin is not signed by its key")


def test_a_rejoin_signed_with_another_seats_key_is_refused() -> None:
    table = _dealt()
    forged = table.replicas[2].signer.sign(_rejoin(table, 0))  # seat 2 asks for seat 0
    _refused(table, 1, forged, "seat 0's Rejoin is not signed by its key")


def _letting_in(table: Table, seat: int, *carried: Rejoin, asked_from: int = 0) -> StartView:
    """Seat 1's StartView of view 1 (voted by seats 1 and 2 in view 0) that lets ``seat``
    back in as asking from ``asked_from``, carrying ``carried``; signed by seat 1."""
    one = table.replicas[1]
    votes = [
        table.replicas[s].signer.sign(
            ViewChange(s, 0, 50 + s, 90, new_view=1, suspects=(), have=(1,) * 3, committed=0)
        )
        for s in (1, 2)
    ]
    start = replace(
        table.start_view(1, (0, 1, 2), carried=tuple(map(encode_payload, carried))),
        joined=(seat,),
        joined_from=(asked_from,),
        lives=tuple(1 if s == seat else 0 for s in range(3)),
        votes=tuple(map(encode_payload, votes)),
    )
    return one.signer.sign(start)


def test_a_start_view_letting_in_a_seat_that_never_asked_is_refused() -> None:
    # A coordinator lists seat 0 as rejoining: seat 0 would number its messages afresh at
    # every member, then refuse the view it never asked for and be left out.
    table = _dealt()
    _refused(table, 2, _letting_in(table, 0), "without the signed Rejoin of each")


def test_a_start_view_letting_a_seat_in_from_another_view_than_it_asked_is_refused() -> None:
    table = _dealt()
    asked = table.replicas[0].signer.sign(_rejoin(table, 0))
    start = _letting_in(table, 0, asked, asked_from=1)
    _refused(table, 2, start, "without the signed Rejoin of each")


def test_a_start_view_carrying_a_rejoin_its_seat_never_signed_is_refused() -> None:
    table = _dealt()
    forged = table.replicas[1].signer.sign(_rejoin(table, 0))  # the coordinator's own key
    _refused(table, 2, _letting_in(table, 0, forged), "carries a Rejoin not signed by seat 0")


def test_the_start_view_letting_a_restarted_seat_back_carries_its_signed_rejoin() -> None:
    table = _dealt()
    seen = _recorded(table)
    disk = table.crash(2)
    table.run_for(6)
    table.restart(2, disk)
    table.run_for(4)
    assert table.replicas[2].members == {0, 1, 2}
    starts = [m for m in seen if isinstance(m, StartView) and m.joined == (2,)]
    assert starts
    checker = Signer.computed(0, 3)
    for start in starts:
        asked = [decode_payload(p) for p in start.carried]
        rejoins = [m for m in asked if isinstance(m, Rejoin)]
        assert [(r.sender, r.view) for r in rejoins] == [(2, start.joined_from[0])]
        assert all(checker.genuine(r) and len(r.sig) == 64 for r in rejoins)


def test_a_message_signed_at_one_table_is_not_genuine_at_another_with_the_same_keys() -> None:
    # Seat 1 of the table 'here', whose key sits at seat 1 of 'there' too (a key used twice).
    here, there = bytes(range(16)), bytes(range(1, 17))
    signed = Signer.computed(1, 2, b"k", here).sign(Play(1, 0, 5, 1, 1, TurnStock(1, rotation=0)))
    assert Signer.computed(0, 2, b"k", here).genuine(signed)
    assert not Signer.computed(0, 2, b"k", there).genuine(signed)
    assert signed_bytes(signed, here).startswith(b"p2pnerts/3 message\x00" + here)


def test_a_message_signed_here_is_taken_as_genuine_unverified_and_no_changed_copy_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # In a simulation every replica shares the process: what one signs, the others need not
    # verify. Only the very message signed is spared; any other is verified as ever.
    verified: list[bytes] = []

    def counting(public: bytes, signature: bytes, data: bytes) -> bool:
        verified.append(data)
        return verify(public, signature, data)

    monkeypatch.setattr("p2pnerts.protocol._signing.verify", counting)
    signer, other = Signer.computed(1, 2, b"here"), Signer.computed(0, 2, b"here")
    first = signer.sign(Play(1, 0, 5, 1, 1, TurnStock(1, rotation=0)))
    second = signer.sign(Play(1, 0, 6, 2, 1, TurnStock(1, rotation=1)))
    assert other.genuine(first) and other.genuine(second)
    assert verified == []
    assert not other.genuine(replace(first, sig=second.sig))
    assert not other.genuine(replace(first, clock=6))
    assert len(verified) == 2
    forged = other.sign(replace(first, sig=b""))  # seat 0's key, seat 1's name
    assert not signer.genuine(forged) and len(verified) == 3


# RFC 8032 §7.1, test 1: the empty message.
RFC_SECRET = bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
RFC_PUBLIC = bytes.fromhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
RFC_SIGNATURE = bytes.fromhex(
    "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
)
ORDER = 2**252 + 27742317777372353535851937790883648493
"""The group order L."""
BASE = bytes.fromhex("58" + "66" * 31)
"""The base point B, encoded."""
IDENTITY = bytes([1]) + bytes(31)
"""The curve's neutral point, encoded: a key of small order (order 1)."""


def test_a_seat_key_signs_and_checks_as_rfc_8032_says() -> None:
    key = SeatKey.from_secret(RFC_SECRET)
    assert key.public == RFC_PUBLIC and key.secret == RFC_SECRET
    assert key.sign(b"") == RFC_SIGNATURE
    assert verify(RFC_PUBLIC, RFC_SIGNATURE, b"")
    assert not verify(RFC_PUBLIC, RFC_SIGNATURE, b"\x00")


def test_a_signature_verifies_only_as_spec_3_7_says_whatever_a_cheat_crafts() -> None:
    """Every seat must reach the same verdict on a crafted signature: S at or above the
    group order, and a key of small order, verify nothing. Under the neutral point as a
    key, ``R = B, S = 1`` passes a check that skips that rule for every message (the
    check this project used before did), so its holder's words could not be told from
    anyone's forgery of them."""
    s = int.from_bytes(RFC_SIGNATURE[32:], "little")
    high = RFC_SIGNATURE[:32] + (s + ORDER).to_bytes(32, "little")
    assert not verify(RFC_PUBLIC, high, b""), "the same signature with S + L"
    for message in (b"", b"any message", b"another"):
        assert not verify(IDENTITY, BASE + (1).to_bytes(32, "little"), message)
    assert not verify(RFC_PUBLIC[:31], RFC_SIGNATURE, b"") and not verify(RFC_PUBLIC, b"", b"")
