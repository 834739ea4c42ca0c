"""Human time at one seat's peer: ready before a round, a countdown, idle, then stuck.

A bot is ready for a round at once; a person says so (`Pacing.ready`), and until then
their seat sends no Ready, so the round waits for them: the next round never starts
while a person is away. Once a round's play starts, every peer counts down `COUNTDOWN`
seconds before its seat may move, so that a person sees the deal before the bots play.

A person who makes no move for ``idle_after`` seconds is declared stuck by their own
peer, again after each rotation while they stay away, so that the others' rotation (and
the round's end, when everyone stays stuck) never waits for them. So is a bot whose
policy stops moving without saying it is stuck (an author's policy may: the table would
wait for it for good). Time a seat spends waiting on the table is no idle time (`waits`):
stuck until everyone is, its play in the air, the table regrouping. When the wait ends,
its idle time starts over: a seat that waited out a long rotation gets a look at its new
stock, not a declaration made for it before that look.

Every peer shows as idle a seat that has made no move for `SHOWN_IDLE` seconds and did
not say it was stuck as it stopped (a player who is stuck and waiting is not idle).

All of it reads the time it is given: the peer passes its clock's.
"""

from __future__ import annotations

from collections.abc import Sequence

from p2pnerts.rules import DeclareStuck, Move

COUNTDOWN = 3.0
"""Seconds from a round's deal to the first move any seat may make."""
IDLE_AFTER = 20.0
"""Seconds without a move after which a seat is declared stuck (a person's: ``--idle``)."""
SHOWN_IDLE = 10.0
"""Seconds without a move after which a seat is shown as idle to everyone."""
TELL_UNREADY = 5.0
"""Seconds the next round waits for others to be ready before a seat's lines say so."""


class Pacing:
    """One seat's human time: whether it is ready, the countdown, who is idle."""

    def __init__(
        self, *, person: bool, countdown: float = COUNTDOWN, idle_after: float = IDLE_AFTER
    ) -> None:
        self.person = person
        self.countdown = countdown
        self.idle_after = idle_after
        self.said_ready = not person
        """Whether this seat may deal the next round: a bot always, a person once ready."""
        self.play_from = 0.0
        self.last_input = 0.0
        """When this seat's player last moved (or said ready, or play began, or a wait on
        the table ended): its idle time counts from there."""
        self.away = False
        """This seat was declared stuck for its idle player, who has not moved since: they
        wait for nothing (so are declared again as soon as each rotation frees them)."""
        self._waiting = False
        self._acted: dict[int, float] = {}
        """Per seat, its last move other than saying it is stuck (or play's start)."""
        self._stuck_at: dict[int, float] = {}
        self._readied: dict[int, int] = {}
        """Per seat, the last round it said Ready for (as this peer heard it)."""
        self._waited: tuple[tuple[int, ...], float, bool] = ((), 0.0, False)
        """Whom the next round last waited for, since when, and whether that was told."""

    # --- what happens ------------------------------------------------------------------------

    def ready(self, now: float) -> None:
        """The person is ready for the next round."""
        self.said_ready, self.last_input = True, now

    def said_ready_for(self, seat: int, number: int) -> None:
        """``seat`` sent its Ready for round ``number``."""
        self._readied[seat] = max(number, self._readied.get(seat, 0))

    def unready(self, seats: Sequence[int], decks: Sequence[int], number: int) -> tuple[int, ...]:
        """Of ``seats``, those whose deck no one has said Ready for round ``number`` yet
        (``decks`` gives each seat's deck: a deck is ready once one of its seats is)."""
        ready = {decks[s] for s, last in self._readied.items() if last >= number}
        return tuple(s for s in seats if decks[s] not in ready)

    def still_waiting(self, others: tuple[int, ...], now: float) -> tuple[int, ...]:
        """``others`` (the seats the next round waits for, this seat ready) once they have
        kept it waiting `TELL_UNREADY` seconds, the first time; else ()."""
        waited, since, told = self._waited
        if others != waited:
            self._waited = (others, now, False)
        elif others and not told and now - since >= TELL_UNREADY:
            self._waited = (others, since, True)
            return others
        return ()

    def dealt(self) -> None:
        """This seat dealt a round: a person says ready again for the next."""
        self.said_ready = not self.person

    def round_started(self, seats: int, now: float) -> None:
        """A round's play started now: count down, and everyone's idle time starts over."""
        self.play_from = self.last_input = now + self.countdown
        self._acted = dict.fromkeys(range(seats), self.play_from)
        self._stuck_at = {}
        self.away = self._waiting = False

    def moved(self, now: float) -> None:
        """This seat's player made a move."""
        self.last_input = now
        self.away = False

    def declared_idle(self) -> None:
        """This seat was declared stuck for its idle player."""
        self.away = True

    def waits(self, waiting: bool, now: float) -> None:
        """Whether this seat waits on the table now, not on its player (`_waits.waiting`):
        when a wait ends, its idle time starts over."""
        if self._waiting and not waiting:
            self.last_input = max(self.last_input, now)
        self._waiting = waiting

    def heard(self, seat: int, move: Move, now: float) -> None:
        """A seat's move took its place in the order."""
        if isinstance(move, DeclareStuck):
            self._stuck_at[seat] = now
        else:
            self._acted[seat] = now

    # --- what it means -----------------------------------------------------------------------

    def starts_in(self, now: float) -> float:
        """Seconds the countdown still runs (0: play is on, or no round yet)."""
        return max(0.0, self.play_from - now)

    def idle_due(self, now: float) -> bool:
        """Whether this seat's player (a person away, or a bot whose policy stopped moving)
        has made no move long enough to be declared stuck (none while it waits on the table)."""
        return not self._waiting and now >= self.last_input + self.idle_after

    def playing(self, seat: int, now: float) -> bool:
        """Whether ``seat`` has made a move (other than saying stuck) in the idle time."""
        return now - self._acted.get(seat, -float("inf")) < self.idle_after

    def deadline(self, now: float) -> float:
        """When this pacing next has something to do by itself (inf: nothing)."""
        times = [t for t in (self.play_from, self.last_input + self.idle_after) if t > now]
        return min(times, default=float("inf")) if self.person else float("inf")

    def idle(self, stuck: Sequence[bool], now: float) -> tuple[float, ...]:
        """Per seat, for how long it has been idle if it is shown as idle, else 0.

        ``stuck`` says per seat whether its tableau is declared stuck now. A seat that
        said it was stuck soon after its last move is waiting, not idle.
        """
        shown = []
        for seat, is_stuck in enumerate(stuck):
            acted = self._acted.get(seat)
            if acted is None or now - acted < SHOWN_IDLE:
                shown.append(0.0)
                continue
            waiting = is_stuck and self._stuck_at.get(seat, acted) - acted < SHOWN_IDLE
            shown.append(0.0 if waiting else now - acted)
        return tuple(shown)
