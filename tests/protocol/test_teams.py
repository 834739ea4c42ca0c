"""Teams of 2–3 sharing one deck and tableau: one deals, the deck reaches the teammates
alone, their moves on the shared tableau race like foundation plays, and a teammate that
drops out or comes back leaves the team playing."""

from __future__ import annotations

import contextlib
import random
from dataclasses import replace

import pytest
from _table import SALT, Table, order

from p2pnerts.bots import SimpleBot
from p2pnerts.protocol import (
    AuditFailed,
    AuditPassed,
    Disk,
    LocalProtocolError,
    Message,
    PlayCommitted,
    PlayReturned,
    Ready,
    RemoteProtocolError,
    Replica,
    Reveal,
    RoundOver,
    RoundStarted,
    Status,
    TeamDeal,
    Welcome,
    decode,
    encode,
)
from p2pnerts.protocol._dealing import TEAM_DEALS_KEPT
from p2pnerts.rules import (
    NERTS,
    NEW_FOUNDATION,
    BadOptions,
    CallNerts,
    Card,
    IllegalMove,
    State,
    Suit,
    TableOptions,
    ToFoundation,
    ToWork,
    TurnStock,
    shuffled_deck,
    teams_from_text,
)

AH0 = Card(0, 1, Suit.HEARTS)


def _orders(options: TableOptions, players: int) -> list[list[Card]]:
    """Deck 0 shows the ace of hearts; every other seat's own shuffle shows a queen. A
    teammate's shuffle (kept spare) differs from its dealer's: the five of clubs on top."""
    seats = options.seating(players)
    orders = []
    for seat, deck in enumerate(seats):
        dealer = seats.index(deck) == seat
        nerts = ["AH"] if deck == 0 and dealer else ["QS"] if dealer else ["5C"]
        orders.append(order(deck, nerts, ["2H", "9C", "9S", "KD"], options))
    return orders


def _teams(*sizes: int, settle: bool = True, **options: object) -> Table:
    opts = TableOptions(teams=sizes, **options)  # type: ignore[arg-type]
    table = Table(sum(sizes), opts)
    if settle:
        table.start(_orders(opts, table.players))
    return table


def _known(state: State | None, deck: int) -> list[Card]:
    assert state is not None
    t = state.tableaux[deck]
    cards = [*t.nerts, *t.stock, *t.waste, *(c for p in t.work for c in p.cards)]
    cards += [c for f in state.all_foundations() for c in f.cards if c.deck == deck]
    return [c for c in cards if c is not None]


# --- options and wire --------------------------------------------------------------------


def test_team_sizes_give_each_seat_its_deck_and_bad_sizes_are_refused() -> None:
    assert TableOptions(teams=(2, 1, 3)).seating(6) == (0, 0, 1, 2, 2, 2)
    assert TableOptions().seating(3) == (0, 1, 2)
    assert TableOptions(teams=(2, 2)).summary() == "teams=2+2"
    with pytest.raises(BadOptions, match="seat 4, not 5"):
        TableOptions(teams=(2, 2)).seating(5)
    for bad in [(4, 1), (0, 2), (2,)]:
        with pytest.raises(BadOptions):
            TableOptions(teams=bad)
    assert teams_from_text("2+1+3") == (2, 1, 3) and teams_from_text("") == ()
    assert teams_from_text(TableOptions(teams=(3, 3)).teams_text()) == (3, 3)
    for text in ["2+", "2,2", "4+1", "2"]:
        with pytest.raises(BadOptions):
            teams_from_text(text)
    with pytest.raises(LocalProtocolError, match="seat 4, not 3"):
        Replica(0, TableOptions(teams=(2, 2)), 3)


def test_the_teams_travel_in_the_options_and_a_table_of_solo_players_encodes_as_before() -> None:
    teams = Welcome(bytes(16), 3, 5, TableOptions(teams=(2, 2, 1)), "t")
    assert decode(encode(teams)) == teams
    solo = Welcome(bytes(16), 3, 5, TableOptions(), "t")
    assert len(encode(teams)) == len(encode(solo)) + 4  # one array of three small integers
    assert decode(encode(solo)) == solo


# --- the deal ----------------------------------------------------------------------------


def test_a_team_deals_one_deck_and_its_deck_reaches_the_teammate_alone() -> None:
    table = _teams(2, 2, settle=False)
    table.choose(1, _orders(table.options, 4))
    for seat in range(4):
        table.deal(seat)
    table.flush()
    sent = {key: list(queue) for key, queue in table.links.items()}
    deals = {key: [m for m in q if isinstance(m, TeamDeal)] for key, q in sent.items()}
    assert {key for key, found in deals.items() if found} == {(0, 1), (2, 3)}
    readies = {m.sender for q in sent.values() for m in q if isinstance(m, Ready)}
    assert readies == {0, 2}  # a team's first seat deals (here, round 0: it pledges)
    table.settle()
    for seat in range(4):
        assert [e.dealt for e in table.of(seat, RoundStarted)] == [(0, 1)]
    mate = table.replicas[1].display
    assert mate is not None and mate.tableau_of(1).nerts[-1] == AH0  # the dealer's deck
    assert mate.tableau_of(1) == table.replicas[0].inplay.private.tableau_of(0)  # type: ignore[union-attr]
    assert None not in mate.tableau_of(1).stock
    other = table.replicas[2].display
    assert other is not None and set(other.tableau_of(0).stock) == {None}
    table.agree()


def test_a_team_deck_for_another_seat_or_from_a_stranger_is_a_remote_error() -> None:
    table = _teams(2, 2)
    for deal in [
        TeamDeal(0, 0, 1, 1, 2, 1, SALT, SALT, SALT),  # addressed to seat 2, reaching seat 1
        TeamDeal(2, 0, 1, 1, 1, 1, SALT, SALT, SALT),  # from seat 2, of the other team
    ]:
        with pytest.raises(RemoteProtocolError):
            table.replicas[1].receive(deal, table.now)


def test_a_teammate_sending_decks_for_rounds_far_ahead_fills_no_memory() -> None:
    table = _teams(2, 2)
    for number in range(1, 1001):
        deal = TeamDeal(0, 0, number, number, 1, number, SALT, SALT, SALT)
        table.replicas[1].receive(deal, 0.0)
    kept = table.replicas[1].dealing._team_deals
    assert sorted(kept) == list(range(TEAM_DEALS_KEPT))  # from round 0, the one before
    assert all(set(by) == {0} for by in kept.values())


# --- racing on the shared tableau ----------------------------------------------------------


def test_teammates_turning_the_stock_at_once_one_turn_stands_and_the_other_returns() -> None:
    table = _teams(2, 1)
    for seat in (0, 1):
        table.replicas[seat].intend(TurnStock(seat), table.now)
    table.flush()
    table.settle()
    committed = [e for e in table.of(2, PlayCommitted) if isinstance(e.move, TurnStock)]
    returned = table.of(2, PlayReturned)
    assert len(committed) == 1 and len(returned) == 1
    assert "turned those cards up first" in returned[0].reason
    assert table.of(returned[0].seat, PlayReturned) == returned
    for seat in (0, 1):
        private = table.replicas[seat].inplay.private
        cards = _known(private, 0)
        assert len(cards) == len(set(cards)) == 52
        assert private is not None and len(private.tableaux[0].waste) == 3
    assert table.replicas[2].public == table.replicas[0].public
    table.agree()


def test_teammates_playing_the_same_card_one_lands_and_the_other_returns() -> None:
    table = _teams(2, 1)
    for seat in (0, 1):
        move = ToFoundation(seat, AH0, NERTS, NEW_FOUNDATION)
        table.replicas[seat].intend(move, table.now)
    table.flush()
    table.settle()
    for seat in range(3):
        played = [e for e in table.of(seat, PlayCommitted) if isinstance(e.move, ToFoundation)]
        assert len(played) == 1 and len(table.of(seat, PlayReturned)) == 1
        public = table.replicas[seat].public
        assert public is not None and [f.rank for f in public.foundations] == [1]
    table.agree()


def test_a_foundation_play_whose_card_a_teammate_moved_away_names_no_winner() -> None:
    opts = TableOptions(teams=(2, 1))
    table = Table(3, opts)
    mine = order(0, ["QS"], ["2H", "9C", "AS", "KD"], opts)
    theirs = order(1, ["AH"], ["QD", "9C", "9S", "KD"], opts)
    table.start([mine, mine, theirs])
    for move in (
        ToFoundation(0, Card(0, 1, Suit.SPADES), 2, NEW_FOUNDATION),
        ToFoundation(2, Card(1, 1, Suit.HEARTS), NERTS, NEW_FOUNDATION),
    ):
        table.play(move.seat, move)
    two = Card(0, 2, Suit.HEARTS)
    table.replicas[1].intend(ToWork(1, two, 0, 2), table.now)  # onto the emptied pile
    table.flush()
    table.deliver(1, 0)  # seat 0 hears it (its clock passes it) before it commits
    table.replicas[0].intend(ToFoundation(0, two, 0, 1), table.now)  # onto seat 2's ace
    table.flush()
    table.settle()
    for seat in range(3):
        (returned,) = table.of(seat, PlayReturned)
        assert returned.seat == 0 and returned.winner is None  # seat 2 won no race
    table.agree()


# --- the round's end and the audit ---------------------------------------------------------


def test_a_teammate_calls_nerts_and_every_deck_is_audited_by_all() -> None:
    table = _teams(2, 1, nerts_pile=1)
    table.play(0, ToFoundation(0, AH0, NERTS, NEW_FOUNDATION))
    table.play(1, CallNerts(1))
    for seat in range(3):
        (over,) = table.of(seat, RoundOver)
        assert over.caller == 1 and len(over.scores) == 2  # one score per deck
        assert table.of(seat, AuditPassed) == [AuditPassed(1, ())]
    table.agree()


def _lie(message: Message) -> list[Message]:
    if isinstance(message, Reveal) and message.round == 1:
        return [replace(message, secret=bytes(32))]
    return [message]


def test_a_team_revealing_another_secret_than_the_one_pledged_is_voided() -> None:
    table = _teams(2, 1, nerts_pile=1)
    table.tamper[0] = table.tamper[1] = _lie
    table.play(0, ToFoundation(0, AH0, NERTS, NEW_FOUNDATION))
    table.play(0, CallNerts(0))
    failed = table.of(2, AuditFailed)
    assert [(e.seat in (0, 1), "pledge" in e.reason, e.points) for e in failed] == [
        (True, True, -2)
    ]
    assert table.replicas[2].match_scores == [(-2, -2)]  # the team's round: the lowest


# --- faults --------------------------------------------------------------------------------


def test_when_the_seat_that_deals_is_gone_its_teammate_deals_the_team_in() -> None:
    table = _teams(2, 1, 1, settle=False)
    table.crash(0)
    table.choose(1, _orders(table.options, 4))
    for seat in (1, 2, 3):
        table.deal(seat)
    table.flush()
    table.run_for(6)
    for seat in (1, 2, 3):
        assert table.replicas[seat].members == {1, 2, 3}
        assert [e.dealt for e in table.of(seat, RoundStarted)] == [(0, 1, 2)]
        assert table.replicas[seat].dealt_by(1) == {0: 1, 1: 2, 2: 3}
    mine = table.replicas[1].display
    assert mine is not None and mine.tableau_of(1).nerts[-1] == AH0
    assert table.replicas[1].disk.order == tuple(_orders(table.options, 4)[0])
    table.agree()


def test_a_dealer_gone_after_its_deck_reached_the_teammate_but_not_its_ready() -> None:
    table = _teams(2, 1, 1, settle=False)
    orders = _orders(table.options, 4)
    table.choose(1, orders)
    table.deal(0)
    table.flush()
    assert isinstance(table.links[0, 1][0], TeamDeal)
    table.deliver(0, 1, count=1)  # the deck reaches seat 1; the Ready reaches nobody
    table.crash(0)
    for seat in (1, 2, 3):
        table.deal(seat)
    table.flush()
    table.run_for(6)
    for seat in (1, 2, 3):
        assert [e.dealt for e in table.of(seat, RoundStarted)] == [(0, 1, 2)]
        assert table.replicas[seat].dealt_by(1)[0] == 1  # it dealt the team, from its secret
    assert table.replicas[1].disk.order == tuple(orders[0])
    table.agree()


def _back_without_its_disk() -> tuple[Table, Replica]:
    """Teams 2+1+1 in play, and seat 1 (seat 0's teammate) crashed, restarted with an
    empty disk and let back in: the seat that came back."""
    table = _teams(2, 1, 1)
    table.crash(1)
    table.run_for(6)
    table.restart(1, Disk())
    table.run_for(6)
    return table, table.replicas[1]


def test_a_teammate_that_lost_its_disk_sees_the_deck_again_from_its_teammate() -> None:
    table, back = _back_without_its_disk()
    assert back.status is Status.NORMAL and back.members == {0, 1, 2, 3}
    display = back.display
    assert display is not None and set(display.tableau_of(1).stock) == {None}  # blind
    assert not back.dealing.rounds[1].order
    table.links[0, 1].extend(table.replicas[0].resend_to(1))  # a new connection to seat 0
    table.settle()
    display = back.display
    assert display is not None and None not in display.tableau_of(1).stock
    assert display.tableau_of(1) == table.replicas[0].inplay.private.tableau_of(0)  # type: ignore[union-attr]
    back.intend(TurnStock(1), table.now)  # and plays it
    table.flush()
    table.settle()
    assert [type(e.move) for e in table.of(0, PlayCommitted)][-1] is TurnStock
    table.agree()


@pytest.mark.parametrize("away", ["stalled", "restarted"])
@pytest.mark.parametrize("seat", [0, 1])
def test_a_teammate_back_with_its_disk_sees_its_deck_without_being_sent_it(
    away: str, seat: int
) -> None:
    """Seat 0 dealt the team's deck (seat 1 took it from seat 0's TeamDeal). Either of them
    is left out and comes back on the same links, sent nothing again: its links stalled
    (a Wi-Fi stall), or it crashed and restarted from its disk. The order on its disk is
    the one the deal shows; the dealer, above all, has nobody to send it the deck again."""
    table = _teams(2, 2)
    assert table.replicas[2].dealt_by(1)[0] == 0
    if away == "stalled":
        table.held.update(frozenset((seat, other)) for other in range(4) if other != seat)
        table.run_for(12)
        assert table.replicas[seat].status is not Status.NORMAL
        table.held.clear()
    else:
        disk = table.crash(seat)
        table.run_for(6)
        table.restart(seat, disk)
    table.run_for(12)
    back, mate = table.replicas[seat], table.replicas[1 - seat]
    assert back.status is Status.NORMAL and back.members == {0, 1, 2, 3}
    assert not back.blind
    assert back.display is not None and mate.display is not None
    assert back.display.tableau_of(seat) == mate.display.tableau_of(1 - seat)
    back.intend(TurnStock(seat), table.now)  # and plays it
    table.flush()
    table.settle()
    assert [type(e.move) for e in table.of(2, PlayCommitted)][-1] is TurnStock
    table.agree()


# --- whole rounds --------------------------------------------------------------------------


@pytest.mark.parametrize(("teams", "seed"), [((2, 2), 1), ((2, 1), 2), ((3, 3), 4), ((2, 1, 2), 5)])
def test_teams_of_bots_play_a_round_to_its_end_and_agree(teams: tuple[int, ...], seed: int) -> None:
    """Teammates race for their one stock all round long: one hand each keeps them from
    running ahead on moves bound to return, and turning a stock of cards seen before (after
    the waste turned over) is no stale reveal. Both once kept these rounds from ending."""
    opts = TableOptions(teams=teams)
    players = sum(teams)
    table = Table(players, opts, auto_stuck=True)
    rng = random.Random(seed)
    table.start([shuffled_deck(deck, opts, rng) for deck in opts.seating(players)])
    bots = [SimpleBot(random.Random(seat)) for seat in range(players)]
    for _ in range(3000):
        seat = rng.randrange(players)
        replica = table.replicas[seat]
        display = replica.display
        if display is not None and display.ended is None and replica.in_the_air is None:
            move = bots[seat].choose(display, seat)
            if move is not None:
                with contextlib.suppress(IllegalMove, LocalProtocolError):
                    replica.intend(move, table.now)
        table.flush()
        table.settle(rounds=1)
        if all(table.of(s, RoundOver) for s in range(players)):
            break
    table.settle()  # the reveals
    overs = [table.of(s, RoundOver) for s in range(players)]
    assert all(len(o) == 1 for o in overs) and len({o[0] for o in overs}) == 1
    assert all(table.of(s, AuditPassed) == [AuditPassed(1, ())] for s in range(players))
    returned = [e for e in table.of(0, PlayReturned) if "teammate" in e.reason]
    assert returned  # the races happened
    table.agree()


def test_a_deck_that_comes_back_contradicting_a_card_a_teammate_showed_flags_it() -> None:
    table, back = _back_without_its_disk()
    assert back.blind
    # A turn of the stock that showed other cards than the deck holds (a teammate lying
    # about its deck: the table, blind to the order, took it).
    wrong = tuple(c for c in _orders(table.options, 4)[0][-3:])
    back.dealing.rounds[1].log.append((TurnStock(0, wrong), False))
    table.links[0, 1].extend(table.replicas[0].resend_to(1))
    table.settle()
    assert back.blind
    assert [(e.seat, "showed" in e.reason) for e in table.of(1, AuditFailed)] == [(0, True)]
