"""The messages peers exchange: small frozen dataclasses, one per kind.

Every message starts with the same header: the sender's seat; the view (membership
epoch) the sender is in; the sender's Lamport clock when it was sent; and the sender's
own sequence number (1, 2, 3 … per sender and view it joined in, never reused), so that
links are FIFO and can be resumed after a reconnect. The wire layout is in
``protocol/SPEC.md`` at the repository root.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, replace

from p2pnerts.protocol._spectate import Decided, Scene, Seen, Watch
from p2pnerts.rules import Move, TableOptions

PROTOCOL_VERSION = 3


@dataclass(frozen=True, slots=True)
class Header:
    sender: int
    view: int
    clock: int
    seq: int


@dataclass(frozen=True, slots=True)
class Ready(Header):
    """A seat is dealt and ready for round ``round``.

    ``pledge`` is the hash of its deck's secret for the round after (`_deal.pledge`);
    ``face_up`` the codes of the cards it deals face up: the Nerts top, then each work pile
    (none when it only pledges: round 0, or a deck with no secret standing for the round).
    """

    round: int
    pledge: bytes
    face_up: tuple[int, ...]
    below: tuple[int, ...] = ()
    """Version 3: the sender's own vote on it, per other seat the number of the last play
    of that seat the sender held that must come before this one, and of its own seat this
    message's own number, its place among the sender's ordered messages
    (`_spots.Spotted.below`); empty at a table that commits by acknowledgement."""
    sig: bytes = b""
    """The sender's signature (`_signing`): empty until it is signed."""


@dataclass(frozen=True, slots=True)
class Play(Header):
    """A move in round ``round``, ordered with every other play by (clock, tie rule)."""

    round: int
    move: Move
    below: tuple[int, ...] = ()
    """Version 3: the sender's own vote on it, per other seat the number of the last play
    of that seat the sender held that must come before this one, and of its own seat this
    message's own number, its place among the sender's ordered messages
    (`_spots.Spotted.below`); empty at a table that commits by acknowledgement."""
    sig: bytes = b""
    """The sender's signature (`_signing`): empty until it is signed."""


@dataclass(frozen=True, slots=True)
class Ack(Header):
    """What the sender holds: the highest sequence number received from every seat in
    ``have`` (its own included), how many messages it has committed, and the running
    digest after them. Sent promptly after an ordered message (coalesced), and as the
    heartbeat when idle."""

    have: tuple[int, ...]
    committed: int
    digest: bytes
    heard: tuple[tuple[int, int, bytes], ...] = ()
    """What it took since its previous Ack: per signed ordered message of another seat,
    ``(seat, seq, witness)``, the witness being a hash of that message as signed
    (`_witness.witness`). A peer told other words under one number finds out here."""
    passed: tuple[int, ...] = ()
    """Version 3: how far the sender has passed the canonical order (the key of the last
    play settled there, `_commits.Commits.canonical`); empty before any."""
    made: int = 0
    """Version 3: how many ordered messages the sender has made in all (its plays' last
    number)."""


@dataclass(frozen=True, slots=True)
class Reveal(Header):
    """After round ``round``: the secret its deck's order was shuffled from, which the
    seat pledged before the round. Ordered: it is a share of the next round's common
    seed, and its audit's verdict counts at its place in the order."""

    round: int
    secret: bytes
    below: tuple[int, ...] = ()
    """Version 3: the sender's own vote on it, per other seat the number of the last play
    of that seat the sender held that must come before this one, and of its own seat this
    message's own number, its place among the sender's ordered messages
    (`_spots.Spotted.below`); empty at a table that commits by acknowledgement."""
    sig: bytes = b""
    """The sender's signature (`_signing`): empty until it is signed."""


@dataclass(frozen=True, slots=True)
class Leave(Header):
    """The sender leaves the table cleanly, at this place in the order."""

    below: tuple[int, ...] = ()
    """Version 3: the sender's own vote on it, per other seat the number of the last play
    of that seat the sender held that must come before this one, and of its own seat this
    message's own number, its place among the sender's ordered messages
    (`_spots.Spotted.below`); empty at a table that commits by acknowledgement."""
    sig: bytes = b""
    """The sender's signature (`_signing`): empty until it is signed."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ViewChange(Header):
    """The sender stops committing in its view and asks for view ``new_view`` without the
    seats in ``suspects``; ``have`` and ``committed`` say what it holds. Its own fields are
    given by keyword."""

    new_view: int
    suspects: tuple[int, ...]
    have: tuple[int, ...]
    committed: int
    holding: bytes = b""
    """At a table that commits by a majority, what the sender brings to the change of
    members (`_handover`): empty at one that commits by acknowledgement."""
    pool: tuple[bytes, ...] = ()
    """The payloads ``holding`` names by hash (its plays, Ballots and Tallies, each signed
    by its author): outside the signature (`bare`), as a StartView carries them once for
    all its votes."""
    sig: bytes = b""
    """The sender's signature (`_signing`): empty until it is signed."""


@dataclass(frozen=True, slots=True, kw_only=True)
class StartView(Header):
    """The coordinator of view ``view`` starts it, for ``members``, from votes cast in view
    ``voted_in``: only a member still in that view may install it.

    ``quorums`` are earlier views, each as its number and members, whose members the next
    view change needs a majority of too, besides this view's (it needs none of them once
    every member is known to have installed this view). ``cuts`` gives, per seat, the
    last message of that seat the view carries over (later ones from a seat that left are
    dropped); ``joined`` the seats that come (back) in and start their sequence numbers
    again, and ``joined_from`` the view each of them asked to rejoin from; ``lives``, per
    seat, the view its current life began in (this view for the joined seats, 0 for a
    seat that never rejoined). ``carried`` holds the encoded ordered messages of the
    current round, so that every member holds all of them; ``base_committed``,
    ``base_digest`` and ``seated`` are the commit count, the digest and the seats at the
    table (as committed) before the first of them, then the signed Rejoin of each
    ``joined`` seat. ``scores`` is the match so far: each
    finished round's points per deck. Its own fields are given by keyword.
    """

    voted_in: int
    members: tuple[int, ...]
    quorums: tuple[tuple[int, tuple[int, ...]], ...]
    cuts: tuple[int, ...]
    joined: tuple[int, ...]
    joined_from: tuple[int, ...]
    lives: tuple[int, ...]
    seated: tuple[int, ...]
    round: int
    base_committed: int
    base_digest: bytes
    carried: tuple[bytes, ...]
    scores: tuple[tuple[int, ...], ...]
    votes: tuple[bytes, ...] = ()
    """The encoded, signed ViewChange of every member that voted for this view in
    ``voted_in``: every member but the ``joined`` seats (SPEC §6.5)."""
    votes_digest: bytes = b""
    """`digest_votes` of ``votes``, filled in from them when not given. The signature
    covers it in their place (`bare`), so that a later StartView can carry this one
    without its votes: carried with them, each rejoin carried every earlier change of the
    round whole, and the StartViews of a round of many changes outgrew a frame."""
    pool: tuple[bytes, ...] = ()
    """At a table that commits by a majority, the payloads the ``votes``' holdings name, each
    once (`_handover`), the votes carried without their own."""
    sig: bytes = b""
    """The sender's signature (`_signing`): empty until it is signed."""

    def __post_init__(self) -> None:
        if not self.votes_digest:
            object.__setattr__(self, "votes_digest", digest_votes(self.votes))


def digest_votes(votes: Sequence[bytes]) -> bytes:
    """What a StartView's signature covers in place of its votes: the SHA-256 of each, in
    order, as a 4-byte big-endian length and then its bytes (SPEC §3.7)."""
    hashed = hashlib.sha256()
    for vote in votes:
        hashed.update(len(vote).to_bytes(4, "big"))
        hashed.update(vote)
    return hashed.digest()


@dataclass(frozen=True, slots=True)
class Rejoin(Header):
    """A restarted or shut-out seat asks to be let back; ``round`` is the round whose deck
    it still holds (0 for none). Signed: the StartView that lets it back in carries it, so
    every member sees that the seat asked."""

    round: int
    above: int = 0
    """The last view the seat installs nothing at or below, where that is above the view
    it asks from (the header's ``view``): asking from further back than its own view, the
    last it voted for (`Membership.floor`). A coordinator lets it in only above both."""
    sig: bytes = b""
    """The sender's signature (`_signing`): empty until it is signed."""


@dataclass(frozen=True, slots=True)
class TeamDeal(Header):
    """A team's secrets, from the teammate who deals round ``round`` to teammate ``to``
    alone (never to another seat): ``secret``, the one the deck is shuffled from in the
    round, ``next``, the one its Ready pledges for the round after, and ``seed``, the
    round's common seed (for a teammate that came back after it was made; zeros in round
    0). Outside the sequence, like Rejoin (``seq`` is 1); sent before the Ready, and again
    on every new connection to that teammate."""

    to: int
    round: int
    secret: bytes
    next: bytes
    seed: bytes


@dataclass(frozen=True, slots=True)
class Evidence(Header):
    """Signed ordered messages of one seat, shown to every other seat: one that another
    seat's Ack witnessed otherwise (so that seat can compare), or two that the seat signed
    under one view and number with different words, the proof that it equivocated.
    Outside the sequence, like Rejoin (``seq`` is 1); not signed itself (each message
    it shows is)."""

    messages: tuple[bytes, ...]


@dataclass(frozen=True, slots=True)
class Ballot(Header):
    """Version 3's commit: the sender's vote on play ``number`` of seat ``seat`` (`_spots`:
    a rule's `Vote` as it goes on the wire), to seat ``to`` alone (the play's sender, or a
    seat that polled). ``witness``: the witness of the play voted on (`_witness.witness`;
    empty: the voter never held one under that number); ``ok``: for it, naming per seat the
    last play that must come before it (``below``), or late (``below`` empty). Outside the
    sequence, like a TeamDeal (``seq`` is 1). Signed: a Tally carries it to third seats."""

    to: int
    seat: int
    number: int
    witness: bytes
    ok: bool
    below: tuple[int, ...]
    sig: bytes = b""
    """The sender's signature (`_signing`): empty until it is signed."""


@dataclass(frozen=True, slots=True)
class Tally(Header):
    """Version 3's commit: the outcome of play ``number`` of seat ``seat`` (`_spots`: a
    rule's `Decision` on the wire), from whichever seat counted it, to every seat; with the
    signed Ballots it rests on (`_spots.grounds`), each as a Tally carries it
    (`_codec.encode_carried`: without the view, play and witness the Tally says once),
    which every receiver checks decide it so (`_spots.proven`). Outside the sequence
    (``seq`` is 1). Signed by the seat that counted it, whose count it is (the play's
    sender's, or a poller's, which needs more votes), so that another seat may hand it on
    to one that polled."""

    seat: int
    number: int
    witness: bytes
    ok: bool
    below: tuple[int, ...]
    ballots: tuple[bytes, ...]
    passed: tuple[int, ...] = ()
    """How far the sender had passed the canonical order as it sent this (an Ack's
    ``passed``): a seat that tallies its own plays need send no Ack to say it."""
    sig: bytes = b""
    """The sender's signature (`_signing`): empty until it is signed."""


@dataclass(frozen=True, slots=True)
class Poll(Header):
    """Version 3's commit: the sender waited too long on the outcome of play ``number`` of
    seat ``seat`` and asks each member for its Ballot on it, to count them itself; it
    carries the play as the poller holds it, signed by its sender (``play``: its payload),
    so that a member whose link from that sender is slower votes on it at once. Outside
    the sequence (``seq`` is 1); not signed."""

    seat: int
    number: int
    play: bytes = b""


CommitFrame = Ballot | Tally | Poll
"""Version 3's commit frames: laid out and signed as protocol messages are, sent and taken
by a replica that commits by a majority (`_majority`), refused by one that does not."""


Ordered = Ready | Play | Leave | Reveal
Message = (
    Ready | Play | Ack | Reveal | Leave | ViewChange | StartView | Rejoin | TeamDeal | Evidence
)


def bare(message: Message | CommitFrame) -> Message | CommitFrame:
    """A message as it is hashed and carried: a StartView without what it carries and
    without its votes (both are read once, on arrival, and are not part of the order; the
    votes' digest stands for them), a StartView or a ViewChange without its pool (each
    payload in it is signed by its author, and named by hash in what the signature
    covers)."""
    if isinstance(message, StartView) and (message.carried or message.pool or message.votes):
        return replace(message, carried=(), pool=(), votes=())
    if isinstance(message, ViewChange) and message.pool:
        return replace(message, pool=())
    return message


def addressed_to(message: Message, seat: int) -> bool:
    """Whether a message a replica sends goes to ``seat`` (never its own sender): every
    message goes to every other seat, except a TeamDeal, to its one teammate."""
    return message.to == seat if isinstance(message, TeamDeal) else message.sender != seat


# --- link messages: forming a table and opening connections; not part of the order --------


@dataclass(frozen=True, slots=True)
class Seat:
    """One seat of a table's roster: who sits there and where it listens."""

    seat: int
    name: str
    host: str
    port: int
    key: bytes = bytes(32)
    """The seat's Ed25519 public key: only its holder can open a link as this seat."""


@dataclass(frozen=True, slots=True)
class Hello:
    """The first frame on every connection, both ways: which table, which seat (-1 for a
    newcomer asking the host for one), the player's name, the port it listens on, its
    public key and a fresh nonce. The answering end's Hello also carries its ``proof``
    (`_identity.link_statement`, signed). At a private table each end's Hello carries
    ``pake``, its SPAKE2 message (`_passphrase.PassphraseRun`), and the answering end's
    ``mac``, its proof that it knows the passphrase; the opening end then proves itself
    with `Proof`. A seat's Hello to another seat also says what the
    table is, ``terms`` (`_identity.table_terms`); a newcomer's has none."""

    table: bytes
    seat: int
    name: str
    port: int
    key: bytes = bytes(32)
    nonce: bytes = bytes(16)
    proof: bytes = b""
    mac: bytes = b""
    terms: bytes = b""
    pake: bytes = b""


@dataclass(frozen=True, slots=True)
class Welcome:
    """The host gives a newcomer its seat, the table's size and options, its name (which a
    newcomer that dialled an address knew only as that address), and whether the table
    commits by version 3's majority (`_majority`): the host chose, and every seat follows."""

    table: bytes
    seat: int
    players: int
    options: TableOptions
    name: str
    majority: bool = False


@dataclass(frozen=True, slots=True)
class Refuse:
    """The answer to a Hello that cannot be taken, saying why; the connection then closes."""

    reason: str


@dataclass(frozen=True, slots=True)
class Proof:
    """The opening end of a link proves it holds its key: its signature of the link's
    statement (`_identity.link_statement`), after the answer's Hello proved the other end;
    ``mac``, to the host of a private table, its proof that it knows the passphrase."""

    proof: bytes
    mac: bytes = b""


@dataclass(frozen=True, slots=True)
class Roster:
    """The host tells every seated peer who sits where; ``started`` once the table is full."""

    seats: tuple[Seat, ...]
    started: bool


@dataclass(frozen=True, slots=True)
class Noise:
    """A message of the Noise handshake that opens every connection, before anything else
    (`_channel`): the opener's ephemeral key, or the answerer's and a tag. The only frames
    sent in the clear, with a Refuse of a connection that cannot open."""

    message: bytes


LinkMessage = Hello | Welcome | Refuse | Roster | Proof | Watch | Scene | Seen | Decided | Noise


def shown_to_spectators(message: Message | CommitFrame) -> bool:
    """Whether a spectator may see ``message``: every kind but a TeamDeal, which gives a
    teammate the deck's face-down order. (A Reveal is sent only once its round is over,
    for the audit, or as its seat leaves, whose cards nobody plays meanwhile; a Ready or a
    Play names only cards that are or turn face up; a commit frame names plays by number.)"""
    return not isinstance(message, TeamDeal)
