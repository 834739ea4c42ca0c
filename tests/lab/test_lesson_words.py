"""Each lesson's text says what the replica columns show: every claim it makes of views,
members, statuses, commits and pending plays holds in `Lab.seat_view` at the step it names,
and every step it names is checked, so a text that runs ahead of its columns fails."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pytest

from p2pnerts.lab import LESSONS, Lab, SeatView

Key = tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class Shows:
    """What one seat's column shows at a step; None (or empty) claims nothing."""

    seat: int
    status: str | None = None
    view: int | None = None
    members: tuple[int, ...] | None = None
    committed: int | None = None
    holds: tuple[Key, ...] = ()
    """Plays (keys) in its pending list."""
    lacks: tuple[Key, ...] = ()
    """Plays not in its pending list (not heard of yet, or committed)."""
    kept: int | None = None
    applied: int | None = None
    """At a majority's table, the plays it applied."""
    suspected: tuple[int, ...] | None = None
    like: int | None = None
    """A seat whose committed count and digest this seat's equal."""
    unlike: tuple[int, ...] = ()
    """Seats whose committed count and digest this seat's do not equal."""

    def check(self, lab: Lab) -> list[str]:
        seen = lab.seat_view(self.seat)
        claimed = {
            "status": self.status,
            "view": self.view,
            "members": self.members,
            "committed": self.committed,
            "kept": self.kept,
            "applied": self.applied,
            "suspected": self.suspected,
        }
        wrong = [
            f"{name} {getattr(seen, name)!r}, not {want!r}"
            for name, want in claimed.items()
            if want is not None and getattr(seen, name) != want
        ]
        keys = {key for key, _ in seen.pending}
        wrong += [f"no {key} pending" for key in self.holds if key not in keys]
        wrong += [f"{key} pending" for key in self.lacks if key in keys]
        if self.like is not None and _commits(seen) != _commits(lab.seat_view(self.like)):
            wrong.append(f"committed {_commits(seen)}, seat {self.like + 1} another")
        wrong += [f"committed as seat {o + 1}" for o in self.unlike if _same(lab, self.seat, o)]
        return [f"seat {self.seat + 1}: {w}" for w in wrong]


@dataclass(frozen=True, slots=True)
class Claim:
    """Words of a lesson's text, and what the columns show at ``step`` for them to hold."""

    words: str
    step: int
    shows: tuple[Shows, ...]


def _commits(view: SeatView) -> tuple[int, str]:
    return view.committed, view.digest


def _same(lab: Lab, a: int, b: int) -> bool:
    return _commits(lab.seat_view(a)) == _commits(lab.seat_view(b))


def _all(seats: range, **shows: Any) -> tuple[Shows, ...]:
    return tuple(Shows(seat, **shows) for seat in seats)


RACE = ((87, 0, 3), (92, 0, 1))


def _tie(holder: int) -> tuple[Claim, ...]:
    """Both plays pending at ``holder`` at L=59; at the point, seat 2 has decided them."""
    keys = ((59, 0, 0), (59, 0, 1))
    return (
        Claim("the very same Lamport clock L=59", 129, (Shows(holder, holds=keys),)),
        Claim("the very same Lamport clock L=59", 131, (Shows(1, lacks=keys),)),
    )


CLUBS = ((176, 0, 1), (177, 0, 3))
"""The majority's race: seat 3's 3♣ and seat 4's."""
SILENT = ((540, 0, 3),)
"""The hiccup: seat 4's stock turn, made into its silence."""

CLAIMS: dict[str, tuple[Claim, ...]] = {
    "race": (
        Claim(
            "At step 544 it plays a 3♣ onto foundation 1, L=87", 544, (Shows(3, holds=RACE[:1]),)
        ),
        Claim(
            "at step 558, 22 ms later, seat 2 plays its own 3♣ there, L=92, not having heard",
            558,
            (Shows(1, holds=RACE[1:], lacks=RACE[:1]), Shows(3, lacks=RACE[1:])),
        ),
        Claim("At step 636 seat 3 commits both first", 635, _all(range(4), holds=RACE[1:])),
        Claim(
            "At step 636 seat 3 commits both first",
            636,
            (Shows(2, lacks=RACE), *(Shows(s, holds=RACE[1:]) for s in (0, 1, 3))),
        ),
        Claim("the others follow by step 676", 675, (Shows(3, holds=RACE[1:]),)),
        Claim("the others follow by step 676", 676, _all(range(4), lacks=RACE)),
    ),
    "tie-both-stay": _tie(0),
    "tie-rotate": _tie(1),
    "tie-seat": _tie(0),
    "nerts": (
        Claim(
            "Seat 2 calls Nerts while seat 3's play is still in the air",
            3381,
            _all(range(3), holds=((418, 0, 2), (419, 1, 1))),
        ),
        Claim(
            "seat 1's L=421 ... goes back at step 3414", 3413, _all(range(4), holds=((421, 0, 0),))
        ),
        Claim("seat 1's L=421 ... goes back at step 3414", 3414, (Shows(1, lacks=((421, 0, 0),)),)),
    ),
    "crash": (
        Claim("Seat 4 crashes at step 600", 600, (Shows(3, status="crashed"),)),
        Claim(
            "At step 767 seat 2 installs view 1 (members 1 2 3), seats 1 and 3 follow",
            767,
            (
                Shows(1, status="playing", view=1, members=(0, 1, 2), committed=45),
                *_all(range(0, 3, 2), status="regrouping", view=0, committed=45),
            ),
        ),
        Claim("seats 1 and 3 follow", 773, _all(range(3), status="playing", view=1, committed=45)),
        Claim("from step 774 commits flow again", 774, (Shows(2, view=1, committed=59),)),
        Claim(
            "At step 867 seat 4 restarts from its disk: it kept its deck and its view, v0, "
            "but no commits",
            867,
            (Shows(3, status="rejoining", view=0, committed=0, kept=1),),
        ),
        Claim("view 2 lets it back in at step 893", 892, _all(range(3), view=1)),
        Claim(
            "view 2 lets it back in at step 893",
            893,
            (Shows(2, view=2, members=(0, 1, 2, 3)), Shows(3, status="rejoining")),
        ),
        Claim("by step 913 it has rebuilt the table", 912, (Shows(3, unlike=(0, 1, 2)),)),
        Claim(
            "by step 913 it has rebuilt the table from what the others sent it",
            913,
            (Shows(3, status="playing", view=2, members=(0, 1, 2, 3), like=0, kept=None),),
        ),
    ),
    "majority-race": (
        Claim("At step 681 seat 2 plays a 3♣", 680, (Shows(1, lacks=CLUBS),)),
        Claim(
            "At step 681 seat 2 plays a 3♣ onto foundation 5, L=176",
            681,
            (Shows(1, holds=CLUBS[:1]), Shows(3, lacks=CLUBS)),
        ),
        Claim("at step 690 its Tally goes out", 689, (Shows(1, holds=CLUBS[:1]),)),
        Claim(
            "at step 690 its Tally goes out ... which has not heard of it yet",
            690,
            (Shows(1, lacks=CLUBS[:1]), Shows(3, lacks=CLUBS)),
        ),
        Claim("At step 740 seat 4, not having heard", 739, (Shows(3, lacks=CLUBS),)),
        Claim(
            "At step 740 seat 4, not having heard of it, plays its own 3♣ there, L=177",
            740,
            (Shows(3, holds=CLUBS[1:], lacks=CLUBS[:1]),),
        ),
        Claim(
            "Its slow links take it and the votes for it slowly; at step 831 seat 3 polls",
            831,
            (Shows(2, holds=CLUBS[1:]), Shows(3, holds=CLUBS[1:])),
        ),
        Claim("at step 835 counts it in", 834, _all(range(4), holds=CLUBS[1:])),
        Claim(
            "at step 835 counts it in ... seat 4's card goes back",
            835,
            (Shows(2, lacks=CLUBS), *(Shows(s, holds=CLUBS[1:]) for s in (0, 1, 3))),
        ),
        Claim("Seats 2 and 1 follow by step 837", 836, (Shows(0, holds=CLUBS[1:]),)),
        Claim("Seats 2 and 1 follow by step 837", 837, _all(range(3), lacks=CLUBS)),
        Claim("seat 4 at step 852", 851, (Shows(3, holds=CLUBS[1:]),)),
        Claim("seat 4 at step 852", 852, _all(range(4), lacks=CLUBS)),
    ),
    "majority-hiccup": (
        Claim(
            "At step 2000 the network cuts seat 4 off ... seat 4's stays at 181",
            2000,
            (Shows(3, applied=181),),
        ),
        Claim("Seat 4's 3♣ to its pile 3, L=540 (step 2024)", 2023, (Shows(3, lacks=SILENT),)),
        Claim("Seat 4's 3♣ to its pile 3, L=540 (step 2024)", 2024, (Shows(3, holds=SILENT),)),
        Claim("Each side suspects the other after 1.5 s", 2434, _all(range(4), suspected=())),
        Claim(
            "Each side suspects the other after 1.5 s",
            2435,
            (Shows(1, suspected=(3,)), Shows(3, suspected=())),
        ),
        Claim(
            "Each side suspects the other after 1.5 s",
            2442,
            (*_all(range(3), suspected=(3,)), Shows(3, suspected=(0, 1, 2))),
        ),
        Claim(
            "goes on to 279, seat 4's stays at 181; their committed row, the digest's order, "
            "waits at 201",
            2715,
            (*_all(range(3), committed=201, applied=279), Shows(3, applied=181, holds=SILENT)),
        ),
        Claim("At step 2716 the network heals", 2716, (Shows(0, suspected=(3,)),)),
        Claim("at step 2836 seat 1 hears seat 4 again", 2835, (Shows(0, suspected=(3,)),)),
        Claim(
            "at step 2836 seat 1 hears seat 4 again, still in view 0: nobody was left out",
            2836,
            (
                Shows(0, suspected=()),
                *_all(range(4), status="playing", view=0, members=(0, 1, 2, 3)),
            ),
        ),
        Claim("is voted in at step 3129", 3128, (Shows(3, holds=SILENT),)),
        Claim("is voted in at step 3129", 3129, (Shows(3, lacks=SILENT),)),
    ),
    "partition": (
        Claim("At step 600 the network splits seat 4", 600, (Shows(3, committed=45),)),
        Claim("leave it out (view 1, from step 779)", 778, _all(range(4), view=0)),
        Claim(
            "leave it out (view 1, from step 779)",
            779,
            (Shows(1, status="playing", view=1, members=(0, 1, 2)),),
        ),
        Claim(
            "it can form no view and commits nothing (its column stays at v0, committed 45)",
            1078,
            (Shows(3, status="regrouping", view=0, committed=45), Shows(0, view=1)),
        ),
        Claim("At step 1079 the network heals", 1079, (Shows(3, view=0, committed=45),)),
        Claim("at step 1148 view 2 lets it back in", 1147, _all(range(4), view=1)[:3]),
        Claim(
            "at step 1148 view 2 lets it back in",
            1148,
            (Shows(2, view=2, members=(0, 1, 2, 3)), Shows(3, status="rejoining", committed=45)),
        ),
        Claim("by step 1165 it has rebuilt the table", 1164, (Shows(3, unlike=(0, 1, 2)),)),
        Claim(
            "by step 1165 it has rebuilt the table from the others and committed what they have",
            1165,
            (Shows(3, status="playing", view=2, members=(0, 1, 2, 3), committed=95, like=0),),
        ),
    ),
}


@pytest.mark.parametrize("name", list(LESSONS))
def test_every_step_a_lesson_names_and_its_point_are_checked(name: str) -> None:
    lesson, claims = LESSONS[name], CLAIMS[name]
    named = {int(step) for step in re.findall(r"\bsteps? (\d+)", lesson.about)}
    checked = {claim.step for claim in claims}
    assert named <= checked, f"steps named and not checked: {sorted(named - checked)}"
    assert lesson.by in checked, "the lesson's point is checked"
    for claim in claims:
        for words in claim.words.split(" ... "):
            assert words in lesson.about, f"{name} no longer says {words!r}"


@pytest.mark.parametrize("name", list(LESSONS))
def test_what_a_lesson_says_its_columns_show_at_the_step(name: str) -> None:
    lesson = LESSONS[name]
    lab = Lab(lesson.table, lesson.script)
    wrong = []
    for claim in sorted(CLAIMS[name], key=lambda c: c.step):
        lab.goto(claim.step)
        assert lab.step == claim.step, lab.stopped
        wrong += [
            f"step {claim.step}, {claim.words!r}: {w}" for c in claim.shows for w in c.check(lab)
        ]
    assert not wrong, "\n".join(wrong)


def test_a_text_that_runs_ahead_of_its_columns_fails() -> None:
    """The partition lesson's old point: seat 3 had let seat 4 in, seat 4 had not caught up."""
    lab = Lab(LESSONS["partition"].table, LESSONS["partition"].script)
    lab.goto(1148)
    back = Shows(3, status="playing", view=2, like=0)
    assert back.check(lab) == [
        "seat 4: status 'rejoining', not 'playing'",
        "seat 4: view 0, not 2",
        "seat 4: committed (45, 'e4b298'), seat 1 another",
    ]
