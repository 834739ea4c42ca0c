"""Where a replica stands and the time it allows for each thing: shared by its parts."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

NEVER = float("inf")
"""The deadline of a part that waits for nothing."""


class Status(StrEnum):
    NORMAL = "playing"
    CHANGING = "regrouping after a silent seat"
    OUT = "rejoining"
    LEFT = "left"


@dataclass(frozen=True, slots=True)
class Timing:
    """The replica's tunables, in seconds."""

    ack_delay: float = 0.005
    ack_at_once: bool = False
    """Acknowledge an arrival at once unless an Ack went out within ``ack_delay`` (TCP's
    quick ack), instead of always ``ack_delay`` after it: commits sooner, for more Acks
    (SPEC Appendix B has the figures; `tools/bench.py sim --ack-at-once`)."""
    heartbeat: float = 0.25
    """How long a seat may be quiet before it sends an Ack (the heartbeat)."""
    suspect_after: float = 1.0
    """How long a member may be silent before it is suspected (the screens say so)."""
    majority_heartbeat: float = 0.5
    majority_suspect_after: float = 1.5
    """``heartbeat`` and ``suspect_after`` at a table that commits by a majority
    (`for_majority`). There no commit waits for an Ack: the heartbeat keeps a seat heard
    and tells its clock to the digest's order, and it was two thirds of the frames of a
    play at 14 seats. Half as many cut a third of the frames there with commits as quick,
    and a member suspected after three missed heartbeats instead of four, with the bad
    laptop's commit frames heard too, was suspected as seldom as before (SPEC's notes,
    "Heartbeats at a majority's table")."""
    exclude_after: float = 2.0
    depart_after: float = 10.0
    """How long a member of a table that commits by a majority may be silent before it is
    left out: a quorum plays on meanwhile, and only what needs every seat (the rotation
    when every tableau is stuck, the next deal) waits for it (SPEC's notes, "A hiccup is
    not a departure"). Where the silent members leave the others no quorum, nothing
    commits meanwhile: they are left out after ``exclude_after`` (`_election`)."""
    view_change_timeout: float = 2.0
    readmit_after: float = 30.0
    """How long a seat left out for holding the table up (talking, but acknowledging
    nothing new) waits before a coordinator lets it rejoin."""
    reveal_within: float = 10.0
    """How long after a round ended here a member may go without its deck's Reveal held
    here (the next deal waits for it) before it counts as holding the table up: it is left
    out, and its deck voided where the view that leaves it out commits."""
    settle_after: float = 3.0
    """How long a play of another seat may stay open at a seat of a table that commits by a
    majority, every member heard meanwhile, before the members change, all of them
    staying, to settle it: a sender that keeps the outcome of its own play to itself,
    once the votes on it split, holds that play and every play after it on its spots no
    longer than this. Three times a poll's longest wait, so that an honest sender's Tally
    lost on the way has come again by then (SPEC's notes, "A play held open")."""
    tell_passed: float = 1.0
    """At a table that commits by a majority, the longest a seat keeps to itself how far it
    has passed the canonical order, however busy: from the first play it passed and has
    not told, until an Ack or a Tally of its own says it, so that the others let go of what
    every member has passed."""

    passed_within: float = 4.0
    """At a table that commits by a majority, how long after this seat passed a play in the
    canonical order a member holding what this seat held then may go on saying it has not
    before it counts as stalling (`_liveness.Liveness`): ``settle_after`` and
    ``tell_passed`` (a play held open is settled within the one, and how far a seat passed
    is told within the other). Until every member has said it passed a play, every seat
    holds that play and every play after it, and a member that never says so would hold
    the table up until each seat, crowded, made no more."""

    def for_majority(self) -> Timing:
        """These tunables at a table that commits by a majority (its heartbeat, and when it
        suspects a silent member)."""
        return replace(
            self, heartbeat=self.majority_heartbeat, suspect_after=self.majority_suspect_after
        )
