"""Colours and glyphs: the style sheet, the players' colours, how a card is coloured."""

from __future__ import annotations

from prompt_toolkit.styles import Style

from p2pnerts.rules import Card, Suit
from p2pnerts.ui._snapshot import Look

SEAT_COLOURS = (
    "#5fafff",
    "#ffaf00",
    "#5fd75f",
    "#ff5fd7",
    "#00d7d7",
    "#d7d700",
    "#af87ff",
    "#ff8787",
    "#87d7af",
    "#d7afff",
    "#ffd787",
    "#87afd7",
    "#d78700",
    "#afd700",
)
"""One colour per seat (a table has at most 14), apart from the cards' red and black."""

_SUIT_STYLES = {
    (False, Suit.SPADES): "class:black",
    (False, Suit.CLUBS): "class:black",
    (False, Suit.HEARTS): "class:red",
    (False, Suit.DIAMONDS): "class:red",
    (True, Suit.SPADES): "class:black",
    (True, Suit.HEARTS): "class:red",
    (True, Suit.DIAMONDS): "class:blue",
    (True, Suit.CLUBS): "class:green",
}

STYLE = Style.from_dict(
    {
        "red": "#ff5f5f bold",
        "black": "#e4e4e4 bold",
        "blue": "#5f87ff bold",
        "green": "#5fd75f bold",
        "joker": "#d7af00 bold",
        "title": "bold",
        "rule": "#6c6c6c",
        "dim": "#8a8a8a",
        "key": "#ffd75f bold",
        "selected": "reverse",
        "air": "bg:#5f5f00 underline",
        "returned": "bg:#870000 #ffffff",
        "notice": "#ffd75f",
        "alert": "bg:#875f00 #ffffff bold",
        "good": "#87d75f bold",
        "bad": "#ff5f5f",
        "overlay": "bg:#1c1c1c",
    }
    | {f"seat{seat}": f"{colour} bold" for seat, colour in enumerate(SEAT_COLOURS)}
)


def suit_style(suit: Suit, look: Look) -> str:
    return _SUIT_STYLES[look.four_colour, suit]


def card_style(card: Card, look: Look) -> str:
    """The style a card's face is drawn in."""
    return "class:joker" if card.is_joker else suit_style(card.suit, look)


def seat_style(seat: int) -> str:
    return f"class:seat{seat % len(SEAT_COLOURS)}"


def seat_tag(seat: int) -> str:
    """One character naming a seat beside the cards it played: 1-9, then a-e."""
    return "123456789abcde"[seat] if seat < 14 else "?"


def suit_symbol(suit: Suit, look: Look) -> str:
    return suit.letter if look.ascii else suit.symbol


def card_face(look: Look, card: Card, rank: int = 0, suit: Suit | None = None) -> str:
    """A card's face in 3 columns; a joker as what it stands for, if it stands for one,
    else ``Jkr`` (its label, ``Joker``, would push the columns after it out of line)."""
    if card.is_joker and rank and suit is not None:
        return f"{'A23456789TJQK'[rank - 1]}{suit_symbol(suit, look)}*"
    return "Jkr" if card.is_joker else look.card(card).rjust(3)
