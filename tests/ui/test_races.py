"""The classroom pane marks a race and a tie with both plays and the reason the agreed
order gives, from the events of the commits that decided them."""

from __future__ import annotations

from p2pnerts.protocol import PlayCommitted, PlayReturned, RoundStarted
from p2pnerts.rules import NEW_FOUNDATION, WASTE, Card, Suit, TableOptions, TieRule, ToFoundation
from p2pnerts.ui import Snapshot, TableModel, render
from p2pnerts.ui._panes import classroom_rows
from p2pnerts.ui._races import Races

NAMES = ("Ann", "Bea", "Cy", "Dot")


def four(seat: int, foundation: int = 1) -> ToFoundation:
    return ToFoundation(seat, Card(seat, 4, Suit.DIAMONDS), WASTE, foundation)


def races(rule: TieRule = TieRule.BOTH_STAY) -> Races:
    return Races(TableOptions(tie_rule=rule), 4, lambda s: NAMES[s])


def test_a_race_is_marked_with_both_plays_and_the_clocks_that_ordered_them() -> None:
    marks = races()
    assert marks.hear(PlayCommitted(3, four(3), 168, False)) == []
    lost = PlayReturned(2, four(2), 169, winner=3, reason="beaten")
    assert marks.hear(lost) == [
        "RACE: Dot's 4♦ beat Cy's 4♦",
        "  why: L=168 < L=169",
    ]


def test_equal_clocks_are_decided_by_the_rank_the_tie_rule_gives() -> None:
    marks = races(TieRule.SEAT)
    marks.hear(PlayCommitted(0, four(0), 59, False))
    (_, why) = marks.hear(PlayReturned(1, four(1), 59, winner=0, reason="beaten"))
    assert why == "  why: equal clocks L=59: rank decides; seat rule: seat 1 before seat 2"


def test_a_tie_under_both_stay_is_marked_as_both_staying() -> None:
    marks = races()
    marks.hear(PlayCommitted(1, four(1), 59, False))
    assert marks.hear(PlayCommitted(2, four(2), 59, True)) == [
        "TIE: Bea's 4♦ and Cy's 4♦ both stay",
        "  why: equal clocks L=59, tie rule both-stay",
    ]


def test_what_is_no_race_is_not_marked() -> None:
    marks = races()
    ace = ToFoundation(0, Card(0, 1, Suit.HEARTS), WASTE, NEW_FOUNDATION)
    assert marks.hear(PlayCommitted(0, ace, 3, False)) == []
    over = PlayReturned(2, four(2), 9, winner=None, reason="the round is over", raced=False)
    assert marks.hear(over) == []
    marks.hear(PlayCommitted(3, four(3), 10, False))
    marks.hear(RoundStarted(2))  # a new round: every foundation empty again
    assert marks.hear(PlayReturned(2, four(2), 11, winner=3, reason="beaten")) == []


def test_the_classroom_pane_shows_the_race_among_the_messages() -> None:
    model = TableModel(0, NAMES, TableOptions())
    lost = PlayReturned(2, four(2), 169, winner=3, reason="beaten")
    model.refresh(Snapshot(), [PlayCommitted(3, four(3), 168, False), lost])
    assert [line.marked for line in model.messages] == [True, True]
    text = "\n".join("".join(t for _, t in row.frags) for row in classroom_rows(model, 100, 30))
    assert "RACE: Dot's 4♦ beat Cy's 4♦" in text and "why: L=168 < L=169" in text


def test_the_help_explains_the_classroom_panes_words_after_the_keys() -> None:
    model = TableModel(0, NAMES, TableOptions())
    model.help = True
    text = render(model, 100, 60).text()
    assert text.index("keys") < text.index("the classroom pane (c)")
    for word in ("Lamport clock L", "view:", "pending:", "RACE and TIE"):
        assert word in text
    said = " ".join(text.split())
    assert "every member has acknowledged holding it (Acks)" in said and "quorum" not in said
    model.refresh(Snapshot(majority=True))
    said = " ".join(render(model, 100, 60).text().split())
    assert "a quorum of the members voted for it" in said and "(Acks)" not in said
