"""How the screen words what it shows in a line: a move of the player's in the air, and
the gist of a protocol message in the classroom pane's list."""

from __future__ import annotations

from p2pnerts.logs import commit_gist
from p2pnerts.protocol import (
    Ack,
    Ballot,
    CommitFrame,
    Evidence,
    Message,
    Play,
    Poll,
    Ready,
    Tally,
    TeamDeal,
    ViewChange,
)
from p2pnerts.rules import CallNerts, DeclareStuck, Move, ToFoundation, TurnStock
from p2pnerts.ui._snapshot import Look
from p2pnerts.words import move_words

BLIND = "your team's deck has not reached you yet: your teammates play it until it does"
"""What a blind teammate is told, on the status line and when a move is refused."""
IDLE_STUCK = "no move for a while, so you are stuck: turn your stock to go on"
"""The ticker's line when the peer declares its idle player stuck (the status line says
the same while it lasts, `_waiting.stuck_line`)."""


def air_words(move: Move, look: Look) -> str:
    """A move of this player's in the air, in a few words: ``7♥ to pile 2``."""
    match move:
        case ToFoundation(card=card):
            return look.card(card)
        case TurnStock():
            return "stock turn"
        case DeclareStuck():
            return "stuck declaration"
        case CallNerts():
            return "Nerts! call"
    return move_words(move, look.card)


def message_gist(message: Message | CommitFrame, look: Look) -> str:
    """What a protocol message or commit frame says, in a few words: ``have [3, 2, 0, 0]
    committed 4``, ``on s2's #5: for, after [0, 5, 1, 0]``."""
    match message:
        case Ballot() | Tally() | Poll():
            return commit_gist(message)
        case TeamDeal(to=to, round=number):
            return f"round {number} deck → seat {to + 1} only"
        case Play(move=move):
            return move_words(move, look.card)
        case Ack(have=have, committed=committed):
            return f"have {list(have)} committed {committed}"
        case Ready(round=number):
            return f"round {number}"
        case ViewChange(new_view=view, suspects=suspects):
            return f"view {view}, suspects {list(suspects)}"
        case Evidence(messages=shown):
            return f"shows {len(shown)} signed message(s)"
    return ""
