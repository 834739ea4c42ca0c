"""The spectator's model and screen, fed a stream by hand: races and ties are told with
the reason the order gives, and the screen fits 100×32."""

from __future__ import annotations

from dataclasses import replace

from p2pnerts.lab import Mark
from p2pnerts.lab._render import GLYPH
from p2pnerts.protocol import Ack, Decided, Play, Scene, Seen, decode, encode, encode_payload
from p2pnerts.rules import (
    NEW_FOUNDATION,
    WASTE,
    Card,
    Suit,
    TableOptions,
    TieRule,
    ToFoundation,
    TurnStock,
)
from p2pnerts.ui._watchmodel import WatchModel, commit_line
from p2pnerts.ui._watchview import render_watch

H = Suit.HEARTS


def _scene(tie_rule: TieRule = TieRule.SEAT) -> Scene:
    names = ("Ann", "Bea", "Cy")
    options = TableOptions(tie_rule=tie_rule)
    return Scene(
        bytes(16), 0, names, options, 1, 0, (0, 0, 0), (0, 0, 0), (0, 0, 0), (0, 0, 0), (), 0, (), 0
    )


def _play(seat: int, clock: int, rank: int, foundation: int) -> Play:
    return Play(seat, 0, clock, 1, 1, ToFoundation(seat, Card(seat, rank, H), WASTE, foundation))


def _decided(index: int, play: Play, outcome: int, winner: int = -1) -> Decided:
    frame = encode_payload(play)
    return Decided(index, play.clock, 0, play.sender, frame, outcome, winner, "no room")


def _fed(tie_rule: TieRule, plays: list[tuple[Play, int, int]]) -> WatchModel:
    model = WatchModel("127.0.0.1:4000")
    model.hear(_scene(tie_rule))
    for index, (play, outcome, winner) in enumerate(plays, 1):
        model.hear(_decided(index, play, outcome, winner))
    return model


ACE = (_play(0, 3, 1, NEW_FOUNDATION), 0, -1)
"""Ann's ace starts foundation 0."""
RACE = [ACE, (_play(1, 5, 2, 0), 0, -1), (_play(2, 7, 2, 0), 2, 1)]
"""Bea's 2 lands on it at L=5; Cy's, at L=7, returns."""


def test_a_race_lost_to_an_earlier_clock_says_which_clocks() -> None:
    model = _fed(TieRule.SEAT, RACE)
    [race] = model.races
    assert race.race == "race lost to Bea: L=5 < L=7"
    assert commit_line(race, model) == (
        "#3 (7,0,2) Cy Play 2♥ from waste up: returned — race lost to Bea: L=5 < L=7"
    )


def test_a_play_that_came_back_late_at_a_majoritys_table_is_told_so() -> None:
    # Outcome 3 was out of a Decided's range: the spectator dropped its host with "speaks
    # differently" at the first play of a majority's table that came back late.
    why = "late: a majority held a later play on its spot first"
    late = replace(_decided(3, _play(2, 7, 2, 0), 3), reason=why)
    assert decode(encode(late)) == late
    model = _fed(TieRule.SEAT, RACE[:2])
    model.hear(late)
    [back] = model.races
    assert (
        commit_line(back, model) == f"#3 (7,0,2) Cy Play 2♥ from waste up: came back late — {why}"
    )
    # Any play, not only one to a foundation: a stock turn's spot is its own tableau.
    turn = Play(2, 0, 9, 2, 1, TurnStock(2, rotation=0))
    model.hear(replace(_decided(4, turn, 3), reason=why))
    assert model.races[-1].race == why and model.races[-1].what == "turn stock"


def test_equal_clocks_say_the_tie_rule_decides_or_both_stay() -> None:
    seat = _fed(
        TieRule.SEAT,
        [
            (_play(0, 3, 1, NEW_FOUNDATION), 0, -1),
            (_play(1, 5, 2, 0), 0, -1),
            (_play(2, 5, 2, 0), 2, 1),
        ],
    )
    assert seat.races[0].race == (
        "race lost to Bea: equal clocks L=5: rank decides; seat rule: seat 2 before seat 3"
    )
    both = _fed(
        TieRule.BOTH_STAY,
        [
            (_play(0, 3, 1, NEW_FOUNDATION), 0, -1),
            (_play(1, 5, 2, 0), 0, -1),
            (_play(2, 5, 2, 0), 1, -1),
        ],
    )
    assert both.races[0].race == "tie with Bea: equal clocks L=5, both stay"


def test_the_screen_fits_100_by_32_and_hides_acks_until_asked() -> None:
    model = _fed(
        TieRule.SEAT,
        [
            (_play(0, 3, 1, NEW_FOUNDATION), 0, -1),
            (_play(1, 5, 2, 0), 0, -1),
            (_play(2, 7, 2, 0), 2, 1),
        ],
    )
    model.hear(Seen(1500, False, 1, encode_payload(Ack(1, 0, 9, 2, (1, 1, 1), 3, bytes(16), ()))))
    frame = render_watch(model, 100, 32)
    assert len(frame.rows) == 32 and max(row.width for row in frame.rows) <= 100
    text = frame.text()
    assert "race lost to Bea: L=5 < L=7" in text and "Ack L=9" not in text
    assert "L=9" in text  # Bea's clock, from the Ack
    model.acks = True
    assert "Ack L=9" in render_watch(model, 100, 32).text()
    assert "needs 100×32" in render_watch(model, 80, 24).text()
    assert "needs 100×32" in render_watch(model, 200, 31).text()


def test_the_diagram_names_its_lanes_by_seat_number_when_names_look_alike() -> None:
    def lanes(names: tuple[str, ...]) -> list[str]:
        model = WatchModel("127.0.0.1:4000")
        zeros = (0,) * len(names)
        scene = replace(_scene(), names=names, clocks=zeros, heard=zeros, states=zeros)
        model.hear(replace(scene, totals=zeros))
        lines = render_watch(model, 100, 32).text().splitlines()
        title = next(i for i, line in enumerate(lines) if "time-space diagram" in line)
        column = lines[title].index("─ time-space")
        return lines[title + 1][column:].split()

    assert lanes(("Ann", "Bea", "Cy", "Dot")) == ["Ann", "Bea", "Cy", "Dot"]
    assert lanes(("Ann", "Bot 2", "Bot 3", "Bot 4")) == ["1", "2", "3", "4"]


def test_a_closed_table_is_no_longer_shown_alive() -> None:
    model = _fed(TieRule.SEAT, RACE)
    assert "alive" in render_watch(model, 100, 32).text()
    model.ended = "table closed: match over or host gone; q quits"
    text = render_watch(model, 100, 32).text()
    assert "alive" not in text and "table closed" in text
    assert text.splitlines()[0].startswith(" closed: 127.0.0.1:4000 · seen by Ann")
    assert text.splitlines()[0].rstrip().endswith("q quit")
    assert all(row.width <= 100 for row in render_watch(model, 100, 32).rows)


def test_the_diagram_draws_the_labs_marks_each_with_its_one_meaning() -> None:
    """● sends, ▶ or ◀ where it is received, ✓ commits, as in the lab: they had been o,
    > or * (to all), and C."""
    model = _fed(TieRule.SEAT, RACE)
    model.acks = True
    ack = encode_payload(Ack(0, 0, 8, 2, (1, 1, 1), 3, bytes(16), ()))
    model.hear(Seen(1500, True, -1, ack))  # the watched seat, Ann's, to all
    model.hear(Seen(1600, False, 1, encode_payload(Ack(1, 0, 9, 2, (1, 1, 1), 3, bytes(16), ()))))
    text = render_watch(model, 100, 32).text()
    sent, committed = GLYPH[Mark.SEND], GLYPH[Mark.COMMIT]
    row = {
        label: line
        for line in text.splitlines()
        for label in ("Ack L=8", "Ack L=9", "#1 (3,0,0)")
        if label in line
    }
    assert f"{sent}─────▶─────▶      Ack L=8" in row["Ack L=8"]
    assert f"◀─────{sent}     │      Ack L=9" in row["Ack L=9"]
    assert f"{committed}     │     │      #1 (3,0,0) landed" in row["#1 (3,0,0)"]


def test_the_committed_order_names_a_seat_in_full_where_the_row_has_room() -> None:
    """Names were cut to 7 letters whatever the width ('Beatric: 2♥ ...' at 160 columns)."""

    def order_rows(width: int) -> list[str]:
        model = WatchModel("127.0.0.1:4000")
        model.hear(replace(_scene(), names=("Ann", "Beatrice", "Cyrus")))
        for index, (play, outcome, winner) in enumerate(RACE, 1):
            model.hear(_decided(index, play, outcome, winner))
        lines = render_watch(model, width, 32).text().splitlines()
        start = next(i for i, line in enumerate(lines) if "committed order" in line)
        return [line for line in lines[start + 1 : start + 4] if line.startswith(" #")]

    assert any("Beatrice: " in row for row in order_rows(160))
    narrow = order_rows(100)
    assert any("Beatric: " in row for row in narrow) or any("Beatrice: " in r for r in narrow)
    assert all(len(row) <= 100 for row in narrow)


def test_a_seat_not_yet_named_is_numbered_from_one_as_the_lanes_are() -> None:
    model = WatchModel("127.0.0.1:4000")  # (no scene heard yet: no names)
    assert [model.name(s) for s in range(3)] == ["seat 1", "seat 2", "seat 3"]
