"""Policies against each other in the simulator, on the same deals in every seat rotation.

Seat ``s`` plays policy ``d mod P`` of the ``P`` policies named, ``d`` being the deck it
plays (its own, ``s``, or its team's). A deal is one deck order per deck; it is played
once in each rotation (in rotation ``k`` deck ``d`` gets the deal's deck
``(d + k) mod decks``), so the rounds come in groups of as many rounds as there are decks.
Every round is one simulated run with an ideal network (no faults), each seat's replica
playing its policy at the same pace; the seed fixes every deck, pace and message delay,
so the same seed gives the same figures. Decision times are measured with the process
clock around each ``choose`` and are the one thing that varies between runs.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from p2pnerts.arena._fast import fast_round
from p2pnerts.arena._job import Job, faces, level_pace
from p2pnerts.arena._report import (
    ArenaError,
    ArenaReport,
    ArenaRound,
    Tally,
    Timed,
    summarize,
)
from p2pnerts.bots import load_policy, paced
from p2pnerts.driver import Pace
from p2pnerts.fanout import SERIAL, TaskFailed, Where, fan_out
from p2pnerts.protocol import Event, PlayCommitted, PlayReturned, RoundOver
from p2pnerts.rules import BadOptions, TableOptions, ToFoundation
from p2pnerts.sim import MIXES, Lineup, SimConfig, Simulation


class RoundFailed(ArenaError):
    """A round of the arena raised, or broke a protocol check: named by its number."""

    status = 1


def play_arena(
    policies: Sequence[str],
    rounds: int,
    seed: int,
    *,
    players: int = 4,
    pace: Pace | None = None,
    options: TableOptions | None = None,
    progress: Callable[[int, int], None] | None = None,
    where: Where = SERIAL,
    fast: bool = False,
) -> ArenaReport:
    """Play ``rounds`` rounds of the named policies (built-in names,
    ``package.module:Class`` or ``file.py:Class``); ``progress(done, rounds)`` hears rounds
    finish; ``where`` says which processes play them, and changes nothing but the times;
    ``fast`` plays on the rules alone (`p2pnerts.arena._fast`) instead of the protocol.

    With teams in ``options``, a team plays one policy (team ``t`` the policy ``t mod P``)
    and the deals rotate over the teams' decks. A policy named without ``@N`` looks at
    ``pace``; by default at the pace of the first level among ``policies`` (`level_pace`),
    else at the arena's own."""
    options = options or TableOptions()
    level = None
    if pace is None:
        pace, level = level_pace(policies)
    job = Job(tuple(policies), players, seed, pace, options, fast)
    _check(job, rounds, where)
    started = time.perf_counter()
    try:
        fanned = fan_out(arena_round, job, range(rounds), where, progress=progress)
    except TaskFailed as exc:
        raise RoundFailed(f"round {exc.seed} failed: {exc.detail}") from None
    seconds = time.perf_counter() - started
    played, figures = summarize(job.policies, job.seats, fanned.records)
    return ArenaReport(
        job.policies,
        job.seats,
        rounds,
        seed,
        job.pace,
        figures,
        seconds,
        played,
        options.teams,
        fast,
        tuple(job.pace_of(name) for name in job.policies),
        level,
    )


def _check(job: Job, rounds: int, where: Where) -> None:
    """Raise `ArenaError` (or `PolicyError`) saying why the arena cannot run as asked."""
    policies = job.policies
    if not policies:
        raise ArenaError("name at least one policy")
    twice = sorted({name for name in policies if policies.count(name) > 1})
    if twice:
        raise ArenaError(
            f"{', '.join(twice)} named twice: name each policy once (with fewer policies than "
            "players, seat s plays policy s mod P, so a policy plays several seats)"
        )
    try:
        decks = len(set(job.options.seating(job.players)))
    except BadOptions as exc:
        raise ArenaError(str(exc)) from None
    if len(policies) > decks:
        sides = "teams" if job.options.teams else "seats"
        raise ArenaError(f"{len(policies)} policies cannot share {decks} {sides}")
    if rounds < 1:
        raise ArenaError("play at least one round")
    for name in policies:
        load_policy(paced(name)[0])  # a name that does not load: said here, before any round
        if where.cluster is not None and ".py:" in name:
            raise ArenaError(
                f"{name} is a file on this machine: the cluster's workers cannot load it "
                "(install it as a module on every worker and name it package.module:Class)"
            )


def arena_round(job: Job, number: int) -> tuple[ArenaRound, dict[str, Tally]]:
    """Round ``number`` of an arena run (its deal and rotation follow from the number),
    and what each policy did in it: one task of the fan-out."""
    tallies = {name: Tally() for name in job.policies}
    deal, rotation = job.deal_of(number)
    play = fast_round if job.fast else _play_round
    return play(job, tallies, deal, rotation), tallies


def _play_round(job: Job, tallies: dict[str, Tally], deal: int, rotation: int) -> ArenaRound:
    """One simulated round: what every seat was dealt and scored, in seat order."""
    config = SimConfig(job.players, 1, MIXES["none"], job.options)
    name_of, seating = job.seats, job.seating
    drivers = job.drivers(tallies, deal, rotation)
    points: list[int | None] = [None] * job.players

    def hear(seat: int, event: Event) -> None:
        tally = tallies[name_of[seat]]
        match event:
            case PlayCommitted(seat=who, move=ToFoundation(), tie=tie) if who == seat:
                tally.cards += 1
                tally.tied += tie
            case PlayReturned(seat=who, move=ToFoundation(), winner=winner) if who == seat:
                if winner is not None:
                    tally.lost += 1
                    tallies[name_of[winner]].won += 1
            case RoundOver(caller=caller, scores=scores):
                points[seat] = job.score(tallies, seat, caller, scores)

    bots = lambda seat, _rng: drivers[seat]  # noqa: E731 (the arena's own, not the seed's)
    decks = lambda _round, seat: job.deck(deal, rotation, seat)  # noqa: E731
    sim = Simulation(config, job.seed * 1_000_003 + deal, bots, Lineup(decks, hear))
    result = sim.run()
    if result.violation is not None:
        # A refused move is the author's: said as it is, not as a crash inside the arena.
        refusals = [d.policy.refusal for d in drivers if isinstance(d.policy, Timed)]
        raise ArenaError(
            next(filter(None, refusals), None)
            or f"deal {deal}, rotation {rotation}: {result.violation.message} "
            f"(seed {result.violation.seed})"
        )
    if None in points:
        raise ArenaError(f"deal {deal}, rotation {rotation}: a seat never saw the round end")
    # A team deals once, from its first seat.
    dealt = tuple(faces(sim.ledger.decks[seating.index(d), 1]) for d in seating)
    return ArenaRound(deal, rotation, dealt, tuple(p for p in points if p is not None))
