"""The table screen's model: what the player sees and what their keys do, with no IO.

It holds a `Snapshot` of the seat's peer (the table as this player sees it, their own
play in the air, the figures the classroom pane shows), the player's selection and
pending two-key move, the ticker, and the round and match results. Keys and clicks call
its methods; a method that makes a move hands it to ``send`` (the session gives it to the
peer) and clears the selection. The model decides no game question: the moves come from
the rules engine (`_choose`), the verdicts come back as the peer's events, and a refusal
is shown as the rules engine or the protocol worded it.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Literal

from p2pnerts.protocol import (
    Ack,
    AuditFailed,
    AutoApplied,
    Diverged,
    Event,
    Message,
    PeerExcluded,
    PeerLeft,
    PeerRecovered,
    PeerRejoined,
    PeerSuspected,
    Play,
    PlayCommitted,
    PlayReturned,
    Ready,
    RoundOver,
    RoundStarted,
    ShutOut,
    ViewChange,
)
from p2pnerts.rules import (
    NERTS,
    WASTE,
    CallNerts,
    Card,
    DeclareStuck,
    Move,
    Rotate,
    SlideUnder,
    State,
    Tableau,
    TableOptions,
    ToFoundation,
    ToWork,
    TurnStock,
)
from p2pnerts.ui import _choose

TICKER = 40
"""Ticker lines kept (the screen shows the newest that fit)."""
MESSAGES = 200
"""Protocol messages the classroom pane keeps."""
FLASH = 2.0
"""Seconds a card that went back stays marked."""


@dataclass(frozen=True, slots=True)
class Look:
    """How cards are drawn: ASCII suit letters instead of symbols; a four-colour deck."""

    ascii: bool = False
    four_colour: bool = False

    def card(self, card: Card) -> str:
        return card.label(ascii_only=self.ascii)


@dataclass(frozen=True, slots=True)
class Liveness:
    """What this peer knows of another seat's health."""

    heard_ago: float
    """Seconds since anything was heard from the seat."""
    suspected: bool = False
    member: bool = True
    """Still in the view (False: left out, or gone)."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The seat's peer as the front end reads it after each change."""

    display: State | None = None
    in_the_air: Move | None = None
    status: str = "playing"
    clock: int = 0
    committed: int = 0
    pending: int = 0
    """Ordered messages (every seat's) held but not yet committed here."""
    own_pending: int = 0
    """This seat's own plays sent and not yet committed."""
    view: int = 0
    liveness: tuple[Liveness, ...] = ()
    totals: tuple[int, ...] = ()
    over: bool = False
    """The match is over (``totals`` are final)."""
    winners: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Selection:
    """The card the player picked: a pile, and how deep into a work pile the block starts."""

    source: int
    card: Card
    depth: int = 0


@dataclass(frozen=True, slots=True)
class Hit:
    """What a mouse click landed on."""

    kind: Literal["pile", "foundation", "stock"]
    source: int = 0
    depth: int = 0


@dataclass(frozen=True, slots=True)
class Line:
    """One entry of the ticker or of the message log, stamped with the model's clock."""

    at: float
    text: str


@dataclass(slots=True)
class TableModel:
    """One seat's table as its player sees and plays it."""

    seat: int
    names: tuple[str, ...]
    options: TableOptions
    send: Callable[[Move], None] = lambda _: None
    """Hands a move to the peer (which may refuse it: see `refused`)."""
    deal_next: Callable[[], None] = lambda: None
    """Tells the peer the player is ready for the next round."""
    clock: Callable[[], float] = time.monotonic
    look: Look = field(default_factory=Look)
    snap: Snapshot = field(default_factory=Snapshot)
    selection: Selection | None = None
    notice: str = ""
    """The last thing the player should read: why a move was refused, what to do next."""
    ticker: deque[Line] = field(default_factory=lambda: deque(maxlen=TICKER))
    messages: deque[Line] = field(default_factory=lambda: deque(maxlen=MESSAGES))
    notes: dict[int, str] = field(default_factory=dict)
    """Seats' membership news: suspected, left out, rejoined, left."""
    returned: tuple[Card, float] | None = None
    """The card of this player's that last went back, and until when it is marked."""
    round_number: int = 0
    round_end: RoundOver | None = None
    """The last round's result, shown until the next round starts."""
    history: list[RoundOver] = field(default_factory=list)
    ready: bool = False
    """The player said they are ready for the next round."""
    help: bool = False
    classroom: bool = False
    confirm_quit: bool = False
    started: float = 0.0
    """When the model was made, by its clock: the classroom's times count from here."""

    def __post_init__(self) -> None:
        self.started = self.clock()

    # --- reading ----------------------------------------------------------------------------

    @property
    def tableau(self) -> Tableau | None:
        state = self.snap.display
        return None if state is None else state.tableau_of(self.seat)

    @property
    def playing(self) -> bool:
        state = self.snap.display
        return state is not None and state.ended is None

    @property
    def can_call_nerts(self) -> bool:
        """Whether the rules let this player call Nerts now."""
        state = self.snap.display
        if state is None or not self.playing:
            return False
        return not isinstance(_choose.checked(state, CallNerts(self.seat)), str)

    @property
    def others_stuck(self) -> bool:
        """Every other seat is stuck and this one is not: the round waits for this player."""
        state, tableau = self.snap.display, self.tableau
        if state is None or tableau is None or tableau.stuck or not self.playing:
            return False
        return all(t.stuck for t in state.tableaux if t.deck != tableau.deck)

    def name(self, seat: int | None) -> str:
        return "nobody" if seat is None else self.names[seat]

    def card(self, card: Card) -> str:
        return self.look.card(card)

    def marked_returned(self, card: Card) -> bool:
        return self.returned is not None and self.returned[0] == card

    # --- the peer's side ----------------------------------------------------------------

    def refresh(self, snap: Snapshot, events: Iterable[Event] = ()) -> None:
        """Take the peer's state after a change, and the events of that change."""
        self.snap = snap
        for event in events:
            self._hear(event)
        if self.returned is not None and self.clock() >= self.returned[1]:
            self.returned = None
        sel = self.selection
        if sel is not None and self._card_at(sel.source, sel.depth) != sel.card:
            self.selection = None

    def refused(self, reason: str) -> None:
        """The peer would not make the last move: tell the player why."""
        self.notice = reason

    def tell(self, text: str) -> None:
        """Put a line on the ticker."""
        self.ticker.append(Line(self.clock(), text))

    def note_message(self, outgoing: bool, seat: int | None, message: Message) -> None:
        """A protocol message went out or came in (the classroom pane lists them)."""
        arrow = "→ all" if outgoing else f"← {self.name(seat)[:8]}"
        text = f"{arrow:<10} {type(message).__name__:<5} L={message.clock:<4} "
        self.messages.append(Line(self.clock(), text + self._detail(message)))

    def _detail(self, message: Message) -> str:
        match message:
            case Play(move=move):
                return _move_text(move, self.look)
            case Ack(have=have, committed=committed):
                return f"have {list(have)} committed {committed}"
            case Ready(round=number):
                return f"round {number}"
            case ViewChange(new_view=view, suspects=suspects):
                return f"view {view}, suspects {list(suspects)}"
        return ""

    def _hear(self, event: Event) -> None:
        name = self.name
        match event:
            case RoundStarted(round=number):
                self.round_number, self.round_end, self.ready = number, None, False
                self.selection, self.notice = None, ""
                self.tell(f"round {number}: go!")
            case PlayCommitted(seat=seat, move=ToFoundation(card=card), tie=tie):
                also = ": a tie, both stay" if tie else ""
                self.tell(f"{self._who(seat)} played {self.card(card)}{also}")
            case PlayCommitted(seat=seat, move=CallNerts()):
                self.tell(f"{self._who(seat)} called Nerts!")
            case PlayCommitted(seat=seat, move=DeclareStuck()) if seat == self.seat:
                self.tell("you are stuck: waiting for the others (or play a card)")
            case PlayReturned(seat=seat, move=move, winner=winner, reason=reason):
                self._returned(seat, move, winner, reason)
            case AutoApplied(move=Rotate()):
                self.tell("everyone was stuck: every stock turned over, its top card to the bottom")
            case RoundOver(round=number, caller=caller):
                self.round_end = event
                self.history.append(event)
                self.selection = None
                who = f"{name(caller)} called Nerts" if caller is not None else "everyone stuck"
                self.tell(f"round {number} over: {who}")
            case PeerSuspected(seat=seat):
                self._note(seat, "silent", f"{name(seat)} is silent")
            case PeerRecovered(seat=seat):
                self.notes.pop(seat, None)
                self.tell(f"{name(seat)} is heard again")
            case PeerExcluded(seat=seat):
                self._note(seat, "left out", f"{name(seat)} is left out; the table plays on")
            case PeerRejoined(seat=seat):
                self._note(seat, "rejoined", f"{name(seat)} is back at the table")
            case PeerLeft(seat=seat):
                self._note(seat, "left", f"{name(seat)} left the table")
            case AuditFailed(seat=seat, reason=reason):
                self.tell(f"audit: {name(seat)} {reason}")
            case Diverged(seat=seat):
                self.tell(f"{name(seat)}'s table differs from ours!")
            case ShutOut():
                self.tell("the others went on without us: rejoining")

    def _returned(self, seat: int, move: Move, winner: int | None, reason: str) -> None:
        if not isinstance(move, ToFoundation):
            if seat == self.seat:
                self.tell(f"your {_move_text(move, self.look)} did not count: {reason}")
            return
        card = self.card(move.card)
        if seat == self.seat:
            self.returned = (move.card, self.clock() + FLASH)
            if winner is not None:
                self.tell(f"{self.name(winner)} beat you to {card}: it goes back")
            else:
                self.tell(f"your {card} goes back: {reason}")
        elif winner is not None:
            self.tell(f"{self._who(winner)} beat {self.name(seat)} to {card}")

    def _note(self, seat: int, note: str, line: str) -> None:
        self.notes[seat] = note
        self.tell(line)

    def _who(self, seat: int) -> str:
        return "You" if seat == self.seat else self.name(seat)

    # --- the player's side ----------------------------------------------------------------

    def pick(self, source: int) -> None:
        """A pile's key: select its card, move the selection there, or (pressed again on a
        work pile) take one card more of that pile into the block."""
        sel = self.selection
        if sel is not None and source == sel.source and source >= 0:
            self.deepen(1)
        elif sel is not None and source >= 0:
            self._onto(sel, source)
        else:
            self._select(source, 0)

    def deepen(self, step: int) -> None:
        """Grow (or shrink) the selected block inside its work pile, wrapping round."""
        sel, state = self.selection, self.snap.display
        if sel is None or state is None or sel.source < 0:
            return
        cards = _choose.pile_cards(state, self.seat, sel.source)
        self._select(sel.source, (sel.depth + step) % len(cards))

    def to_foundation(self) -> None:
        sel, state = self.selection, self.snap.display
        if sel is None or state is None:
            self.notice = "select a card first: n, w or a work pile's number"
            return
        self._make(_choose.to_foundation(state, self.seat, sel.card, sel.source))

    def best(self) -> None:
        """The most useful move of the selected card (or of the whole tableau)."""
        state, sel = self.snap.display, self.selection
        if state is None:
            return
        card, source = (None, None) if sel is None else (sel.card, sel.source)
        move = _choose.best_move(state, self.seat, card, source)
        if move is None:
            what = "that card" if sel is not None else "nothing on your tableau"
            self.notice = f"{what} has no move now" + ("" if sel else ": turn the stock")
            return
        self._make(move)

    def turn_stock(self) -> None:
        self._checked(TurnStock(self.seat))

    def call_nerts(self) -> None:
        self._checked(CallNerts(self.seat))

    def declare_stuck(self) -> None:
        self._checked(DeclareStuck(self.seat))

    def cancel(self) -> None:
        self.selection, self.notice = None, ""

    def click(self, hit: Hit) -> None:
        """Click-click moves: a card, then where it goes."""
        sel = self.selection
        match hit.kind:
            case "stock":
                self.turn_stock()
            case "foundation":
                self.to_foundation()
            case "pile" if sel is not None and hit.source >= 0 and hit.source != sel.source:
                self._onto(sel, hit.source)
            case "pile":
                self._select(hit.source, hit.depth)

    def next_round(self) -> None:
        if self.round_end is not None and not self.snap.over and not self.ready:
            self.ready = True
            self.deal_next()

    def _select(self, source: int, depth: int) -> None:
        card = self._card_at(source, depth)
        if card is None:
            self.selection = None
            self.notice = "that pile is empty" if self.playing else ""
            return
        self.selection, self.notice = Selection(source, card, depth), ""

    def _card_at(self, source: int, depth: int) -> Card | None:
        state = self.snap.display
        if state is None or not self.playing:
            return None
        cards = _choose.pile_cards(state, self.seat, source)
        return cards[-1 - depth] if depth < len(cards) else None

    def _onto(self, sel: Selection, dest: int) -> None:
        state = self.snap.display
        assert state is not None
        self._make(_choose.onto_work(state, self.seat, sel.card, sel.source, dest))

    def _checked(self, move: Move) -> None:
        state = self.snap.display
        self._make(move if state is None else _choose.checked(state, move))

    def _make(self, move: Move | str) -> None:
        if isinstance(move, str):
            self.notice = move
            return
        if not self.playing:
            self.notice = "no round is being played"
            return
        self.selection, self.notice = None, ""
        self.send(move)


def _move_text(move: Move, look: Look) -> str:
    """A move in a few words, for the message log."""
    match move:
        case ToFoundation(card=card, source=source):
            return f"{look.card(card)} from {_source_text(source)} up"
        case ToWork(card=card, dest=dest) | SlideUnder(card=card, dest=dest):
            return f"{look.card(card)} to pile {dest + 1}"
        case TurnStock():
            return "turn stock"
        case DeclareStuck():
            return "stuck"
        case CallNerts():
            return "Nerts!"
    return type(move).__name__


def _source_text(source: int) -> str:
    return {NERTS: "Nerts", WASTE: "waste"}.get(source, f"pile {source + 1}")
