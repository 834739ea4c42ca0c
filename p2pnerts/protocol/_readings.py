"""What the other layers read of a replica: each answer read from the part that owns it.

`Replica` is this surface over its parts; nothing here changes state. The screen, the
network's peer, the simulator and the tests read a replica only through it (and the
parts' own read-only attributes).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from p2pnerts.protocol._acks import Acks
from p2pnerts.protocol._dealing import Dealing
from p2pnerts.protocol._hand import Hand
from p2pnerts.protocol._inplay import InPlay
from p2pnerts.protocol._log import Log, Pending
from p2pnerts.protocol._membership import Membership
from p2pnerts.protocol._rounds import Disk, Round
from p2pnerts.protocol._status import Status
from p2pnerts.rules import Move, State


class Readings:
    """The read-only surface of a replica over the parts it is made of."""

    inplay: InPlay
    """The round on the table at this seat, and this seat's plays in the air."""
    membership: Membership
    """Views, votes and rejoining."""
    log: Log
    """The agreed order: what waits to commit, and the running digest."""
    acks: Acks
    """The clock, and who holds which messages."""
    dealing: Dealing
    """The rounds dealt, the team's deck, the start of play and the audit."""
    deck: int
    """The deck this seat plays (a team's seats share one)."""

    def sitting_out(self) -> list[int]:
        """The seats sitting the round in play out (`InPlay.sitting_out`)."""
        return self.inplay.sitting_out()

    @property
    def disk(self) -> Disk:
        """What this peer must keep on disk to come back after a crash (save it whenever it
        changes: a new round or a new view)."""
        return replace(self.dealing.saved, view=self.view)

    def should_deal(self) -> bool:
        """Whether this seat should deal the next round now (`Dealing.should_deal`)."""
        return self.dealing.should_deal()

    def round_data(self, number: int) -> Round:
        """What this replica keeps of round ``number`` (kept from now on)."""
        return self.dealing.round_data(number)

    def dealt_by(self, number: int) -> dict[int, int]:
        """Per deck dealt in round ``number``, the seat whose Ready dealt it."""
        return self.dealing.dealt_by(number)

    @property
    def round(self) -> int:
        """The dealt round: the last round this seat dealt a deck for."""
        return self.dealing.round

    @property
    def blind(self) -> bool:
        """Whether this seat is dealt in but does not know its deck's face-down order."""
        return self.dealing.blind

    @property
    def stuck_while_away(self) -> bool:
        """Whether this seat's tableau was declared stuck for it while it was away (and by
        none of its seats since)."""
        return self.deck in self.inplay.stuck_while_away

    @property
    def stuck_for_idle(self) -> bool:
        """Whether this seat's peer declared its tableau stuck for its idle player (and no
        seat of it since)."""
        return self.inplay.stuck_for_idle

    @property
    def turns_though_stuck(self) -> bool:
        """Whether this seat's player may turn the stock: the tableau they see is not
        declared stuck, or a play has opened up since (`InPlay.turns_though_stuck`)."""
        display = self.inplay.display
        return display is not None and self.inplay.turns_though_stuck(display)

    @property
    def display(self) -> State | None:
        """The table this seat's player sees: committed, plus their own plays in the air."""
        return self.inplay.display

    @property
    def public(self) -> State | None:
        """The public table of the round in play: the same at every replica."""
        return self.inplay.public

    @property
    def playing(self) -> int:
        """The round on the table (0 before the first is dealt in)."""
        return self.inplay.number

    @property
    def in_the_air(self) -> Move | None:
        """This seat's play that holds its one hand, sent last, if any."""
        return self.inplay.hand.last

    @property
    def hand(self) -> Hand:
        """This seat's plays in the air that hold its one hand, and which next moves wait
        for them (`Hand.waits_for`)."""
        return self.inplay.hand

    @property
    def status(self) -> Status:
        """Where this replica stands: playing, regrouping, rejoining or gone."""
        return self.membership.status

    @property
    def view(self) -> int:
        """The number of the view this replica is in."""
        return self.membership.view

    @property
    def members(self) -> frozenset[int]:
        """The seats of this replica's view."""
        return self.membership.members

    @property
    def seated(self) -> frozenset[int]:
        """The seats at the table as the committed order says."""
        return self.membership.seated

    @property
    def suspected(self) -> set[int]:
        """The members silent for a while (still members)."""
        return self.membership.liveness.suspected

    @property
    def heard(self) -> list[float]:
        """Per seat, when this replica last heard from it."""
        return self.membership.liveness.heard

    @property
    def clock(self) -> int:
        """This replica's Lamport clock."""
        return self.acks.clock

    @property
    def have(self) -> Sequence[int]:
        """Per seat, the highest sequence number held of its current life."""
        return self.acks.have

    @property
    def committed(self) -> int:
        """How many messages this replica has committed."""
        return self.log.committed

    @property
    def pending(self) -> Sequence[Pending]:
        """The ordered messages held, waiting to commit, in their order."""
        return self.log.pending

    @property
    def digest(self) -> bytes:
        """The running digest of everything committed so far."""
        return self.log.digest

    def digest_at(self, committed: int) -> bytes:
        """The running digest after the first ``committed`` messages (recent ones only)."""
        return self.log.digests[committed]
