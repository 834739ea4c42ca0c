"""The sans-IO protocol: Lamport ordering, arbitration and tie rules, as a state machine.

`Replica` is fed received messages, its player's intents and the time; it returns
messages to broadcast and events. It imports the rules, never a socket or a clock.

Where a race is decided: `_arbiter.decide`, one pure function that gives a committed
play's `Verdict` (landed, tied, or returned with the winner and the reason).

`Replica` (`_replica.py`, with its theory of operation) is a facade over parts, each the
one owner of its state; what the other layers read of it is `Readings` (`_readings.py`),
each answer read from the part that owns it:

- `Gate` (`_checks.py`): the checks a message passes before anything changes for it,
  its place on its sender's link, and the seats refused for breaking the protocol;
- `Acks` (`_acks.py`): the clock, and who holds which messages;
- `Outbox` (`_outbox.py`): what this seat sends, kept until every member holds it, and
  when an acknowledgement or a heartbeat is due;
- `Log` (`_log.py`): the pending messages in order, the commit count, the running digest;
- `Membership` (`_membership.py`): views, exclusion of a silent seat, installing a view,
  who is seated, the replica's status, and a seat out regrouping the table when every
  seat is; it holds `Election` (`_election.py`: votes and
  the coordinator's StartView), `Rejoining` (`_rejoining.py`: requests to rejoin and the
  messages held back from a newer view), `Lineage` (`_lineage.py`: where each member came
  into the view from, whom the votes that began it suspected, and whether the view is
  known never to take hold) and the `Base`
  (`_base.py`) a StartView rebuilds the round from, with what it carries;
- `Away` and `Record` (`_away.py`): this seat's own stalls, counted against nobody and
  told once answered, and the rounds told, so that a seat back in tells none twice;
- `Dealing` (`_dealing.py`): each round's deck, shuffled from a secret its seat pledged
  and the round's common seed, the team's deck and the start of play; it holds `Closing`
  (`_closing.py`: the ordered reveals, the next round's seed, the audit and the void of a
  deck that fails it); what it keeps of each round, and of its deck on disk, is `Round`
  and `Disk` (`_rounds.py`);
- `InPlay` (`_inplay.py`): the round on the table, the plays in the air and the one
  hand; a committed play lands, ties or returns by the verdict of `_arbiter.decide`.

A received message takes SPEC §4.2's steps in order, each in the part that owns it
(`Replica._receive`); `python tools/receive_path.py` counts the parts it stops at:

    1     checked completely ........... Gate.check (signatures: _signing)
    2     Rejoin, TeamDeal, Evidence ... Membership / Dealing / Witness, and no further
    3-7   for this view? ............... Membership.admit (Lineage: gone elsewhere)
    8     next on its sender's link? ... Gate.in_line (the clock rises, an Ack's claims)
    9     accepted ..................... Acks.accept, then Membership.hear_from (Liveness)
    10    by kind: an Ack .............. Witness.take_ack, Away.kept_in, Log.compare,
                                         Outbox.trim
          Ready, Play, Reveal, Leave ... Log.add, Witness.took, Outbox.ack_soon
          ViewChange, StartView ........ Election.take, Membership.take_start_view
    11    commit, while the head can ... Acks.vouched_by, Witness.release, Log.pop_head,
                                         Membership.note_committed, then by kind:
                                         a Play: InPlay.commit_play (_arbiter.decide);
                                         else Dealing or Membership, then what follows
                                         by itself (Dealing, InPlay.settle, Dealing);
                                         Log.fold (the digest)

At a table that commits by a majority, steps 1-9 are the same (step 8 checks too the
number an ordered message names itself: Majority.check); then:

    10    Ready, Play, Reveal, Leave ... Majority.hold: Applying.hold, then Commits.hold
                                         (Voter.hold, Order.hold, its Ballot cast)
    11    commit what now can .......... Majority.apply: Commits.step (Order.step: what
                                         resolved, then what the canonical order settled),
                                         then Applying.take (applied or returned, folded)

and a commit frame (a Ballot, Tally or Poll), dropped unread while the members change,
takes three steps (`Replica._take_frame`):

    1     checked ...................... Gate.check_frame (refused, whose link, the
                                         header; one handed on, its signature)
    2     counted ...................... Majority.take, then Commits.take: a Ballot
                                         counted and its play decided if it can (a
                                         Tally out); a Tally's
                                         Ballots decoded, then every signature at once,
                                         then its proof (BallotBox.check), its outcome
                                         learnt (Order.learn); a Poll answered, and
                                         the play it carries held as in step 10
    3     commit what now can .......... as step 11

The parts reach the replica that holds them through `_host.Host`, where every field they
share is declared once; a part that reads more names only that in a `Host` of its own that
extends it (the membership's own parts read the membership likewise, `_host.Membership`).

Version 3's commit rule (a majority's order per spot) is `_spots` (the votes and what they
decide and prove) and `_order` (one seat's commits and what a view change settles), which
the study's model runs too (``tools/commit_rules.py``); `_ballots` its frames (signed
votes, and outcomes that carry them, checked before they count) and `_commits` one seat's
commit over them, with `_polling` when it polls on a late play and `_changes` what a
change of members settles from what each seat holds. A replica made with
``majority=True`` holds it (`Majority`, `_majority.py`: its ordered messages numbered and
held; `Applying`, `_applying.py`: applied as they resolve and folded in the canonical
order) in place of the log, and changes members from what each seat brings in its
ViewChange (`_handover`), a seat coming back replaying the round
as the coordinator applied it (`Majority.rejoin`). `_channel` encrypts a link:
a Noise handshake (by the `noiseprotocol` package) and the records that carry its frames,
sealed and opened without IO; `_identity` says who a seat is, and what each end of a link signs.

It imports only `rules` and `errors` (and, for keys, signatures and links, `PyNaCl`,
`cryptography`, `noiseprotocol` and `spake2`): no socket, no clock, no event loop.
"""

from p2pnerts.protocol._arbiter import Outcome, Race, Verdict, decide, told
from p2pnerts.protocol._channel import Channel, Opening, answer_opening
from p2pnerts.protocol._codec import (
    FrameDecoder,
    decode,
    decode_any,
    decode_carried,
    decode_payload,
    encode,
    encode_carried,
    encode_payload,
)
from p2pnerts.protocol._deal import (
    NEVER_REVEALED,
    SECRET_BYTES,
    Shuffle,
    check_deck,
    common_seed,
    derived,
    face_up,
    pledge,
    public_deal,
    shuffle,
    with_own_deck,
)
from p2pnerts.protocol._errors import (
    KeptStateError,
    LocalProtocolError,
    ProtocolError,
    RemoteProtocolError,
)
from p2pnerts.protocol._events import (
    AuditFailed,
    AuditPassed,
    AutoApplied,
    Diverged,
    Event,
    PeerExcluded,
    PeerLeft,
    PeerRecovered,
    PeerRefused,
    PeerRejoined,
    PeerStalled,
    PeerSuspected,
    PlayCommitted,
    PlayInTheAir,
    PlayReturned,
    RejoinedTable,
    Returned,
    RoundMissed,
    RoundOver,
    RoundStarted,
    ShutOut,
    SitOut,
    ViewInstalled,
)
from p2pnerts.protocol._hand import Hand
from p2pnerts.protocol._identity import (
    ANSWERER,
    NO_KEY,
    NONCE_BYTES,
    OPENER,
    SPECTATOR_SEAT,
    SeatKey,
    fingerprint,
    link_statement,
    spectator_opener,
    table_terms,
    ticket_statement,
    verify,
)
from p2pnerts.protocol._inplay import PLAYS_WAITING
from p2pnerts.protocol._log import PENDING_LIMIT, Pending, key_for, order_key, order_reason
from p2pnerts.protocol._messages import (
    PROTOCOL_VERSION,
    Ack,
    Ballot,
    CommitFrame,
    Evidence,
    Hello,
    Leave,
    LinkMessage,
    Message,
    Noise,
    Ordered,
    Play,
    Poll,
    Proof,
    Ready,
    Refuse,
    Rejoin,
    Reveal,
    Roster,
    Seat,
    StartView,
    Tally,
    TeamDeal,
    ViewChange,
    Welcome,
    addressed_to,
    bare,
    digest_votes,
    shown_to_spectators,
)
from p2pnerts.protocol._passphrase import (
    PAKE_BYTES,
    LinkProof,
    PassphraseRun,
    TableSecret,
    passphrase_bytes,
)
from p2pnerts.protocol._replica import Replica
from p2pnerts.protocol._rounds import Disk
from p2pnerts.protocol._signing import SIGNED, Signer, signed_bytes
from p2pnerts.protocol._spectate import (
    Decided,
    Scene,
    Seen,
    TableauSight,
    Watch,
    foundation_tops,
    tableaux_of,
)
from p2pnerts.protocol._spots import LEAST_FOR_MAJORITY, quorum
from p2pnerts.protocol._spots import conflict as spots_conflict
from p2pnerts.protocol._status import Status, Timing
from p2pnerts.protocol._wire import (
    MAX_FRAME,
    MAX_SEATS,
    NAME_MOST,
    TABLE_NAME_BYTES,
    name_fault,
    table_name_fault,
)
from p2pnerts.protocol._witness import conflict, witness

__all__ = [
    "ANSWERER",
    "LEAST_FOR_MAJORITY",
    "MAX_FRAME",
    "MAX_SEATS",
    "NAME_MOST",
    "NEVER_REVEALED",
    "NONCE_BYTES",
    "NO_KEY",
    "OPENER",
    "PAKE_BYTES",
    "PENDING_LIMIT",
    "PLAYS_WAITING",
    "PROTOCOL_VERSION",
    "SECRET_BYTES",
    "SIGNED",
    "SPECTATOR_SEAT",
    "TABLE_NAME_BYTES",
    "Ack",
    "AuditFailed",
    "AuditPassed",
    "AutoApplied",
    "Ballot",
    "Channel",
    "CommitFrame",
    "Decided",
    "Disk",
    "Diverged",
    "Event",
    "Evidence",
    "FrameDecoder",
    "Hand",
    "Hello",
    "KeptStateError",
    "Leave",
    "LinkMessage",
    "LinkProof",
    "LocalProtocolError",
    "Message",
    "Noise",
    "Opening",
    "Ordered",
    "Outcome",
    "PassphraseRun",
    "PeerExcluded",
    "PeerLeft",
    "PeerRecovered",
    "PeerRefused",
    "PeerRejoined",
    "PeerStalled",
    "PeerSuspected",
    "Pending",
    "Play",
    "PlayCommitted",
    "PlayInTheAir",
    "PlayReturned",
    "Poll",
    "Proof",
    "ProtocolError",
    "Race",
    "Ready",
    "Refuse",
    "Rejoin",
    "RejoinedTable",
    "RemoteProtocolError",
    "Replica",
    "Returned",
    "Reveal",
    "Roster",
    "RoundMissed",
    "RoundOver",
    "RoundStarted",
    "Scene",
    "Seat",
    "SeatKey",
    "Seen",
    "Shuffle",
    "ShutOut",
    "Signer",
    "SitOut",
    "StartView",
    "Status",
    "TableSecret",
    "TableauSight",
    "Tally",
    "TeamDeal",
    "Timing",
    "Verdict",
    "ViewChange",
    "ViewInstalled",
    "Watch",
    "Welcome",
    "addressed_to",
    "answer_opening",
    "bare",
    "check_deck",
    "common_seed",
    "conflict",
    "decide",
    "decode",
    "decode_any",
    "decode_carried",
    "decode_payload",
    "derived",
    "digest_votes",
    "encode",
    "encode_carried",
    "encode_payload",
    "face_up",
    "fingerprint",
    "foundation_tops",
    "key_for",
    "link_statement",
    "name_fault",
    "order_key",
    "order_reason",
    "passphrase_bytes",
    "pledge",
    "public_deal",
    "quorum",
    "shown_to_spectators",
    "shuffle",
    "signed_bytes",
    "spectator_opener",
    "spots_conflict",
    "table_name_fault",
    "table_terms",
    "tableaux_of",
    "ticket_statement",
    "told",
    "verify",
    "with_own_deck",
    "witness",
]
