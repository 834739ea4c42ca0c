"""The teacher's desk: what the keys do to the lab, and what the screen shows besides it
(the speed, playing or paused, the seats selected, the legend, the last word said).

No IO and no clock: the application tells the desk how much real time has passed
(`tick`), and the desk turns it into simulated time at the chosen speed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from p2pnerts.lab._lessons import Lesson
from p2pnerts.lab._model import DEFAULT_SPEED, SPEEDS, Action, Lab
from p2pnerts.lab._records import Kind, Note
from p2pnerts.ui import Leave, unknown_key

STEPS_PER_TICK = 400
"""The most steps one screen refresh takes while playing (the screen stays responsive)."""
SHOWN = (
    Kind.RACE,
    Kind.TIE,
    Kind.NERTS,
    Kind.VIEW,
    Kind.REJOIN,
    Kind.SUSPECT,
    Kind.LATE,
    Kind.HICCUP,
)
"""The notes the verdict panel shows."""


@dataclass(slots=True)
class Desk:
    """The lab and the teacher's controls over it."""

    lab: Lab
    lesson: Lesson | None = None
    speed: float = DEFAULT_SPEED
    playing: bool = False
    selected: list[int] = field(default_factory=list)
    legend: bool = False
    acks: bool = True
    """Whether Acks are shown in the diagram (hidden, a step also passes over them)."""
    clock: float = 0.0
    """The simulated time playing has reached (the next step may be later)."""
    legend_top: int = 0
    """The first row of the legend shown (it scrolls)."""
    said: str = "space plays, n steps, b steps back, ? explains every word and key"
    """The answer to the last key, shown until the next."""
    leave: Leave = field(default_factory=lambda: Leave("Leave the lab?"))
    """Asked by Ctrl-C (q leaves at once)."""

    # --- time -----------------------------------------------------------------------------

    def tick(self, real_seconds: float) -> None:
        """While playing, move the run on by ``real_seconds`` at the chosen speed."""
        if not self.playing:
            return
        # The clock runs on between steps (a bot thinking, the table waiting for a
        # silent seat), so it is kept here, not read from the last step's time.
        self.clock = max(self.clock, self.lab.now) + real_seconds * self.speed
        self.lab.play_until(self.clock, STEPS_PER_TICK)
        if self.lab.stopped is not None:
            self.playing = False
            self.said = self.lab.stopped

    def toggle_play(self) -> None:
        self.playing = not self.playing
        self.clock = self.lab.now
        self.said = "playing" if self.playing else "paused"

    def step(self) -> None:
        self.playing = False
        lab = self.lab
        if not lab.forward():
            self.said = lab.stopped or "the run can go no further"
            return
        while not self.acks and self._acks_only() and lab.forward():
            pass
        self.said = f"step {lab.step}"

    def back(self) -> None:
        self.playing = False
        if self.lab.step == 0:
            self.said = "this is the first step"
            return
        self.lab.back()
        self.said = f"back to step {self.lab.step} (replayed from seed {self.lab.table.seed})"

    def to_point(self) -> None:
        """Go to the step where the lesson's point shows (found by running on, if the
        lesson's table was changed by options)."""
        self.playing = False
        if self.lesson is None:
            self.said = "no lesson: start the lab with --lesson NAME to have a point to go to"
            return
        kind, lab = self.lesson.point, self.lab
        if lab.first(kind) is None and not lab.forward_to(lambda _: lab.first(kind) is not None):
            self.said = f"no {kind.value} in this run up to step {lab.step}"
            return
        note = lab.first(kind)
        assert note is not None
        lab.goto(note.step)
        self.said = f"step {lab.step}: the lesson's point"

    def faster(self, steps: int) -> None:
        at = min(range(len(SPEEDS)), key=lambda i: abs(SPEEDS[i] - self.speed))
        self.speed = SPEEDS[max(0, min(len(SPEEDS) - 1, at + steps))]
        self.said = f"speed {self.speed:g} simulated seconds per second"

    # --- seats and faults -----------------------------------------------------------------

    def select(self, seat: int) -> None:
        if seat >= self.lab.table.peers:
            self.said = f"there is no seat {seat + 1}: seats 1-{self.lab.table.peers}"
            return
        if seat in self.selected:
            self.selected.remove(seat)
        else:
            self.selected.append(seat)
        chosen = " ".join(str(s + 1) for s in self.selected) or "none"
        self.said = f"selected: {chosen}"

    def act(self, verb: str) -> None:
        """Strike or lift a fault on the selected seats (each, or as a group); the
        selection is used up, so that the next key acts only on seats selected anew."""
        seats = tuple(sorted(self.selected))
        if not seats and verb != "join":
            self.said = f"select a seat first (1-{self.lab.table.peers}), then press the key"
            return
        if verb in ("crash", "restart", "slow", "fast"):
            told = [self.lab.act(Action(verb, (s,))) for s in seats]
        else:
            told = [self.lab.act(Action(verb, () if verb == "join" else seats))]
        self.selected.clear()
        self.said = "; ".join(told)

    def toggle_acks(self) -> None:
        self.acks = not self.acks
        self.said = "Acks shown" if self.acks else "Acks hidden: a step passes over them"

    def toggle_legend(self) -> None:
        self.legend = not self.legend
        self.legend_top = 0
        self.said = "the legend: ↑ ↓ scroll, ? or Esc goes back, q quits" if self.legend else ""

    def scroll(self, lines: int) -> None:
        self.legend_top = max(self.legend_top + lines, 0)

    def unknown(self, key: str) -> None:
        self.said = unknown_key(key)

    # --- reading ----------------------------------------------------------------------------

    def latest(self, count: int) -> list[Note]:
        """The newest notes the verdict panel shows."""
        return [n for n in self.lab.notes if n.kind in SHOWN][-count:]

    def point_shown(self) -> Note | None:
        """The lesson's point, once it has shown."""
        if self.lesson is None:
            return None
        return self.lab.first(self.lesson.point)

    def _acks_only(self) -> bool:
        for line in reversed(self.lab.chronicle.lines):
            if line.step != self.lab.step:
                break
            if not line.quiet:
                return False
        return True
