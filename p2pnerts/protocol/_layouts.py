"""Each message kind's layout on the wire: its number and its fields after the header, in
order, each with how it goes on the wire and is checked coming off it (`_wire`). The
encoder and decoder (`_codec`), and ``protocol/SPEC.md``'s tables (whose golden frames the
tests check), all read this one description.
"""

from __future__ import annotations

from dataclasses import fields

from p2pnerts.protocol._messages import (
    Ack,
    Ballot,
    CommitFrame,
    Evidence,
    Hello,
    Leave,
    LinkMessage,
    Message,
    Noise,
    Play,
    Poll,
    Proof,
    Ready,
    Refuse,
    Rejoin,
    Reveal,
    Roster,
    StartView,
    Tally,
    TeamDeal,
    ViewChange,
    Welcome,
)
from p2pnerts.protocol._passphrase import PAKE_BYTES
from p2pnerts.protocol._spectate import Decided, Scene, Seen, Watch
from p2pnerts.protocol._wire import (
    _BELOW,
    _DIGEST,
    _HAVE,
    _NONE_OR_32,
    _SEATS,
    _TABLE_ID,
    BIG,
    EVIDENCE_MOST,
    MAX_FRAME,
    MAX_SEATS,
    NAME,
    TABLE_NAME,
    _bytes,
    _card_codes,
    _empty_or,
    _Field,
    _flag,
    _frames,
    _heard,
    _move,
    _move_to_wire,
    _names,
    _number,
    _numbers,
    _options_from_wire,
    _options_to_wire,
    _roster_seats,
    _score_rows,
    _tableaux,
    _tableaux_to_wire,
    _text,
    _views,
)

_SECRET = _bytes(32, 32)
_SIG = _bytes(0, 64)
"""A signature (`_signing`): 64 bytes when signed; the receiver refuses any other."""

_Layout = tuple[tuple[str, _Field], ...]
"""A kind's fields after the header: each name, with its wire form and its check."""

_LAYOUT: dict[type[Message], tuple[int, _Layout]] = {
    Ready: (
        1,
        (
            ("round", _number()),
            ("pledge", _SECRET),
            ("face_up", _card_codes(0, 6)),
            ("below", _BELOW),
            ("sig", _SIG),
        ),
    ),
    Play: (
        2,
        (
            ("round", _number(1)),
            ("move", _Field(lambda m: _move_to_wire(m), lambda v, _: _move(v))),
            ("below", _BELOW),
            ("sig", _SIG),
        ),
    ),
    Ack: (
        3,
        (
            ("have", _HAVE),
            ("committed", _number()),
            ("digest", _DIGEST),
            ("heard", _heard()),
            ("passed", _numbers(3)),
            ("made", _number()),
        ),
    ),
    Reveal: (4, (("round", _number()), ("secret", _SECRET), ("below", _BELOW), ("sig", _SIG))),
    Leave: (5, (("below", _BELOW), ("sig", _SIG))),
    ViewChange: (
        6,
        (
            ("new_view", _number(1)),
            ("suspects", _SEATS),
            ("have", _HAVE),
            ("committed", _number()),
            ("holding", _bytes(0, MAX_FRAME)),
            ("pool", _frames()),
            ("sig", _SIG),
        ),
    ),
    StartView: (
        7,
        (
            ("voted_in", _number()),
            ("members", _SEATS),
            ("quorums", _views()),
            ("cuts", _HAVE),
            ("joined", _SEATS),
            ("joined_from", _numbers(MAX_SEATS)),
            ("lives", _numbers(MAX_SEATS)),
            ("seated", _SEATS),
            ("round", _number()),
            ("base_committed", _number()),
            ("base_digest", _DIGEST),
            ("carried", _frames()),
            ("scores", _score_rows()),
            ("votes", _frames()),
            ("votes_digest", _bytes(32, 32)),
            ("pool", _frames()),
            ("sig", _SIG),
        ),
    ),
    Rejoin: (8, (("round", _number()), ("above", _number()), ("sig", _SIG))),
    TeamDeal: (
        9,
        (
            ("to", _number(0, MAX_SEATS - 1)),
            ("round", _number()),
            ("secret", _SECRET),
            ("next", _SECRET),
            ("seed", _SECRET),
        ),
    ),
    Evidence: (10, (("messages", _frames(1, EVIDENCE_MOST)),)),
}
_BY_KIND = {kind: (cls, layout) for cls, (kind, layout) in _LAYOUT.items()}
_HEADER = ("sender", "view", "clock", "seq")
_MOST_ITEMS = 2 + len(_HEADER) + max(len(layout) for _, layout in _LAYOUT.values())
"""The most items a frame's array can hold: the version, the kind, the header, the
fields of the largest kind."""

_WITNESS = _empty_or(16)
"""A witness (`_witness`), or none: never held."""
_FLAG = _Field(lambda v: v, _flag)
"""A msgpack boolean (an integer is refused)."""
_VOTE = (("witness", _WITNESS), ("ok", _FLAG), ("below", _numbers(MAX_SEATS)))
_CARRIED = (
    ("sender", _number(0, MAX_SEATS - 1)),
    ("clock", _number(1)),
    ("to", _number(0, MAX_SEATS - 1)),
    ("ok", _FLAG),
    ("below", _numbers(MAX_SEATS)),
    ("sig", _SIG),
)
"""A Ballot as a Tally carries it (`encode_carried`): without what the Tally says once, its
view, its play and, unless the Ballot names another, its witness."""
_COMMIT_LAYOUT: dict[type[CommitFrame], tuple[int, _Layout]] = {
    Ballot: (
        11,
        (
            ("to", _number(0, MAX_SEATS - 1)),
            ("seat", _number(0, MAX_SEATS - 1)),
            ("number", _number(1)),
            *_VOTE,
            ("sig", _SIG),
        ),
    ),
    Tally: (
        12,
        (
            ("seat", _number(0, MAX_SEATS - 1)),
            ("number", _number(1)),
            *_VOTE,
            ("ballots", _frames(0, MAX_SEATS)),
            ("passed", _numbers(3)),
            ("sig", _SIG),
        ),
    ),
    Poll: (
        13,
        (
            ("seat", _number(0, MAX_SEATS - 1)),
            ("number", _number(1)),
            ("play", _bytes(0, MAX_FRAME)),
        ),
    ),
}
"""Version 3's commit frames (`CommitFrame`), laid out, encoded and signed as protocol
messages are; a replica that commits by acknowledgement refuses them."""
_COMMIT_BY_KIND = {kind: (cls, layout) for cls, (kind, layout) in _COMMIT_LAYOUT.items()}


_LINK_LAYOUT: dict[type[LinkMessage], tuple[int, _Layout]] = {
    Hello: (
        16,
        (
            ("table", _TABLE_ID),
            ("seat", _number(-1, MAX_SEATS - 1)),
            ("name", NAME),
            ("port", _number(1, 65535)),
            ("key", _bytes(32, 32)),
            ("nonce", _bytes(16, 16)),
            ("proof", _bytes(0, 64)),
            ("mac", _NONE_OR_32),
            ("terms", _NONE_OR_32),
            ("pake", _empty_or(PAKE_BYTES)),
        ),
    ),
    Welcome: (
        17,
        (
            ("table", _TABLE_ID),
            ("seat", _number(0, MAX_SEATS - 1)),
            ("players", _number(2, MAX_SEATS)),
            ("options", _Field(_options_to_wire, _options_from_wire)),
            ("name", TABLE_NAME),
            ("majority", _FLAG),
        ),
    ),
    Refuse: (18, (("reason", _text(200)),)),
    Roster: (19, (("seats", _roster_seats()), ("started", _FLAG))),
    Proof: (20, (("proof", _bytes(64, 64)), ("mac", _NONE_OR_32))),
    Watch: (
        21,
        (
            ("table", _TABLE_ID),
            ("name", NAME),
            ("key", _bytes(32, 32)),
            ("nonce", _bytes(16, 16)),
            ("pake", _empty_or(PAKE_BYTES)),
        ),
    ),
    Scene: (
        22,
        (
            ("table", _TABLE_ID),
            ("seat", _number(0, MAX_SEATS - 1)),
            ("names", _Field(list, _names)),
            ("options", _Field(_options_to_wire, _options_from_wire)),
            ("round", _number()),
            ("committed", _number()),
            ("clocks", _numbers(MAX_SEATS)),
            ("heard", _numbers(MAX_SEATS)),
            ("states", _numbers(MAX_SEATS, 0, 2)),
            ("totals", _numbers(MAX_SEATS, -BIG, BIG)),
            ("foundations", _card_codes(0, MAX_SEATS * 4 * 13)),
            ("completed", _number()),
            ("tableaux", _Field(_tableaux_to_wire, _tableaux)),
            ("dropped", _number()),
        ),
    ),
    Seen: (
        23,
        (
            ("at", _number()),
            ("out", _FLAG),
            ("other", _number(-1, MAX_SEATS - 1)),
            ("frame", _bytes(1, MAX_FRAME)),
        ),
    ),
    Decided: (
        24,
        (
            ("index", _number(1)),
            ("clock", _number(1)),
            ("call", _number(0, 1)),
            ("rank", _number(0, MAX_SEATS - 1)),
            ("frame", _bytes(1, MAX_FRAME)),
            ("outcome", _number(0, 3)),
            ("winner", _number(-1, MAX_SEATS - 1)),
            ("reason", _text(200, least=0)),
        ),
    ),
    Noise: (25, (("message", _bytes(32, 48)),)),
}
_LINK_BY_KIND = {kind: (cls, layout) for cls, (kind, layout) in _LINK_LAYOUT.items()}


def layout_of(kind: type[Message]) -> tuple[int, tuple[str, ...]]:
    """A message kind's number and field names, in wire order after the header."""
    number, layout = _LAYOUT[kind]
    return number, tuple(name for name, _ in layout)


assert all(tuple(f.name for f in fields(cls))[4:] == layout_of(cls)[1] for cls in _LAYOUT), (
    "the wire layout must list every message field in declaration order"
)
