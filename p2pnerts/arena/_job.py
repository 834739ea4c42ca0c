"""What every round of one arena run shares, and what both arenas make of it alike: the
seats' policies and drivers, the deals and their rotations, and what a round's end scores."""

from __future__ import annotations

import functools
import hashlib
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from p2pnerts.arena._report import Tally, Timed
from p2pnerts.bots import BotDriver, Policy, level_named, load_policy, paced
from p2pnerts.driver import Pace
from p2pnerts.rules import Card, RoundScore, TableOptions, shuffled_deck


@dataclass(frozen=True, slots=True)
class Job:
    """What every round of one arena run shares: plain data, for any worker process."""

    policies: tuple[str, ...]
    players: int
    seed: int
    pace: Pace
    options: TableOptions
    fast: bool = False
    """Played on the rules alone (`p2pnerts.arena._fast`), not over the protocol."""

    @property
    def seating(self) -> tuple[int, ...]:
        """The deck each seat plays."""
        return self.options.seating(self.players)

    @property
    def decks(self) -> int:
        return len(set(self.seating))

    @property
    def seats(self) -> tuple[str, ...]:
        """The policy each seat plays: its deck's (its team's), in turn."""
        return tuple(self.policies[deck % len(self.policies)] for deck in self.seating)

    def deal_of(self, number: int) -> tuple[int, int]:
        """Round ``number``'s deal and rotation."""
        return divmod(number, self.decks)

    def team(self, seat: int) -> tuple[int, ...]:
        """The seats playing ``seat``'s deck, itself included, in seat order."""
        seating = self.seating
        return tuple(s for s, d in enumerate(seating) if d == seating[seat])

    def drivers(self, tallies: dict[str, Tally], deal: int, rotation: int) -> list[BotDriver]:
        """Each seat's driver: its policy, seeded for this round, timed into its tally."""
        makers = _makers(self.policies)
        seeds = random.Random(f"arena:{self.seed}:{deal}:{rotation}")
        drivers = []
        for name in self.seats:
            policy = makers[self.policies.index(name)](random.Random(seeds.getrandbits(64)))
            drivers.append(BotDriver(Timed(policy, tallies[name], name), self.pace_of(name)))
        return drivers

    def pace_of(self, name: str) -> Pace:
        """How often the policy ``name`` looks at the table: as its ``@N`` says, else a
        level's own pace, else the job's."""
        spec, pace = paced(name)
        named = level_named(spec)
        return pace or (self.pace if named is None else named.pace)

    def deck(self, deal: int, rotation: int, seat: int) -> tuple[Card, ...]:
        """Seat ``seat``'s deck order in a round (`arena_deck` of its deck)."""
        return arena_deck(self.seed, deal, rotation, self.seating[seat], self.decks, self.options)

    def score(
        self, tallies: dict[str, Tally], seat: int, caller: int | None, scores: Sequence[RoundScore]
    ) -> int:
        """Count a round's end into ``seat``'s tally; its points."""
        tally, deck = tallies[self.seats[seat]], self.seating[seat]
        points = next(s.points for s in scores if s.deck == deck)
        tally.seat_rounds += 1
        tally.calls += caller is not None and self.seating[caller] == deck
        tally.points += points
        return points


def level_pace(policies: Sequence[str]) -> tuple[Pace, str | None]:
    """The pace for the policies named without one, and the level it is taken from: the
    first level among ``policies`` named without ``@N`` (a policy compared against a level
    plays at that level's pace, as the level does), else the arena's own (None)."""
    for name in policies:
        spec, pace = paced(name)
        named = level_named(spec)
        if pace is None and named is not None:
            return named.pace, spec
    return Pace(), None


@functools.cache
def _makers(policies: tuple[str, ...]) -> list[Callable[[random.Random], Policy]]:
    """The policies' makers, loaded once per process."""
    return [load_policy(paced(name)[0]) for name in policies]


def faces(order: Sequence[Card]) -> str:
    """A short fingerprint of a deck order's faces, whichever deck the cards are of."""
    text = " ".join(card.label(ascii_only=True) for card in order)
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def arena_deck(
    seed: int, deal: int, rotation: int, deck: int, decks: int, options: TableOptions
) -> tuple[Card, ...]:
    """Deck ``deck``'s order in rotation ``rotation`` of a deal: the deal's deck
    ``(deck + rotation) mod decks``, in the same order, as deck ``deck``'s cards."""
    base = (deck + rotation) % decks
    return shuffled_deck(deck, options, random.Random(f"arena:{seed}:{deal}:{base}"))
