"""The player's own tableau drawn: the title with the points, the Nerts pile, the waste and
the stock, and each work pile as a column of cards, with what each stretch of a row shows
(`Hit`) so a click maps back to a pile."""

from __future__ import annotations

from p2pnerts.rules import NERTS, WASTE, Card
from p2pnerts.ui._frame import Row, rule
from p2pnerts.ui._model import TableModel
from p2pnerts.ui._snapshot import Hit
from p2pnerts.ui._style import card_face, card_style, seat_style
from p2pnerts.ui._waiting import seat_note


def own_rows(model: TableModel, width: int, room: int) -> list[Row]:
    """The player's own tableau in at most ``room`` rows."""
    tableau = model.tableau
    title = f"{model.team_name(model.deck)} · {model.total(model.deck)} points"
    if model.stuck:
        title += " · stuck"
    if seat_note(model, model.seat).startswith("idle"):
        title += " · idle"
    titled = rule(title, width, seat_style(model.deck))
    if tableau is None or room < 3:
        return [titled][: max(room, 0)]
    cw = 8 if width < 120 else 12
    pile_x = 3 * cw + 2
    head = Row()
    for k, (key, label) in enumerate((("n", "Nerts"), ("w", "Waste"), ("␣", "Stock"))):
        head.pad(k * cw).add(f" {key} ", "class:key").add(label)
    for k in range(len(tableau.work)):
        head.pad(pile_x + k * cw).add(f" {k + 1} ", "class:key")
    tallest = max((len(p.cards) for p in tableau.work), default=1)
    rows = [Row() for _ in range(max(2, min(tallest, room - 2)))]
    faces, counts = rows[0], rows[1]
    _pile_face(model, faces.pad(1), tableau.nerts[-1] if tableau.nerts else None, NERTS)
    _pile_face(model, faces.pad(cw + 1), tableau.waste[-1] if tableau.waste else None, WASTE)
    faces.pad(2 * cw + 1).add(f" {len(tableau.stock):>2} ", "class:selected", Hit("stock"))
    if model.can_call_nerts:
        counts.pad(1).add(" x: Nerts! ", "class:alert")
    else:
        counts.pad(1).add(f"({len(tableau.nerts)})", "class:dim")
        counts.pad(cw + 1).add(f"(+{max(len(tableau.waste) - 1, 0)})", "class:dim")
    for k in range(len(tableau.work)):
        _cascade(model, rows, k, pile_x + k * cw)
    return ([titled, head] + rows)[:room]


def _pile_face(model: TableModel, row: Row, card: Card | None, source: int) -> None:
    if card is None:
        row.add("  ·  ", "class:dim", Hit("pile", source))
        return
    sel = model.selection
    row.add(
        f" {card_face(model.look, card)} ",
        _card_look(model, card, sel is not None and sel.source == source),
        Hit("pile", source),
    )


def _card_look(model: TableModel, card: Card, selected: bool) -> str:
    if selected:
        return card_style(card, model.look) + " class:selected"
    if card == model.flying:
        return "class:air"
    if model.marked_returned(card):
        return "class:returned"
    return card_style(card, model.look)


def _cascade(model: TableModel, rows: list[Row], k: int, at: int) -> None:
    """Work pile ``k`` as a column of cards, one a row; a pile too tall shows its top."""
    tableau = model.tableau
    assert tableau is not None
    cards = tableau.work[k].cards
    if not cards:
        rows[0].pad(at).add("  ·  ", "class:dim", Hit("pile", k))
        return
    shown = cards if len(cards) <= len(rows) else cards[len(cards) - len(rows) + 1 :]
    first = 0
    if len(shown) < len(cards):
        more = len(cards) - len(shown)
        rows[0].pad(at).add(f" +{more:<2}  ", "class:dim", Hit("pile", k, len(cards) - 1))
        first = 1
    sel = model.selection
    for i, card in enumerate(shown):
        depth = len(shown) - 1 - i
        chosen = sel is not None and sel.source == k and depth <= sel.depth
        face = f" {card_face(model.look, card)} "
        rows[first + i].pad(at).add(face, _card_look(model, card, chosen), Hit("pile", k, depth))
