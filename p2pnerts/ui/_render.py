"""Layout: the model drawn as rows of styled text for a screen of a given size.

`render` is a pure function of the model and the size. It fills the height it is given
top to bottom — header, the shared foundations, the opponents (in as many columns as
the width allows when they would not fit one per row), the player's own tableau, the
ticker and a status line — and records what each stretch of a row shows, so a mouse
click maps back to a pile (`Frame.hit`). The round's scores, the help and the classroom
pane take the place of parts of the table.
"""

from __future__ import annotations

import math

from p2pnerts.protocol import RoundOver
from p2pnerts.rules import (
    CallNerts,
    Card,
    Foundation,
    Suit,
    Tableau,
)
from p2pnerts.ui._frame import Frame, Row, cells, cut, filled, fit, rule
from p2pnerts.ui._model import TableModel
from p2pnerts.ui._panes import classroom_rows, help_rows, too_small
from p2pnerts.ui._snapshot import Hit
from p2pnerts.ui._style import (
    card_face,
    card_style,
    seat_style,
    seat_tag,
    suit_style,
    suit_symbol,
)
from p2pnerts.ui._tableau import own_rows
from p2pnerts.ui._waiting import seat_note, stuck_line, waiting
from p2pnerts.ui._words import BLIND, air_words
from p2pnerts.words import counted

SMALLEST = (80, 24)
"""The smallest screen the table is drawn on; a smaller one is told so until it grows."""
SIDE_PANE = 48
"""Narrowest the classroom pane beside the table is (from 120 columns); it takes two
fifths of a wider screen, up to `SIDE_PANE_MOST`."""
SIDE_PANE_MOST = 90


def render(model: TableModel, width: int, height: int) -> Frame:
    """Draw the whole screen."""
    width, height = max(width, 1), max(height, 1)
    if width < SMALLEST[0] or height < SMALLEST[1]:
        rows = too_small(model, (width, height), SMALLEST)
    elif model.help and not model.leave.asking:  # (the question shows on the table)
        rows = help_rows(model, width)
    elif model.classroom and width >= 120:
        side = min(max(width * 2 // 5, SIDE_PANE), SIDE_PANE_MOST)
        board = _board(model, width - side, height, pane=False)
        pane = classroom_rows(model, side - 1, height)
        pane += [Row() for _ in range(height - len(pane))]
        rows = [
            b.beside(Row().add("│", "class:rule").beside(p, 1), width - side)
            for b, p in zip(board, pane, strict=False)
        ]
    else:
        rows = _board(model, width, height, pane=model.classroom)
    rows = [row.clip(width) for row in rows[:height]]
    rows += [Row() for _ in range(height - len(rows))]
    return Frame(rows).to_ascii() if model.look.ascii else Frame(rows)


def _board(model: TableModel, width: int, height: int, *, pane: bool) -> list[Row]:
    """The table; with ``pane`` the classroom pane takes the place of its middle."""
    head = [_header(model, width)]
    room = height - len(head) - 2  # (the foot: the ticker and the status line)
    tallest = max((len(p.cards) for p in model.tableau.work), default=1) if model.tableau else 1
    if model.round_end is not None:
        middle = _round_end(model, model.round_end, width)
    elif pane:
        middle = classroom_rows(model, width, max(room - 4 - min(tallest, 4), 6))
    else:
        middle = _foundations(model, width)
        middle += _opponents(model, width, max(room - len(middle) - 3 - min(tallest, 6), 2))
    own = own_rows(model, width, room - len(middle))
    spare = room - len(middle) - len(own)
    recent = _recent(model, width, spare) if spare >= 5 and height >= 36 else []
    foot = [_ticker(model, width, older=not recent), _status(model, width)]
    return head + middle + own + [Row() for _ in range(spare - len(recent))] + recent + foot


# --- header, ticker, status ------------------------------------------------------------------


def _header(model: TableModel, width: int) -> Row:
    row = Row().add(" p2pnerts", "class:title")
    options = model.options
    if model.round_number:
        row.add(f" · round {model.round_number}", "class:title")
    goal = counted(options.rounds, "round") if options.rounds else f"to {options.target} points"
    row.add(f" · {_players(model)} · {goal}", "class:dim")
    if model.snap.status != "playing":
        row.add(f" · {model.snap.status}", "class:alert")
    keys = " ? help  q quit " if model.read_only else " ? help  c classroom  q quit "
    if row.width + len(keys) > width:
        keys = " ? help "
    return row.pad(width - len(keys)).add(keys, "class:dim")


def _players(model: TableModel) -> str:
    """``4 players``; at a table of teams, the teams: ``7 teams of 2``, ``teams 2+1+2``."""
    teams = model.options.teams
    if not teams:
        return f"{len(model.names)} players"
    if len(set(teams)) == 1:
        return f"{len(teams)} teams of {teams[0]}"
    return f"teams {model.options.teams_text()}"


def _ticker(model: TableModel, width: int, *, older: bool = True) -> Row:
    """The newest line (shortened if it must be), then as many older ones as fit whole
    (with ``older``: else the recent lines above show them)."""
    row = Row().add(" » ", "class:key")
    for k, line in enumerate(reversed(model.ticker)):
        if k == 0:
            row.add(fit(line.text, width - row.width))
        elif older and row.width + 5 + len(line.text) <= width:
            row.add("  ·  ", "class:rule").add(line.text, "class:dim")
        else:
            break
    return row


def _recent(model: TableModel, width: int, room: int) -> list[Row]:
    """On a tall screen, the lines before the ticker's newest, newest at the bottom (just
    above the ticker's own, so that they read as one log)."""
    lines = list(model.ticker)[:-1][-(room - 2) :]
    if not lines:
        return []  # (no heading over nothing)
    return [Row(), rule("recent", width, "class:dim")] + [
        Row().add(f"   {fit(line.text, width - 3)}", "class:dim") for line in lines
    ]


def _status(model: TableModel, width: int) -> Row:
    if model.leave.asking:
        return model.leave.row(width)
    row = Row()
    air = model.snap.hand.last
    sel = model.selection
    wait, news = waiting(model), model.news_now()
    if news:
        row.add(f" {news} ", "class:notice")
    elif wait:
        row.add(f" {wait} ", "class:alert")
    elif model.notice:
        row.add(f" {model.notice}", "class:notice")
    elif isinstance(air, CallNerts):
        row.add(" Nerts! is called: the table is settling what came before… ", "class:air")
    elif air is not None:
        row.add(f" {air_words(air, model.look)} is in the air… ", "class:air")
    elif model.snap.blind and model.playing:
        row.add(f" {BLIND} ", "class:alert")
    elif sel is not None:
        lifted = f"{model.card(sel.card)}" + (f" and {sel.depth} on it" if sel.depth else "")
        row.add(f" {lifted} selected: ", "class:selected")
        piles = f"1-{model.options.work_piles}"
        row.add(f" {piles} onto a pile · f foundation · b best · same key: one deeper · Esc")
    elif stuck := stuck_line(model):
        row.add(f" {stuck} ", "class:alert")
    elif model.can_call_nerts:
        row.add(" Your Nerts pile is empty: x calls Nerts! ", "class:alert")
    elif model.others_stuck:
        row.add(" Everyone else is stuck: play on, or d to declare stuck too ", "class:notice")
    elif model.playing:
        hint = f" n/w/1-{model.options.work_piles} select · space turns the stock · b best move"
        row.add(hint + " · ? every key", "class:dim")
    return row


# --- the middle of the table -----------------------------------------------------------------


def _foundations(model: TableModel, width: int) -> list[Row]:
    state = model.snap.display
    rows = [rule("foundations", width)]
    if state is None:
        return rows + [Row().add(f"  {waiting(model) or 'dealing…'}", "class:dim")]
    flying = model.flying
    done = {suit: 0 for suit in Suit}
    for f in state.completed:
        done[Suit(f.suit)] += 1
    hit = Hit("foundation")
    for suit in Suit:
        row = Row().add(f" {suit_symbol(suit, model.look)} ", suit_style(suit, model.look), hit)
        row.add("│", "class:rule", hit)
        for f in (f for f in state.foundations if f.suit == suit):
            _foundation(row, model, f, flying, hit)
        if done[suit]:
            row.add(f"  {done[suit]} built to the king", "class:dim")
        rows.append(row)
    return rows


def _foundation(row: Row, model: TableModel, f: Foundation, flying: Card | None, hit: Hit) -> None:
    top, look = f.cards[-1], model.look
    style = "class:air" if top == flying else ""
    row.add(" ", "", hit)
    row.add(card_face(look, top, f.rank, Suit(f.suit)), style or card_style(top, look), hit)
    row.add(seat_tag(top.deck), seat_style(top.deck), hit)
    if len(f.cards) > f.rank:  # a tie under both-stay: the card beside it
        row.add("=" + seat_tag(f.cards[-2].deck), seat_style(f.cards[-2].deck), hit)


def _opponents(model: TableModel, width: int, room: int) -> list[Row]:
    """Every other deck in a row: a player's own, or a team's."""
    state = model.snap.display
    decks = [d for d in range(max(model.seating) + 1) if d != model.deck]
    tableaux = [state.tableaux[d] if state else None for d in decks]
    # A team's names take what the width leaves them, 10 to 20 columns (5 or 9 if narrow).
    names = (
        max(10, min(width - 38 - 8 * model.options.work_piles, 20)) if model.options.teams else 10
    )
    lines = [_opponent(model, d, t, names) for d, t in zip(decks, tableaux, strict=True)]
    if max((r.width for r in lines), default=0) > width or len(lines) > room - 1:
        names = 9 if model.options.teams else 5
        lines = [_opponent(model, d, t, names) for d, t in zip(decks, tableaux, strict=True)]
    column = max((r.width for r in lines), default=1) + 1
    columns = max(1, min(width // column, math.ceil(len(lines) / max(room - 1, 1))))
    per = math.ceil(len(lines) / columns)
    rows = [rule("opponents", width)]
    for r in range(min(per, room - 1)):
        row = Row()
        for c in range(columns):
            if c * per + r < len(lines):
                row = row.beside(lines[c * per + r], c * column) if c else lines[r]
        rows.append(row)
    return rows


def _opponent(model: TableModel, deck: int, tableau: Tableau | None, names: int) -> Row:
    """One opponent (a player, or a team) in a row: Nerts count and top, each work pile
    (wide, with ``names`` of 10 columns or more: its bottom and top card), the waste top,
    the stock (wide), any news, the score."""
    look = model.look
    wide = names >= 10
    row = Row().add(f" {seat_tag(deck)} " if wide else f"{seat_tag(deck)} ", seat_style(deck))
    row.add(_team_label(model, deck, names), seat_style(deck))
    total = model.total(deck)
    if tableau is not None:
        top = tableau.nerts[-1] if tableau.nerts else None
        row.add(
            f" N{len(tableau.nerts):>2} " if wide else f" {len(tableau.nerts):>2} ", "class:dim"
        )
        row.add(*(card_face(look, top), card_style(top, look)) if top else ("  -",))
        row.add(" │" if wide else "", "class:rule")
        for pile in tableau.work:
            cards = pile.cards
            if wide and len(cards) > 1:
                low, high = cards[0], cards[-1]
                row.add(" ").add(card_face(look, low), card_style(low, look))
                row.add("‥", "class:dim").add(card_face(look, high), card_style(high, look))
            elif cards:
                row.add(" ").add(card_face(look, cards[-1]), card_style(cards[-1], look))
                row.add("    " if wide else "")
            else:
                row.add("   ·" + ("    " if wide else ""), "class:dim")
        row.add(" │ W " if wide else " ", "class:dim")
        waste = tableau.waste[-1] if tableau.waste else None
        row.add(*(card_face(look, waste), card_style(waste, look)) if waste else ("  -",))
        news = (seat_note(model, s) for s in model.team(deck) if seat_note(model, s))
        note = next(news, "stuck" if tableau.stuck else "")
        if wide:
            row.add(f" S{len(tableau.stock):>2} ", "class:dim").add(
                f"{note[:8]:<8}", "class:notice"
            )
        elif note:
            row.add("*", "class:notice")
    if not wide:
        row.pad(14 + names + 4 * model.options.work_piles)
    return row.add(f"{total:>4}", "class:title")


def _team_label(model: TableModel, deck: int, width: int) -> str:
    """A deck's players' names in ``width`` columns, each name cut to fit if need be."""
    full = model.team_name(deck)
    if cells(full) <= width:
        return filled(full, width)
    names = model.team_names(deck)
    each = (width - len(names) + 1) // len(names)
    return filled("&".join(_short(n, each).rstrip() for n in names), width)


def _short(name: str, width: int) -> str:
    """A name cut to ``width`` columns, keeping a number at its end (``Bot 10``: ``Bot10``)."""
    digits = len(name) - len(name.rstrip("0123456789"))
    if cells(name) > width and 0 < digits < width:
        return filled(cut(name, width - digits).rstrip(), width - digits) + name[-digits:]
    return filled(name, width)


def _round_end(model: TableModel, over: RoundOver, width: int) -> list[Row]:
    snap = model.snap
    caller = over.caller
    why = f"{model.name(caller)} called Nerts!" if caller is not None else "everyone was stuck"
    rows = [rule(f"round {over.round} over: {why}", width, "class:alert"), Row()]
    # A team's name takes what the figures leave of the width (they need 54 columns).
    names = min(max([12, *(cells(model.team_name(s.deck)) for s in over.scores)]), width - 54)
    who = "team" if model.options.teams else "player"
    heading = f"   {who:<{names}}  played  Nerts left  bonus   round   total"
    rows.append(Row().add(heading, "class:dim"))
    for s in sorted(over.scores, key=lambda s: -model.total(s.deck)):
        row = Row().add(f" {seat_tag(s.deck)} ", seat_style(s.deck))
        row.add(_team_label(model, s.deck, names), seat_style(s.deck))
        row.add(f"{s.played:8}{s.nerts_left:12}{s.bonus:7}{s.points:+8}")
        row.add(f"{model.total(s.deck):8}", "class:title")
        if s.called_nerts:
            row.add("  Nerts!", "class:good")
        rows.append(row)
    rows.append(Row())
    if snap.over:
        best = " and ".join(model.team_name(w) for w in snap.winners)
        after = counted(len(model.history), "round")
        rows.append(Row().add(f" Match over after {after}. ", "class:alert"))
        rows.append(Row().add(f" Winner: {best} ", "class:good").add("  q: quit", "class:dim"))
    elif model.read_only:
        pass
    elif model.ready:
        rows.append(Row().add(f" Ready. {waiting(model)}", "class:dim"))
    else:
        rows.append(Row().add(" Enter: ready for the next round ", "class:key"))
    return rows
