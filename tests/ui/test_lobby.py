"""The lobby: tables as the network shows them, a new table's options, the waiting room."""

from __future__ import annotations

import random

import pytest
import trio
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2pnerts.commands import _screen
from p2pnerts.commands._config import HostConfig, SeatConfig
from p2pnerts.commands._screen import waiting_room
from p2pnerts.net import MatchResult, Player, TableInfo, TableSpec
from p2pnerts.rules import TableOptions, TieRule
from p2pnerts.ui import LobbyModel, Session, TableModel, create_application, teams_of
from p2pnerts.ui._lobby import TEAMS_ROW
from p2pnerts.ui._lobbyview import render_lobby


def table(name: str, taken: int = 1, state: str = "lobby", k: int = 1) -> TableInfo:
    return TableInfo(name, f"{k:032x}", 1, taken, 4, "", state, "127.0.0.1", 4000 + k)  # type: ignore[arg-type]


def test_the_list_follows_the_network_and_keeps_the_chosen_table() -> None:
    lobby = LobbyModel()
    lobby.seen([table("Attic", k=1), table("Kitchen", k=2)])
    lobby.move(1)
    lobby.seen([table("Attic", k=1), table("Barn", k=3), table("Kitchen", k=2)])
    assert lobby.tables[lobby.cursor].name == "Kitchen"
    lobby.seen([table("Attic", k=1)])
    assert lobby.cursor == 0
    text = render_lobby(lobby, 80, 24).text()
    assert "Attic" in text and "Kitchen" not in text


def test_enter_joins_the_chosen_table_unless_it_is_playing() -> None:
    joined: list[TableInfo] = []
    lobby = LobbyModel(join=joined.append)
    lobby.enter()
    assert joined == [] and "no table seen yet" in lobby.notice
    lobby.seen([table("Attic", state="playing", k=1), table("Kitchen", k=2)])
    lobby.enter()
    assert joined == [] and "already playing" in lobby.notice
    lobby.move(1)
    lobby.enter()
    assert [t.name for t in joined] == ["Kitchen"]


def test_a_new_table_takes_every_option_from_the_form() -> None:
    created: list[TableSpec] = []
    lobby = LobbyModel(create=created.append)
    lobby.new_table()
    for _ in "Table":
        lobby.erase()
    lobby.type("Den")
    lobby.move(1)
    lobby.change(-1)  # seats 4 -> 3
    lobby.move(-1)
    lobby.move(-1)  # wraps round to the last row: the tie rule
    lobby.change(1)
    lobby.enter()
    assert created == [TableSpec("Den", 3, TableOptions(tie_rule=TieRule.ROTATE))]


def test_a_table_without_a_name_is_not_opened() -> None:
    created: list[TableSpec] = []
    lobby = LobbyModel(create=created.append)
    lobby.new_table()
    lobby.name = "  "
    lobby.enter()
    assert created == [] and lobby.notice == "the table needs a name"


def test_the_host_adds_bots_of_a_chosen_level_only_to_open_seats() -> None:
    levels: list[int] = []
    starts: list[None] = []
    lobby = LobbyModel(add_bot=levels.append, start=lambda: starts.append(None))
    lobby.waiting("Den", 3, hosting=True, roster=("Ann",))
    lobby.change(3)
    lobby.bot()
    lobby.change(10)
    lobby.bot()
    lobby.bot()
    assert levels == [8, 10] and lobby.notice == "every seat is taken"
    lobby.enter()
    assert starts == [None]
    text = render_lobby(lobby, 80, 24).text()
    assert "Den: 1 of 3 seats taken" in text and "Ann" in text and "(open)" in text


def test_a_joiner_cannot_add_bots() -> None:
    levels: list[int] = []
    lobby = LobbyModel(add_bot=levels.append)
    lobby.waiting("Den", 3, hosting=False, roster=("Ann", "Bea"))
    lobby.bot()
    assert levels == []


def test_a_joiners_waiting_room_shows_only_its_keys_and_follows_its_seat() -> None:
    lobby = LobbyModel()
    lobby.notice = "joining Den…"
    lobby.waiting("10.0.0.7:9000", 0, hosting=False, roster=())
    lobby.welcomed(2, 4, (), "Den")  # (dialled by address: the Welcome names the table)
    lobby.roster = ("Ann", "Bea", "Cy")
    assert "─ Den: 3 of 4 seats taken ─" in render_lobby(lobby, 80, 24).text()
    *_, notice, keys = render_lobby(lobby, 80, 24).text().splitlines()
    assert notice == " you have seat 3 of 4; the host may seat bots in the open ones"
    assert keys == " q quits"  # (the waiting room itself says when play begins)
    assert "  play begins once every seat is taken" in render_lobby(lobby, 80, 24).text()
    host = LobbyModel()
    host.waiting("Den", 4, hosting=True, roster=("Ann",))
    assert "a adds a bot" in render_lobby(host, 80, 24).text().splitlines()[-1]


def test_lobby_keys_reach_the_lobby_and_table_keys_wait_for_play() -> None:
    created: list[TableSpec] = []
    lobby = LobbyModel(create=created.append)
    model = TableModel(0, ("Ann",), TableOptions())
    with create_pipe_input() as pipe:
        app = create_application(model, lobby, input=pipe, output=DummyOutput())
        # "n" opens the form (not the Nerts pile); typed letters go into the name.
        pipe.send_text("n" + "\x7f" * 5 + "Den q" + "\r" + "\x03\x03")
        app.run()
    assert created == [TableSpec("Den q", 4, TableOptions())]
    assert model.selection is None and not model.leave.asking


def test_teams_typed_in_the_form_set_the_seats_and_travel_in_the_options() -> None:
    created: list[TableSpec] = []
    lobby = LobbyModel(create=created.append)
    lobby.new_table()
    lobby.move(2)
    assert lobby.row == TEAMS_ROW
    lobby.type("2+x1+2")  # a letter is no team size: left out
    assert lobby.teams == "2+1+2" and lobby.teams_error == ""
    lobby.move(-1)
    lobby.change(1)  # the seats follow the teams, not the arrows
    assert lobby.notice == "the teams make the number of seats"
    text = render_lobby(lobby, 80, 24).text()
    assert "‹ 5 ›   as the teams make" in text
    lobby.enter()
    assert created == [TableSpec("Table", 5, TableOptions(teams=(2, 1, 2)))]


def test_teams_the_options_refuse_are_said_beside_the_field_and_open_no_table() -> None:
    created: list[TableSpec] = []
    lobby = LobbyModel(create=created.append)
    lobby.new_table()
    lobby.move(TEAMS_ROW)
    for typed, error in [
        ("4+", "teams are sizes joined by +, like 2+2, not '4+'"),
        ("4+1", "a team has 1 to 3 players, not 4"),
        ("3+3+3+3+3", "15 players: 14 at most"),
    ]:
        while lobby.teams:
            lobby.erase()
        lobby.type(typed)
        assert lobby.teams_error == error
        line = next(x for x in render_lobby(lobby, 100, 24).text().splitlines() if "teams" in x)
        assert line.endswith(f"{typed}_   {error}")
        lobby.move(3)
        lobby.enter()
        assert created == [] and lobby.notice == error and lobby.row == TEAMS_ROW
    while lobby.teams:
        lobby.erase()
    assert lobby.teams_error == ""
    lobby.enter()
    # Everyone solo, at the seats the last teams typed made ("3+3", erasing): as shown.
    assert "‹ 6 ›" in render_lobby(lobby, 80, 24).text()
    assert created == [TableSpec("Table", 6, TableOptions())]


def test_the_waiting_room_shows_who_sits_in_which_team() -> None:
    lobby = LobbyModel()
    lobby.waiting("Den", 5, hosting=True, roster=("Ann", "Bea", "Cy"), teams=(2, 1, 2))
    rows = render_lobby(lobby, 80, 24).text().splitlines()[2:7]
    assert rows == [
        "  team 1    1  Ann",
        "            2  Bea",
        "  team 2    3  Cy",
        "  team 3    4  (open)",
        "            5  (open)",
    ]


def test_the_list_shows_a_tables_teams_before_its_other_options() -> None:
    lobby = LobbyModel()
    summary = "target=50, rounds=3, tie_rule=rotate, teams=2+2"
    attic = TableInfo("Attic", f"{1:032x}", 1, 1, 4, summary, "lobby", "127.0.0.1", 4001)
    lobby.seen([attic, table("Barn", k=2)])
    text = render_lobby(lobby, 80, 24).text()
    assert " teams 2+2, target=50, ro" in text
    assert teams_of(summary) == (2, 2) and teams_of("standard rules") == ()
    assert teams_of("teams=9+9") == ()  # not a table this version would make


def test_the_teams_are_typed_with_the_keys_into_their_row() -> None:
    created: list[TableSpec] = []
    lobby = LobbyModel(create=created.append)
    model = TableModel(0, ("Ann",), TableOptions())
    down = "\x1b[B"
    with create_pipe_input() as pipe:
        app = create_application(model, lobby, input=pipe, output=DummyOutput())
        pipe.send_text("n" + down * TEAMS_ROW + "3+3" + "\x7f" + "2" + "\r" + "\x03\x03")
        app.run()
    assert created == [TableSpec("Table", 5, TableOptions(teams=(3, 2)))]


def test_the_hosts_waiting_room_adds_bots_at_the_level_the_command_line_asked_for() -> None:
    # `host --bots 1 --level 3`: the bot seated from the command line plays at 3, and so
    # does one added in the waiting room; with `--bot-level 2,7` the next in turn.
    spec = TableSpec("Den", 4, TableOptions())
    lobby = waiting_room(HostConfig(SeatConfig("Ann", level=3), spec, bots=1))
    assert lobby.bot_level == 3 and lobby.bots_added == 1 and lobby.roster == ("Ann",)
    assert "level  ‹ 3 ›" in render_lobby(lobby, 80, 24).text()
    turns = HostConfig(SeatConfig("Ann"), spec, bots=1, bot_levels=(2, 7))
    assert waiting_room(turns).bot_level == 7
    assert waiting_room(HostConfig(SeatConfig("Ann", level=9), spec)).bot_level == 9


def test_a_long_line_from_the_table_is_shown_whole_and_the_newest_lines_kept() -> None:
    lobby = LobbyModel()
    lobby.waiting("Kitchen", 3, hosting=False, roster=("Ann", "Bea"))
    warning = (
        "warning: table 'Kitchen' now has host key 512e:638d:d73c, not the 6c71:9a90:5601 "
        "seen before (in /home/ann/.local/share/p2pnerts/known.json): another machine may "
        "be using its name"
    )
    lobby.tell(warning)
    text = render_lobby(lobby, 80, 24).text()
    assert "another machine may be using its name" in " ".join(text.split())
    assert all(len(line) <= 80 for line in text.splitlines())
    for k in range(8):  # more than fit at 80x12: the newest stay, the oldest go
        lobby.tell(f"line {k}")
    small = render_lobby(lobby, 80, 12).text()
    assert "line 7" in small and "line 0" not in small


def _seated_by_the_waiting_room(
    config: HostConfig, monkeypatch: pytest.MonkeyPatch
) -> list[Player]:
    """The bots the table screen's host seats for ``config``'s ``--bots``, as it seats
    them (the table itself not opened)."""
    seated: list[Player] = []
    all_seated = trio.Event()

    async def run_host(
        config: HostConfig, *, task_status: trio.TaskStatus[int], **_: object
    ) -> MatchResult:
        task_status.started(4000)
        await trio.sleep_forever()
        raise AssertionError

    async def local_bot(
        port: int, bot: Player, report: object, task_status: trio.TaskStatus[None]
    ) -> None:
        seated.append(bot)
        if len(seated) == config.bots:
            all_seated.set()
        task_status.started()

    monkeypatch.setattr(_screen, "run_host", run_host)
    monkeypatch.setattr(_screen, "local_bot", local_bot)
    model = TableModel(0, ("Ann",), TableOptions(), send=lambda _: None)
    session = Session(model, lambda: None, "Ann", random.Random(1), waiting_room(config))

    async def seat_them() -> None:
        with trio.fail_after(5):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_screen.host_in_lobby, config, session)
                await all_seated.wait()
                nursery.cancel_scope.cancel()

    trio.run(seat_them)
    return seated


@pytest.mark.parametrize("majority", [True, False])
def test_the_bots_the_waiting_room_seats_commit_as_the_hosts_seat_does(
    majority: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `host --majority --bots 2` (and `play --majority`) on the table screen: each local
    # bot must commit by the host's rule, or the table refuses it for its first Ready.
    spec = TableSpec("Attic", 3, TableOptions())
    config = HostConfig(SeatConfig("Ann", majority=majority), spec, bots=2)
    seated = _seated_by_the_waiting_room(config, monkeypatch)
    assert [bot.majority for bot in seated] == [majority, majority]
    assert {bot.table_name for bot in seated} == {"Attic"}
