"""Races as the player sees them: replicas wired by hand, the model on this player's seat.

Two solo players race for a foundation; teammates race on the tableau they share.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from _tables import card, order

from p2pnerts.protocol import Message, Replica, TeamDeal, addressed_to
from p2pnerts.rules import (
    NERTS,
    NEW_FOUNDATION,
    Move,
    TableOptions,
    TieRule,
    ToFoundation,
    ToWork,
    TurnStock,
)
from p2pnerts.ui import Snapshot, TableModel, render

Deal = tuple[list[str], list[str]]
"""A deck's Nerts cards (the last on top) and work piles, as `_tables.order` takes them."""


class Table:
    """A replica per seat and the model on seat ``me``; messages move only when told to."""

    def __init__(
        self,
        options: TableOptions,
        names: Sequence[str],
        me: int,
        deals: Sequence[Deal],
        keep: Callable[[Message], bool] = lambda _: True,
    ) -> None:
        """Deal every deck and exchange until play is on (``keep``: as in `deliver`)."""
        self.now = 0.0
        self.me = me
        players = len(names)
        seating = options.seating(players)
        chosen = {deck: tuple(order(deck, *deals[deck], options)) for deck in set(seating)}
        self.replicas = [
            Replica(seat, options, players, shuffle=lambda deck, *_: chosen[deck])
            for seat in range(players)
        ]
        self.model = TableModel(me, tuple(names), options, clock=lambda: self.now)
        self.sent: list[Move] = []
        self.model.send = self.sent.append
        self.links: dict[tuple[int, int], list[Message]] = {
            (a, b): [] for a in range(players) for b in range(players) if a != b
        }
        for seat in range(players):
            self.replicas[seat].start_round(bytes([seat]) * 32, 0.0)
        self.exchange(keep)

    def post(self) -> None:
        """Put every replica's outgoing messages on its links, as the network would."""
        for sender, replica in enumerate(self.replicas):
            for message in replica.take_outgoing():
                if sender == self.me:
                    self.model.note_message(True, None, message)
                for dest in range(len(self.replicas)):
                    if addressed_to(message, dest):
                        self.links[sender, dest].append(message)

    def deliver(self, sender: int, keep: Callable[[Message], bool] = lambda _: True) -> None:
        """Only ``sender``'s messages (those ``keep`` keeps; the others are lost)."""
        self.post()
        for (a, dest), queue in self.links.items():
            if a == sender:
                for message in queue:
                    if keep(message):
                        self._receive(dest, sender, message)
                queue.clear()
        self.show()

    def _receive(self, dest: int, sender: int, message: Message) -> None:
        if dest == self.me:
            self.model.note_message(False, sender, message)
        self.replicas[dest].receive(message, self.now)

    def exchange(self, keep: Callable[[Message], bool] = lambda _: True) -> None:
        """Deliver everything, acknowledgements included, until the links are quiet."""
        for _ in range(100):
            self.post()
            moved = any(self.links.values())
            for sender in range(len(self.replicas)):
                self.deliver(sender, keep)
            if not moved:
                self.now += 0.01
                for replica in self.replicas:
                    replica.tick(self.now)
                if not any(r.outbox.queue for r in self.replicas):
                    break
        self.show()

    def intend(self, seat: int, move: Move) -> None:
        self.replicas[seat].intend(move, self.now)
        self.show()

    def play_sent(self) -> None:
        """This player's last key made a move: the peer takes it."""
        self.intend(self.me, self.sent[-1])

    def show(self) -> None:
        mine = self.replicas[self.me]
        decks = max(mine.seats) + 1
        totals = tuple(sum(row[d] for row in mine.match_scores) for d in range(decks))
        snap = Snapshot(mine.display, mine.in_the_air, totals=totals, blind=mine.blind)
        self.model.refresh(snap, mine.take_events())


def pair(tie_rule: TieRule) -> Table:
    """Bea at seat 0 and this player at seat 1, each alone, Bea's A♠ on a foundation."""
    table = Table(
        TableOptions(tie_rule=tie_rule),
        ("Bea", "You"),
        1,
        [(["2S"], ["AS", "9D", "KC", "QH"]), (["2S"], ["8D", "9C", "KH", "QS"])],
    )
    table.intend(0, ToFoundation(0, card(0, "AS"), 0, NEW_FOUNDATION))
    table.exchange()
    return table


def test_a_lost_race_shows_in_the_air_then_goes_back_and_names_the_winner() -> None:
    table = pair(TieRule.SEAT)
    bea = table.replicas[0]
    assert table.model.playing
    bea.send_ack(table.now)
    table.deliver(0)  # this seat's clock is now at least Bea's: her next play comes first
    # Both play a 2♠ on the ace before hearing of the other's.
    table.intend(0, ToFoundation(0, card(0, "2S"), NERTS, 0))
    mine = card(1, "2S")
    table.model.pick(NERTS)
    table.model.to_foundation()
    assert table.sent == [ToFoundation(1, mine, NERTS, 0)]
    table.play_sent()
    screen = render(table.model, 80, 24).text()
    assert "2♠ is in the air" in screen
    assert " 2♠2" in screen  # on the foundation at once, marked as this seat's (tag 2)
    table.exchange()
    model = table.model
    assert model.snap.in_the_air is None
    assert any(line.text == "Bea beat you to 2♠: it goes back" for line in model.ticker)
    assert model.marked_returned(mine)
    tableau = model.tableau
    assert tableau is not None and tableau.nerts[-1] == mine  # back on the Nerts pile
    screen = render(model, 80, 24).text()
    assert " 2♠1" in screen and " 2♠2" not in screen  # Bea's card is the one that stays


def test_a_tie_shows_both_cards_staying() -> None:
    table = pair(TieRule.BOTH_STAY)
    bea, me = table.replicas
    bea.send_ack(table.now)
    table.deliver(0)
    me.send_ack(table.now)
    table.deliver(1)
    assert bea.clock == me.clock  # the two plays below are stamped alike: concurrent
    table.intend(0, ToFoundation(0, card(0, "2S"), NERTS, 0))
    table.intend(1, ToFoundation(1, card(1, "2S"), NERTS, 0))
    table.exchange()
    assert table.model.ticker[-1].text == "You played 2♠: a tie, both stay"
    assert " 2♠2=1" in render(table.model, 80, 24).text()  # this seat's 2♠ beside Bea's


# --- teammates ------------------------------------------------------------------------------

TEAM = (["7H"], ["8S", "9D", "KC", "AS"])
"""Bea's and this player's deck: 7♥ on the Nerts pile; 8♠ 9♦ K♣ A♠ on the work piles."""


def teammates(keep: Callable[[Message], bool] = lambda _: True) -> Table:
    """Bea (seat 0, who deals the team's deck) and this player (seat 1) play deck 1; Cy
    plays deck 2 alone."""
    return Table(
        TableOptions(teams=(2, 1)),
        ("Bea", "You", "Cy"),
        1,
        [TEAM, (["2C"], ["3H", "4H", "5H", "6H"])],
        keep,
    )


def bea_first(table: Table) -> None:
    """Bring this seat's clock past Bea's: her next move is ordered before this seat's."""
    table.replicas[0].send_ack(table.now)
    table.deliver(0)


def test_the_team_plays_one_tableau_named_for_both_and_scores_once() -> None:
    table = teammates()
    model = table.model
    assert model.deck == 0 and model.team(0) == (0, 1) and model.team_name(0) == "You & Bea"
    screen = render(model, 80, 24).text()
    assert "─ You & Bea · 0 points" in screen and " 2 Cy " in screen
    assert "Bea" not in screen.split("opponents")[1].split("You & Bea")[0]  # not an opponent
    assert "teams 2+1" in screen.splitlines()[0]


def test_a_teammates_move_lands_on_this_players_tableau_and_drops_their_selection() -> None:
    table = teammates()
    model = table.model
    model.pick(NERTS)
    assert model.selection is not None
    seven = card(0, "7H")
    table.intend(0, ToWork(0, seven, NERTS, 0))
    table.exchange()
    tableau = model.tableau
    assert tableau is not None and tableau.work[0].cards[-1] == seven
    assert model.selection is None


def test_a_stock_turn_a_teammate_beat_goes_back_with_a_plain_line() -> None:
    table = teammates()
    model = table.model
    bea_first(table)
    table.intend(0, TurnStock(0))
    model.turn_stock()
    table.play_sent()
    assert isinstance(model.snap.in_the_air, TurnStock)  # on a team tableau, every move waits
    assert "stock turn is in the air" in render(model, 80, 24).text()
    # A key meanwhile: the one hand is busy, said plainly; nothing is sent.
    model.pick(3)
    model.to_foundation()
    assert model.notice == "one hand: wait until your stock turn lands or returns"
    assert len(table.sent) == 1 and model.selection is not None
    table.exchange()
    assert model.ticker[-1].text == "Bea moved first: your stock turn is undone"
    assert model.snap.in_the_air is None and model.notice == ""  # the hand is free again
    tableau = model.tableau
    assert tableau is not None and len(tableau.waste) == 3  # Bea's turn, not two turns
    model.to_foundation()  # the selection was kept: the key works now
    assert table.sent[-1] == ToFoundation(1, card(0, "AS"), 3, NEW_FOUNDATION)


def test_a_card_a_teammate_moved_first_goes_back_and_is_marked() -> None:
    table = teammates()
    model = table.model
    bea_first(table)
    ace = card(0, "AS")
    table.intend(0, ToFoundation(0, ace, 3, NEW_FOUNDATION))
    model.pick(3)
    model.to_foundation()
    table.play_sent()
    assert "A♠ is in the air" in render(model, 80, 24).text()
    table.exchange()
    assert [line.text for line in model.ticker][-2:] == [
        "Bea played A♠",
        "Bea moved first: your A♠ goes back",
    ]
    assert model.marked_returned(ace)


def test_a_seat_the_team_deck_has_not_reached_is_told_it_cannot_play() -> None:
    table = teammates(keep=lambda m: not isinstance(m, TeamDeal))
    model = table.model
    assert model.playing and model.snap.blind
    model.turn_stock()
    assert table.sent == [] and "deck has not reached you" in model.notice
    model.cancel()
    assert "deck has not reached you" in render(model, 80, 24).text().splitlines()[-1]
    table.links[0, 1] += table.replicas[0].resend_to(1)  # a new connection to Bea
    table.exchange()
    assert not model.snap.blind
    model.turn_stock()
    assert table.sent == [TurnStock(1)]


def test_the_classroom_lists_the_team_deck_as_sent_to_one_seat() -> None:
    table = teammates()
    lines = [line.text for line in table.model.messages if "TeamDeal" in line.text]
    assert len(lines) == 2 and all(line.startswith("← Bea") for line in lines)  # rounds 0, 1
    assert lines[-1].endswith("round 1 deck → seat 2 only")
    table.model.classroom = True
    assert "→ seat 2 only" in render(table.model, 80, 24).text()
