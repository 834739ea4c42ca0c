"""Version 3's commit through a change of members (`Commits.holding`, `Commits.install`):
a seat left out after it falls silent or cut off at once, one that comes back afresh, and
holdings that carry what fails its check. No seat of the new view resolves a play two
ways, and they all resolve the same plays alike, in one canonical order."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from _commit_table import Table, assert_agreed, assert_settled_alike, run

from p2pnerts.protocol._messages import Tally


@pytest.mark.parametrize(("seats", "seed"), [(4, 21), (6, 23), (14, 25)])
def test_a_seat_gone_silent_is_left_out_and_its_open_plays_settle_alike_everywhere(
    seats: int, seed: int
) -> None:
    """The plays a silent seat left open, split votes included, which polls could not
    decide, are settled by the change of members alike at every seat of the new view, and
    the others play on: one canonical order, every play resolved."""
    table = run(seed, seats, 40 if seats > 8 else 60, silent=0, left_out=0.3)
    assert table.out == {0}
    assert_settled_alike(table)
    carried = [p for p in table.plays if p[0] == 0 and p in table.resolutions[1]]
    assert carried and max(carried) == max(p for p in table.plays if p[0] == 0)
    assert all(len(table.canon[s]) == len(table.resolutions[1]) for s in table.honest)


@pytest.mark.parametrize("seats", [3, 4, 5, 7])
def test_a_seat_cut_off_at_a_random_moment_changes_no_outcome_a_seat_of_the_new_view_knew(
    seats: int,
) -> None:
    """A random seat is left out halfway through, at once: every frame then in flight,
    Ballots and Tallies of the others included, is of the old view and dropped. No seat of
    the new view ever resolves a play two ways (`Table._resolve`, `_order.Order.learn`),
    they all resolve the same plays alike, and reach one canonical order."""
    settled = 0
    for seed in range(12):
        rng = random.Random(seed)
        table = run(seed, seats, rng.randrange(20, 60), cut=rng.randrange(seats))
        assert_settled_alike(table)
        settled += len(table.resolutions[table.honest[0]])
    assert settled > 200


def test_a_play_that_waits_on_one_none_of_the_new_view_held_commits_once_it_is_returned() -> None:
    """Three seats, seat 0 cut off: seat 2's play 2 was decided in on seat 0's vote, which
    named seat 0's play 3 below it, a play no other seat held. The change returns play 3
    with nothing to carry, so play 2 commits at seats 1 and 2, where it would wait for
    play 3 for ever. (Seed 67; seed 65 showed it before a play waited on was polled on
    sooner, `_polling.POLL_BLOCKING`, and now takes other turns.)"""
    rng = random.Random(67)
    table = run(67, 3, rng.randrange(20, 60), cut=rng.randrange(3))
    assert table.out == {0} and (0, 3) in table.plays
    assert all((0, 3) not in table.resolutions[s] for s in (1, 2))
    assert all(table.resolutions[s][2, 2] for s in (1, 2))
    assert_settled_alike(table)


def test_what_a_holding_carries_that_fails_its_check_counts_for_nothing() -> None:
    """Seat 0 falls silent with its play 6 held and voted for at every other seat, its
    outcome told nowhere. A holding that carries a Tally returning it on no Ballots, and
    seats 2's and 3's Ballots turned late (their signatures no longer theirs), settles it as
    the honest holdings do, in, at every seat; either alone, counted, would return it."""
    table = Table(5, random.Random(2), silent=0, reports=False)
    for _ in range(6):
        table.play(0)
    table.muted = True  # its outcomes go nowhere
    table.run_until(0.05)  # (before anyone polls)
    members = [1, 2, 3, 4]
    holdings = [table.seats_[s].holding() for s in members]
    play = table.plays[(0, 6)]
    mine = {b.sender: b for h in holdings for b in h.ballots if (b.seat, b.number) == play.id}
    assert sorted(mine) == members and all(b.ok for b in mine.values())
    signer = table.seats_[1].box.signer
    forged = signer.sign(Tally(1, 0, 99, 1, 0, 6, b"", False, (), ()))
    bent = tuple(replace(mine[s], ok=False, below=()) for s in (2, 3))
    honest = table.seats_[1].settlement(members, holdings)
    assert honest[1][play.id].ok
    for bad in (
        replace(holdings[0], tallies=(forged,)),
        replace(holdings[0], ballots=(*bent, *holdings[0].ballots)),
    ):
        for seat in members:
            assert table.seats_[seat].settlement(members, [bad, *holdings[1:]]) == honest


@pytest.mark.parametrize(("seats", "seed", "then_cut"), [(4, 21, None), (7, 25, 6)])
def test_a_seat_left_out_comes_back_afresh_and_plays_on_in_the_order_the_others_keep(
    seats: int, seed: int, then_cut: int | None
) -> None:
    """Seat 0 falls silent, is left out 0.3 s later and comes back 0.2 s after that, with
    nothing of its earlier life: it installs the next view from the others' holdings, goes
    on numbering its plays after the last one settled, resolves every play made after it
    came back as the others do, and reaches their canonical order where it picks it up.
    At 7 seats seat 6 is then cut off: a third change, which carries forward what the
    first two settled."""
    table = run(seed, seats, 100, silent=0, left_out=0.3, back=0.2, then_cut=then_cut)
    assert table.out == ({then_cut} if then_cut is not None else set())
    assert table.back_at > 0 and max(table.views) == (3 if then_cut is not None else 2)
    others = [s for s in range(1, seats) if s != then_cut]
    assert_agreed(table, everywhere=False, seats=others)
    mine, theirs = table.resolutions[0], table.resolutions[1]
    assert all(theirs[play] == ok for play, ok in mine.items())
    since = [p for p, at in table.made.items() if at >= table.back_at]
    assert any(p[0] == 0 for p in since) and all(p in mine and p in theirs for p in since)
    canon, whole = table.canon[0], table.canon[1]
    start = whole.index(canon[0])
    assert len(canon) > len(since) // 2 and whole[start : start + len(canon)] == canon
