"""The lab's lessons: seeded runs certain to show their point by a known step, as data.

Each lesson is a table (seed, peers, tie rule, commit rule), the teacher's faults at given
steps, the
step the lab opens at, the kind of note that is the lesson's point and the step by which
it shows, and a paragraph the screen shows. The steps were found by running the lessons'
tables (``python tools/lab_lessons.py`` finds them again, should the protocol change);
the tests check that every point shows by its step.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2pnerts.lab._model import Action, Table
from p2pnerts.lab._records import Kind
from p2pnerts.rules import TieRule


@dataclass(frozen=True, slots=True)
class Lesson:
    """A seeded scenario: where it opens, what it shows and by which step."""

    name: str
    table: Table
    point: Kind
    by: int
    """The step by which a note of kind ``point`` has shown."""
    start: int
    """The step the lab opens at, a little before the point."""
    about: str
    script: tuple[tuple[int, Action], ...] = ()


def _struck(verb: str, *seats: int) -> Action:
    """A fault the lesson strikes by itself (the screen says it is the lesson's)."""
    return Action(verb, seats, lesson=True)


_TIE = (
    "Two seats play the same card onto one foundation with the very same Lamport clock "
    "L=59: neither could have known of the other's play (equal clocks are concurrent). "
)
LESSONS = {
    lesson.name: lesson
    for lesson in (
        Lesson(
            "race",
            Table(1, 4),
            Kind.RACE,
            by=636,
            start=541,
            script=((0, _struck("slow", 3)),),
            about="Seat 4 is on a slow link (the lesson slows it from the start: each of its "
            "messages takes up to 0.2 s more). At step 544 it plays a 3♣ onto foundation 1, "
            "L=87; at step 558, 22 ms later, seat 2 plays its own 3♣ there, L=92, not having "
            "heard of seat 4's: the plays are concurrent. Seats 1 and 3 get seat 2's play "
            "first and seat 4's some 90 ms later; seat 4 has its own first. Yet every "
            "replica puts the plays in the order of their keys (clock, call, rank) and "
            "commits the head once every other seat has sent it something later: seat 4's "
            "L=87 first everywhere. At step 636 seat 3 commits both first: seat 4's card "
            "stays, seat 2's goes back; the others follow by step 676. "
            "Step with n and watch the arrows, the pending lists and the verdict.",
        ),
        Lesson(
            "tie-both-stay",
            Table(5, 2, TieRule.BOTH_STAY),
            Kind.TIE,
            by=131,
            start=122,
            about=_TIE + "Under the rule the printed rules give (both-stay), both cards "
            "stay on the foundation and both score: no replica has to pick a winner.",
        ),
        Lesson(
            "tie-rotate",
            Table(5, 2, TieRule.ROTATE),
            Kind.TIE,
            by=131,
            start=122,
            about=_TIE + "Under rotate, the rank in the key is (seat - clock) mod seats: "
            "which seat goes first at equal clocks moves round with the clock value, so no "
            "seat is always favoured. The card ranked second goes back.",
        ),
        Lesson(
            "tie-seat",
            Table(5, 2, TieRule.SEAT),
            Kind.TIE,
            by=131,
            start=122,
            about=_TIE + "Under the seat rule the rank in the key is the seat: at equal "
            "clocks the lower seat always goes first, and the other card goes back.",
        ),
        Lesson(
            "nerts",
            Table(5, 4),
            Kind.NERTS,
            by=3381,
            start=3362,
            about="Seat 2 calls Nerts while seat 3's play is still in the air. The call "
            "is a message in the order like any play; plays ordered before it (a lower "
            "key: an equal clock too, as the call sorts after the plays of its clock) "
            "complete their move and count; those ordered after it go back: seat 1's "
            "L=421, made after the call, goes back at step 3414 (✗).",
        ),
        Lesson(
            "crash",
            Table(1, 4),
            Kind.VIEW,
            by=767,
            start=590,
            script=((600, _struck("crash", 3)), (867, _struck("restart", 3))),
            about="Seat 4 crashes at step 600. Nothing can commit without a message from "
            "every member, so the others wait; after a second of silence each suspects "
            "seat 4, after two they vote a new view without it (a majority, 3 of 4, "
            "agrees). At step 767 seat 2 installs view 1 (members 1 2 3), seats 1 and 3 "
            "follow, and from step 774 commits flow again. At step 867 seat 4 restarts "
            "from its disk: it kept its deck and its view, v0, but no commits. It asks to "
            "rejoin, view 2 lets it back in at step 893, and by step 913 it has rebuilt "
            "the table from what the others sent it.",
        ),
        Lesson(
            "partition",
            Table(1, 4),
            Kind.REJOIN,
            by=1165,
            start=590,
            script=((600, _struck("partition", 3)), (1079, _struck("join"))),
            about="At step 600 the network splits seat 4 from the rest. The three (a "
            "majority) suspect seat 4, leave it out (view 1, from step 779) and go on. "
            "Seat 4 alone is a minority: it can form no view and commits nothing (its "
            "column stays at v0, committed 45) - it waits, it does not fork the table. At "
            "step 1079 the network heals; seat 4 learns it was left out and asks to "
            "rejoin; at step 1148 view 2 lets it back in, and by step 1165 it has rebuilt "
            "the table from the others and committed what they have.",
        ),
        Lesson(
            "majority-race",
            Table(73, 4, majority=True),
            Kind.RACE,
            by=835,
            start=678,
            script=((0, _struck("slow", 3)),),
            about="Commit by a majority (protocol v3); seat 4 is slowed from the start. At "
            "step 681 seat 2 plays a 3♣ onto foundation 5, L=176; seats 1 and 3 vote for "
            "it, and at step 690 its Tally goes out: in, by 3 of 4, without seat 4, which "
            "has not heard of it yet. At step 740 seat 4, not having heard of it, plays "
            "its own 3♣ there, L=177: concurrent. Its slow links take it and the votes "
            "for it slowly; at step 831 seat 3 polls, carrying it, hands seat 1's Ballot "
            "on to seat 4, and at step 835 counts it in, by all four. The keys put L=176 "
            "first: seat 4's card goes back. Seats 2 and 1 follow by step 837, seat 4 at "
            "step 852.",
        ),
        Lesson(
            "majority-hiccup",
            Table(1, 4, majority=True),
            Kind.HICCUP,
            by=2836,
            start=1997,
            script=((2000, _struck("partition", 3)), (2716, _struck("join"))),
            about="Commit by a majority (protocol v3). At step 2000 the network cuts seat 4 "
            "off for 2.5 s. The three play on, each play voted in by a quorum, 3 of 4, "
            "without seat 4: their applied row goes on to 279, seat 4's stays at 181; "
            "their committed row, the digest's order, waits at 201 for seat 4's clock. "
            "Each side suspects the other after 1.5 s, no more. At step 2716 the "
            "network heals; at step 2836 seat 1 hears seat 4 again, still in view 0: "
            "nobody was left out. Seat 4's 3♣ to its pile 3, L=540 (step 2024), made "
            "into the silence, is voted in at step 3129.",
        ),
    )
}
"""Every lesson, by name."""


def lesson_named(name: str, tie_rule: TieRule | None = None) -> Lesson:
    """The lesson ``name``; ``tie`` is the tie lesson under ``tie_rule`` (both-stay)."""
    if name == "tie":
        name = f"tie-{(tie_rule or TieRule.BOTH_STAY).value}"
    return LESSONS[name]


def lesson_names() -> list[str]:
    """Every name ``--lesson`` takes."""
    return [*LESSONS, "tie"]
