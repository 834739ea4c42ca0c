"""The lab's legend (``?``): every word on the screen, every key, and the lesson in full."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from p2pnerts.protocol import Timing
from p2pnerts.ui import Row, rule

if TYPE_CHECKING:
    from p2pnerts.lab._desk import Desk

KEYS = (
    ("space", "play/pause"),
    ("n →", "step"),
    ("b ←", "step back"),
    ("g", "to the point"),
    ("1-6", "select seats"),
    ("k", "crash"),
    ("r", "restart"),
    ("c", "cut link"),
    ("h", "heal link"),
    ("p", "partition"),
    ("j", "join (heal it)"),
    ("s", "slow"),
    ("f", "fast again"),
    ("+ -", "speed"),
    ("a", "Acks"),
    ("?", "legend"),
    ("q", "quit"),
)
"""Every key, as the bottom of the screen lists them."""

KEYS_IN_FULL = (
    ("space", "play at the chosen speed, or pause"),
    ("n or →", "one step: the next message sent or received, commit or event"),
    ("b or ←", "one step back: the run is replayed from its seed to the step before"),
    ("g", "go to the step where the lesson's point shows"),
    (
        "1-6",
        "select a seat, or unselect it; the keys below act on the selected seats, "
        "and unselect them",
    ),
    ("k / r", "crash each selected seat / restart it from what it kept on disk"),
    ("c / h", "cut / heal the link between the two selected seats"),
    ("p / j", "partition the selected seats from the rest / join the table again"),
    ("s / f", "make each selected seat slow (up to 0.2 s more per message) / fast again"),
    ("+ / -", "play faster / slower (simulated seconds per real second)"),
    ("a", "show or hide the Acks in the diagram (hidden, a step passes over them)"),
    ("? / Esc", "this legend, and back"),
    ("q", "quit (from this legend too)"),
    ("Ctrl-C", "asks first: Ctrl-C again or y quits, n or Esc stays"),
)

WORDS = (
    (
        "step",
        "one thing happening in the simulated run: a message sent or received, a "
        "commit, an event; the run is deterministic, so step k is always the same state",
    ),
    (
        "t",
        "simulated time in seconds since the table opened; speed ×X plays X simulated "
        "seconds per real second",
    ),
    (
        "Lamport clock L",
        "each replica's counter: raised past every clock it hears, and "
        "by one for every message it sends; every message carries its sender's",
    ),
    (
        "key (clock,call,rank)",
        "where an ordered message stands in the agreed order: its "
        "clock, then 1 for a Nerts call (it sorts after the plays of its clock), then the "
        "rank the tie rule gives (seat: the seat; rotate: (seat - clock) mod seats)",
    ),
    (
        "pending",
        "ordered messages (Ready, Play, Reveal, Leave, StartView) held, in key "
        "order, waiting to commit",
    ),
    (
        "committed",
        "how many messages this replica has put in the agreed order for good, "
        "and the running digest (#) of them: equal counts must show equal digests. "
        "A seat restarted from its disk kept no commits, only its deck and secrets of "
        "one round and the view it was in: it reads '0: kept r1's deck' and 'v0 kept "
        "on disk' until the others send it the table",
    ),
    (
        "commit",
        "a replica commits the head of its pending list once every member has "
        "sent it a message with a later clock: nothing earlier can still arrive",
    ),
    (
        "Ack",
        "what a replica holds and has committed; sent soon after an ordered message, "
        "and every 0.25 s when idle, as the heartbeat",
    ),
    (
        "view·members",
        "the view number and the seats in it: the members whose messages a "
        "commit waits for; a new view leaves silent seats out or lets them back in",
    ),
    (
        "status",
        "playing; regrouping (a view change is under way: no commits); rejoining "
        "(left out, asking back in); crashed",
    ),
    (
        "liveness",
        "the other members as this replica hears them; 4? means seat 4 is "
        "suspected: silent for a second; after two, the others vote it out",
    ),
    (
        "race",
        "two plays for one foundation spot: the one first in key order stays, the "
        "other goes back; the reason compares their keys: L=87 < L=92",
    ),
    (
        "tie",
        "two plays for one spot with equal clocks (concurrent): both-stay keeps both "
        "cards; rotate and seat let the rank decide",
    ),
    (
        "in the air",
        "a play sent but not yet committed; at a Nerts call, plays ordered "
        "before the call count, and those ordered after it (made after it, too) go back",
    ),
    (
        "diagram",
        "a lane per seat under its column, newest line at the bottom; each mark "
        "below has one meaning",
    ),
)
"""Every word the screen shows, explained."""

_AT_A_MAJORITY = Timing().for_majority()
"""The lab's replicas' times at a majority's table (they run with the defaults)."""

AT_A_MAJORITY = (
    (
        "pending",
        "at a majority's table: the ordered messages this replica holds that are not "
        "decided yet (no Tally here), in key order",
    ),
    (
        "Ballot",
        "a member's vote on one play, to the play's sender: 'for' (it had held no "
        "later play on that spot), or 'late' (it had: a play sorting after this one "
        "reached it first)",
    ),
    (
        "quorum",
        "the votes that decide a play in: more than half the members, one more at an "
        "odd table (3 of 4, 4 of 5 or of 6); the sender's own play counts as its vote",
    ),
    (
        "Tally",
        "the sender's count, sent to every seat as soon as a quorum voted for its play "
        "(in), or so many late that no quorum can (back); it carries the Ballots it "
        "rests on, so the others need not wait for a slow member's vote",
    ),
    (
        "Poll",
        "a seat that waited too long for a play's Tally asks every member for its Ballot, "
        "and counts them itself; it hands each Ballot on to the play's sender (hands on), "
        "whose link from that voter may be the slow one",
    ),
    (
        "late",
        "a play a quorum voted late comes back, like a lost race; a race where both plays "
        "are voted in is still decided by their keys: the lower clock stays",
    ),
    (
        "applied",
        "plays this replica applied as their Tallies decided them in: the cards moved",
    ),
    (
        "committed",
        "the ordered messages (plays, those that came back too, Readys and Reveals) "
        "folded into the running digest (#) in key order once every member's clock has "
        "passed them: the same order at every seat, a little later; a silent member holds "
        "this back, not the plays",
    ),
    (
        "Ack",
        "what a replica holds, its clock and how far it has passed the digest's order; "
        f"sent once it has broadcast nothing for {_AT_A_MAJORITY.heartbeat:g} s, as the "
        "heartbeat",
    ),
    (
        "liveness",
        "the other members as this replica hears them; 4? means seat 4 is suspected: "
        f"silent for {_AT_A_MAJORITY.suspect_after:g} s; a quorum plays on, and a view leaves "
        f"it out only after {_AT_A_MAJORITY.depart_after:g} s",
    ),
)
"""At a majority's table (protocol version 3): the words it adds, and those it changes."""

MARKS = (
    ("│", "a seat's lane"),
    ("●", "a message sent, on its sender's lane"),
    ("·─▶ ◀─·", "a message received: from the sender's lane (·) to the receiver's (▶ ◀)"),
    ("✓", "the replica commits: messages put in the agreed order for good"),
    (
        "✗",
        "a card sent back where it came from (a race lost, played after a Nerts call, or "
        "voted late at a majority's table)",
    ),
    (
        "=",
        "a tie under both-stay: equal clocks, both cards stay (the table screen marks "
        "such a foundation with both seats, as 2♦1=2)",
    ),
    (
        "◆",
        "news: a suspicion, a silent seat heard again, a view, a seat let back in, a Nerts "
        "call, a round begun or over",
    ),
    (
        "↯",
        "a fault struck or lifted: 'lesson:' by the lesson itself, 'teacher:' by a "
        "key (replayed at its step when you step back; dropped if you strike a new "
        "fault at an earlier step)",
    ),
    ("▸", "the diagram's lines of the step the lab is at"),
)
"""Every mark the screen draws, each once, with its one meaning."""


def legend_rows(desk: Desk, width: int) -> list[Row]:
    rows = [rule("legend · ? or Esc goes back · q quits", width)]
    if desk.lesson is not None:
        rows.append(Row().add(f" lesson {desk.lesson.name}", "class:title"))
        rows += [Row().add(f"  {line}") for line in textwrap.wrap(desk.lesson.about, width - 3)]
    rows.append(Row().add(" words", "class:title"))
    rows += _pairs(words(majority=desk.lab.table.majority), width, 22)
    rows.append(Row().add(" marks", "class:title"))
    rows += _pairs(MARKS, width, 10)
    rows.append(Row().add(" keys", "class:title"))
    rows += _pairs(KEYS_IN_FULL, width, 10)
    return rows


def words(*, majority: bool) -> tuple[tuple[str, str], ...]:
    """The words of a table's screen: a majority's table's own in place of those it
    changes, and after ``pending`` the words it adds."""
    if not majority:
        return WORDS
    changed = dict(AT_A_MAJORITY)
    said: list[tuple[str, str]] = []
    for term, text in WORDS:
        if term == "commit":
            continue  # (the Ballot, the quorum and the Tally say it)
        said.append((term, changed.pop(term, text)))
        if term == "pending":
            said += [(t, changed.pop(t)) for t in ("Ballot", "quorum", "Tally", "Poll", "late")]
            said.append(("applied", changed.pop("applied")))
    return tuple(said)


def _pairs(pairs: tuple[tuple[str, str], ...], width: int, name: int) -> list[Row]:
    rows = []
    for term, text in pairs:
        lines = textwrap.wrap(text, max(width - name - 3, 20))
        for index, line in enumerate(lines):
            row = Row().add(f"  {term if index == 0 else '':<{name}}", "class:key")
            rows.append(row.add(line))
    return rows
