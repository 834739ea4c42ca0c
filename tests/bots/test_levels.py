"""Bot levels 1-10, and policies loaded by name, module or file."""

from __future__ import annotations

import itertools
import random
import sys
from pathlib import Path

import pytest

from p2pnerts import cli
from p2pnerts.bots import (
    LEVELS,
    NEWCOMER,
    BaselineBot,
    BotDriver,
    ExpertBot,
    Guarded,
    PolicyError,
    SimpleBot,
    StrongBot,
    level,
    level_help,
    load_policy,
    paced,
)
from p2pnerts.cli import main
from p2pnerts.commands import _seats
from p2pnerts.commands._config import SeatConfig, seat_from
from p2pnerts.protocol import Welcome
from p2pnerts.rules import TableOptions, TurnStock

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "eager.py"


def test_each_level_is_quicker_than_the_one_before_and_plays_a_policy_as_strong() -> None:
    order = ["simple", "baseline", "expert"]
    assert [lv.number for lv in LEVELS] == list(range(1, 11))
    for lower, higher in itertools.pairwise(LEVELS):
        assert higher.reaction.mean < lower.reaction.mean
        assert order.index(higher.policy) >= order.index(lower.policy)
    assert level(10).reaction.think + level(10).reaction.spread <= 0.005
    assert isinstance(level(1).make(random.Random(0)), SimpleBot)
    assert isinstance(level(3).make(random.Random(0)), BaselineBot)
    assert isinstance(level(5).make(random.Random(0)), ExpertBot)
    assert isinstance(level(10).make(random.Random(0)), ExpertBot)


@pytest.mark.parametrize("number", [0, 11, -1])
def test_there_are_ten_levels(number: int) -> None:
    with pytest.raises(ValueError, match="levels are 1 to 10"):
        level(number)


def test_a_reaction_time_stays_within_its_range() -> None:
    rng = random.Random(4)
    for lv in LEVELS:
        r = lv.reaction
        samples = [r.sample(rng) for _ in range(200)]
        assert all(r.think <= s <= r.think + r.spread for s in samples)


@pytest.mark.parametrize("number", range(1, 11))
def test_a_bot_seat_gets_its_levels_pace_and_policy(number: int) -> None:
    pace = _seats.level_pace(number)
    assert (pace.think, pace.spread) == (
        level(number).reaction.think,
        level(number).reaction.spread,
    )
    driver = _seats.bot_player("B", number, random.Random(1), lambda _: None).driver
    assert isinstance(driver, BotDriver) and driver.pace == pace
    assert isinstance(driver.policy, Guarded)  # a policy that raises does not end the peer
    expected = type(level(number).make(random.Random(0))).__name__
    assert type(driver.policy.policy).__name__ == expected


def test_a_bot_seat_plays_a_policy_named_in_place_of_its_levels() -> None:
    driver = _seats.bot_player(
        "B", 2, random.Random(1), lambda _: None, policy=f"{EXAMPLE}:Eager"
    ).driver
    assert isinstance(driver, BotDriver) and isinstance(driver.policy, Guarded)
    assert type(driver.policy.policy).__name__ == "Eager"
    assert driver.pace == _seats.level_pace(2)
    driver = _seats.bot_player("B", 9, random.Random(1), lambda _: None, policy="baseline").driver
    assert isinstance(driver, BotDriver) and isinstance(driver.policy, Guarded)
    assert isinstance(driver.policy.policy, BaselineBot)


def test_a_policy_loads_from_a_module_by_its_dotted_name() -> None:
    make = load_policy("p2pnerts.bots:StrongBot")
    assert isinstance(make(random.Random(0)), StrongBot)
    make = load_policy("p2pnerts.bots:SimpleBot")  # takes a generator
    assert isinstance(make(random.Random(0)), SimpleBot)


CAUTIOUS = """
from p2pnerts.rules import TurnStock


class Cautious:
    def choose(self, view, seat):
        return TurnStock(seat)
"""


def test_a_policy_module_loads_from_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before, `p2pnerts arena --policies mybots.cautious:Cautious` in the folder holding
    # mybots/ said "No module named 'mybots'": the command's path starts at its script's
    # folder, not the working directory (as `python -m` puts it first).
    (tmp_path / "mybots").mkdir()
    (tmp_path / "mybots" / "cautious.py").write_text(CAUTIOUS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    try:
        policy = load_policy("mybots.cautious:Cautious")(random.Random(0))
    finally:
        for name in ("mybots.cautious", "mybots"):
            sys.modules.pop(name, None)
    assert type(policy).__name__ == "Cautious"
    assert str(tmp_path) not in sys.path  # looked in, and left as it was


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nobody", "is neither a policy"),
        ("no_such_module_here:Bot", "cannot import 'no_such_module_here'"),
        (f"{EXAMPLE}:Missing", "has no class 'Missing'"),
        ("/no/such/file.py:Bot", "cannot import '/no/such/file.py'"),
    ],
)
def test_a_policy_that_cannot_be_loaded_says_why(spec: str, message: str) -> None:
    with pytest.raises(PolicyError, match=message):
        load_policy(spec)


def test_a_policy_file_imports_the_modules_beside_it(tmp_path: Path) -> None:
    """As when ``python file.py`` runs it: an author's helpers may live in a module of
    their own next to the policy (before, "No module named 'helpers'")."""
    (tmp_path / "helpers.py").write_text("from p2pnerts.rules import TurnStock\n")
    path = tmp_path / "turner.py"
    path.write_text(
        "from helpers import TurnStock\n"
        "class Turner:\n"
        "    def choose(self, view, seat):\n"
        "        return TurnStock(seat)\n"
    )
    try:
        policy = load_policy(f"{path}:Turner")(random.Random(0))
    finally:
        sys.modules.pop("helpers", None)
    assert policy.choose(None, 1) == TurnStock(1)  # type: ignore[arg-type]
    assert str(tmp_path) not in sys.path  # looked in, and left as it was


def test_a_policy_file_may_define_a_dataclass_under_postponed_annotations(
    tmp_path: Path,
) -> None:
    """A dataclass looks its module up in sys.modules as it is made: the loader registers
    the file's module before running it, as `import` does."""
    path = tmp_path / "kept.py"
    path.write_text(
        "from __future__ import annotations\n"
        "from dataclasses import dataclass, field\n"
        "from p2pnerts.rules import Move, State, TurnStock\n"
        "@dataclass\n"
        "class Kept:\n"
        "    turns: list[int] = field(default_factory=list, init=False)\n"
        "    def choose(self, view: State, seat: int) -> Move | None:\n"
        "        self.turns.append(seat)\n"
        "        return TurnStock(seat)\n"
    )
    policy = load_policy(f"{path}:Kept")(random.Random(0))
    assert policy.choose(None, 2) == TurnStock(2)  # type: ignore[arg-type]


def test_a_policy_file_that_raises_as_it_loads_says_why_and_leaves_nothing(
    tmp_path: Path,
) -> None:
    path = tmp_path / "broken_policy.py"
    path.write_text("raise ImportError('needs a package that is not there')\n")
    with pytest.raises(PolicyError, match="needs a package"):
        load_policy(f"{path}:Bot")
    assert not [name for name in sys.modules if name.endswith("broken_policy")]


def test_a_class_without_choose_is_not_a_policy() -> None:
    # Said as it loads (before any round is played) when the class has none ...
    with pytest.raises(PolicyError, match="types:SimpleNamespace has no choose"):
        load_policy("types:SimpleNamespace")
    # ... else as it makes one (a maker that is no class).
    make = load_policy("os:getcwd")
    with pytest.raises(PolicyError, match="no choose"):
        make(random.Random(0))


@pytest.mark.parametrize(
    ("code", "message"),
    [
        (
            "class Bot\n    pass\n",
            "cannot import '{path}': SyntaxError: expected ':' ({file}, line 1)",
        ),
        (
            "x = 1\nspeed = undefined_name\n",
            "cannot import '{path}': NameError: name 'undefined_name' is not defined (at {file}:2)",
        ),
        (
            "class Bot:\n    def __init__(self, rng):\n        raise ValueError('no weights')\n"
            "    def choose(self, view, seat):\n        return None\n",
            "{path}:Bot could not be made: ValueError: no weights (at {file}:3)",
        ),
        (
            "class Bot:\n    def __init__(self, a, b, *rest, c=1):\n        pass\n"
            "    def choose(self, view, seat):\n        return None\n",
            "{path}:Bot is made with one argument (a seeded random.Random) or none, but it "
            "needs 2: a, b",
        ),
    ],
)
def test_a_policy_file_that_cannot_load_or_make_its_policy_says_why_in_one_line(
    tmp_path: Path, code: str, message: str
) -> None:
    # With the file and line its author needs; as it loads where it can, before any round.
    path = tmp_path / "typo_policy.py"
    path.write_text(code)
    with pytest.raises(PolicyError) as raised:
        load_policy(f"{path}:Bot")(random.Random(0))
    assert str(raised.value) == message.format(path=path, file=path.name)
    if "cannot import" in message:
        assert not [name for name in sys.modules if name.endswith("typo_policy")]


def test_bad_bot_levels_give_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    for bad in ("11", "3,x"):
        with pytest.raises(SystemExit) as exit_:
            main(["host", "--name", "x", "--bots", "2", "--bot-level", bad])
        assert exit_.value.code == 2
        assert "--bot-level" in capsys.readouterr().err


def test_a_bot_with_a_policy_that_cannot_load_fails_before_it_joins(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["bot", "--join", "127.0.0.1:1", "--policy", "nobody"]) == 2
    assert "is neither a policy" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "name"),
    [
        (["--policy", f"{EXAMPLE}:Eager"], "Eager"),
        (["--policy", "expert"], "expert"),
        (["--level", "3"], "baseline"),
        (["--policy", "expert", "--name", "Ada"], "Ada"),
    ],
)
def test_a_bot_peer_goes_by_its_policys_name_unless_named(args: list[str], name: str) -> None:
    parsed = cli._parser().parse_args(["bot", "--join", "Kitchen", *args])
    assert seat_from(parsed, bot=True).name == name


def test_bots_help_says_what_its_seed_and_level_do_as_the_readme_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Before, --seed said "shuffle from this seed", where no seed fixes the decks.
    with pytest.raises(SystemExit):
        main(["bot", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert "--seed SEED draw the bots' choices from this seed (no seed fixes the decks" in said
    assert "shuffle" not in said
    assert "with --policy, its pace only" in said
    readme = " ".join((EXAMPLE.parents[1] / "README.md").read_text(encoding="utf-8").split())
    assert "Its `--seed` draws its choices" in readme and "no seed fixes the decks" in readme


def test_a_bot_says_as_it_takes_its_seat_what_it_plays_and_how_often_it_looks() -> None:
    welcome = Welcome(bytes(16), 2, 3, TableOptions(), "t")
    seat = SeatConfig("Eager", level=2, headless=True, policy="examples/eager.py:Eager")
    assert _seats.seated_words(seat, welcome) == (
        "Eager has seat 3 of 3: examples/eager.py:Eager at level 2's pace, a look every "
        "2.5 s on average (--level 1-10 sets another)"
    )
    seat = SeatConfig("Bot", level=9, headless=True)
    assert _seats.seated_words(seat, welcome) == (
        "Bot has seat 3 of 3: level 9 (far beyond human): expert policy, a look every 100 ms"
    )


def test_levels_one_to_seven_play_at_peoples_paces_and_eight_on_beyond() -> None:
    rates = [lv.moves_per_second for lv in LEVELS]
    assert rates[0] >= 0.2 and rates[6] <= 2.5  # a beginner to the quickest people
    assert rates[7] > 3  # beyond any person
    assert level(NEWCOMER).moves_per_second < 0.5


def test_a_levels_thinking_budget_keeps_its_pace_within_a_tenth() -> None:
    for lv in LEVELS[:-1]:
        assert 0 < lv.budget_ms <= min(50, round(lv.reaction.mean * 1000 / 10, 6))
    # Level 10, thinking all its budget, still looks twice as often as level 9 does.
    top, below = level(10), level(9)
    assert (
        top.budget_ms + 1000 * top.reaction.mean
        <= (below.budget_ms + 1000 * below.reaction.mean) / 2
    )


def test_the_levels_help_says_each_levels_thinking_budget() -> None:
    said = level_help(NEWCOMER)
    assert "at most 50 ms a move (99th percentile), 7: 45, 8: 25, 9: 10" in said
    assert [lv.budget_ms for lv in LEVELS] == [50] * 6 + [45, 25, 10, 50]


def test_play_seats_bots_a_newcomer_can_hold_their_own_against_by_default() -> None:
    args = cli._parser().parse_args(["play"])
    assert args.level == NEWCOMER == 2
    assert "moves a second" in level_help(NEWCOMER)


@pytest.mark.parametrize(
    "argv", [["host", "--name", "Kitchen"], ["join"], ["bot", "--join", "127.0.0.1:9"]]
)
def test_host_join_and_bot_seat_bots_at_the_level_play_does(argv: list[str]) -> None:
    # One pace to start from: a hosted table's bots, a headless joiner and a bot peer
    # play at the level play seats, where they played three times as fast.
    assert cli._parser().parse_args(argv).level == NEWCOMER


def test_a_policy_named_with_a_pace_is_that_policy_looking_that_often() -> None:
    policy, pace = paced("strong@10")
    assert policy == "strong" and pace is not None
    assert pace.think + pace.spread / 2 == pytest.approx(0.1)  # ten looks a second
    assert paced("examples/eager.py:Eager@2.5")[0] == "examples/eager.py:Eager"
    assert paced("L5@3")[0] == "L5"
    assert paced("strong") == ("strong", None)


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        ("strong@fast", "not 'fast'"),
        ("strong@", "not ''"),
        ("strong@0", "above 0"),
        ("strong@-2", "above 0"),
        ("strong@5000", "at most 1000"),
    ],
)
def test_a_pace_that_is_no_number_of_looks_a_second_says_why(spec: str, said: str) -> None:
    with pytest.raises(PolicyError, match=said):
        paced(spec)
