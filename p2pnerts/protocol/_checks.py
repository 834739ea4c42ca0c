"""What a message must be, checked before a replica changes any state for it.

The codec has already checked every field's type and bounds; these are the checks that
need the table: how many seats there are, which deck each plays, which seat receives.
`Replica.receive` runs them first, and refuses every later message of a seat that failed
one, as h11 refuses all input once a peer broke the protocol: a bad message is never
half taken (acknowledged, then dropped).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from p2pnerts.protocol._codec import decode_payload
from p2pnerts.protocol._errors import RemoteProtocolError
from p2pnerts.protocol._messages import (
    Ack,
    Leave,
    Message,
    Play,
    Ready,
    StartView,
    TeamDeal,
)
from p2pnerts.rules import TableOptions, card_from_code, new_deck


@dataclass(frozen=True, slots=True)
class Seating:
    """Who sits where: what the checks read of the table, fixed for its whole life."""

    seat: int
    """The seat that receives."""
    seats: tuple[int, ...]
    """The deck each seat plays: teammates share one."""
    options: TableOptions

    players: int = field(init=False)
    """How many seats there are (read on every message: computed once)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "players", len(self.seats))


def check_message(message: Message, seating: Seating) -> None:
    """Raise `RemoteProtocolError` if ``message`` cannot come from its sender to this seat."""
    sender = message.sender
    if not 0 <= sender < seating.players or sender == seating.seat:
        raise RemoteProtocolError(f"a message from seat {sender} cannot reach seat {seating.seat}")
    match message:
        case Play() if message.move.seat != sender:
            raise RemoteProtocolError(f"seat {sender} sent a move for another seat")
        case Ready():
            _check_ready(message, seating)
        case Ack() if len(message.have) != seating.players:
            raise RemoteProtocolError(f"seat {sender}'s Ack covers {len(message.have)} seats")
        case StartView():
            check_start_view(message, seating.players)
        case TeamDeal():
            _check_team_deal(message, seating)


def check_start_view(start: StartView, players: int) -> None:
    """Refuse a StartView whose per-seat vectors do not cover every seat, or that carries
    anything but ordered messages."""
    per_seat = len(start.cuts) == len(start.lives) == players
    if not per_seat or len(start.joined_from) != len(start.joined):
        raise RemoteProtocolError(f"seat {start.sender}'s StartView does not cover {players} seats")
    for payload in start.carried:
        if not isinstance(decode_payload(payload), Ready | Play | Leave | StartView):
            raise RemoteProtocolError("a StartView carried a message that is not ordered")


def _check_ready(ready: Ready, seating: Seating) -> None:
    deck = seating.seats[ready.sender]
    if len(ready.face_up) != 1 + seating.options.work_piles or any(
        c >> 6 != deck for c in ready.face_up
    ):
        raise RemoteProtocolError(f"seat {ready.sender}'s Ready shows the wrong deal")


def _check_team_deal(deal: TeamDeal, seating: Seating) -> None:
    deck = seating.seats[seating.seat]
    if deal.to != seating.seat or seating.seats[deal.sender] != deck:
        raise RemoteProtocolError(
            f"seat {deal.sender} sent seat {deal.to}'s team deck to seat {seating.seat}"
        )
    order = sorted(map(card_from_code, deal.order))
    if order != sorted(new_deck(deck, jokers=seating.options.jokers)):
        raise RemoteProtocolError(f"seat {deal.sender}'s team deck is not deck {deck + 1}")
