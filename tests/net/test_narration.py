"""One narration of a seat's events: the same words for the headless output and the screen."""

from __future__ import annotations

from p2pnerts.net import Narrator, Told, move_words
from p2pnerts.protocol import (
    AutoApplied,
    Diverged,
    Event,
    PeerLeft,
    PeerRejoined,
    PeerSuspected,
    PlayCommitted,
    PlayReturned,
    RoundOver,
    RoundStarted,
    ShutOut,
)
from p2pnerts.rules import (
    NERTS,
    NEW_FOUNDATION,
    WASTE,
    CallNerts,
    Card,
    DeclareStuck,
    EndReason,
    Rotate,
    RoundScore,
    Suit,
    ToFoundation,
    TurnStock,
)

ACE = Card(0, 1, Suit.SPADES)
NAMES = ("Ann", "Bea", "Cy")
SOLO = (0, 1, 2)
TEAMS = (0, 0, 1)
"""Ann and Bea share a deck; Cy plays alone."""


def headless(seat: int = 0, seating: tuple[int, ...] = SOLO) -> Narrator:
    return Narrator(NAMES, seating, seat)


def screen(seat: int = 0, seating: tuple[int, ...] = SOLO) -> Narrator:
    """As the table screen tells it: ASCII suits here, and no points (it shows a table)."""
    return Narrator(NAMES, seating, seat, you=True, card=_ascii, scores=False)


def _ascii(card: Card) -> str:
    return card.label(ascii_only=True)


def test_the_table_news_is_the_same_for_both_and_you_agree_with_the_verb() -> None:
    events: list[Event] = [
        RoundStarted(2),
        PeerSuspected(1),
        PeerRejoined(0),
        Diverged(2, 7),
        ShutOut(3),
    ]
    assert [headless().tell(e) for e in events] == [
        Told("round 2 starts"),
        Told("Bea is silent"),
        Told("Ann is back at the table"),
        Told("Cy's table differs from ours!"),
        Told("the others went on without us: rejoining"),
    ]
    assert screen().tell(PeerRejoined(0)) == Told("You are back at the table")
    assert screen().tell(PeerSuspected(1)) == headless().tell(PeerSuspected(1))


def test_a_round_over_names_the_caller_and_every_decks_points() -> None:
    scores = (RoundScore(0, 9, 0, 0, 9, True), RoundScore(1, 3, 4, 0, -5, False))
    over = RoundOver(1, EndReason.NERTS, 1, scores, b"")
    assert headless(seating=TEAMS).tell(over) == Told(
        "round 1 over (Bea called Nerts): Ann & Bea +9, Cy -5"
    )
    assert screen(seating=TEAMS).tell(over) == Told("round 1 over")
    scored = Narrator(NAMES, TEAMS, 0, you=True)
    assert scored.tell(over) == Told("round 1 over (Bea called Nerts): You & Bea +9, Cy -5")
    stuck = RoundOver(1, EndReason.STUCK, None, scores, b"")
    assert "(everyone stuck)" in str(headless(seating=TEAMS).tell(stuck))


def test_plays_are_told_as_plays_and_a_seat_leaving_is_news_only_to_the_others() -> None:
    tie = PlayCommitted(1, ToFoundation(1, ACE, WASTE, NEW_FOUNDATION), 4, True)
    assert headless().tell(tie) == Told("Bea played A♠: a tie, both stay", play=True)
    assert screen(1).tell(tie) == Told("You played AS: a tie, both stay", play=True)
    assert headless().tell(PlayCommitted(2, CallNerts(2), 5, False)) == Told(
        "Cy called Nerts!", play=True
    )
    assert headless().tell(AutoApplied(Rotate(0))) is not None
    assert headless().tell(PeerLeft(0)) is None
    assert headless(1).tell(PeerLeft(0)) == Told("Ann left the table; the others play on")


def test_only_the_player_is_told_that_their_stuck_declaration_landed() -> None:
    stuck = PlayCommitted(0, DeclareStuck(0), 3, False)
    assert screen().tell(stuck) is not None
    assert headless().tell(stuck) is None and screen(1).tell(stuck) is None


def test_a_lost_race_names_the_winner_and_tells_the_loser_it_goes_back() -> None:
    lost = PlayReturned(0, ToFoundation(0, ACE, NERTS, NEW_FOUNDATION), 6, 2, "taken")
    assert headless().tell(lost) == Told("Cy beat Ann to A♠", play=True)
    assert screen().tell(lost) == Told("Cy beat you to AS: it goes back", play=True)
    assert screen(2).tell(lost) == Told("You beat Ann to AS", play=True)


def test_a_play_back_on_a_shared_tableau_blames_the_teammates_who_moved_first() -> None:
    raced = PlayReturned(1, ToFoundation(1, ACE, NERTS, NEW_FOUNDATION), 6, None, "moved")
    assert headless(seating=TEAMS).tell(raced) == Told(
        "Ann moved first: Bea's A♠ goes back", play=True
    )
    turn = PlayReturned(0, TurnStock(0), 6, None, "those cards moved")
    assert screen(seating=TEAMS).tell(turn, (1,)) == Told(
        "Bea moved first: your stock turn is undone", play=True
    )
    assert screen(seating=TEAMS).tell(turn, ()) == Told(
        "your stock turn is undone: those cards moved", play=True
    )
    assert headless(seating=TEAMS).tell(turn) is None  # another kind of move: not news
    alone = PlayReturned(2, ToFoundation(2, ACE, NERTS, NEW_FOUNDATION), 6, None, "over")
    assert headless(seating=TEAMS).tell(alone) is None


def test_a_team_line_names_the_teammates_and_the_part() -> None:
    assert headless(1, TEAMS).team(2) == (
        "Bea is in team 1 of 2, with Ann — Bea's part: the Nerts pile and the work piles"
    )
    assert screen(0, TEAMS).team(2) == (
        "You are in team 1 of 2, with Bea — Your part: the stock and the waste"
    )
    assert headless(2, TEAMS).team(2) == "Cy is in team 2 of 2, alone"


def test_a_move_in_a_few_words_writes_its_cards_as_asked() -> None:
    assert move_words(ToFoundation(0, ACE, NERTS, NEW_FOUNDATION)) == "A♠ from Nerts up"
    assert move_words(ToFoundation(0, ACE, 2, NEW_FOUNDATION), _ascii) == "AS from pile 3 up"
    assert move_words(TurnStock(0)) == "turn stock"
    back = PlayReturned(0, DeclareStuck(0), 6, None, "the round was over")
    assert screen().tell(back, ()) == Told("your stuck did not count: the round was over", True)
