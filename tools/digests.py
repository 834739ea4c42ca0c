"""The simulator's run digests, recorded or checked: python tools/digests.py --record|--check FILE.

The digests are of a fixed list of seeded tables.

A change meant to keep behaviour (a refactoring) must leave every digest as it was:

    python tools/digests.py --record tools/digests.json   # before the change
    python tools/digests.py --check tools/digests.json    # after it: exit 1 on any difference

The list covers every fault mix, 2-14 peers, teams, every tie rule, tables that commit by
a majority, and the arena's
seat rotation (one digest of its JSON report, measured times left out). A case whose
digest changes on purpose is recorded again, and the commit says what behaviour changed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from p2pnerts.arena import play_arena
from p2pnerts.bots import SimpleBots
from p2pnerts.rules import TableOptions, TieRule
from p2pnerts.sim import MIXES, SimConfig, run


@dataclass(frozen=True, slots=True)
class Case:
    """One seeded table: its layout, fault mix, tie rule, rounds and seeds."""

    peers: int
    faults: str
    seeds: range
    rounds: int = 2
    teams: tuple[int, ...] = ()
    tie_rule: str = "both-stay"
    majority: bool = False

    @property
    def name(self) -> str:
        layout = "+".join(map(str, self.teams)) if self.teams else f"{self.peers}p"
        seeds = f"{self.seeds.start}-{self.seeds.stop - 1}"
        rule = " majority" if self.majority else ""
        return f"{layout} {self.faults} {self.tie_rule} r{self.rounds} s{seeds}{rule}"

    def digest(self) -> str:
        options = TableOptions(tie_rule=TieRule(self.tie_rule), teams=self.teams)
        config = SimConfig(
            self.peers, self.rounds, MIXES[self.faults], options, majority=self.majority
        )
        return run(config, self.seeds, SimpleBots()).digest


def _cases() -> list[Case]:
    # Partitions and crashes strike from the third round or so: those mixes play longer.
    long = {"partition": 4, "crash": 4, "churn": 4}
    cases = [
        Case(peers, faults, range(1, 3), rounds=long.get(faults, 2))
        for faults in MIXES
        for peers in (2, 4, 6)
    ]
    cases += [Case(peers, "heavy", range(10, 12)) for peers in (3, 5, 8)]
    cases += [Case(14, faults, range(1, 2), rounds=1) for faults in ("none", "heavy")]
    cases += [Case(4, "light", range(1, 3), tie_rule=rule) for rule in ("rotate", "seat")]
    teams = [(2, 2), (2, 1, 2), (3, 3), (1, 1, 2)]
    cases += [Case(sum(t), f, range(1, 3), teams=t) for t in teams for f in ("none", "heavy")]
    cases += [Case(sum(t), "churn", range(5, 7), teams=t) for t in teams[:2]]
    # A run that once broke compiled code alone (tools/native.py): a set where a frozenset
    # was declared, seen only as a seat was shut out.
    cases.append(Case(4, "heavy", range(300001, 300002), teams=(2, 2)))
    # Tables that commit by a majority, seats left out and coming back among them.
    cases += [Case(4, f, range(1, 3), majority=True) for f in ("none", "heavy", "crash", "churn")]
    cases += [Case(5, "partition", range(1, 3), majority=True)]
    cases += [Case(4, "heavy", range(1, 3), teams=(2, 2), majority=True)]
    return cases


def _arena_digest() -> str:
    report = play_arena(["simple", "baseline", "strong"], 12, 7, players=3).to_json()
    report.pop("timing", None)
    text = json.dumps(report, sort_keys=True)
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def measure() -> dict[str, str]:
    """Every case's digest, by name, and the arena's."""
    digests = {}
    for case in _cases():
        digests[case.name] = case.digest()
        print(f"{digests[case.name]}  {case.name}", file=sys.stderr)
    digests["arena simple,baseline,strong 3p 12 rounds seed 7"] = _arena_digest()
    return digests


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--record", type=Path, metavar="FILE", help="write the digests to FILE")
    group.add_argument("--check", type=Path, metavar="FILE", help="compare with FILE")
    args = parser.parse_args()
    digests = measure()
    if args.record:
        args.record.write_text(json.dumps(digests, indent=1) + "\n")
        print(f"{len(digests)} digests recorded in {args.record}")
        return 0
    recorded = json.loads(args.check.read_text())
    changed = [name for name in recorded if digests.get(name) != recorded[name]]
    for name in changed:
        print(f"changed: {name}: {recorded[name]} -> {digests.get(name)}")
    print(f"{len(recorded) - len(changed)} of {len(recorded)} digests unchanged")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
