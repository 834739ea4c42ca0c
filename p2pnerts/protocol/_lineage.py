"""Lineage: where each member of a view came from, what shows a view never takes hold, and
which seats the votes that began it suspected (`Election._parted`, `Rejoining.hold_off`).

A member came into a view either as a voter, from the view the StartView's votes were
cast in (`StartView.voted_in`), or let back in, from the view it asked to rejoin from
(`StartView.joined_from`). A member that then talks from a view between where it came
from and this one installed another view instead: it is *gone*, and will never vouch for
anything here (`Membership.admit`).

A view is *stillborn* once one of its members is known never to install it:

- a voter that sent, stamped with the view the votes were cast in, a vote for a later view
  (after that vote it installs no earlier view from those votes, and no StartView that
  lists it as a voter lets it in as a rejoining seat): it is gone too (`take_vote`);
- a voter that is gone (it left the view it voted in for another, and is never in it
  again);
- a member that talks from a later view whose StartView shows it came into that view
  from below this one (as a voter, or asking to rejoin): it went past this view without
  installing it (had it installed it, it would have come on from this view or later, or
  this view would be stillborn already);
- a seat let in as rejoining that is gone by a vote for this view or a later one: to
  install this view it would have to ask again from where this view lets it in from,
  further back than the view it voted in (in one life, a seat never asks from an earlier
  view than it did before; back from a restart, it asks from the view it kept), and
  asking from further back than its view, a seat installs no view up to the last it
  voted for.

A stillborn view commits nothing, as a commit needs every member's acknowledgement sent in
the view, and it is never known installed everywhere, so every view built from it still
needs majorities of the view its votes were cast in (SPEC §6.4).

A seat that is shut out of a stillborn view asks to rejoin from the view it came from
(`origin`), as if the StartView had never reached it: what it did in the stillborn view
counts nowhere. Its votes there can only have formed views that list it as a voter, which
it, out, never installs, so they never take hold either; and it installs no view at or
below the stillborn one, or the last it voted for, again (`Membership._answers_my_rejoin`);
its Rejoin says so (`Rejoin.above`), and a coordinator lets it in only above that view. A
view that listed it as coming back, but that it never installed (one built before that
Rejoin reached its coordinator, say), takes a Rejoin of it from further back than that view
for a late one — unless the seat is gone, and the Rejoin was sent after the message that
showed it (`asks_again`), or it has said nothing in that view a view change's timeout after
it was installed (`Membership._refused_its_start`). Without all that, two sibling views
each installed by half the table wait for each other for ever: each half needs a majority
of the view both were built from, and may count a seat asking to rejoin only from one of
the views behind its own (SPEC §6.9).
"""

from __future__ import annotations

import itertools

from p2pnerts.protocol._codec import decode_payload
from p2pnerts.protocol._messages import Message, Rejoin, StartView, ViewChange


class Lineage:
    """Where each member of this seat's view came from, and what each has shown since."""

    def __init__(self, seat: int) -> None:
        self._seat = seat
        self._view = 0
        self._voted_in = 0
        self._came_from: dict[int, int] = {}
        """Per other member, the view above which a message it sends from a view below this
        one shows it installed another view instead."""
        self._voters: frozenset[int] = frozenset()
        """The other members that came in as voters, from ``_voted_in``."""
        self._asked_above: dict[int, int] = {}
        """Per member let back in, the view its Rejoin said it installs nothing at or below
        (`Rejoin.above`): what it said from those views it said before it asked."""
        self.gone: dict[int, int] = {}
        """The members shown to have installed another view than this one, each with the
        clock of the latest message that showed it."""
        self.origin = 0
        """The view this seat came into this view from."""
        self.stillborn = False
        """Whether a member of this view is known never to install it."""
        self.suspected: frozenset[int] = frozenset()
        """The seats the votes that began this view named among their suspects."""
        self.apart: set[tuple[int, int]] = set()
        """The pairs of its voters that could not hear each other: each named the other
        (`Election._parted`)."""
        self._later: dict[int, dict[int, int]] = {}
        """Per later view whose StartView reached this seat, where each of its members
        came into it from."""
        self._talked: dict[int, set[int]] = {}
        """Per later view, the members of this one heard talking from it."""

    def begin(self, start: StartView, origin: int) -> None:
        """A view is installed: this seat came into it from ``origin``."""
        self._view, self._voted_in = start.view, start.voted_in
        self._came_from = dict.fromkeys(start.members, start.voted_in)
        self._came_from.update(zip(start.joined, start.joined_from, strict=True))
        self._came_from.pop(self._seat, None)
        self._voters = frozenset(start.members) - set(start.joined) - {self._seat}
        self._asked_above = asked_above(start)
        self.gone, self.origin, self.stillborn = {}, origin, False
        self._later, self._talked = {}, {}
        cast = [decode_payload(payload) for payload in start.votes]
        votes = {v.sender: v for v in cast if isinstance(v, ViewChange)}
        self.suspected = frozenset(s for v in votes.values() for s in v.suspects)
        self.apart = apart(votes)

    def went_elsewhere(self, message: Message) -> bool:
        """Whether a message shows its sender, a member, installed another view than this
        one (it talks from a view between where it came from and this one)."""
        sender = message.sender
        since = max(self._came_from.get(sender, self._view), self._asked_above.get(sender, 0))
        if not since < message.view < self._view:
            return False
        self.gone[sender] = max(self.gone.get(sender, 0), message.clock)
        voted = isinstance(message, ViewChange) and message.new_view >= self._view
        self.stillborn |= sender in self._voters or voted
        return True

    def came_from(self, member: int) -> int | None:
        """The view another member of this view came into it from (None: no member)."""
        return self._came_from.get(member)

    def from_later(self, message: Message) -> None:
        """A message from a view later than this one (held back until this seat gets
        there): a member of this view that talks from it having come into it from below
        this view went past this one, and never installs it. A StartView tells where its
        members came from; a member's message, which view it talks from."""
        view = message.view
        if message.sender in self._came_from:
            self._talked.setdefault(view, set()).add(message.sender)
        if isinstance(message, StartView):
            came = dict.fromkeys(message.members, message.voted_in)
            came.update(zip(message.joined, message.joined_from, strict=True))
            self._later[view] = came
        came, talked = self._later.get(view, {}), self._talked.get(view, ())
        self.stillborn |= any(came.get(member, self._view) < self._view for member in talked)

    def take_vote(self, vote: ViewChange) -> bool:
        """A voter of this view that votes, where it voted this view in, for a later view
        will never install this one: it is gone, and the view stillborn. Returns whether
        ``vote`` shows that."""
        if vote.sender not in self._voters or vote.view != self._voted_in:
            return False
        if vote.new_view <= self._view:
            return False
        self.stillborn = True
        self.gone[vote.sender] = max(self.gone.get(vote.sender, 0), vote.clock)
        return True

    def asks_again(self, rejoin: Rejoin) -> bool:
        """Whether a Rejoin from a member stamped with an older view than the one its life
        began in is no late one: it was sent after the member was shown gone (its clock is
        no lower), so it left that other view since and asks from further back (shut out
        of a stillborn view)."""
        return rejoin.clock >= self.gone.get(rejoin.sender, rejoin.clock + 1)


def asked_above(start: StartView) -> dict[int, int]:
    """Per seat a StartView lets back in, the view above which its carried Rejoin asks
    to come in (the coordinator puts them last, `Election`; `check_start_view` holds
    one of each)."""
    joined, found = set(start.joined), dict[int, int]()
    for payload in reversed(start.carried):
        if len(found) == len(joined):
            break
        rejoin = decode_payload(payload)
        if isinstance(rejoin, Rejoin) and rejoin.sender in joined:
            found[rejoin.sender] = rejoin.above
    return found


def apart(votes: dict[int, ViewChange]) -> set[tuple[int, int]]:
    """The pairs of voters (lower seat first) that each name the other as suspected."""
    return {
        (a, b)
        for a, b in itertools.combinations(sorted(votes), 2)
        if b in votes[a].suspects and a in votes[b].suspects
    }
