"""A seated cheat against whole rounds over version 3's commit (`_round_table`): one that
sends two plays under one number, names below its plays plays nobody sent, keeps the
outcomes of its own plays to itself, or votes as it likes. The others end the round on one
table, with a change of members where the rule needs one."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest
from _round_table import Round

from p2pnerts.protocol._messages import CommitFrame, Tally
from p2pnerts.protocol._spots import Key, Spot, Spotted, Vote, Voter
from p2pnerts.rules import TableOptions


@pytest.mark.parametrize(
    ("players", "seed", "fooled"),
    [(4, 1, "even"), (5, 2, "even"), (6, 3, "even"), (7, 5, "even"), (5, 1, "one"), (6, 2, "one")],
)
def test_a_seat_that_sent_two_plays_under_one_number_is_left_out_and_the_rest_hold_one(
    players: int, seed: int, fooled: str
) -> None:
    """The last seat sends its first foundation play to some seats and another legal move
    under the same number to the others: the even seats, or seat 0 alone. No seat takes a
    Tally of the one it does not hold (with seat 0 alone fooled, the cheat's Tally of the
    play reaches it and is refused); half a second later the cheat is left out, and every
    other seat resolves the play alike (committed, it holds the same version of it: the
    one the change settled) and ends the round on one table."""
    game = Round(TableOptions(nerts_pile=6), players, seed)
    game.cheat = players - 1
    game.fooled = set(range(0, players, 2)) if fooled == "even" else {0}
    game.play()
    if fooled == "one":
        assert (0, game.cheat) in game.refused
    two_faced = game.two_faced
    assert two_faced is not None and game.out == {game.cheat}
    # A seat fooled learnt of the other play before the change: it shows its own copy.
    told = [game.told.get(s, {}).get(two_faced.id) for s in game.fooled]
    assert game.moves.get(next(w for w in told if w)) is not None
    seats = [seat for i, seat in enumerate(game.seats) if i != game.cheat]
    assert all(not seat.commits.other_copies for seat in seats)  # settled by the change
    held = {seat.commits.order.held[two_faced.id].witness for seat in seats}
    resolved = {seat.commits.order.resolved[two_faced.id] for seat in seats}
    assert len(resolved) == 1 and (len(held) == 1 or resolved == {False})
    assert {sender for _, sender in game.refused} <= {game.cheat}
    tables = [seat.table for seat in seats]
    assert all(t.ended is not None for t in tables) and all(t == tables[0] for t in tables)
    assert all(seat.barriers == seats[0].barriers for seat in seats)
    assert all(
        not seat.commits.order.unresolved and not seat.air and not seat.waiting for seat in seats
    )


@pytest.mark.parametrize(("players", "seed"), [(4, 0), (5, 5), (6, 1), (7, 6)])
def test_a_seat_that_names_plays_nobody_sent_below_its_own_holds_up_no_one(
    players: int, seed: int
) -> None:
    """The last seat names, below every play it makes, 50 plays more of every other seat
    than it holds: plays nobody sent, which no seat will ever hold. Its plays are decided in
    with that in their outcome; a play waits for a named play it does not hold only while
    that seat's plays still to come could sort before it, so the round ends on one table
    (it stalled, every seat waiting for ever, when it waited regardless), and no play is
    left open. The seats tell their clocks as a replica does (`Round.beat`). Told by their
    plays alone, a seat with none left to make never bounds its plays to come, and the
    cheat's last play stayed open at 17 of 64 seeds (4 to 7 seats, seeds 0-15; these are
    the first at each size), the round never ending at 4 seats, seed 0; told so, at none.
    """
    game = Round(TableOptions(nerts_pile=6), players, seed)
    game.beat = 0.25
    voter = game.seats[players - 1].commits.voter
    make = voter.make

    def inflated(seq: int, key: Key, spots: tuple[Spot, ...], witness: bytes = b"") -> Spotted:
        play = make(seq, key, spots, witness)
        more = tuple(b if s == play.seat else b + 50 for s, b in enumerate(play.below))
        return replace(play, below=more)

    voter.make = inflated  # type: ignore[method-assign]
    game.play(until=60.0)
    tables = [seat.table for seat in game.seats[:-1]]
    assert all(t.ended is not None for t in tables) and all(t == tables[0] for t in tables)
    assert all(not seat.commits.order.unresolved for seat in game.seats[:-1])


@pytest.mark.parametrize(("players", "seed"), [(4, 0), (5, 3)])
def test_a_seat_that_keeps_the_outcomes_of_its_own_plays_to_itself_holds_up_no_one_for_long(
    players: int, seed: int
) -> None:
    """The last seat never sends the Tally of its own plays. A play of its whose votes
    split (some seats voted it late, holding a conflicting play that sorts after it) is
    one no poll can decide, and every play after it on its spots waits, the call that ends the round
    among them: the round never ends. A change of members, every seat staying, once a play
    has been open a second, settles it from the holdings, and the round ends on one table."""
    game = Round(TableOptions(nerts_pile=6), players, seed)
    commits = game.seats[players - 1].commits
    take = commits.take_outgoing

    def no_tallies() -> list[tuple[CommitFrame, int | None]]:
        return [(f, to) for f, to in take() if not (isinstance(f, Tally) and f.seat == f.sender)]

    commits.take_outgoing = no_tallies  # type: ignore[method-assign]
    game.settle_after = 1.0
    game.play(until=60.0)
    assert game.changes > 0 and not game.out
    tables = [seat.table for seat in game.seats[:-1]]
    assert all(t.ended is not None for t in tables) and all(t == tables[0] for t in tables)


def _votes_bent(voter: Voter, bend: Callable[[Spotted, Vote], Vote]) -> None:
    """Have ``voter`` vote as ``bend`` says on every play of another seat, and keep that
    vote, so that it says the same to whoever asks."""
    hold = voter.hold

    def bent(play: Spotted) -> Vote:
        vote = hold(play)
        if play.seat != voter.seat:
            vote = voter.votes[play.id] = bend(play, vote)
        return vote

    voter.hold = bent  # type: ignore[method-assign]


CHEAT_VOTES: dict[str, Callable[[Spotted, Vote], Vote]] = {
    "for every play, conflicts or not": lambda play, vote: Vote(
        play.id, vote.voter, True, vote.below or (0,) * len(play.below), play.witness
    ),
    "late on every play": lambda play, vote: Vote(play.id, vote.voter, False),
    "naming nothing below": lambda play, vote: replace(
        vote, below=tuple(b if s == play.seat else 0 for s, b in enumerate(vote.below))
    ),
}


@pytest.mark.parametrize(
    ("how", "players", "seed"),
    [
        ("for every play, conflicts or not", 5, 1),
        ("for every play, conflicts or not", 7, 3),
        ("naming nothing below", 5, 5),
        ("late on every play", 5, 1),
        ("late on every play", 7, 3),
    ],
)
def test_a_seat_that_votes_as_it_likes_parts_no_table(how: str, players: int, seed: int) -> None:
    """The last seat votes for every play whatever it conflicts with, or late on every
    play, or names nothing below what it votes for, at players looking every 1 to 10 ms (so
    that plays race): every two quorums share two members, one of them honest, so the
    others end the round on one table all the same. (With a plain majority for a quorum
    at these odd tables the first three part the table.)"""
    game = Round(TableOptions(nerts_pile=6), players, seed)
    game.looks = (0.001, 0.01)
    _votes_bent(game.seats[players - 1].commits.voter, CHEAT_VOTES[how])
    game.play(until=60.0)
    seats = game.seats[:-1]
    tables = [seat.table for seat in seats]
    assert all(t.ended is not None for t in tables) and all(t == tables[0] for t in tables)
    assert all(seat.barriers == seats[0].barriers for seat in seats)
    assert {sender for _, sender in game.refused} <= {players - 1}
