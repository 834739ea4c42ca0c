"""The lab's model: stepping forward and back reaches the states a straight run reaches,
the teacher's faults are replayed at their steps, and faults are refused in words."""

from __future__ import annotations

import pytest

from p2pnerts.bots import SimpleBots
from p2pnerts.lab import Action, Lab, Table
from p2pnerts.sim import SimConfig, Simulation

TABLE = Table(seed=3, peers=4)


def straight(step: int, script: list[tuple[int, Action]] | None = None) -> Lab:
    lab = Lab(TABLE, script or ())
    lab.goto(step)
    return lab


def test_stepping_back_reaches_the_state_a_straight_run_reaches() -> None:
    lab = straight(400)
    for _ in range(5):
        lab.forward()
    for _ in range(5):
        lab.back()
    assert lab.step == 400
    assert lab.state() == straight(400).state()


def test_every_step_on_the_way_back_is_the_straight_runs() -> None:
    states = []
    lab = Lab(TABLE)
    for _ in range(60):
        lab.forward()
        states.append(lab.state())
    for expected in reversed(states[:-1]):
        lab.back()
        assert lab.state() == expected


def test_a_run_without_faults_is_the_simulators_run_of_its_seed() -> None:
    """The lab adds no step of its own: its replicas end each step as the simulator's."""
    lab = straight(300)
    sim = Simulation(SimConfig(4, 10), TABLE.seed, SimpleBots())
    sim.begin()
    while sim.now < lab.now:
        sim.scheduler.step()
    assert [p.replica.digest for p in sim.seats] == [p.replica.digest for p in lab.sim.seats]


def test_a_teachers_crash_is_replayed_identically_on_step_back() -> None:
    lab = straight(300)
    assert lab.act(Action("crash", (2,))) == "crash 3"
    for _ in range(200):
        lab.forward()
    crashed = lab.state()
    assert not lab.seat_view(2).up
    lab.forward()
    lab.back()
    assert lab.state() == crashed
    assert lab.script == [(300, Action("crash", (2,)))]
    assert straight(500, lab.script).state() == crashed


def test_a_partition_and_its_heal_are_replayed_at_their_steps() -> None:
    script = [(200, Action("partition", (0,))), (600, Action("join", ()))]
    lab = straight(800, script)
    lab.back()
    lab.forward()
    assert lab.state() == straight(800, script).state()
    lab.goto(599)
    assert lab.link_up(1, 2) and not lab.link_up(0, 1)
    lab.forward()
    assert lab.link_up(0, 1)


def test_a_new_fault_before_the_scripts_end_starts_a_new_history() -> None:
    lab = straight(500, [(300, Action("crash", (1,))), (450, Action("restart", (1,)))])
    lab.goto(400)
    lab.act(Action("slow", (3,)))
    assert lab.script == [(300, Action("crash", (1,))), (400, Action("slow", (3,)))]
    lab.goto(500)
    assert not lab.seat_view(1).up
    assert lab.seat_view(3).slow


@pytest.mark.parametrize(
    ("actions", "told"),
    [
        ([Action("restart", (1,))], "nothing to undo: restart 2"),
        ([Action("crash", (1,)), Action("crash", (1,))], "already so: crash 2"),
        ([Action("cut", (1,))], "a link joins two seats: select two"),
        ([Action("partition", (0, 1, 2, 3))], "a partition needs seats on both sides"),
        ([Action("crash", (7,))], "no such seat: crash 8"),
        ([Action("join", ())], "nothing to undo: heal the partition"),
    ],
)
def test_a_fault_that_cannot_be_struck_is_refused_in_words(
    actions: list[Action], told: str
) -> None:
    lab = straight(100)
    answers = [lab.act(action) for action in actions]
    assert answers[-1].startswith(told)
    assert lab.notes[-1].text == answers[-1]


def test_a_crash_that_would_leave_no_one_holding_the_table_is_refused() -> None:
    lab = Lab(Table(seed=1, peers=2))
    lab.goto(100)
    assert lab.act(Action("crash", (0,))) == "crash 1"
    assert lab.act(Action("crash", (1,))).startswith("refused:")


def test_the_lab_seats_two_to_six_peers() -> None:
    with pytest.raises(ValueError, match="2 to 6 peers"):
        Table(peers=7)
