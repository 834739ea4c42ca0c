"""A race lost, as the player sees it: two replicas wired by hand, the model on the loser's."""

from __future__ import annotations

from _tables import card, order

from p2pnerts.protocol import Replica
from p2pnerts.rules import NERTS, NEW_FOUNDATION, Move, TableOptions, TieRule, ToFoundation
from p2pnerts.ui import Snapshot, TableModel, render


class Pair:
    """Bea at seat 0 and this player at seat 1; messages move only when told to."""

    def __init__(self, options: TableOptions) -> None:
        self.now = 0.0
        self.replicas = [Replica(seat, options, 2) for seat in (0, 1)]
        self.model = TableModel(1, ("Bea", "You"), options, clock=lambda: self.now)
        bea, me = self.replicas
        bea.start_round(order(0, ["2S"], ["AS", "9D", "KC", "QH"], options), bytes(16), 0.0)
        me.start_round(order(1, ["2S"], ["8D", "9C", "KH", "QS"], options), bytes(16), 0.0)
        self.exchange()
        bea.intend(ToFoundation(0, card(0, "AS"), 0, NEW_FOUNDATION), self.now)
        self.exchange()

    def exchange(self) -> None:
        """Deliver everything, acknowledgements included, until the links are quiet."""
        for _ in range(100):
            moved = False
            for sender, replica in enumerate(self.replicas):
                for message in replica.take_outgoing():
                    self.replicas[1 - sender].receive(message, self.now)
                    moved = True
            if not moved:
                self.now += 0.01
                for replica in self.replicas:
                    replica.tick(self.now)
                if not any(r.out for r in self.replicas):
                    break
        self.show()

    def deliver(self, sender: int) -> None:
        """Only ``sender``'s messages, to the other seat."""
        for message in self.replicas[sender].take_outgoing():
            self.replicas[1 - sender].receive(message, self.now)
        self.show()

    def show(self) -> None:
        mine = self.replicas[1]
        snap = Snapshot(display=mine.display, in_the_air=mine.in_the_air, totals=(0, 0))
        self.model.refresh(snap, mine.take_events())


def test_a_lost_race_shows_in_the_air_then_goes_back_and_names_the_winner() -> None:
    pair = Pair(TableOptions(tie_rule=TieRule.SEAT))
    bea, me = pair.replicas
    assert pair.model.playing
    bea.send_ack(pair.now)
    pair.deliver(0)  # this seat's clock is now at least Bea's: her next play comes first
    # Both play a 2♠ on the ace before hearing of the other's.
    bea.intend(ToFoundation(0, card(0, "2S"), NERTS, 0), pair.now)
    mine = card(1, "2S")
    sent: list[Move] = []
    pair.model.send = sent.append
    pair.model.pick(NERTS)
    pair.model.to_foundation()
    assert sent == [ToFoundation(1, mine, NERTS, 0)]
    me.intend(sent[0], pair.now)
    pair.show()
    screen = render(pair.model, 80, 24).text()
    assert "2♠ is in the air" in screen
    assert " 2♠2" in screen  # on the foundation at once, marked as this seat's (tag 2)
    pair.exchange()
    model = pair.model
    assert model.snap.in_the_air is None
    assert any(line.text == "Bea beat you to 2♠: it goes back" for line in model.ticker)
    assert model.marked_returned(mine)
    tableau = model.tableau
    assert tableau is not None and tableau.nerts[-1] == mine  # back on the Nerts pile
    screen = render(model, 80, 24).text()
    assert " 2♠1" in screen and " 2♠2" not in screen  # Bea's card is the one that stays


def test_a_tie_shows_both_cards_staying() -> None:
    pair = Pair(TableOptions(tie_rule=TieRule.BOTH_STAY))
    bea, me = pair.replicas
    bea.send_ack(pair.now)
    pair.deliver(0)
    me.send_ack(pair.now)
    pair.deliver(1)
    assert bea.clock == me.clock  # the two plays below are stamped alike: concurrent
    bea.intend(ToFoundation(0, card(0, "2S"), NERTS, 0), pair.now)
    me.intend(ToFoundation(1, card(1, "2S"), NERTS, 0), pair.now)
    pair.exchange()
    assert pair.model.ticker[-1].text == "You played 2♠: a tie, both stay"
    assert " 2♠2=1" in render(pair.model, 80, 24).text()  # this seat's 2♠ beside Bea's
