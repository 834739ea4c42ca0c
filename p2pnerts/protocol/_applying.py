"""Version 3's commit in the replica, its second half: the plays held, applied as they
resolve, and folded into the digest in the canonical order (`_majority.Majority` holds
them and takes what resolves from `_commits.Commits`).

- A play that resolves *in* waits (`resolve`) until it can be applied (`apply_waiting`):
  a Play of a round that has not started here waits for the start, a card played onto a
  foundation not started here yet waits for the ace that started it where its sender
  played (`_onto`), and so does every play after it on its spots; the plays of other
  spots go on. Each is applied by the replica's own step (`Host.apply`: the rules'
  verdict, the deal, the round's end).
- A play that comes back *late* (a majority held a play that sorts after it first) is
  returned like a lost race (`late`); a seat's own Ready, Reveal, Leave, Nerts call or
  stuck declaration that comes back is sent again at once, with a new clock (each stays
  legal, and the table waits on it).
- The plays settled in the canonical order (`settle`, the same at every seat a little
  later) are folded into the running digest in that order, each with its outcome, and
  told to those who listen for commits (`fold`): the digest Acks carry and compare is over
  one order everywhere, though seats apply plays of different spots in different
  sequences.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import replace
from typing import Protocol

from p2pnerts.protocol._arbiter import Outcome
from p2pnerts.protocol._events import PlayReturned
from p2pnerts.protocol._host import Host as _Host
from p2pnerts.protocol._inplay import InPlay
from p2pnerts.protocol._log import Pending, key_for
from p2pnerts.protocol._messages import Ordered, Play, StartView
from p2pnerts.protocol._spots import Key, PlayId, Spot, conflict
from p2pnerts.protocol._witness import Witness
from p2pnerts.rules import NEW_FOUNDATION, CallNerts, DeclareStuck, ToFoundation

UNSTARTED_WHY = "its foundation was not started before it"
"""Why a card played onto a foundation that no ace sorting before it started is returned
(`Applying._onto`): its sender played onto a foundation it had not seen land."""


class Host(_Host, Protocol):
    inplay: InPlay
    witness: Witness

    def apply(self, message: Ordered | StartView, now: float) -> int: ...
    def taken_hold(self) -> bool: ...
    def ready_again(self, now: float) -> None: ...
    def tell_commit(
        self, entry: Pending, outcome: int, *, content: bytes | None = None
    ) -> None: ...


class Applying:
    """The plays held at a majority's table, from holding to folding."""

    def __init__(self, host: Host) -> None:
        self._host = host
        self.messages: dict[PlayId, tuple[Ordered, tuple[Spot, ...], Key]] = {}
        """Every play held here and not folded into the digest yet: its message, its spots
        and its order key (SPEC §4.3)."""
        self._waiting: list[PlayId] = []
        """Plays resolved in, not applied yet: each waits for its round's start, or for a
        play before it on its spots that waits."""
        self.outcomes: dict[PlayId, int] = {}
        """The outcome of each play applied or returned here, until it is folded."""
        self._settled: deque[tuple[PlayId, bool]] = deque()
        """Plays settled in the canonical order, not folded yet (an outcome not known)."""

    def hold(self, play: PlayId, message: Ordered, spots: tuple[Spot, ...], key: Key) -> None:
        self.messages[play] = (message, spots, key)

    def message(self, play: PlayId) -> Ordered:
        return self.messages[play][0]

    def take(
        self,
        resolved: Iterable[tuple[PlayId, bool]],
        settled: Iterable[tuple[PlayId, bool]],
        now: float,
        why: str,
    ) -> None:
        """One pass over what `_commits.Commits.step` found: the plays ``resolved`` applied
        as they can be or returned saying ``why`` (`resolve`, `apply_waiting`), and those
        ``settled`` in the canonical order folded as their outcomes are known (`settle`,
        `fold`)."""
        self.resolve(resolved, now, why)
        self.settle(settled)
        self.apply_waiting(now)
        self.fold()

    def resolve(self, resolved: Iterable[tuple[PlayId, bool]], now: float, why: str) -> None:
        """Plays resolved: those in wait to be applied, the others returned saying ``why``."""
        for play, ok in resolved:
            if ok:
                self.wait(play)
            else:
                self.late(play, now, why)

    def wait(self, play: PlayId) -> None:
        """A play resolved in, to be applied once nothing holds it up (`apply_waiting`)."""
        self._waiting.append(play)

    def apply_waiting(self, now: float, *, view_ends: bool = False) -> None:
        """Apply every waiting play that waits no more, again until none does
        (``view_ends``: every play of the view is resolved here, as a change of members
        settled them)."""
        progress = True
        while progress and self._waiting:
            progress, still = False, list[PlayId]()
            for play in self._waiting:
                message, spots, key = self.messages[play]
                blocked = any(conflict(spots, self.messages[w][1]) for w in still)
                onto = None if blocked else self._onto(play, message, key, view_ends)
                if onto is None or self._before_its_round(message):
                    still.append(play)
                    continue
                if onto:
                    self.outcomes[play] = self._host.apply(message, now)
                else:
                    self.late(play, now, UNSTARTED_WHY)
                progress = True
            self._waiting = still

    def _onto(self, play: PlayId, message: Ordered, key: Key, view_ends: bool) -> bool | None:
        """Whether ``play`` may be applied now, as far as its foundation goes. A card
        played onto a foundation by its number comes after the ace that started that
        foundation where its sender played it: its sender saw the ace land, so the ace
        sorts before it and lands at every seat, as the k-th ace to land everywhere (aces
        conflict with each other). So such a play waits (None) until an ace has started
        its foundation here; then it is applied (True) if that ace sorts before it, and
        returned (False) if not. It is returned too once its place in the canonical order
        is fixed (or its view ends) with no ace that sorts before it waiting here: no ace
        will start its foundation before it. Only a sender that played onto a foundation
        it never saw (a cheat) is returned so, alike at every seat. Any other play: True."""
        foundation = self._up(message)
        if foundation is None or foundation == NEW_FOUNDATION:
            return True  # (a play of a round over or to come: the rules, or the start)
        ace = self._host.inplay.started.get(foundation)
        if ace is not None:
            host = self._host
            return key_for(*ace, False, host.players, host.options.tie_rule) < key
        if (view_ends or self._is_settled(play)) and not self._aces_before(key):
            return False
        return None

    def _up(self, message: Ordered) -> int | None:
        """The foundation a card of ``message`` goes up onto, for a Play of the round in
        play (`NEW_FOUNDATION`: an ace that starts one); None for any other message."""
        if (
            isinstance(message, Play)
            and isinstance(message.move, ToFoundation)
            and message.round == self._host.inplay.number
        ):
            return message.move.foundation
        return None

    def _is_settled(self, play: PlayId) -> bool:
        """Whether ``play``'s place in the canonical order is fixed here (`settle`): every
        play that sorts before it is resolved here."""
        return any(settled == play for settled, _ in self._settled)

    def _aces_before(self, key: Key) -> bool:
        """Whether an ace of the round in play, sorting before ``key``, waits here."""
        for play in self._waiting:
            message, _, at = self.messages[play]
            if at < key and play not in self.outcomes and self._up(message) == NEW_FOUNDATION:
                return True
        return False

    def _before_its_round(self, message: Ordered) -> bool:
        """A Play of a round not started here yet waits for the start."""
        return isinstance(message, Play) and message.round > self._host.inplay.number

    def late(self, play: PlayId, now: float, why: str) -> None:
        """A play that came back late: returned like a lost race; this seat's own Ready,
        Reveal, Leave, call or stuck declaration is sent again."""
        message = self.message(play)
        self.outcomes[play] = Outcome.LATE
        host = self._host
        if isinstance(message, Play):
            if message.sender == host.seat:
                host.inplay.come_down(message)
            host.events.append(PlayReturned(message.sender, message.move, message.clock, None, why))
            if not isinstance(message.move, CallNerts | DeclareStuck):
                return
        if message.sender != host.seat:
            return
        view = host.view  # (returned by a change of members: sent again in the new view)
        again = host.send(
            now, lambda c, s: replace(message, view=view, clock=c, seq=s, below=(), sig=b"")
        )
        if isinstance(again, Play):
            host.inplay.throw(again, holds_hand=True)

    def passed_over(self, play: PlayId) -> None:
        """Another seat's play that came back while this seat was away (`Majority.rejoin`):
        folded as returned, and nothing told of it here."""
        self.outcomes[play] = Outcome.LATE

    def settle(self, settled: Iterable[tuple[PlayId, bool]]) -> None:
        """Plays settled in the canonical order, to be folded in that order (`fold`)."""
        self._settled.extend(settled)

    def fold(self) -> None:
        """Fold the plays settled in the canonical order whose outcome is known here."""
        while self._settled:
            play, _ = self._settled[0]
            outcome = self.outcomes.pop(play, None)
            if outcome is None:
                return
            self._settled.popleft()
            message, _, key = self.messages.pop(play)
            # A play that came back is folded as its place alone: seats may hold two copies
            # of it (a sender that signed two messages under one number, neither settled in).
            seat, number = play
            content = (
                bytes((seat,)) + number.to_bytes(8, "big") if outcome == Outcome.LATE else None
            )
            entry = Pending((key[0], key[1], key[2]), message, None)
            self._host.tell_commit(entry, outcome, content=content)

    def forget_settled(self) -> None:
        """Let go of every play settled and not folded (a view ended: `Majority._close`)."""
        for play, _ in self._settled:
            self.messages.pop(play, None)
            self.outcomes.pop(play, None)
        self._settled.clear()
