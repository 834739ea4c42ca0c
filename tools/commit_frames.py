"""The frames of the study's commit rules (`commit_rules`): what each is, what it costs in
bytes, and what a rule's run counts of them (`Result`)."""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import msgpack

from p2pnerts.protocol import Signer, encode
from p2pnerts.protocol._ballots import BallotBox
from p2pnerts.protocol._codec import encode_carried
from p2pnerts.protocol._messages import Tally
from p2pnerts.protocol._spots import PlayId, Spot, Vote, quorum

SIGNATURE = 2 + 64
"""An Ed25519 signature as the codec packs it (a bin of 64 bytes)."""

# Wi-Fi's air, for `airtime`: 802.11n on 5 GHz, 20 MHz, one stream at MCS 7 (65 Mb/s), no
# collision and no retry. Each frame waits DIFS and the mean backoff (7.5 slots of CWmin
# 15), goes after its HT-mixed preamble in OFDM symbols of 260 bits (SERVICE 16 bits, tail
# 6), and is answered by the MAC's ACK (SIFS, a legacy preamble, 14 bytes at 24 Mb/s).
DIFS_US, BACKOFF_US, PREAMBLE_US = 34.0, 7.5 * 9.0, 36.0
ACK_US = 16.0 + 20.0 + 8.0
SYMBOL_US, SYMBOL_BITS = 4.0, 260
HEADERS = 26 + 8 + 4 + 20 + 8 + 8 + 16
"""What a frame carries besides the codec's bytes: the 802.11 QoS header, LLC/SNAP and
FCS; IPv4 and UDP; the link's record counter and AEAD tag (SPEC §2.8)."""
HOPS = 2
"""Seat to seat through the access point: every frame is on the air twice."""


def airtime(frames: Counter[str], size: Counter[str], aside: str = "heartbeat") -> float:
    """Microseconds of air the frames take (kinds ``aside`` left out), each kind's frames
    taken at their mean size: a frame's fixed cost is some 180 µs at any size, a byte's
    0.12, so at these sizes the count of frames, not their bytes, fills the air."""
    total = 0.0
    for kind, count in frames.items():
        if kind == aside or not count:
            continue
        bits = 16 + 6 + 8 * (size[kind] / count + HEADERS)
        symbols = -(-bits // SYMBOL_BITS)
        total += count * (DIFS_US + BACKOFF_US + PREAMBLE_US + SYMBOL_US * symbols + ACK_US)
    return HOPS * total


@dataclass(frozen=True, slots=True)
class Sizes:
    """Bytes of each kind of frame at a table (from the codec; see `commit_study.sizes`)."""

    play: int
    ack: int
    heartbeat: int
    small: int
    """A frame that names one play (a vote, a request): a header and a witness."""

    def of(self, frame: Frame) -> int:
        """A frame's bytes: a heartbeat's carries a `have` already, as a stability's and an
        outcome's do; a vote for a play adds its voter's `have`; and what it carries."""
        match frame.kind:
            case "play":
                size = self.play
            case "ack":
                size = self.ack
            case "heartbeat" | "stable" | "outcome":
                size = self.heartbeat
            case "ballot" | "tally" | "poll":  # the rule as built: priced as encoded
                size = 0
            case _:
                size = self.small + (len(msgpack.packb(frame.have)) if frame.have else 0)
        return size + frame.carried


VOTES_SIGNED = frozenset({"signed", "asked", "accountable"})
"""The rules whose votes are signed (a vote may then be carried to a third seat)."""


def vote_carries(rule: str) -> int:
    """What a vote carries besides under ``rule``: a signature, or nothing."""
    return SIGNATURE if rule in VOTES_SIGNED else 0


def proof_carries(rule: str, grounds: tuple[Vote, ...]) -> int:
    """What an outcome resting on ``grounds`` carries besides under ``rule``: the votes
    themselves (``signed``, and a decider's answer to an ask under ``asked``), or its
    decider's signature and a byte for each voter it names (``accountable``), or nothing."""
    if rule in ("signed", "asked"):
        return sum(carried(v) for v in grounds)
    if rule == "accountable":
        return SIGNATURE + len(grounds)
    return 0


def carried(vote: Vote) -> int:
    """A signed vote's bytes as an outcome carries it (its play and witness said once, by
    the outcome): its voter, for or late, what it names and its signature."""
    return len(msgpack.packb([vote.voter, vote.ok, list(vote.below)])) + SIGNATURE


@dataclass(frozen=True, slots=True)
class Frame:
    kind: str
    src: int
    clock: int
    plays_sent: int
    """How many plays the sender had sent with this frame (the FIFO prerequisite)."""
    play: PlayId | None = None
    have: tuple[int, ...] = ()
    """An Ack's or a stability's `have`, a vote's, or an outcome's `below`."""
    ok: bool = True
    carried: int = 0
    """Bytes it carries besides: a signature, or the signed votes an outcome rests on (the
    rule as built: the whole frame's, as encoded)."""
    wire: object = None
    """The rule as built: the frame itself (`p2pnerts.protocol._commits`)."""


@dataclass
class Result:
    """One rule's run: commit latency of each seat's own plays, and frames sent."""

    latencies: dict[int, list[float]] = field(default_factory=dict)
    returned: Counter[int] = field(default_factory=Counter)
    sent: Counter[int] = field(default_factory=Counter)
    frames: Counter[str] = field(default_factory=Counter)
    bytes: Counter[str] = field(default_factory=Counter)
    handled: int = 0
    plays: int = 0
    conflicts: int = 0
    misordered: int = 0
    barriers: int = 0
    """Plays on the whole table the workload made (a Nerts call, a stuck)."""
    barriers_late: int = 0
    """Times such a play came back late, and its sender sent it again."""
    barrier_waits: list[float] = field(default_factory=list)
    """From each such play's first sending to its landing, however often it was sent."""

    def unfinished(self, seat: int) -> int:
        """``seat``'s plays that neither committed nor returned there by the end."""
        return self.sent[seat] - len(self.latencies.get(seat, ()))


def laid_out(peers: int, sizes: Sizes) -> dict[str, tuple[int, int]]:
    """Rule ``signed``'s frames at a table of ``peers`` (numbers as a long match makes
    them: clock 100,000, play 5,000), each as the model prices it and as version 3 lays it
    out (`p2pnerts.protocol._ballots`): a vote, and an outcome in on a quorum's votes, each
    signed."""
    play, witness, below = (0, 5_000), bytes(range(16)), (5_000,) * peers
    votes = [Vote(play, voter, True, below, witness) for voter in range(1, quorum(peers))]
    ballots = [
        BallotBox(v.voter, peers, Signer.computed(v.voter, peers)).cast(v, 0, 1, 100_000)
        for v in votes
    ]
    carried = tuple(encode_carried(ballot, witness) for ballot in ballots)
    tally = Signer.computed(0, peers).sign(
        Tally(0, 1, 100_000, 1, *play, witness, True, below, carried)
    )
    vote = Frame("vote", 1, 100_000, 0, play, below, True, SIGNATURE)
    outcome = Frame(
        "outcome", 0, 100_000, 0, play, below, True, proof_carries("signed", tuple(votes))
    )
    return {
        "vote": (sizes.of(vote), len(encode(ballots[0]))),
        "outcome": (sizes.of(outcome), len(encode(tally))),
    }


def misordered(
    committed: Sequence[PlayId],
    spots: Mapping[PlayId, tuple[Spot, ...]],
    key: Callable[[PlayId], tuple[int, ...]],
) -> int:
    """Pairs of plays ``committed`` (one seat's, in the order it committed them) out of key
    order that conflict (`_spots.conflict`) or are one seat's. Each play is looked up only
    among the plays committed before it that act where it could conflict: on a spot on the
    way to one of its spots, or on one of them or further down; those with a later key are
    the end of a sorted list, which a seat committing in key order leaves empty."""
    Entries = list[tuple[tuple[int, ...], PlayId]]
    at: dict[Spot, Entries] = {}
    under: dict[Spot, Entries] = {}
    sent: dict[int, Entries] = {}
    count = 0
    for play in committed:
        mine = key(play)
        lists = [sent.get(play[0], [])]
        for spot in spots[play]:
            lists += [at.get(spot[:n], []) for n in range(len(spot))]
            lists.append(under.get(spot, []))
        later = {
            q for held in lists for k, q in held[bisect.bisect_right(held, (mine,)) :] if k > mine
        }
        count += len(later)
        entry = (mine, play)
        bisect.insort(sent.setdefault(play[0], []), entry)
        for spot in spots[play]:
            bisect.insort(at.setdefault(spot, []), entry)
            for n in range(len(spot) + 1):
                bisect.insort(under.setdefault(spot[:n], []), entry)
    return count
