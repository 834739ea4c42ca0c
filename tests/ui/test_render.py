"""Rendering: every size from 80×24 up holds the whole table; clicks map back to piles."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from _tables import card, dealt, played

from p2pnerts.protocol import Hand, RoundOver
from p2pnerts.rules import (
    NERTS,
    NEW_FOUNDATION,
    EndReason,
    Foundation,
    RoundScore,
    TableOptions,
    ToFoundation,
)
from p2pnerts.ui import KEYMAP, Hit, Liveness, Look, Snapshot, TableModel, render
from p2pnerts.ui._frame import Row, cells, filled, fit
from p2pnerts.ui._model import MESSAGES, TICKER
from p2pnerts.ui._snapshot import Line

SIZES = [(80, 24), (100, 30), (160, 50)]


def model_of(
    players: int, moves: int = 400, look: Look | None = None, teams: tuple[int, ...] = ()
) -> TableModel:
    """Seat 0 ("You") after bots played; every deck's total is its number (0 for yours)."""
    names = ("You", *(f"Bot {k}" for k in range(1, players)))
    options = TableOptions(teams=teams)
    model = TableModel(0, names, options, look=look or Look())
    state = played(players, moves, options=options)
    model.refresh(Snapshot(display=state, totals=tuple(range(len(state.tableaux)))))
    return model


@pytest.mark.parametrize("players", [2, 4, 14])
@pytest.mark.parametrize(("width", "height"), SIZES)
def test_the_whole_table_fits_the_screen(players: int, width: int, height: int) -> None:
    model = model_of(players)
    frame = render(model, width, height)
    assert len(frame.rows) == height
    assert all(row.width <= width for row in frame.rows)
    text = frame.text()
    assert "foundations" in text and "Nerts" in text and "Stock" in text
    for seat in range(1, players):  # every opponent, with their score
        assert any(f"Bot{seat}" in line.replace(" ", "") for line in text.splitlines())
    tableau = model.tableau
    assert tableau is not None
    assert f"({len(tableau.nerts)})" in text  # the Nerts count under its top card


def test_a_joker_keeps_an_opponents_row_in_line_with_the_others() -> None:
    # Five work piles at 80 columns: each opponent in 3-column cells, a joker's too.
    options = TableOptions(jokers=True, work_piles=5)
    names = ("You", "Bot 1", "Bot 2", "Bot 3")
    jokers = 0
    for seed in range(1, 30):
        model = TableModel(0, names, options)
        model.refresh(Snapshot(display=played(4, 20, seed, options), totals=(0, 1, 2, 3)))
        text = render(model, 80, 24).text()
        rows = text.split("─ opponents")[1].split("─ You")[0].splitlines()[1:]
        jokers += "Jkr" in "".join(rows)
        assert len({len(row.rstrip()) for row in rows}) == 1, rows  # each score in line
    assert jokers, "no opponent showed a joker on these deals"


TEAMS = [(2,) * 7, (2, 1, 2)]


@pytest.mark.parametrize("teams", TEAMS)
@pytest.mark.parametrize(("width", "height"), SIZES)
def test_teams_are_shown_as_one_tableau_each_named_for_its_players(
    teams: tuple[int, ...], width: int, height: int
) -> None:
    model = model_of(sum(teams), teams=teams)
    frame = render(model, width, height)
    assert len(frame.rows) == height and all(row.width <= width for row in frame.rows)
    text = frame.text()
    assert "─ You & Bot 1 · 0 points ─" in text  # this player's team: one tableau, one score
    opponents = text.split("─ opponents")[1].split("─ You & Bot 1")[0].splitlines()[1:]
    assert len(opponents) == len(teams) - 1  # a row per other deck, not per seat
    for deck, line in enumerate(opponents, start=1):
        label = line.split("N")[0] if "N" in line else line[:15]
        seats = [int(n) for n in re.findall(r"Bo(?:t ?)?(\d+)", label)]
        assert line.startswith(f" {deck + 1} ") and seats == list(model.team(deck)), line
        assert line.endswith(f" {deck}")  # the team's total
    if width >= 160:
        assert f" 2 {model.team_name(1)} " in text  # the names whole, given the room


def test_a_team_name_too_long_for_its_column_keeps_every_players_number() -> None:
    model = model_of(14, teams=(2,) * 7)
    text = render(model, 80, 24).text()
    assert " 7 Bo12&Bo13 " in text


@pytest.mark.parametrize("teams", TEAMS)
def test_the_round_and_the_match_end_list_one_score_per_team(teams: tuple[int, ...]) -> None:
    model = model_of(sum(teams), teams=teams)
    decks = len(teams)
    scores = tuple(
        RoundScore(d, 10 + d, 0 if d == 1 else 3, 0, 4 + d, d == 1) for d in range(decks)
    )
    model.refresh(model.snap, [RoundOver(1, EndReason.NERTS, 3, scores, b"")])
    text = render(model, 80, 24).text()
    assert "round 1 over: Bot 3 called Nerts!" in text and "   team " in text
    for deck in range(decks):
        assert f" {deck + 1} {model.team_name(deck)} " in text
    assert "  +5       1  Nerts!" in text  # deck 2 (Bots 2 & 3) called it
    last = decks - 1
    model.refresh(
        Snapshot(model.snap.display, totals=model.snap.totals, over=True, winners=(last,))
    )
    assert f"Winner: Bot {sum(teams) - 2} & Bot {sum(teams) - 1}" in render(model, 80, 24).text()


def test_a_click_on_a_card_names_its_pile_and_depth() -> None:
    model = model_of(4)
    frame = render(model, 80, 24)
    lines = frame.text().splitlines()
    tableau = model.tableau
    assert tableau is not None and tableau.nerts
    top = tableau.nerts[-1]
    assert top is not None
    nerts = model.card(top).rjust(3)
    y = next(i for i, line in enumerate(lines) if "n Nerts" in line) + 1
    x = lines[y].index(nerts)
    assert frame.hit(x, y) == Hit("pile", NERTS)
    pile = tableau.work[0].cards
    column = lines[y - 1].index(" 1 ")
    assert frame.hit(column + 1, y) == Hit("pile", 0, len(pile) - 1)


@pytest.mark.parametrize("players", [4, 14])
def test_the_ascii_look_draws_nothing_but_ascii(players: int) -> None:
    model = model_of(players, look=Look(ascii=True))
    model.tell("a line")
    text = render(model, 100, 30).text()
    assert text.isascii()
    assert " S |" in text and " H |" in text  # the foundations' suits, as letters


def test_a_play_in_the_air_is_shown_as_such() -> None:
    model = TableModel(0, ("You", "Bea"), TableOptions())
    ace = card(0, "AS")
    state = dealt(["7H"], ["8S", "9D", "KC", "AS"])
    model.refresh(Snapshot(display=state, hand=Hand((ToFoundation(0, ace, 3, NEW_FOUNDATION),))))
    assert "A♠ is in the air" in render(model, 80, 24).text()


def test_the_round_end_lists_every_score_and_who_called_nerts() -> None:
    model = model_of(4)
    scores = tuple(RoundScore(d, 10 + d, 0 if d == 2 else 3, 0, 4 + d, d == 2) for d in range(4))
    model.refresh(model.snap, [RoundOver(1, EndReason.NERTS, 2, scores, b"")])
    text = render(model, 80, 24).text()
    assert "round 1 over: Bot 2 called Nerts!" in text
    assert "Enter: ready for the next round" in text
    for name in model.names:
        assert name in text


def test_the_help_lists_every_key() -> None:
    model = model_of(2)
    model.help = True
    text = render(model, 80, 24).text()  # all of it, on the smallest screen
    for keys, what in KEYMAP:
        assert keys in text and what in text
    said = " ".join(text.split())
    assert "The mark after a foundation card (7♥2) is the number of the seat whose card" in said
    assert "as the opponents are numbered; yours is 1." in said


@pytest.mark.parametrize("width", [80, 160])
def test_the_classroom_pane_shows_clock_pending_and_liveness(width: int) -> None:
    model = model_of(4)
    live = (Liveness(0.0), Liveness(0.1), Liveness(2.5, suspected=True), Liveness(9, member=False))
    model.refresh(Snapshot(display=model.snap.display, clock=57, pending=3, liveness=live))
    model.classroom = True
    text = render(model, width, 24 if width == 80 else 50).text()
    assert "Lamport clock 57" in text and "pending 3" in text
    assert "silent" in text and "left out" in text and "alive" in text
    if width == 160:
        assert "foundations" in text  # the pane sits beside the table


def test_the_key_map_document_lists_every_key() -> None:
    document = (Path(__file__).parents[2] / "ui" / "KEYS.md").read_text(encoding="utf-8")
    for keys, what in KEYMAP:
        assert f"| `{keys}` | {what} |" in document


def test_a_tall_screen_keeps_the_recent_lines_of_the_ticker() -> None:
    model = model_of(4)
    for k in range(30):
        model.tell(f"line {k}")
    tall = render(model, 160, 50).text()
    assert "recent" in tall and "   line 28" in tall and "   line 20" in tall
    ticker = [line for line in tall.splitlines() if line.startswith(" » ")]
    assert ticker == [" » line 29"] and tall.count("line 29") == 1  # the newest, once
    crowded = model_of(14)
    crowded.tell("line")
    assert "recent" not in render(crowded, 80, 24).text()  # no room to spare
    fresh = model_of(4)
    fresh.tell("line 0")
    assert "recent" not in render(fresh, 160, 50).text()  # the ticker's one line is below


def busy_model(players: int) -> TableModel:
    """A table deep in a match: a full ticker and message log of long lines."""
    model = model_of(players)
    live = tuple(Liveness(0.1 * s) for s in range(players))
    model.refresh(Snapshot(display=model.snap.display, clock=12345, pending=3, liveness=live))
    for k in range(TICKER):
        model.tell(f"Bot {k % 13 + 2} beat you to 10♥ on foundation #12: it goes back ({k})")
    for k in range(MESSAGES):
        text = f"← Bot {k % 13 + 2:<4} Ack   L={1000 + k:<4} have {list(range(players))} done {k}"
        model.messages.append(Line(model.started + k, text))
    return model


@pytest.mark.parametrize("players", [2, 4, 14])
@pytest.mark.parametrize("classroom", [False, True])
def test_every_width_and_height_from_80x24_to_240x70_draws_every_line_whole(
    players: int, classroom: bool
) -> None:
    """Every width at heights around the layout's steps, and every height at widths around
    them (every size of the range took 38 s of a core over the six tables)."""
    model = busy_model(players)
    model.classroom = classroom
    heights, widths = (24, 25, 31, 32, 33, 35, 36, 37, 50, 70), (80, 81, 99, 100, 119, 120, 121)
    sizes = {(w, h) for w in range(80, 241) for h in heights}
    sizes |= {(w, h) for w in (*widths, 160, 200, 240) for h in range(24, 71)}
    for width, height in sorted(sizes):
        frame = render(model, width, height)
        assert len(frame.rows) == height
        cut = [y for y, row in enumerate(frame.rows) if row.cut or row.width > width]
        assert not cut, f"{width}x{height}: {[frame.text().splitlines()[y] for y in cut]}"


def test_a_large_screen_shares_its_room_between_the_table_and_the_classroom() -> None:
    model = busy_model(4)
    model.classroom = True
    rows = render(model, 200, 60).text().splitlines()
    pane = rows[0].split("│", 1)[1]
    assert pane.startswith("─ classroom") and len(pane) == 79  # with its │, two fifths
    assert "foundations" in rows[1] and "Ack" in rows[-1].split("│", 1)[1]  # to the bottom
    model.classroom = False
    rows = render(model, 200, 60).text().splitlines()
    blank = [y for y, row in enumerate(rows) if not row.strip()]
    assert len(blank) <= 2, blank  # the ticker's recent lines take the spare rows


@pytest.mark.parametrize(("width", "height"), [(60, 15), (79, 40), (200, 23), (20, 5)])
def test_a_screen_smaller_than_80x24_says_so_until_it_grows(width: int, height: int) -> None:
    model = model_of(4)
    frame = render(model, width, height)
    text = " ".join(frame.text().split())
    assert len(frame.rows) == height and not any(row.cut for row in frame.rows)
    if height >= 8:
        assert "The table needs a terminal of 80×24 or more; " in text
        assert f"this one is {width}×{height}." in text and "q leaves the match." in text
    assert "foundations" not in text
    assert "foundations" in render(model, 80, 24).text()
    model.leave.asking = True
    assert "Leave the match? y or Ctrl-C: yes" in " ".join(render(model, 60, 15).text().split())


@pytest.mark.parametrize("look", [Look(), Look(ascii=True)])
def test_a_foundation_built_to_the_king_is_counted_in_words_not_with_the_commit_mark(
    look: Look,
) -> None:
    """✓ means a commit, in the lab and the spectator: it marked these too ('✓1 to the king')."""
    model = TableModel(0, ("You", "Bea"), TableOptions(), look=look)
    spades = tuple(card(1, f"{rank}S") for rank in ["A", *map(str, range(2, 11)), "J", "Q", "K"])
    table = dealt(["7H"], ["8S", "9D", "KC", "AS"])
    state = table._replace(completed=(Foundation(0, 0, 13, spades),))
    model.refresh(Snapshot(display=state))
    text = render(model, 80, 24).text()
    assert "1 built to the king" in text and "✓" not in text


def test_a_name_with_wide_characters_keeps_the_columns_in_line() -> None:
    # An emoji or a CJK character takes two columns of a terminal: a name holding one must
    # not push the rest of its row out of line with the others'.
    names = ("You", "Zoë 🎉", "李雷", "Bot 3")
    model = TableModel(0, names, TableOptions())
    model.refresh(Snapshot(display=played(4, 400), totals=(0, 1, 2, 3)))
    frame = render(model, 80, 24)
    assert all(row.width <= 80 for row in frame.rows)
    rows = frame.text().split("─ opponents")[1].split("─ You")[0].splitlines()[1:]
    assert "🎉" in "".join(rows) and "李雷" in "".join(rows)
    assert len({cells(row.rstrip()) for row in rows}) == 1, rows
    scores = tuple(RoundScore(d, 10 + d, 3, 0, 4 + d, False) for d in range(4))
    model.refresh(model.snap, [RoundOver(1, EndReason.NERTS, 2, scores, b"")])
    lines = [line for line in render(model, 80, 24).text().splitlines() if "+" in line[-16:]]
    assert len(lines) == 4 and len({cells(line) for line in lines}) == 1, lines


def test_a_row_cut_through_a_wide_character_stays_within_its_columns() -> None:
    row = Row().add("ab").add("🎉🎉", "class:good").add("cd")
    assert row.width == 8
    cut_row = row.clip(5)
    assert cut_row.width == 5 and "".join(t for _, t in cut_row.frags) == "ab🎉 "
    assert fit("Zoë 🎉 party", 7) == "Zoë 🎉…" and cells(filled("李雷", 6)) == 6
