"""Whether the rollouts' verdicts can be learned: python tools/verdicts.py label|fit [ARGS].

It labels "a move at home, or a turn" decisions of the expert bot by playing both on, and
fits them to what the decision looks like.

    python tools/verdicts.py label --rounds 60 --seed 100 --out verdicts.jsonl
    python tools/verdicts.py fit verdicts.jsonl [more.jsonl ...]

``label`` plays fast-arena rounds, the expert bot in seats 1 and 3 and the strong bot in
2 and 4. Where the expert moves a card onto a work pile and could turn instead, or turns and
could make the move the search likes best onto a work pile (`probes.TableRollouts`'s
decisions), it writes a line: the decision's `FEATURES` and, for each of ``--guesses``
guesses at the hidden cards, how much further ahead the other choice leaves it after a
second of play by the strong bot at every seat (`probes.TableRollouts`'s measure). About
three decisions a second on one core; each round adds some 50. The same seed gives the
same file.

``fit`` fits each kind of decision (the expert moved, or it turned) by least squares on
one half of the lines and tells, on the other half, how much of the verdicts the fit
explains and what switching where it says so would gain.

What it found (``label --rounds 50`` with seeds 100 and 101, ``--rounds 70`` with 102 and
103, some 40 minutes on one core; then ``fit`` on the four files): 5,682 decisions. Where
the expert moved a card, the fit explains 22% of the verdicts held out, and switching
where it says so (25%) gains +0.08 points at one second a decision; where it turned, 0%.
The expert switching so in the arena (`Switching`, the fit of the four files): -0.32 +/-
0.56 points a round against the expert (1,000 rounds, seed 1). The expert's notes say
what that means.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # (loaded as a policy file too)
from probes import TableRollouts

from p2pnerts.arena._fast import FastRound, Seat
from p2pnerts.arena._report import Tally
from p2pnerts.bots import BotDriver, ExpertBot, StrongBot
from p2pnerts.bots._expert import EXPERT
from p2pnerts.bots._strong import (
    _after,
    _fits_down,
    _gains,
    _goes_up,
    _line,
    _pass_length,
    _Table,
)
from p2pnerts.rules import (
    HIDDEN,
    NERTS,
    WASTE,
    Move,
    State,
    TableOptions,
    ToFoundation,
    ToWork,
    TurnStock,
    apply,
    deal,
    legal_moves,
    solo_seats,
)

FEATURES = (
    "bias",
    "it turned",
    "the move's value",
    "the turn's line",
    "move less turn",
    "from the waste",
    "into a space",
    "rank",
    "cards moved",
    "stock",
    "waste",
    "stock not seen",
    "Nerts cards",
    "Nerts card goes up",
    "Nerts card fits down",
    "spaces",
    "others' fewest Nerts cards",
    "moves onto work piles",
    "plays up",
    "shortest work pile",
)


def features(view: State, seat: int, move: Move, other: Move) -> list[float]:
    """What the decision looks like: ``move`` the expert's choice, ``other`` the
    alternative, one of them a turn of the stock and the other a move onto a work pile."""
    home = other if isinstance(move, TurnStock) else move
    assert isinstance(home, ToWork)
    table = _Table(view, seat, EXPERT, True)
    moves = legal_moves(view, seat)
    scored = _gains(view, seat, moves, table)
    gain = next(g for g, m in scored if m == home)
    turned = _after(view, TurnStock(seat))
    turn = EXPERT.later * (EXPERT.turn_guess if turned is None else _line(turned, seat, table))
    line = gain + EXPERT.later * _line(apply(view, home)[0], seat, table)
    tableau = view.tableau_of(seat)
    wanted = {(f.suit, f.rank + 1) for f in view.foundations}
    top = tableau.nerts[-1] if tableau.nerts else None
    source = tableau.work[home.source].cards if home.source >= 0 else (home.card,)
    return [
        1.0,
        float(isinstance(move, TurnStock)),
        gain,
        turn,
        line - turn,
        float(home.source == WASTE),
        float(not tableau.work[home.dest].cards),
        float(home.card.rank),
        float(len(source) - source.index(home.card)),
        float(len(tableau.stock)),
        float(len(tableau.waste)),
        float(sum(c is HIDDEN for c in tableau.stock)),
        float(len(tableau.nerts)),
        float(top is not None and _goes_up(top, wanted)),
        float(top is not None and _fits_down(tableau, top)),
        float(sum(not p.cards for p in tableau.work)),
        float(min(table.closest, view.options.nerts_pile)),
        float(sum(isinstance(m, ToWork) and m.source != NERTS for m in moves)),
        float(sum(isinstance(m, ToFoundation) for _, m in scored)),
        float(min(len(p.cards) for p in tableau.work)),
    ]


class Labeller:
    """The expert bot, writing each "a move at home, or a turn" decision with its verdicts."""

    def __init__(self, rng: random.Random, guesses: int, out: list[str]) -> None:
        self.bot, self.guesses, self.out = ExpertBot(), guesses, out
        self.rollouts = TableRollouts(rng)

    def choose(self, view: State, seat: int) -> Move | None:
        move = self.bot.choose(view, seat)
        if move is None:
            return None
        decision = _decision(self.bot, self.rollouts, view, seat, move)
        if decision is None:
            return move
        other, row = decision
        # Played on from the whole view: the guesses deal the others' hidden cards.
        ahead = self.rollouts.played_on(view, seat, move, other, self.guesses)
        verdicts = [round(theirs - mine, 4) for theirs, mine in ahead]
        self.out.append(json.dumps([row, verdicts]))
        return move


def _decision(
    bot: ExpertBot, rollouts: TableRollouts, view: State, seat: int, move: Move
) -> tuple[Move, list[float]] | None:
    """Where the expert's ``move`` is one side of "a move at home, or a turn": the other
    side, and the decision's `features`, both from what the expert decided on."""
    known = bot.sight.known(view, seat)
    other = rollouts.alternative(known, seat, move)
    return None if other is None else (other, features(known, seat, move, other))


def label(rounds: int, seed: int, guesses: int) -> list[str]:
    """The lines of ``rounds`` rounds' decisions."""
    lines: list[str] = []
    for number in range(rounds):
        rng = random.Random(f"verdicts:{seed}:{number}")
        state = deal(TableOptions(), solo_seats(4), rng=rng)
        seats = [
            Seat(
                BotDriver(Labeller(rng, guesses, lines) if s % 2 == 0 else StrongBot()),
                f"seat {s + 1}",
                (s,),
            )
            for s in range(4)
        ]
        tallies = {seat.name: Tally() for seat in seats}
        FastRound(state, seats, tallies, rng).run()
    return lines


def solve(rows: Sequence[Sequence[float]], targets: Sequence[float]) -> list[float]:
    """Least squares (with a small ridge, 1.0, so that a feature that never varies is 0)."""
    k = len(rows[0])
    a = [[0.0] * k + [0.0] for _ in range(k)]
    for x, y in zip(rows, targets, strict=True):
        for i in range(k):
            if x[i]:
                row = a[i]
                for j in range(k):
                    row[j] += x[i] * x[j]
                row[k] += x[i] * y
    for i in range(k):
        a[i][i] += 1.0
    for c in range(k):  # Gauss-Jordan, the largest pivot first
        p = max(range(c, k), key=lambda r: abs(a[r][c]))
        a[c], a[p] = a[p], a[c]
        for r in range(k):
            if r != c and a[r][c]:
                f = a[r][c] / a[c][c]
                a[r] = [u - f * v for u, v in zip(a[r], a[c], strict=True)]
    return [a[i][k] / a[i][i] for i in range(k)]


class Switching:
    """The expert bot, turning where it would move a card at home and the fit of the files
    named in ``VERDICTS`` (comma-separated) says a turn is better; at most one pass of its
    stock in a row, or a round could wait on it for ever. For the arena:

        VERDICTS=v100.jsonl,v101.jsonl p2pnerts arena --fast \\
            --policies expert,tools/verdicts.py:Switching --rounds 1000 --seed 1
    """

    def __init__(self, rng: random.Random) -> None:
        self.bot, self.rollouts, self.turns = ExpertBot(), TableRollouts(rng), 0
        self.weights = _moved_fit(tuple(os.environ.get("VERDICTS", "").split(",")))

    def choose(self, view: State, seat: int) -> Move | None:
        move = self._choose(view, seat)
        self.turns = self.turns + 1 if isinstance(move, TurnStock) else 0
        return move

    def _choose(self, view: State, seat: int) -> Move | None:
        move = self.bot.choose(view, seat)
        patient = self.turns <= _pass_length(view.tableau_of(seat), view.options.stock_turn)
        if not isinstance(move, ToWork) or not patient:
            return move
        decision = _decision(self.bot, self.rollouts, view, seat, move)
        if decision is None or not isinstance(decision[0], TurnStock):
            return move
        other, row = decision
        return other if sum(w * x for w, x in zip(self.weights, row, strict=True)) > 0 else move


@functools.cache
def _moved_fit(files: tuple[str, ...]) -> list[float]:
    """The fit, on every decision of ``files`` where the expert moved a card."""
    if not any(files):
        raise SystemExit("VERDICTS: name the files of `verdicts.py label`, comma-separated")
    try:
        text = "\n".join(Path(f).read_text() for f in files)
    except OSError as error:
        raise SystemExit(f"VERDICTS: {error.filename}: {error.strerror}") from None
    moved = [(row, y) for row, y in _decisions(text.splitlines()) if not row[1]]
    if not moved:
        raise SystemExit("VERDICTS names no decision where the expert moved a card")
    return solve([row for row, _ in moved], [y for _, y in moved])


def _decisions(lines: Sequence[str]) -> list[tuple[list[float], float]]:
    """The decisions of a file's lines: each one's features, and its mean verdict."""
    data = [json.loads(line) for line in lines if line.strip()]
    return [(row, sum(verdicts) / len(verdicts)) for row, verdicts in data]


def fit(lines: Sequence[str]) -> str:
    """The report on a file's lines: per kind of decision, the fit on one half of them as
    measured on the other."""
    data = _decisions(lines)
    order = list(range(len(data)))
    random.Random(0).shuffle(order)
    half = set(order[: len(order) // 2])
    out = [f"{len(data)} decisions"]
    for turned, kind in ((0.0, "it moved a card"), (1.0, "it turned")):
        mine = [i for i in range(len(data)) if data[i][0][1] == turned]
        if len(mine) < 2 * len(FEATURES):
            out.append(f"{kind}: {len(mine)} decisions, too few to fit")
            continue
        x = [data[i][0] for i in mine]
        y = [data[i][1] for i in mine]
        train = [j for j, i in enumerate(mine) if i in half]
        test = [j for j, i in enumerate(mine) if i not in half]
        w = solve([x[j] for j in train], [y[j] for j in train])
        guess = {j: sum(a * b for a, b in zip(w, x[j], strict=True)) for j in test}
        mean = sum(y[j] for j in test) / len(test)
        spread = sum((y[j] - mean) ** 2 for j in test)
        explained = 1 - sum((y[j] - guess[j]) ** 2 for j in test) / spread
        switched = [j for j in test if guess[j] > 0]
        gain = sum(y[j] for j in switched) / len(test)
        out.append(
            f"{kind}: {len(mine)} decisions, the other choice {sum(y) / len(y):+.2f} points"
            f" at one second on average; held out, the fit explains {explained:.0%};"
            f" switching where it says ({len(switched) / len(test):.0%}) gains {gain:+.3f}"
            " a decision"
        )
        w = solve(x, y)
        top = sorted(zip(FEATURES, w, strict=True), key=lambda p: -abs(p[1]))[:5]
        out.append("  " + ", ".join(f"{name} {value:+.2f}" for name, value in top))
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="verdicts.py", description=__doc__.split("\n")[0])
    verbs = parser.add_subparsers(dest="verb", required=True)
    make = verbs.add_parser("label", help="label the decisions of --rounds rounds")
    make.add_argument("--rounds", type=int, default=60)
    make.add_argument("--seed", type=int, default=100)
    make.add_argument("--guesses", type=int, default=8)
    make.add_argument("--out", type=Path, required=True)
    read = verbs.add_parser("fit", help="fit the decisions of one or more files")
    read.add_argument("files", type=Path, nargs="+")
    args = parser.parse_args(argv)
    if args.verb == "label":
        if args.rounds < 1 or args.guesses < 1:
            parser.error("--rounds and --guesses must be at least 1")
        if not args.out.parent.is_dir():
            parser.error(f"--out: no folder {args.out.parent}")
        made = label(args.rounds, args.seed, args.guesses)
        args.out.write_text("".join(line + "\n" for line in made))
        print(f"{args.out}: {len(made)} decisions")
        return 0
    lines: list[str] = []
    for file in args.files:
        try:
            lines += file.read_text().splitlines()
        except OSError as error:
            parser.error(f"{file}: {error.strerror}")
    print(fit(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
