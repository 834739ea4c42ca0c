"""The lobby: tables as the network shows them, a new table's options, the waiting room."""

from __future__ import annotations

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2pnerts.net import TableInfo, TableSpec
from p2pnerts.rules import TableOptions, TieRule
from p2pnerts.ui import LobbyModel, TableModel, create_application
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


def test_lobby_keys_reach_the_lobby_and_table_keys_wait_for_play() -> None:
    created: list[TableSpec] = []
    lobby = LobbyModel(create=created.append)
    model = TableModel(0, ("Ann",), TableOptions())
    with create_pipe_input() as pipe:
        app = create_application(model, lobby, input=pipe, output=DummyOutput())
        # "n" opens the form (not the Nerts pile); typed letters go into the name.
        pipe.send_text("n" + "\x7f" * 5 + "Den q" + "\r" + "\x03")
        app.run()
    assert created == [TableSpec("Den q", 4, TableOptions())]
    assert model.selection is None and not model.confirm_quit
