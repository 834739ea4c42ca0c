"""One narration of a seat's events: the same words for the headless output and the screen."""

from __future__ import annotations

from p2pnerts.net import Narrator, Told
from p2pnerts.protocol import (
    AutoApplied,
    Diverged,
    Event,
    PeerLeft,
    PeerRecovered,
    PeerRejoined,
    PeerStalled,
    PeerSuspected,
    PlayCommitted,
    PlayReturned,
    RejoinedTable,
    Returned,
    RoundMissed,
    RoundOver,
    RoundStarted,
    ShutOut,
    SitOut,
)
from p2pnerts.rules import (
    NERTS,
    NEW_FOUNDATION,
    ROTATED,
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
from p2pnerts.words import move_words

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
        Told("the others went on without you: rejoining"),
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
    stuck = RoundOver(1, EndReason.STUCK, None, scores, b"", dealt=(0, 1))
    assert "(everyone stuck)" in str(headless(seating=TEAMS).tell(stuck))
    nobody = RoundOver(2, EndReason.STUCK, None, scores, b"", dealt=())
    assert "round 2 over (no deck was dealt in)" in str(headless(seating=TEAMS).tell(nobody))


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
    # Returned for a rotation its player had not seen: no teammate's doing.
    rotated = PlayReturned(0, TurnStock(0, rotation=0), 6, None, ROTATED)
    assert screen(seating=TEAMS).tell(rotated, (1,)) == Told(
        "your stock turn is undone: the stocks were rotated after this turn was made", play=True
    )
    alone = PlayReturned(2, ToFoundation(2, ACE, NERTS, NEW_FOUNDATION), 6, None, "over")
    assert headless(seating=TEAMS).tell(alone) is None


def test_a_team_line_names_the_teammates_and_the_part() -> None:
    assert headless(1, TEAMS).team(2) == (
        "Bea is in team 1 of 2, with Ann — Bea's part: the Nerts pile and the work piles"
    )
    assert screen(0, TEAMS).team(2) == (
        "You are in team 1 of 2, with Bea — your part: the stock and the waste"
    )
    assert headless(2, TEAMS).team(2) == "Cy is in team 2 of 2, alone"


def test_a_move_in_a_few_words_writes_its_cards_as_asked() -> None:
    assert move_words(ToFoundation(0, ACE, NERTS, NEW_FOUNDATION)) == "A♠ from Nerts up"
    assert move_words(ToFoundation(0, ACE, 2, NEW_FOUNDATION), _ascii) == "AS from pile 3 up"
    assert move_words(TurnStock(0)) == "turn stock"
    back = PlayReturned(0, DeclareStuck(0), 6, None, "the round was over")
    assert screen().tell(back, ()) == Told("your stuck did not count: the round was over", True)


def test_a_seat_back_from_its_own_stall_is_told_about_itself_in_both() -> None:
    events: list[Event] = [ShutOut(3, 5.24), RejoinedTable(4), SitOut(7)]
    said = [
        "you were away for 5.2 s; the others left you out and played on",
        "you are back in",
        "you sit out this round (it began while you were away) and the next;"
        " you deal in the one after",
    ]
    for narrator in (headless(2), screen(2)):
        assert [narrator.tell(e) for e in events] == [Told(line) for line in said]
        # (Its deck pledged for the next round before it was left out: it deals in it.)
        assert narrator.tell(SitOut(7, deals_next=True)) == Told(
            "you sit out this round (it began while you were away); you deal in the next"
        )
        assert narrator.tell(Returned(1.5)) == Told(
            "you were away for 1.5 s; the table waited for you"
        )


def test_the_others_say_for_how_long_a_seat_was_away_when_it_is_known() -> None:
    assert headless().tell(PeerRejoined(2, 5.21)) == Told("Cy is back after 5.2 s away")
    assert headless().tell(PeerRejoined(2)) == Told("Cy is back at the table")
    assert headless().tell(PeerRecovered(2, 1.5)) == Told("Cy is heard again after 1.5 s silent")


def test_a_round_replayed_on_coming_back_is_not_told_twice() -> None:
    scores = (RoundScore(0, 9, 0, 0, 9, True),)
    assert headless().tell(RoundStarted(6, again=True)) is None
    assert headless().tell(RoundOver(6, EndReason.NERTS, 0, scores, b"", again=True)) is None


def test_a_round_sat_out_or_missed_is_told_as_such_with_its_points() -> None:
    scores = tuple(RoundScore(d, p, 0, 0, p, False) for d, p in enumerate((9, 4, 0)))
    over = RoundOver(7, EndReason.NERTS, 0, scores, b"", dealt=(0, 1))
    assert headless(2).tell(over) == Told(
        "round 7 over (you sat out; Ann called Nerts): Ann +9, Bea +4, Cy +0"
    )
    assert screen(2).tell(over) == Told("round 7 over (you sat out; Ann called Nerts)")
    assert headless(1).tell(over) == Told("round 7 over (Ann called Nerts): Ann +9, Bea +4, Cy +0")
    assert headless(2).tell(RoundMissed(5, (12, -3, 0))) == Told(
        "round 5 over while you were away: Ann +12, Bea -3, Cy +0"
    )


def test_a_seat_back_from_its_disk_is_welcomed_to_its_seat_with_its_points() -> None:
    for narrator in (headless(2), screen(2)):
        assert narrator.tell(RejoinedTable(4, 7)) == Told("welcome back, Cy: your seat 3, 7 points")
        assert narrator.tell(RejoinedTable(4, 1)) == Told("welcome back, Cy: your seat 3, 1 point")
    assert headless().tell(PeerLeft(2)) == Told("Cy left the table; the others play on")
    marked = Narrator(("Ann", "Bea", "Cy (you)"), SOLO, 2, you=True)  # as the screen names it
    assert marked.tell(RejoinedTable(4, 0)) == Told("welcome back, Cy: your seat 3, 0 points")


def test_a_stalling_seat_is_told_by_what_it_never_says() -> None:
    """By acknowledgement it acknowledges nothing; at a majority's table, where no commit
    waits for an Ack, it never says it passed more of the order (SPEC §6.2)."""
    assert headless().tell(PeerStalled(2)) == Told(
        "Cy talks on but acknowledges nothing: left out for a while"
    )
    assert headless().tell(PeerStalled(2, passed=True)) == Told(
        "Cy talks on but never says it passed more of the order: left out for a while"
    )
