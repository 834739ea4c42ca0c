"""The protocol's golden frames, in protocol/golden.json's order (python tools/golden.py).

Each is a message of fixed values with a note saying what it means; signed kinds are
signed by their sender's key (`values.KEY_SEED`), as a peer would send them.
"""

from __future__ import annotations

from typing import TypeVar

from p2pnerts.protocol import (
    Ack,
    Evidence,
    Leave,
    Message,
    Play,
    Ready,
    Rejoin,
    Reveal,
    Signer,
    StartView,
    TeamDeal,
    ViewChange,
    face_up,
    pledge,
    witness,
)
from p2pnerts.protocol._codec import encode_payload
from p2pnerts.protocol._messages import CommitFrame
from p2pnerts.rules import (
    NERTS,
    NEW_FOUNDATION,
    WASTE,
    CallNerts,
    Card,
    DeclareStuck,
    Rotate,
    SlideUnder,
    TableOptions,
    ToFoundation,
    ToWork,
    TurnStock,
    card_code,
)

from .values import DIGEST, KEY_SEED, NEXT, ORDER, SECRET, SEED, SHARES, TABLE, ZERO, C, D, H, S

M = TypeVar("M", bound=Message | CommitFrame)


def signer(seat: int) -> Signer:
    """Seat ``seat``'s signer at the golden table of 4 seats."""
    return Signer.computed(seat, 4, KEY_SEED, TABLE)


def signed(message: M) -> M:
    """``message`` as its sender signs it (kinds that are not signed stay as they are)."""
    return signer(message.sender).sign(message)


_signed = signed


SHOWN = tuple(map(card_code, face_up(ORDER, TableOptions())))
READY = _signed(Ready(0, 0, 3, 3, 1, pledge(2, 0, NEXT), SHOWN))
TO_FOUNDATION = _signed(
    Play(2, 0, 17, 5, 1, ToFoundation(2, Card(2, 7, H), NERTS, 3, None, (Card(2, 1, C),)))
)
JOKER = Play(1, 0, 9, 2, 1, ToFoundation(1, Card(1, 0, H), WASTE, NEW_FOUNDATION, (1, S), ()))
LEAVE = Leave(2, 0, 99, 42)
PLAY_2 = _signed(Play(2, 0, 8, 6, 1, DeclareStuck(2)))
"""Seat 2's message 6, and what it signed under the same number for other seats."""
PLAY_2_OTHER = _signed(Play(2, 0, 8, 6, 1, Rotate(2)))
SHOWN_2 = tuple(card_code(Card(0, r, S)) for r in (9, 2, 3, 4, 5))
READY_2 = _signed(Ready(0, 1, 310, 141, 2, bytes(range(32)), SHOWN_2))
VOTE = _signed(
    ViewChange(0, 0, 40, 20, new_view=1, suspects=(2,), have=(19, 9, 7, 11), committed=12)
)
"""Seat 0's vote for view 1 (the view-change frame); seats 1 and 3 vote alike."""
CRASH_VOTES = (
    VOTE,
    *(
        _signed(ViewChange(s, 0, clock, seq, new_view=1, suspects=(2,), have=have, committed=12))
        for s, clock, seq, have in ((1, 58, 32, (20, 31, 7, 11)), (3, 44, 11, (20, 32, 7, 10)))
    ),
)
REJOIN_VOTES = tuple(
    _signed(ViewChange(s, 1, 312 + s, c, new_view=3, suspects=(), have=(141, 98, 17, 149),
                       committed=60))
    for s, c in ((0, 142), (1, 99), (3, 150))
)  # fmt: skip
CRASH = StartView(
    1, 1, 60, 33, voted_in=0, members=(0, 1, 3), quorums=((0, (0, 1, 2, 3)),),
    cuts=(20, 32, 7, 11), joined=(), joined_from=(), lives=(0, 0, 0, 0),
    seated=(0, 1, 2, 3), round=1, base_committed=0, base_digest=ZERO,
    carried=(encode_payload(READY), encode_payload(TO_FOUNDATION)), scores=(),
    votes=tuple(map(encode_payload, CRASH_VOTES)),
)  # fmt: skip
REJOIN = _signed(Rejoin(2, 0, 1, 1, 2))
"""Seat 2 asks to be let back in from view 0 (the rejoin frame), signed."""
REJOINED = StartView(
    3, 3, 320, 150, voted_in=1, members=(0, 1, 2, 3), quorums=((1, (0, 1, 3)),),
    cuts=(141, 98, 17, 149), joined=(2,), joined_from=(0,), lives=(0, 0, 3, 0),
    seated=(0, 1, 3), round=2, base_committed=57, base_digest=DIGEST,
    carried=(encode_payload(READY_2), encode_payload(REJOIN)), scores=((5, -40, 12, 0),),
    votes=tuple(map(encode_payload, REJOIN_VOTES)),
)  # fmt: skip

FRAMES: list[tuple[str, Message, str]] = [
    (
        "ready-round-0",
        Ready(0, 0, 1, 1, 0, pledge(1, 0, SECRET), ()),
        "Before the first round, seat 0 pledges its secret for round 1 (the vectors' secret)"
        " and deals nothing: round 0 only makes round 1's common seed.",
    ),
    (
        "reveal-round-0",
        Reveal(0, 0, 2, 2, 0, SHARES[0]),
        "Once every seated deck's Ready of round 0 is committed, seat 0 reveals its share of"
        " round 1's seed: derived from its round-1 secret, so that round 1's audit checks it.",
    ),
    (
        "ready",
        READY,
        "Seat 0 is dealt for round 1 from its pledged secret and round 1's seed (the vectors'"
        " order): it pledges its secret for round 2, then gives the codes of its Nerts top"
        " and four work-pile cards.",
    ),
    (
        "play-turn-stock",
        Play(1, 0, 7, 3, 1, TurnStock(1, (Card(1, 5, D), Card(1, 12, S), Card(1, 2, C)), 0)),
        "Seat 1 turns three cards from its stock; they land on the waste in this order, the"
        " last one on top. It turned them with the stocks not yet rotated this round"
        " (rotation 0): had a rotation come first in the order, the turn would be refused.",
    ),
    (
        "play-turn-waste-over",
        Play(1, 0, 8, 4, 1, TurnStock(1, (), 1)),
        "Seat 1's stock is empty: turning it turns the waste over as the new stock, revealing"
        " nothing; the stocks have been rotated once this round (rotation 1).",
    ),
    (
        "play-to-foundation",
        TO_FOUNDATION,
        "Seat 2 plays the 7 of hearts from its Nerts pile onto foundation 3 and reveals the"
        " next Nerts card, the ace of clubs.",
    ),
    (
        "play-joker-declared",
        JOKER,
        "At a table with jokers, seat 1 plays its joker with suit bits 1 from its waste as the"
        " ace of spades, starting a new foundation.",
    ),
    (
        "play-to-work",
        Play(1, 0, 10, 5, 1, ToWork(1, Card(1, 9, C), 2, 0, ())),
        "Seat 1 moves the 9 of clubs, with any cards on it, from work pile 2 onto work pile 0.",
    ),
    (
        "play-to-work-from-nerts",
        Play(3, 0, 11, 2, 1, ToWork(3, Card(3, 12, H), NERTS, 1, (Card(3, 4, S),))),
        "Seat 3 moves its Nerts top, the queen of hearts, onto work pile 1 and reveals the next"
        " Nerts card, the 4 of spades.",
    ),
    (
        "play-slide-under",
        Play(1, 0, 11, 6, 1, SlideUnder(1, Card(1, 13, D), WASTE, 4, ())),
        "Seat 1 slides the king of diamonds from its waste under work pile 4 (another work"
        " pile is empty).",
    ),
    (
        "play-declare-stuck",
        Play(3, 0, 13, 7, 1, DeclareStuck(3)),
        "Seat 3 declares its tableau stuck.",
    ),
    (
        "play-rotate",
        Play(3, 0, 14, 8, 1, Rotate(3)),
        "Move kind 6, the all-stuck rotation: every peer applies it on its own and none sends"
        " it (SPEC.md 4.8), but the codec carries it.",
    ),
    ("play-call-nerts", Play(3, 0, 15, 9, 1, CallNerts(3)), "Seat 3 calls Nerts."),
    (
        "ack",
        Ack(1, 0, 9, 3, (4, 2, 6), 12, DIGEST, ((2, 6, witness(PLAY_2)),)),
        "Seat 1 holds messages up to 4 and 6 from seats 0 and 2 and has sent 2 before this"
        " one; it has committed 12 ordered messages, with this running digest after them."
        " Since its previous Ack it took one signed ordered message, seat 2's message 6 (the"
        " first of the two the evidence frame shows), and witnesses it: BLAKE2b-128 of that"
        " message's payload, signature included.",
    ),
    (
        "ack-wide-integers",
        Ack(3, 2, 70000, 300, (65536, 256, 255, 299), 2**32, DIGEST),
        "Integers take their shortest msgpack form: this Ack shows the 1-, 2-, 3-, 5- and"
        " 9-byte forms.",
    ),
    (
        "reveal",
        Reveal(0, 0, 90, 40, 1, SECRET),
        "After round 1, seat 0 reveals the secret its round-0 Ready pledged: everyone can now"
        " shuffle its deck again and audit the round, and it is a share of round 2's seed.",
    ),
    ("leave", LEAVE, "Seat 2 leaves the table cleanly."),
    (
        "view-change",
        VOTE,
        "Seat 0, in view 0, has heard nothing from seat 2 for 2 s: it asks for view 1 without"
        " seat 2, saying what it holds and how many messages it has committed.",
    ),
    (
        "start-view-crash",
        CRASH,
        "Seat 1, coordinator of view 1 (index 1 mod 4 of members 0 1 2 3), starts it without"
        " seat 2; round 1 began at commit 0, and its two ordered messages so far are carried."
        " Until view 1 is known to be installed by all its members, a view change out of it"
        " needs a majority of view 0's members 0 1 2 3 too; no seat has rejoined yet. It holds"
        " the signed votes for view 1 of seats 0, 1 and 3, its members.",
    ),
    (
        "rejoin",
        REJOIN,
        "Seat 2 restarted, holding its deck of round 2, and asks to be let back in; it knows"
        " no view later than 0 (above 0: any view above the one it asks from will do)."
        " Signed: the StartView that lets it in carries it.",
    ),
    (
        "rejoin-above-its-vote",
        _signed(Rejoin(1, 5, 90, 1, 2, above=9)),
        "Seat 1 was shut out of view 7, which never took hold, and asks from view 5, the"
        " view it came into 7 from; in 7 it had voted for view 9, so it installs no view up"
        " to 9, and says so: the coordinator lets it in only to a view above 9.",
    ),
    (
        "evidence",
        Evidence(1, 0, 12, 1, (encode_payload(PLAY_2), encode_payload(PLAY_2_OTHER))),
        "Seat 1 shows every seat two messages seat 2 signed as its message 6 of view 0 with"
        " different words: the proof that seat 2 equivocated. Every receiver checks both"
        " signatures itself and refuses seat 2. Outside the sequence (seq 1, like Rejoin).",
    ),
    (
        "team-deal",
        TeamDeal(0, 0, 3, 1, 1, 1, SECRET, NEXT, SEED),
        "Seat 0 deals its team's deck for round 1 and sends its teammate, seat 1, alone: the"
        " secret the deck is shuffled from, the one its Ready pledges for round 2, and round"
        " 1's seed. Outside the sequence (seq 1, like Rejoin); the clock is the sender's, not"
        " advanced.",
    ),
    (
        "start-view-rejoin",
        REJOINED,
        "Seat 3, coordinator of view 3 (3 mod 4 seats), lets seat 2 back in during round 2,"
        " as it asked from view 0 (its signed Rejoin is carried, after round 2's messages),"
        " its life beginning in view 3; seats 0, 1 and 3 voted for it in view 1 (their signed"
        " votes are held); round 1 scored 5, -40, 12 and 0.",
    ),
]

FRAMES = [(name, _signed(message), note) for name, message, note in FRAMES]
