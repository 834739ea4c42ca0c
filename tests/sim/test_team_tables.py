"""Tables of teams on the simulated network: each deck replayed from the shuffle its team
dealt, scored per deck, teammates' races counted, and the checker failing a team run that
deals another deck than the one it was handed."""

from __future__ import annotations

from typing import Any

import pytest

from p2pnerts.bots import SimpleBots
from p2pnerts.protocol import Replica, shuffle
from p2pnerts.protocol._dealing import Dealing
from p2pnerts.protocol._rounds import Round
from p2pnerts.rules import Card, TableOptions
from p2pnerts.sim import MIXES, SequencerRun, SimConfig, Simulation, run


def _teams(*sizes: int, rounds: int = 1, mix: str = "none") -> SimConfig:
    return SimConfig(sum(sizes), rounds, MIXES[mix], TableOptions(teams=sizes))


def test_a_team_table_seats_as_many_peers_as_its_teams_add_up_to() -> None:
    assert _teams(2, 1, 2).seating == (0, 0, 1, 2, 2)
    assert _teams(2, 1, 2).decks == 3
    with pytest.raises(ValueError, match="teams 2\\+2 seat 4 peers, not 5"):
        SimConfig(5, options=TableOptions(teams=(2, 2)))


def test_every_deck_of_a_team_table_is_replayed_and_teammates_race() -> None:
    report = run(_teams(2, 1, 2, rounds=2), range(2), SimpleBots())
    assert not report.violations, report.text()
    t = report.tally
    assert t.rounds == t.replayed == 4
    assert t.audits == 4 * 5  # every seat audits every round
    assert 0 < t.team_races <= t.returns, "teammates never raced: the test proves nothing"
    solo = run(SimConfig(5, rounds=2), range(2), SimpleBots()).tally
    assert solo.team_races == 0 < solo.returns


def test_the_same_seed_gives_the_same_team_run_and_another_seed_another() -> None:
    config = _teams(2, 2, rounds=2, mix="heavy")
    first, again, other = (run(config, [s], SimpleBots()).to_json() for s in (3, 3, 4))
    assert not first["violations"], first["violations"]
    assert first == again
    assert first["digest"] != other["digest"]
    assert first["teams"] == "2+2" and first["peers"] == 4


def _violation(config: SimConfig, seed: int, seat: int, replica: type[Replica]) -> str:
    """What a run finds with ``replica`` in seat ``seat``'s place."""
    sim = Simulation(config, seed, SimpleBots())
    sim.seats[seat].replica = replica(seat, config.options, config.peers, timing=config.timing)
    result = sim.run()
    assert result.violation is not None
    return result.violation.message


class _OwnShuffle(Replica):
    """Deals another order of its deck than its secret and the common seed give."""

    def __init__(self, seat: int, options: TableOptions, players: int, **kw: Any) -> None:
        def reversed_deal(deck: int, number: int, secret: bytes, seed: bytes) -> tuple[Card, ...]:
            dealt = shuffle(deck, number, secret, seed, options=options)
            return tuple(reversed(dealt)) if deck == options.seating(players)[seat] else dealt

        super().__init__(seat, options, players, shuffle=reversed_deal, **kw)


def test_a_seat_that_deals_another_deck_than_its_secret_gives_fails_the_audit() -> None:
    found = _violation(_teams(2, 1), 2, 2, _OwnShuffle)
    assert "audit of round 1 failed seat 2" in found  # at an honest seat
    assert "the cards it dealt face up are not its deck's" in found


class _MisdealtRounds(Dealing):
    def _start_play(self, this: Round) -> None:
        super()._start_play(this)
        this.dealers[1] = 3


class _Misdealt(Replica):
    """Takes the second team's deck for dealt by its second seat, whoever dealt it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.dealing = _MisdealtRounds(self)


def test_replicas_that_disagree_on_who_dealt_a_deck_are_caught() -> None:
    found = _violation(_teams(2, 2), 1, 3, _Misdealt)
    assert "dealt round 1 from the Readies of seats" in found
    assert "2 (deck 2)" in found and "3 (deck 2)" in found


def test_the_sequencer_deals_a_team_one_deck_and_plays_every_round() -> None:
    config = _teams(2, 1, 2, rounds=2)
    result = SequencerRun(config, 3, SimpleBots()).run()
    assert result.tally.rounds == 2 and result.tally.plays > 50
    assert result == SequencerRun(config, 3, SimpleBots()).run()
