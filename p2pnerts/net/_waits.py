"""What a table waits for, read from one seat's replica and its `Pacing`: people to say
they are ready, idle seats, a silent seat it cannot leave out, or nobody at all.

Pure reads of the replica's public surface (and the time given), so that the screen,
the headless lines and the peer's own decisions (`TablePeer`) agree.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from p2pnerts.net._closed import CLOSED_FOR, STRANDED_CLOSED_FOR, Closed
from p2pnerts.net._narration import Narrator
from p2pnerts.net._pace import Pacing
from p2pnerts.protocol import LocalProtocolError, Replica, Status
from p2pnerts.rules import DeclareStuck, IllegalMove
from p2pnerts.words import together

GONE_AFTER = 120.0
"""Seconds without a word from any other seat after which a seat that cannot go on by
itself (left out, or waiting for silent seats it cannot leave out) counts the table gone."""


def unready(replica: Replica, pacing: Pacing) -> tuple[int, ...]:
    """Between rounds (and before the first), the seats at the table that the next round
    waits for to say they are ready; empty while a round is played."""
    display = replica.display
    if display is not None and display.ended is None:
        return ()
    return pacing.unready(sorted(replica.seated), replica.seats, replica.playing + 1)


def idle(replica: Replica, pacing: Pacing, now: float) -> tuple[float, ...]:
    """Per seat, for how long it has been idle if it is shown so (`Pacing.idle`)."""
    display = replica.display
    if display is None or display.ended is not None:
        return ()
    stuck = [display.tableau_of(s).stuck for s in range(replica.players)]
    return pacing.idle(stuck, now)


def alone(replica: Replica) -> bool:
    """Whether every other seat has left the table, or been left out of it."""
    return (
        replica.players > 1
        and replica.status is Status.NORMAL
        and replica.members == {replica.seat}
    )


def stranded(replica: Replica) -> frozenset[int]:
    """The silent seats the others cannot leave out: without them, the seats still heard
    are no majority of the table, so the table waits for them to come back."""
    silent = replica.suspected & replica.members
    if not silent or replica.status in (Status.LEFT, Status.OUT):
        return frozenset()
    heard = len(replica.members) - len(silent)
    return frozenset(silent) if 2 * heard <= len(replica.members) else frozenset()


def cannot_play_on(replica: Replica) -> bool:
    """Whether this seat cannot play on by itself: it was left out (and asks to come
    back), or it waits for silent seats it cannot leave out."""
    return replica.status is Status.OUT or bool(stranded(replica))


def forsaken(
    replica: Replica, quiet: float, after: float = GONE_AFTER, closed: float = 0.0
) -> bool:
    """Whether the table has gone on without this seat, or ended, as far as it can tell:
    it cannot play on by itself (`cannot_play_on`), and no other seat has said a word for
    ``quiet`` seconds, at least ``after`` (a Wi-Fi stall shorter than that rejoins as
    before), or for as long as every other seat's port has refused every try
    (``closed``), at least `CLOSED_FOR` for a seat left out and `STRANDED_CLOSED_FOR` for
    one waiting for silent seats (`_closed`)."""
    if not cannot_play_on(replica):
        return False
    if quiet >= after:
        return True
    least = CLOSED_FOR if replica.status is Status.OUT else STRANDED_CLOSED_FOR
    return min(quiet, closed) >= least


class Quiet:
    """How long no other seat has said a word, and since when this seat has been unable to
    play on, neither counting time this process did not run (a closed lid, a stopped
    process: the replica excuses it likewise, `Liveness.excuse`), so that a seat back
    from a long stall first hears the table before it counts the table gone (after
    ``gone_after`` seconds: `forsaken`, or sooner once every other seat's port is
    ``closed``), or gives up waiting (`gives_up`)."""

    def __init__(
        self,
        now: float,
        heartbeat: float,
        gone_after: float = GONE_AFTER,
        closed: Closed | None = None,
    ) -> None:
        self.gone_after = gone_after
        self.closed = closed
        """Since when the other seats' ports have refused every try (None: not tried)."""
        self.heard_at = now
        """When another seat's message last reached this one (or the peer started)."""
        self.blocked_since: float | None = None
        """Since when this seat cannot play on by itself (`cannot_play_on`)."""
        self._ran_at = now
        self._longest = 2 * heartbeat
        """The longest time between two runs of a peer that was not stopped: it runs its
        timer at least once a heartbeat."""

    def heard(self, now: float) -> None:
        self.heard_at = now

    def ran(self, now: float) -> None:
        """The peer runs its timer at ``now``: a gap far longer than a heartbeat since the
        last run is this process's own, and counts as no silence."""
        gap, self._ran_at = now - self._ran_at, now
        if gap > self._longest:
            self.heard_at = min(self.heard_at + gap, now)
            if self.blocked_since is not None:
                self.blocked_since = min(self.blocked_since + gap, now)

    def blocked(self, now: float, blocked: bool) -> float:
        """For how long this seat has been unable to play on (0 if it can now)."""
        if not blocked:
            self.blocked_since = None
            return 0.0
        if self.blocked_since is None:
            self.blocked_since = now
        return now - self.blocked_since

    def deadline(self, now: float) -> float:
        """When the table counts as gone if nothing is heard before (inf once past)."""
        gone = self.heard_at + self.gone_after
        return gone if gone > now else math.inf

    def forsaken(self, replica: Replica, now: float) -> float:
        """For how many seconds no other seat has said a word, if that counts the table as
        gone (`forsaken`); else 0."""
        quiet = now - self.heard_at
        closed = 0.0 if self.closed is None else self.closed.closed_for(now)
        return quiet if forsaken(replica, quiet, self.gone_after, closed) else 0.0

    def gives_up(self, replica: Replica, narrator: Narrator, now: float) -> str | None:
        """Why a bot's seat ends a match it cannot play on in, with nobody to choose for
        it, or None: when no other seat answers any more (`forsaken`), or when the table
        has waited ``gone_after`` seconds for silent seats to come back (nothing commits
        meanwhile: a bot still heard that waits with it gives up alike, with the same
        result). Asked each time the peer runs."""
        waited = self.blocked(now, cannot_play_on(replica))
        quiet = self.forsaken(replica, now)
        if quiet:
            return gone_words(quiet, closed=quiet < self.gone_after)
        silent = stranded(replica)
        if waited >= self.gone_after and silent:
            return waited_words(narrator, silent, waited)
        return None


def gone_words(quiet: float, *, closed: bool = False) -> str:
    """Why a bot's seat ends a match that went quiet on it (`forsaken`), in a line;
    ``closed``: every other seat's port is closed too."""
    ports = ", and every other seat's port is closed" if closed else ""
    return (
        f"no other seat has answered for {quiet:.0f} s{ports} "
        "(the table ended, or went on without it)"
    )


def waited_words(narrator: Narrator, silent: frozenset[int], waited: float) -> str:
    """Why a bot's seat ends a match whose table waited too long for silent seats."""
    who = _names(narrator, silent)
    return f"the table waited {waited:.0f} s for {who} to come back"


def free_to_move(replica: Replica, pacing: Pacing, now: float) -> bool:
    """Whether this seat may move now: a round is on and counted down, its one hand is
    free, the table is settled and the seat knows its deck."""
    display = replica.display
    return (
        display is not None
        and display.ended is None
        and pacing.starts_in(now) == 0
        and replica.in_the_air is None
        and replica.status is Status.NORMAL
        and not replica.blind
    )


def stranded_words(narrator: Narrator, silent: frozenset[int], members: frozenset[int]) -> str:
    """Why the table waits for ``silent`` seats, in a line."""
    who = _names(narrator, silent)
    heard = len(members) - len(silent)
    return (
        f"{who} silent: {heard} of {len(members)} seats are no majority, so the table "
        f"waits for {who} to come back"
    )


def _names(narrator: Narrator, seats: frozenset[int]) -> str:
    return together([narrator.name(s) for s in sorted(seats)])


def waiting(replica: Replica, pacing: Pacing, now: float) -> bool:
    """Whether this seat, in a round's play, waits on the table rather than on its
    player: its play is in the air, the table regroups, its deck's order is not here, or
    it said it was stuck and waits for the others. A player declared stuck for being idle
    waits for nothing (`Pacing.away`); nor does anyone in the countdown, after which a
    round's idle time starts."""
    display = replica.display
    if pacing.away or display is None or display.ended is not None or pacing.starts_in(now):
        return False
    return not free_to_move(replica, pacing, now) or display.tableau_of(replica.seat).stuck


def declare_idle(replica: Replica, pacing: Pacing, now: float) -> bool:
    """Declare this seat stuck if its player has made no move for a while that it could
    (`waiting` is no idle time), so that the rotation and the round's end do not wait for
    them; whether it was declared. The seat's peer asks at every change to its replica."""
    pacing.waits(waiting(replica, pacing, now), now)
    display = replica.display
    if not pacing.idle_due(now) or display is None or not free_to_move(replica, pacing, now):
        return False
    if display.tableau_of(replica.seat).stuck:
        return False
    mates = (s for s in replica.team if s != replica.seat)
    if any(pacing.playing(s, now) for s in mates):
        return False  # a teammate plays the shared tableau (a bot plays the idle part too)
    try:
        replica.intend(DeclareStuck(replica.seat), now, idle=True)
    except (IllegalMove, LocalProtocolError):
        return False  # not now (regrouping, sitting out, blind): looked at again later
    pacing.declared_idle()
    return True


class News:
    """Says once, in the peer's report, when the table starts to wait: for silent seats
    it cannot leave out, or (after a while) for others to be ready for the next round."""

    def __init__(
        self, replica: Replica, pacing: Pacing, narrator: Narrator, report: Callable[[str], None]
    ) -> None:
        self._replica, self._pacing, self._narrator = replica, pacing, narrator
        self._report = report
        self._stranded: frozenset[int] = frozenset()
        """The silent seats the table was last told it waits for."""
        self._told_idle = False

    def idle(self, now: float) -> bool:
        """Declare this seat stuck if its player has made no move for a while
        (`declare_idle`); a bot's lines say why, as its policy stopped moving."""
        if not declare_idle(self._replica, self._pacing, now):
            return False
        if not self._pacing.person and not self._told_idle:
            self._told_idle = True  # (declared again after each rotation, told once)
            name, after = self._narrator.name(self._replica.seat), self._pacing.idle_after
            self._report(
                f"{name} made no move for {after:.0f} s, nor said it was stuck: declared "
                "stuck for it, so that the rotation and the round's end do not wait for it"
            )
        return True

    def say(self, stranded: frozenset[int], unready: tuple[int, ...], now: float) -> None:
        """Tell what is new of ``stranded`` and ``unready`` seats (as `TablePeer` sees them)."""
        replica = self._replica
        if stranded and stranded != self._stranded:
            self._report(stranded_words(self._narrator, stranded, replica.members))
        self._stranded = stranded
        seats, deck = replica.seats, replica.deck
        others = () if replica.seat in unready else tuple(s for s in unready if seats[s] != deck)
        waiting = self._pacing.still_waiting(others, now)
        if waiting:
            who = together([self._narrator.name(s) for s in waiting])
            self._report(f"round {replica.playing + 1} waits for {who} to be ready")
