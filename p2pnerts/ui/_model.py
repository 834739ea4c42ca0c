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

from p2pnerts.net import Narrator
from p2pnerts.protocol import (
    Ack,
    CommitFrame,
    Event,
    Message,
    PlayCommitted,
    PlayInTheAir,
    PlayReturned,
    RoundOver,
    RoundStarted,
    TeamDeal,
)
from p2pnerts.rules import (
    CallNerts,
    Card,
    DeclareStuck,
    Move,
    SlideUnder,
    Tableau,
    TableOptions,
    ToFoundation,
    ToWork,
    TurnStock,
)
from p2pnerts.ui import _choose
from p2pnerts.ui._frame import cut, filled
from p2pnerts.ui._leave import Leave
from p2pnerts.ui._news import News, note_membership
from p2pnerts.ui._races import Races
from p2pnerts.ui._snapshot import Hit, Line, Look, Selection, Snapshot
from p2pnerts.ui._words import BLIND, IDLE_STUCK, air_words, message_gist
from p2pnerts.words import together

TICKER = 40
"""Ticker lines kept (the screen shows the newest that fit)."""
MESSAGES = 200
"""Protocol messages the classroom pane keeps."""
FLASH = 2.0
"""Seconds a card that went back stays marked."""
ONE_HAND = "one hand:"
"""How a refusal to make a move while the last is in the air begins (here and in the peer)."""


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
    end_match: Callable[[], None] = lambda: None
    """Ends the match here, with the scores so far, while the table waits for a silent
    seat it cannot leave out."""
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
    news: News = field(init=False)
    """The news of the player's own seat coming back (`_news`)."""
    races: Races = field(init=False)
    """Races and ties, marked in the classroom pane's message list (`_races`)."""
    round_number: int = 0
    round_end: RoundOver | None = None
    """The last round's result, shown until the next round starts."""
    history: list[RoundOver] = field(default_factory=list)
    ready: bool = False
    """The player said they are ready for the next round."""
    help: bool = False
    classroom: bool = False
    acks: bool = False
    """The classroom pane lists the Acks (the heartbeat) too."""
    leave: Leave = field(default_factory=lambda: Leave("Leave the match?", "play on"))
    """Asked by Ctrl-C, and by q while the match is on."""
    started: float = 0.0
    """When the model was made, by its clock: the classroom's times count from here."""
    mate_moved: int | None = None
    """The teammate whose move last landed on the shared tableau since this player's
    last move went into the air."""
    read_only: bool = False
    """The table of a match replayed from its log: the screen offers no move."""

    def __post_init__(self) -> None:
        self.started = self.clock()
        self.news = News(lambda: self.clock())  # the clock as it is then (tests set it)
        self.races = Races(self.options, len(self.names), self.name)

    # --- reading ----------------------------------------------------------------------------

    @property
    def tableau(self) -> Tableau | None:
        state = self.snap.display
        return None if state is None else state.tableau_of(self.seat)

    @property
    def stuck(self) -> bool:
        """This player's tableau is declared stuck."""
        tableau = self.tableau
        return tableau is not None and tableau.stuck

    @property
    def seating(self) -> tuple[int, ...]:
        """The deck each seat plays: teammates share one (everyone solo: seat = deck)."""
        state = self.snap.display
        return state.seats if state is not None else self.options.seating(len(self.names))

    @property
    def deck(self) -> int:
        """This player's deck: theirs alone, or their team's."""
        return self.seating[self.seat]

    def team(self, deck: int) -> tuple[int, ...]:
        """The seats playing ``deck``."""
        return tuple(s for s, d in enumerate(self.seating) if d == deck)

    def team_names(self, deck: int) -> list[str]:
        """The names of the players of ``deck``, this player's first."""
        seats = sorted(self.team(deck), key=lambda s: s != self.seat)
        return [self.names[s] for s in seats]

    def team_name(self, deck: int) -> str:
        """A deck's players by name: ``Bea``, ``You & Bot 1``, ``Ann, Bea & Cy``."""
        return together(self.team_names(deck))

    def total(self, deck: int) -> int:
        return self.snap.totals[deck] if deck < len(self.snap.totals) else 0

    @property
    def flying(self) -> Card | None:
        """The card this player's move in the air carries (for a stock turn: the waste
        top it shows), so the screen can mark it."""
        air, tableau = self.snap.hand.last, self.tableau
        match air:
            case ToFoundation(card=card) | ToWork(card=card) | SlideUnder(card=card):
                return card
            case TurnStock() if tableau is not None and tableau.waste:
                return tableau.waste[-1]
        return None

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
        was_stuck = self.stuck
        self.snap = snap
        if self.stuck and not was_stuck:
            self.notice = ""  # said before the seat was stuck: the stuck line says what now
        for event in events:
            self._hear(event)
        if snap.hand.last is None and self.notice.startswith(ONE_HAND):
            self.notice = ""  # the hand is free again
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

    def note_message(
        self, outgoing: bool, seat: int | None, message: Message | CommitFrame
    ) -> None:
        """A protocol message or (at a majority's table) a commit frame went out or came
        in (the classroom pane lists them)."""
        to = message.to if isinstance(message, TeamDeal) else seat  # (a Ballot: one seat)
        if not outgoing:
            arrow = f"← {cut(self.name(seat), 8)}"
        else:
            arrow = "→ all" if to is None else f"→ {cut(self.name(to), 8)}"
        text = f"{filled(arrow, 10)} {type(message).__name__:<5} L={message.clock:<4} "
        quiet = isinstance(message, Ack)
        self.messages.append(Line(self.clock(), text + message_gist(message, self.look), quiet))

    @property
    def narrator(self) -> Narrator:
        """Tells this seat's events in words, this player as "You"."""
        look = self.look
        return Narrator(self.names, self.seating, self.seat, you=True, card=look.card, scores=False)

    def _hear(self, event: Event) -> None:
        self.messages.extend(Line(self.clock(), t, marked=True) for t in self.races.hear(event))
        moved_first = None
        match event:
            case RoundStarted(round=number):
                self.round_number, self.round_end, self.ready = number, None, False
                self.selection, self.notice, self.mate_moved = None, "", None
            case PlayInTheAir():
                self.mate_moved = None  # only a teammate's move from now on can beat it
            case PlayCommitted(seat=seat, move=DeclareStuck()) if seat == self.seat:
                if self.snap.stuck_for_idle and self.snap.turns_though_stuck:
                    self.tell(IDLE_STUCK)
                    return
            case PlayCommitted(seat=seat) if self._mate(seat):
                self.mate_moved = seat
                if not isinstance(event.move, ToFoundation | CallNerts):
                    return  # a teammate's move on the shared tableau: the screen shows it
            case PlayReturned(seat=seat, move=move) if seat == self.seat:
                if isinstance(move, ToFoundation | ToWork | SlideUnder):
                    self.returned = (move.card, self.clock() + FLASH)
                # On a shared tableau a move the rules refuse at its place in the order was
                # beaten by a teammate's, the only other hand on these cards.
                moved_first = () if self.mate_moved is None else (self.mate_moved,)
            case RoundOver():
                self.round_end = event
                if not event.again:  # replayed on coming back: in the history already
                    self.history.append(event)
                self.selection = None
        note_membership(self.notes, event)
        told = self.narrator.tell(event, moved_first)
        if told is not None:
            self.tell(told.text)
            self.news.hear(event, told.text)

    def news_now(self) -> str:
        """The news of the player's own seat coming back, while it is fresh ('' else)."""
        return self.news.now()

    def _mate(self, seat: int) -> bool:
        return seat != self.seat and self.seating[seat] == self.deck

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
            if sel is not None:
                self.notice = "that card has no move now"
            elif self.stuck and not self.snap.turns_though_stuck:
                self.notice = (
                    "no card on your tableau can move now: you are stuck until the stocks rotate"
                )
            else:
                self.notice = "no card on your tableau can move now: turn the stock"
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
        """The player is ready for the next round (or the first)."""
        between = self.round_end is not None or self.snap.display is None
        if between and not self.snap.over and not self.ready:
            self.ready = True
            self.deal_next()

    def stop_waiting(self) -> None:
        """End the match here rather than wait for a silent seat to come back (or for a
        table that no longer answers)."""
        if self.snap.stranded or self.snap.forsaken:
            self.end_match()
        elif not self.snap.over:
            self.notice = "e ends the match only while the table waits for a silent seat"

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
        air = None if isinstance(move, str) else self.snap.hand.waits_for(move)
        if self.snap.blind and self.playing:
            self.notice = BLIND
        elif air is not None:  # the selection stays: the key works again once it lands
            self.notice = f"{ONE_HAND} wait until your {air_words(air, self.look)} lands or returns"
        elif isinstance(move, str):
            self.notice = move
        elif not self.playing:
            self.notice = "no round is being played"
        else:
            self.selection, self.notice = None, ""
            self.send(move)
