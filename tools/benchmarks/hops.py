"""Where a play's milliseconds go between peer processes: python tools/bench.py net --hops.

Read from the game logs of one table's peers (each stamps what it sends and takes by its
own clock), so no two clocks are compared. For each play a seat sends, and each other
member that answers it (its Ballot on the play, where the table commits by a majority; its
first Ack that holds the play, where it commits by acknowledgement):

- **trip**: at the sender, from the play out to that answer in;
- **answer**: at the other seat, from the play in to its answer out;
- **links**: trip less answer, the two ways between the processes (each frame written,
  read and decoded, and waiting its turn behind the frames that came before it);
- **decided**: at the sender, from the play out to the last answer the commit waited for
  in (a quorum's Ballots, or every member's Ack).

The TCP round trip of a small frame on the same loopback is about a hundredth of what
links shows: what a play waits for there is the processes' work, and their turns at the
machine's cores (SPEC's notes, "Where a play's milliseconds go between processes on
loopback").
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from p2pnerts.logs import read_log
from p2pnerts.protocol import Ack, Ballot, Play, decode, quorum

from .common import percentile

PlayKey = tuple[int, int]
"""A play by its sender's seat and its number (by a majority) or seq (by acknowledgement)."""


class _Seat:
    """What one seat's log says of the plays, by its own clock."""

    def __init__(self) -> None:
        self.sent: dict[PlayKey, float] = {}
        """Its own plays, when each went out."""
        self.took: dict[PlayKey, float] = {}
        """Other seats' plays, when each came in."""
        self.answered: dict[PlayKey, float] = {}
        """Other seats' plays, when its answer went out."""
        self.heard: dict[PlayKey, dict[int, float]] = defaultdict(dict)
        """Its own plays, when each other seat's answer came in."""


def _read(path: Path) -> tuple[int, bool, _Seat]:
    header, records = read_log(path)
    me, majority, seat = int(header["seat"]), bool(header.get("majority")), _Seat()
    acks: list[tuple[float, bool, Ack]] = []
    for record in records:
        kind, at = record[0], float(record[1])
        if kind not in ("sent", "received"):
            continue
        message, out = decode(record[3]), kind == "sent"
        if isinstance(message, Play):
            play = _key(message, majority)
            if out:
                seat.sent.setdefault(play, at)
            else:
                seat.took.setdefault(play, at)
        elif isinstance(message, Ballot):
            play = (message.seat, message.number)
            if out and message.seat != me:
                seat.answered.setdefault(play, at)
            elif not out and message.seat == me:
                seat.heard[play].setdefault(message.sender, at)
        elif isinstance(message, Ack) and not majority:
            acks.append((at, out, message))
    for at, out, ack in acks:  # (an Ack holds every play of a seat up to a seq)
        if out:
            for play in seat.took:
                if play not in seat.answered and ack.have[play[0]] >= play[1]:
                    seat.answered[play] = at
        else:
            for play in seat.sent:
                if ack.have[me] >= play[1]:
                    seat.heard[play].setdefault(ack.sender, at)
    return me, majority, seat


def _key(play: Play, majority: bool) -> PlayKey:
    return (play.sender, play.below[play.sender] if majority and play.below else play.seq)


def hops(logs: Iterable[Path]) -> dict[str, Any]:
    """The figures above, in ms (p50, p90, p99 and how many), from one table's logs."""
    read = list(map(_read, logs))
    seats = {me: seat for me, _, seat in read}
    majority = any(m for _, m, _ in read)
    needs = quorum(len(seats)) - 1 if majority else len(seats) - 1
    rows: dict[str, list[float]] = {"trip": [], "answer": [], "links": [], "decided": []}
    for seat in seats.values():
        for play, out in seat.sent.items():
            answers = seat.heard.get(play, {})
            for other, back in answers.items():
                rows["trip"].append(back - out)
                them = seats.get(other)
                took = None if them is None else them.took.get(play)
                answered = None if them is None else them.answered.get(play)
                if took is not None and answered is not None and answered >= took:
                    rows["answer"].append(answered - took)
                    rows["links"].append(back - out - (answered - took))
            if len(answers) >= needs > 0:
                rows["decided"].append(sorted(answers.values())[needs - 1] - out)
    return {"majority": majority, **{name: _spread(xs) for name, xs in rows.items()}}


def _spread(seconds: Sequence[float]) -> dict[str, float]:
    ms = sorted(1000 * s for s in seconds)
    if not ms:
        return {"plays": 0}
    return {**{f"p{q}": percentile(ms, q) for q in (50, 90, 99)}, "plays": len(ms)}


def print_hops(figures: dict[str, Any]) -> None:
    rule = "a quorum's Ballots" if figures["majority"] else "every member's Ack"
    print(f"  where a play's ms go (each process's own clock; decided: {rule})")
    for name in ("trip", "answer", "links", "decided"):
        f = figures[name]
        if f["plays"]:
            print(
                f"    {name:8} p50 {f['p50']:6.2f}  p90 {f['p90']:6.2f}  p99 {f['p99']:6.2f}"
                f"  ({f['plays']})"
            )
