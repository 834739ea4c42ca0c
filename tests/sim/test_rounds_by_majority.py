"""Replicas committing by version 3's majority rule (`_majority`) on the simulated network:
whole rounds with the real rules, every seat folding one canonical order into its digest
(the invariants compare them commit by commit), and the decks replayed."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from p2pnerts.bots import SimpleBots
from p2pnerts.protocol import Event, Replica
from p2pnerts.rules import TableOptions, TieRule
from p2pnerts.sim import MIXES, SimConfig, Simulation, Watcher, run


@pytest.mark.parametrize("tie_rule", list(TieRule))
def test_a_majority_table_plays_whole_rounds_to_one_canonical_order(tie_rule: TieRule) -> None:
    for players in (2, 3, 5):
        config = SimConfig(players, 2, options=TableOptions(tie_rule=tie_rule), majority=True)
        report = run(config, [1], SimpleBots())
        assert not report.violations, report.text()
        t = report.tally
        assert t.rounds == t.replayed == 2
        assert t.audits == 2 * players
        assert t.messages["commit"] > t.plays  # Ballots and Tallies: the rule was in play


def test_teams_share_a_deck_at_a_majority_table() -> None:
    config = SimConfig(4, rounds=2, options=TableOptions(teams=(2, 2)), majority=True)
    report = run(config, [2], SimpleBots())
    assert not report.violations, report.text()
    assert report.tally.rounds == report.tally.replayed == 2


def test_a_play_commits_in_about_one_round_trip_where_acknowledgement_took_two() -> None:
    # Simulated time, the same every run: the rule's cost in round trips to the members.
    def p50(majority: bool) -> float:
        report = run(SimConfig(6, rounds=1, majority=majority), [3], SimpleBots())
        assert not report.violations, report.text()
        rtt = sorted(report.tally.latency_rtt)
        return rtt[len(rtt) // 2]

    acked, majority = p50(False), p50(True)
    assert acked > 2.0 and majority < 1.2, (acked, majority)


def test_a_move_that_comes_back_late_holds_the_moves_built_on_it() -> None:
    # Seed 1 of the slow mix: a stock turn on seat 3's own tableau came back late (a
    # quorum had voted first for another seat's play on the whole table, sorting after
    # it) while the next turn, built on it, was in the air; the audit then found the
    # honest seat's deck contradicting what it showed. Every move now holds the one hand
    # for the moves that depend on it at a majority's table.
    report = run(SimConfig(4, 1, faults=MIXES["slow"], majority=True), [1], SimpleBots())
    assert not report.violations, report.text()
    assert report.tally.rounds == report.tally.replayed == 1


def test_a_majority_table_plays_through_dropped_links_spikes_and_slow_peers() -> None:
    # A link that drops loses the commit frames on it (they are not kept to send again):
    # the seats that waited on them poll, and the round goes on to one order.
    report = run(SimConfig(4, 1, faults=MIXES["light"], majority=True), range(4), SimpleBots())
    assert not report.violations, report.text()
    assert report.tally.faults["link-drop"] and report.tally.faults["slow-peer"]
    assert report.tally.rounds == report.tally.replayed == 4
    assert not report.tally.membership["PeerExcluded"]  # (a change of members is not built)


def test_a_majority_table_waits_for_a_slow_seat_instead_of_leaving_it_out() -> None:
    # Seeds 2 and 5 of the slow mix: a seat slowed for seconds was left out, and a table
    # that cannot change members yet went from view to view until the round timed out.
    report = run(SimConfig(4, 1, faults=MIXES["slow"], majority=True), [2, 5], SimpleBots())
    assert not report.violations, report.text()
    assert report.tally.rounds == 2
    assert not report.tally.membership["ViewInstalled"]


@pytest.mark.parametrize(
    ("mix", "peers", "seed"),
    [
        # A seat applying a play sent a Ready, which resolved more while the outer loop
        # still held its list: a play applied twice over (KeyError in `_apply_waiting`).
        ("crash", 4, 7),
        # The commit part's poll fell due while the members changed, and was never taken.
        ("churn", 4, 11),
        # A seat back in counted its digest from the count the members stood at before
        # they folded the view's last plays (and sibling views from the same count).
        ("crash", 4, 6),
        # Two sibling views let the same two restarted seats back in; a play returned by
        # the change went again stamped with the view it was first sent in.
        ("heavy", 5, 105),
    ],
)
def test_a_seat_left_out_of_a_majoritys_table_comes_back_and_agrees(
    mix: str, peers: int, seed: int
) -> None:
    report = run(SimConfig(peers, 2, faults=MIXES[mix], majority=True), [seed], SimpleBots())
    assert not report.violations, report.text()
    t = report.tally
    assert t.rounds == t.replayed == 2
    assert t.membership["PeerRejoined"] >= 1, report.text()  # (a seat did come back)


@pytest.mark.parametrize("seed", [12, 34])
def test_a_seat_back_with_no_table_deals_the_next_round_with_the_others(seed: int) -> None:
    # Teams 2+2 under churn: seats rebuilt by a change of members between two rounds, after
    # the first Ready of the next, had no table, and a seat with no table did not count
    # itself between rounds, so it never dealt: one deck dealt, the other never, and
    # no seat had a table again (seed 34: 156 views; seeds 12 and 38 of 0-39 too).
    teams = TableOptions(teams=(2, 2))
    config = SimConfig(4, 2, faults=MIXES["churn"], options=teams, majority=True)
    report = run(config, [seed], SimpleBots())
    assert not report.violations, report.text()
    assert report.tally.rounds == report.tally.replayed == 2


def test_a_seat_let_in_by_a_request_it_has_gone_on_from_asks_again() -> None:
    # Teams 2+2, heavy, seed 3: a Rejoin of seat 0's came late to the coordinator of a
    # view seat 0 was a member of already, which listed it as coming back; the others
    # numbered its plays on from the change, seat 0 went on as it was, and its next play
    # was refused ("its Play names itself 7, not 6"). It now asks again, and comes back.
    teams = TableOptions(teams=(2, 2))
    report = run(
        SimConfig(4, 2, faults=MIXES["heavy"], options=teams, majority=True), [3], SimpleBots()
    )
    assert not report.violations, report.text()
    assert report.tally.rounds == report.tally.replayed == 2


def test_a_busy_majority_table_lets_go_of_its_plays_as_it_goes() -> None:
    """Fourteen seats of the simulator's bots, 170 plays a second, no fault: each seat says
    how far it has passed the canonical order once it has passed 32 plays since it last
    said (`_majority.TELL_EVERY`), so that no seat ever holds so many that it makes no
    more (`Replica.crowded`). Told only once a second, seats held 100 plays and were
    crowded after 1,840 steps of the run."""

    class Crowding(Watcher):
        steps = 0

        def stepped(self, seat: int, replica: Replica, events: Sequence[Event], now: float) -> None:
            self.steps += replica.crowded()

    crowding = Crowding()
    sim = Simulation(SimConfig(14, 1, majority=True), 3, SimpleBots())
    sim.watchers.append(crowding)
    result = sim.run()
    assert result.violation is None and result.tally.rounds == 1
    assert result.tally.plays > 300
    assert crowding.steps == 0
