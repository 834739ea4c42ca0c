"""How each value goes on the wire and is checked coming off it: the field types that the
layout tables of `_layouts` are made of, and the moves' own layout."""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from p2pnerts.protocol._errors import RemoteProtocolError
from p2pnerts.protocol._messages import Seat
from p2pnerts.protocol._spectate import TableauSight
from p2pnerts.rules import (
    JOKER,
    KING,
    BadOptions,
    CallNerts,
    Card,
    DeclareStuck,
    Move,
    Rotate,
    SlideUnder,
    Suit,
    TableOptions,
    TieRule,
    ToFoundation,
    ToWork,
    TurnStock,
    card_code,
    card_from_code,
)

MAX_FRAME = 256 * 1024
MAX_SEATS = 64
BIG = 2**63 - 1
_LENGTH = 4
HEARD_MOST = 4096
"""The most witnesses one Ack carries (more wait for the next)."""
EVIDENCE_MOST = 16
"""The most messages one Evidence shows."""
NAME_MOST = 32
"""The most characters of a player's or a spectator's name."""
TABLE_NAME_BYTES = 200
"""The most bytes of a table's name in UTF-8 (its announcement's TXT string holds 255)."""


def name_fault(name: str) -> str | None:
    """What is wrong with ``name`` as a player's or a spectator's name, or None: it is 1 to
    `NAME_MOST` characters, not all spaces, each printable (a name goes to other players'
    screens and terminals, where a control character could take them over)."""
    if not name.strip():
        return "a name cannot be empty or blank"
    if len(name) > NAME_MOST:
        return f"a name is at most {NAME_MOST} characters, not {len(name)}"
    if not name.isprintable():
        return "a name cannot hold control characters"
    return None


# --- field types: how each value goes on the wire and is checked coming off it ------------


@dataclass(frozen=True, slots=True)
class _Field:
    to_wire: Callable[[Any], Any]
    from_wire: Callable[[Any, str], Any]


def _int(value: Any, what: str, low: int = 0, high: int = BIG) -> int:
    if type(value) is not int or not low <= value <= high:
        raise RemoteProtocolError(f"{what}: expected an integer {low}..{high}, got {value!r}")
    return value


def _array(value: Any, what: str, low: int, high: int) -> list[Any]:
    if type(value) is not list or not low <= len(value) <= high:
        raise RemoteProtocolError(f"{what}: expected an array of {low}..{high} items")
    return value


def _bytes(low: int, high: int) -> _Field:
    def check(value: Any, what: str) -> bytes:
        if type(value) is not bytes or not low <= len(value) <= high:
            raise RemoteProtocolError(f"{what}: expected {low}..{high} bytes")
        return value

    return _Field(lambda v: v, check)


def _number(low: int = 0, high: int = BIG) -> _Field:
    return _Field(lambda v: v, lambda v, what: _int(v, what, low, high))


_INTS = frozenset({int})


def _all_ints(items: list[Any], low: int, high: int) -> bool:
    """Whether every item is an int (not a bool) from ``low`` to ``high``: a frame's arrays
    of numbers are checked whole here, in C, and item by item only to say which is wrong."""
    return not items or (
        _INTS.issuperset(map(type, items)) and low <= min(items) and max(items) <= high
    )


def _numbers(most: int, low: int = 0, high: int = BIG, least: int = 0) -> _Field:
    def check(value: Any, what: str) -> tuple[int, ...]:
        items = _array(value, what, least, most)
        if _all_ints(items, low, high):
            return tuple(items)
        return tuple(_int(v, what, low, high) for v in items)

    return _Field(list, check)


def _card_code(value: Any, what: str) -> int:
    code = _int(value, what, 0, (MAX_SEATS << 6) - 1)
    rank, suit = code >> 2 & 15, code & 3
    if rank > KING or (rank == JOKER and suit > 1):
        raise RemoteProtocolError(f"{what}: {code} is no card")
    return code


_CARD_CODES = frozenset(
    code
    for code in range(MAX_SEATS << 6)
    if (code >> 2 & 15) <= KING and not (code >> 2 & 15 == JOKER and code & 3 > 1)
)
"""Every code of a card (`_card_code`)."""


def _card_codes(least: int, most: int) -> _Field:
    def check(value: Any, what: str) -> tuple[int, ...]:
        items = _array(value, what, least, most)
        if _INTS.issuperset(map(type, items)) and _CARD_CODES.issuperset(items):
            return tuple(items)
        return tuple(_card_code(v, what) for v in items)

    return _Field(list, check)


def _frames(least: int = 0, most: int = 100_000) -> _Field:
    def check(value: Any, what: str) -> tuple[bytes, ...]:
        items = _array(value, what, least, most)
        sizes = list(map(len, items)) if _BYTES.issuperset(map(type, items)) else [0]
        if not sizes or (min(sizes) >= 1 and max(sizes) <= MAX_FRAME):
            return tuple(items)
        return tuple(_FRAME.from_wire(v, what) for v in items)

    return _Field(list, check)


def _views() -> _Field:
    """Views, each ``[number, members]``."""

    def check(value: Any, what: str) -> tuple[tuple[int, tuple[int, ...]], ...]:
        views = (_array(v, what, 2, 2) for v in _array(value, what, 0, 1_000))
        return tuple((_int(n, what), _SEATS.from_wire(m, what)) for n, m in views)

    return _Field(lambda views: [[n, list(m)] for n, m in views], check)


def _score_rows() -> _Field:
    def check(value: Any, what: str) -> tuple[tuple[int, ...], ...]:
        rows = _array(value, what, 0, 10_000)
        return tuple(_numbers(MAX_SEATS, -BIG, BIG, 1).from_wire(r, what) for r in rows)

    return _Field(lambda rows: [list(r) for r in rows], check)


_BYTES = frozenset({bytes})
_FRAME = _bytes(1, MAX_FRAME)
_SEATS = _numbers(MAX_SEATS, 0, MAX_SEATS - 1)
_HAVE = _numbers(MAX_SEATS, least=1)
_BELOW = _numbers(MAX_SEATS)
"""An ordered message's own vote (version 3): a number per other seat, or none."""
_DIGEST = _bytes(16, 16)


def _heard() -> _Field:
    """An Ack's witnesses, each ``[seat, seq, witness]``."""

    def check(value: Any, what: str) -> tuple[tuple[int, int, bytes], ...]:
        entries = (_array(e, what, 3, 3) for e in _array(value, what, 0, HEARD_MOST))
        return tuple(
            (_int(s, what, 0, MAX_SEATS - 1), _int(q, what, 1), _DIGEST.from_wire(w, what))
            for s, q, w in entries
        )

    return _Field(lambda heard: [list(e) for e in heard], check)


def _text(most: int, least: int = 1) -> _Field:
    def check(value: Any, what: str) -> str:
        if type(value) is not str or not least <= len(value) <= most:
            raise RemoteProtocolError(f"{what}: expected text of {least}..{most} characters")
        return value

    return _Field(lambda v: v, check)


def _named(fault: Callable[[str], str | None]) -> _Field:
    """A name's field: text that ``fault`` finds nothing wrong with."""

    def check(value: Any, what: str) -> str:
        if type(value) is not str:
            raise RemoteProtocolError(f"{what}: expected a name, got {type(value).__name__}")
        if wrong := fault(value):
            raise RemoteProtocolError(f"{what}: {wrong}")
        return value

    return _Field(lambda v: v, check)


def table_name_fault(name: str) -> str | None:
    """What is wrong with ``name`` as a table's name, or None: not blank, each character
    printable, at most `TABLE_NAME_BYTES` bytes in UTF-8."""
    if not name.strip():
        return "a table's name cannot be empty or blank"
    if not name.isprintable():
        return "a table's name cannot hold control characters"
    if len(name.encode("utf-8")) > TABLE_NAME_BYTES:
        return f"a table's name is at most {TABLE_NAME_BYTES} bytes in UTF-8"
    return None


NAME = _named(name_fault)
"""A player's or a spectator's name (`name_fault`)."""
TABLE_NAME = _named(table_name_fault)
"""A table's name (`table_name_fault`)."""


def _address(host: str, what: str) -> str:
    """A roster's address of a seat: empty (the host's own, wherever it was reached) or an
    IP address, nothing a screen would show otherwise when it cannot be reached."""
    if host:
        try:
            ipaddress.ip_address(host)
        except ValueError:
            raise RemoteProtocolError(f"{what}: {host[:40]!r} is not an IP address") from None
    return host


def _options_to_wire(o: TableOptions) -> list[Any]:
    # The teams go last, and only at a table of teams: a table of solo players encodes
    # as it did before teams existed.
    return [*o.numbers(), o.tie_rule.value] + ([list(o.teams)] if o.teams else [])


def _options_from_wire(value: Any, what: str) -> TableOptions:
    items = _array(value, what, 10, 11)
    teams = _numbers(MAX_SEATS, 1, 3, 2).from_wire(items[10], what) if len(items) > 10 else ()
    numbers = [_int(v, what, 0, 10_000) for i, v in enumerate(items[:10]) if i not in (3, 9)]
    if type(items[3]) is not bool or items[9] not in {r.value for r in TieRule}:
        raise RemoteProtocolError(f"{what}: bad jokers flag or tie rule")
    pile, work, turn, bonus, points, penalty, target, rounds = numbers
    try:
        return TableOptions(
            pile,
            work,
            turn,
            items[3],
            bonus,
            points,
            penalty,
            target,
            rounds or None,
            TieRule(items[9]),
            teams,
        )
    except BadOptions as exc:
        raise RemoteProtocolError(f"{what}: {exc}") from None


def _roster_seats() -> _Field:
    def to_wire(seats: tuple[Seat, ...]) -> list[Any]:
        return [[s.seat, s.name, s.host, s.port, s.key] for s in seats]

    def check(value: Any, what: str) -> tuple[Seat, ...]:
        seats = []
        for item in _array(value, what, 0, MAX_SEATS):
            seat, name, host, port, key = _array(item, what, 5, 5)
            seats.append(
                Seat(
                    _int(seat, what, 0, MAX_SEATS - 1),
                    NAME.from_wire(name, what),
                    _address(_text(255, least=0).from_wire(host, what), what),
                    _int(port, what, 1, 65535),
                    _bytes(32, 32).from_wire(key, what),
                )
            )
        return tuple(seats)

    return _Field(to_wire, check)


def _flag(value: Any, what: str) -> bool:
    if type(value) is not bool:
        raise RemoteProtocolError(f"{what}: expected true or false")
    return value


_TABLE_ID = _bytes(16, 16)


def _empty_or(size: int) -> _Field:
    """Bytes of exactly ``size``, or none (a field only some links carry)."""

    def check(value: Any, what: str) -> bytes:
        if type(value) is not bytes or len(value) not in (0, size):
            raise RemoteProtocolError(f"{what}: expected 0 or {size} bytes")
        return value

    return _Field(lambda v: v, check)


_NONE_OR_32 = _empty_or(32)


def _move_to_wire(move: Move) -> list[Any]:
    head: list[Any] = [_MOVE_KIND[type(move)], move.seat]
    match move:
        case TurnStock():
            if move.rotation is None:
                raise ValueError("a stock turn sent names the rotation it was made after")
            return head + [[card_code(c) for c in move.revealed], move.rotation]
        case ToFoundation():
            declare = None if move.declare is None else [move.declare[0], int(move.declare[1])]
            return head + [
                card_code(move.card),
                move.source,
                move.foundation,
                declare,
                [card_code(c) for c in move.revealed],
            ]
        case ToWork() | SlideUnder():
            return head + [
                card_code(move.card),
                move.source,
                move.dest,
                [card_code(c) for c in move.revealed],
            ]
        case DeclareStuck() | Rotate() | CallNerts():
            return head


_MOVE_KIND = {
    TurnStock: 1,
    ToFoundation: 2,
    ToWork: 3,
    SlideUnder: 4,
    DeclareStuck: 5,
    Rotate: 6,
    CallNerts: 7,
}


def _move(value: Any) -> Move:
    items = _array(value, "move", 2, 7)
    kind = _int(items[0], "move kind", 1, 7)
    seat = _int(items[1], "seat", 0, MAX_SEATS - 1)
    rest = items[2:]
    expected = {1: 2, 2: 5, 3: 4, 4: 4}.get(kind, 0)
    if len(rest) != expected:
        raise RemoteProtocolError(f"move kind {kind}: expected {expected} fields")
    if kind == 1:
        return TurnStock(seat, _cards(rest[0], 3), _int(rest[1], "rotation"))
    if kind == 2:
        card, source, foundation, declare, revealed = rest
        return ToFoundation(
            seat,
            _card(card),
            _source(source),
            _int(foundation, "foundation", -1),
            _declare(declare),
            _cards(revealed, 1),
        )
    if kind in (3, 4):
        card, source, dest, revealed = rest
        cls = ToWork if kind == 3 else SlideUnder
        return cls(
            seat, _card(card), _source(source), _int(dest, "dest", 0, 4), _cards(revealed, 1)
        )
    return (DeclareStuck, Rotate, CallNerts)[kind - 5](seat)


def _declare(value: Any) -> tuple[int, Suit] | None:
    if value is None:
        return None
    rank, suit = _array(value, "declare", 2, 2)
    return _int(rank, "declared rank", 1, KING), Suit(_int(suit, "declared suit", 0, 3))


def _source(value: Any) -> int:
    return _int(value, "source", -2, 4)


def _cards(value: Any, most: int) -> tuple[Card, ...]:
    return tuple(_card(c) for c in _array(value, "revealed", 0, most))


def _card(value: Any) -> Card:
    return card_from_code(_card_code(value, "card"))


# --- a spectator's frames: names and tableaux ------------------------------------------


def _names(value: Any, what: str) -> tuple[str, ...]:
    return tuple(NAME.from_wire(v, what) for v in _array(value, what, 1, MAX_SEATS))


def _tableaux_to_wire(tableaux: tuple[TableauSight, ...]) -> list[Any]:
    return [
        [t.nerts, list(t.nerts_top), [list(p) for p in t.work], t.stock, t.waste, list(t.waste_top)]
        for t in tableaux
    ]


def _tableaux(value: Any, what: str) -> tuple[TableauSight, ...]:
    """Each deck's tableau as a spectator sees it: ``[nerts, nerts_top, work, stock, waste,
    waste_top]``."""
    sights = []
    for item in _array(value, what, 0, MAX_SEATS):
        nerts, top, work, stock, waste, waste_top = _array(item, what, 6, 6)
        piles = _array(work, what, 0, 5)
        sights.append(
            TableauSight(
                _int(nerts, what, 0, 52),
                _card_codes(0, 1).from_wire(top, what),
                tuple(_card_codes(0, 54).from_wire(p, what) for p in piles),
                _int(stock, what, 0, 54),
                _int(waste, what, 0, 54),
                _card_codes(0, 1).from_wire(waste_top, what),
            )
        )
    return tuple(sights)
