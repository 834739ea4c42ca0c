"""Seeded runs across table sizes and every fault mix, all invariants checked.

The sweep plays some 90 rounds: mostly small tables, several rounds per seed, and every
peer count from 2 to 14 somewhere; and some 20 rounds of tables of teams, one small layout
in every mix (each layout in one) and a larger one in two of them, 14 seats in one. It is
the suite's share of the simulator's runs, sized to be quick (about 10 s of a core a mix);
``python tools/soak.py`` plays as many rounds as asked over the same mixes and tables.
"""

from __future__ import annotations

from typing import NamedTuple

import pytest

from p2pnerts.bots import SimpleBots
from p2pnerts.rules import TableOptions
from p2pnerts.sim import MIXES, SimConfig, run

SMALL = ((2, 1, 5), (3, 1, 3), (4, 1, 2), (5, 1, 1))
"""(peers, seeds, rounds) every mix plays."""
LARGE = {
    "none": (6, 14),
    "light": (7,),
    "links": (8,),
    "slow": (9,),
    "partition": (10,),
    "crash": (11,),
    "churn": (12,),
    "heavy": (13,),
}
"""The larger tables of each mix, one seed and one round each."""


TEAMS = ((2, 2), (2, 1), (3, 3), (2, 1, 2), (1, 2, 3), (3, 1), (1, 1, 2), (2, 2, 2))
"""Small layouts of teams: each mix plays one of them, one seed of two rounds."""
TEAMS_ROUNDS = 2
LARGE_TEAMS = {
    "none": (3, 3, 3, 3, 2),
    "crash": (3, 2, 3, 1),
}
"""A larger table of teams in two mixes, one seed and one round."""


class Case(NamedTuple):
    teams: tuple[int, ...]
    """Team sizes, or () for a table of players on their own."""
    peers: int
    seeds: range
    rounds: int


def plan(mix: str) -> list[Case]:
    """The cases of one mix; seeds differ between mixes, table sizes and layouts."""
    m = list(MIXES).index(mix)
    base = 1000 * m
    cases = [Case((), p, range(base + 10 * p, base + 10 * p + n), r) for p, n, r in SMALL]
    cases += [Case((), p, range(base + 10 * p, base + 10 * p + 1), 1) for p in LARGE[mix]]
    teams = TEAMS[m % len(TEAMS)]
    seeds = range(base + 500 + 10 * m, base + 501 + 10 * m)
    cases.append(Case(teams, sum(teams), seeds, TEAMS_ROUNDS))
    large = LARGE_TEAMS.get(mix)
    if large is not None:
        cases.append(Case(large, sum(large), range(base + 600, base + 601), 1))
    return cases


def test_the_sweep_covers_every_mix_and_2_to_14_peers() -> None:
    cases = [case for mix in MIXES for case in plan(mix) if not case.teams]
    assert sum(len(c.seeds) * c.rounds for c in cases) >= 80
    assert {c.peers for c in cases} == set(range(2, 15))
    assert set(LARGE) == set(MIXES)


def test_the_sweep_plays_every_layout_of_teams_in_a_mix_up_to_14_seats() -> None:
    cases = {mix: [c for c in plan(mix) if c.teams] for mix in MIXES}
    assert sum(len(c.seeds) * c.rounds for found in cases.values() for c in found) >= 18
    for teams in TEAMS:
        assert sum(teams in {c.teams for c in found} for found in cases.values()) == 1
    assert all(found for found in cases.values())
    assert max(c.peers for found in cases.values() for c in found) == 14
    assert set(LARGE_TEAMS) <= set(MIXES)


OPEN: dict[str, str] = {}
"""Mixes whose sweep still fails, with why: liveness, not divergence."""


@pytest.mark.parametrize(
    "mix",
    [
        pytest.param(m, marks=pytest.mark.xfail(strict=True, reason=OPEN[m])) if m in OPEN else m
        for m in MIXES
    ],
)
def test_every_invariant_holds_across_the_sweep(mix: str) -> None:
    failures = []
    for teams, peers, seeds, rounds in plan(mix):
        config = SimConfig(peers, rounds, MIXES[mix], TableOptions(teams=teams))
        report = run(config, seeds, SimpleBots())
        failures += [v.text() for v in report.violations]
        assert report.tally.rounds == len(seeds) * rounds or failures
    assert not failures, "\n\n".join(failures)
