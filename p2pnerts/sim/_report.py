"""What simulated runs found: counts per seed, and a report over many seeds, as text or JSON.

Nothing here reads a clock: a report is a function of the configuration and the seeds, so
two runs of the same seeds print the same report, to the byte.
"""

from __future__ import annotations

import hashlib
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from p2pnerts.sim._workload import SimConfig

HEARTBEAT = "heartbeat"


@dataclass(slots=True)
class Tally:
    """What one run counted. Messages are counted per link (a broadcast to N-1 peers is
    N-1 messages), by kind: ordered, ack, heartbeat, reveal, membership, resent."""

    rounds: int = 0
    replayed: int = 0
    """Rounds whose scores were checked against a replay on the real decks."""
    plays: int = 0
    """Plays that landed (committed and applied)."""
    returns: int = 0
    races: int = 0
    """Plays that met another on the same spot: returned naming another seat, or tied."""
    ties: int = 0
    team_races: int = 0
    """Plays on a team's tableau returned because a teammate's move, ordered first, took
    the card or turned the cards up: naming the teammate (these count in ``races`` too)
    or no one."""
    audits: int = 0
    messages: Counter[str] = field(default_factory=Counter)
    bytes: Counter[str] = field(default_factory=Counter)
    faults: Counter[str] = field(default_factory=Counter)
    """Faults struck, by kind."""
    refused: Counter[str] = field(default_factory=Counter)
    """Faults of the schedule the run refused, by kind: a crash that would have left no
    seat holding the table."""
    membership: Counter[str] = field(default_factory=Counter)
    latency: list[float] = field(default_factory=list)
    """Seconds from a play's sending to its commit (or return) at its own peer."""
    latency_rtt: list[float] = field(default_factory=list)
    """The same, in round trips of the network (its mean RTT)."""
    within_target: int = 0
    """Commits within one round trip to the sender's slowest peer plus the ack window."""

    def add(self, other: Tally) -> None:
        self.rounds += other.rounds
        self.replayed += other.replayed
        self.plays += other.plays
        self.returns += other.returns
        self.races += other.races
        self.ties += other.ties
        self.team_races += other.team_races
        self.audits += other.audits
        for mine, theirs in (
            (self.messages, other.messages),
            (self.bytes, other.bytes),
            (self.faults, other.faults),
            (self.refused, other.refused),
            (self.membership, other.membership),
        ):
            mine.update(theirs)
        self.latency += other.latency
        self.latency_rtt += other.latency_rtt
        self.within_target += other.within_target

    def sent(self) -> tuple[int, int]:
        """Messages and bytes sent, heartbeats aside."""
        return (
            self.messages.total() - self.messages[HEARTBEAT],
            self.bytes.total() - self.bytes[HEARTBEAT],
        )

    def per_play(self) -> tuple[float, float]:
        """Messages and bytes per play committed (landed or returned), heartbeats aside."""
        plays = self.plays + self.returns
        if not plays:
            return 0.0, 0.0
        messages, size = self.sent()
        return messages / plays, size / plays

    def latency_figures(self) -> dict[str, float]:
        if not self.latency:
            return {}
        return {
            "p50_ms": round(1000 * _percentile(self.latency, 50), 3),
            "p95_ms": round(1000 * _percentile(self.latency, 95), 3),
            "p50_rtt": round(_percentile(self.latency_rtt, 50), 3),
            "p95_rtt": round(_percentile(self.latency_rtt, 95), 3),
            "within_target": round(self.within_target / len(self.latency), 4),
        }


@dataclass(frozen=True, slots=True)
class ViolationReport:
    """An invariant that failed: the seed, when, what, and the steps that led there."""

    seed: int
    time: float
    message: str
    trace: tuple[str, ...]

    def text(self) -> str:
        lines = [f"INVARIANT VIOLATED — seed {self.seed}, at {self.time:.4f} s: {self.message}"]
        lines += ["the steps that led to it:", *(f"  {step}" for step in self.trace)]
        return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class SeedResult:
    """One seed's run."""

    seed: int
    tally: Tally
    digest: bytes
    time: float
    """Simulated seconds the run lasted."""
    violation: ViolationReport | None = None


@dataclass(frozen=True, slots=True)
class Report:
    """Many seeds' runs of one configuration, and the sequencer baseline if it was run."""

    config: SimConfig
    results: tuple[SeedResult, ...]
    baseline: tuple[SeedResult, ...] = ()

    @property
    def tally(self) -> Tally:
        return _total(self.results)

    @property
    def violations(self) -> tuple[ViolationReport, ...]:
        return tuple(r.violation for r in self.results if r.violation is not None)

    @property
    def digest(self) -> str:
        """One digest of every seed's run, in seed order."""
        whole = hashlib.blake2b(digest_size=16)
        for result in self.results:
            whole.update(result.seed.to_bytes(8, "big", signed=True) + result.digest)
        return whole.hexdigest()

    def to_json(self) -> dict[str, Any]:
        t = self.tally
        per_play, bytes_per_play = t.per_play()
        out: dict[str, Any] = {
            "peers": self.config.peers,
            "teams": self.config.options.teams_text() or None,
            "majority": self.config.majority,
            "faults": self.config.faults.name,
            "tie_rule": self.config.options.tie_rule.value,
            "rounds_per_seed": self.config.rounds,
            "seeds": [r.seed for r in self.results],
            "seeds_run": len(self.results),
            "rounds_completed": t.rounds,
            "rounds_replayed": t.replayed,
            "plays_committed": t.plays,
            "returns": t.returns,
            "races_resolved": t.races,
            "ties": t.ties,
            "team_races": t.team_races,
            "audits_passed": t.audits,
            "faults_injected": dict(sorted(t.faults.items())),
            "faults_refused": dict(sorted(t.refused.items())),
            "membership_events": dict(sorted(t.membership.items())),
            "messages": dict(sorted(t.messages.items())) | {"total": t.messages.total()},
            "bytes": t.bytes.total(),
            "messages_per_play": round(per_play, 3),
            "bytes_per_play": round(bytes_per_play, 1),
            "commit_latency": t.latency_figures(),
            "simulated_seconds": round(sum((r.time for r in self.results), 0.0), 3),
            "invariant_violations": len(self.violations),
            "violations": [
                {"seed": v.seed, "time": round(v.time, 6), "message": v.message, "trace": v.trace}
                for v in self.violations
            ],
            "digest": self.digest,
        }
        if self.baseline:
            b = _total(self.baseline)
            messages, _ = b.per_play()
            out["sequencer"] = {
                "rounds_completed": b.rounds,
                "plays_committed": b.plays,
                "returns": b.returns,
                "messages": dict(sorted(b.messages.items())) | {"total": b.messages.total()},
                "messages_per_play": round(messages, 3),
                "commit_latency": b.latency_figures(),
            }
        return out

    def text(self) -> str:
        c, t = self.config, self.tally
        seeds = [r.seed for r in self.results]
        which = f"seed {seeds[0]}" if len(seeds) == 1 else f"seeds {seeds[0]}-{seeds[-1]}"
        per_play, bytes_per_play = t.per_play()
        teams = f" in teams {c.options.teams_text()}" if c.options.teams else ""
        between = f", between teammates {t.team_races}" if c.options.teams else ""
        lines = [
            f"p2pnerts sim — {c.peers} peers{teams}, faults {c.faults.name}, {which}, "
            f"{c.rounds} round{'s' if c.rounds > 1 else ''} each"
            + (", commits by a majority" if c.majority else ""),
            f"  rounds completed   {t.rounds} ({t.replayed} replayed on the real decks)",
            f"  plays committed    {t.plays} (returned {t.returns}, races {t.races}{between}, "
            f"ties {t.ties})",
            f"  faults injected    {_faults(t)}",
        ]
        if t.membership:
            lines.append(f"  membership         {_counts(t.membership)}")
        lines += [
            f"  messages           {t.messages.total()} ({_counts(t.messages)}), "
            f"{t.bytes.total() / 1000:.1f} kB",
            f"  per play           {per_play:.1f} messages, {bytes_per_play:.0f} bytes "
            "(heartbeats aside)",
            f"  commit latency     {_latency(t, 'one RTT to the slowest peer + the ack window')}",
        ]
        if self.baseline:
            b = _total(self.baseline)
            messages, _ = b.per_play()
            lines += [
                "  central sequencer (baseline, same workload and network, no faults):",
                f"    per play         {messages:.1f} messages",
                f"    commit latency   {_latency(b, 'one RTT to the sequencer')}",
            ]
        held = "all held" if not self.violations else f"{len(self.violations)} VIOLATED"
        lines += [f"  invariants         {held}", f"  run digest         {self.digest}"]
        lines += [v.text() for v in self.violations]
        return "\n".join(lines)


def _total(results: Sequence[SeedResult]) -> Tally:
    total = Tally()
    for result in results:
        total.add(result.tally)
    return total


def _counts(counter: Counter[str]) -> str:
    return ", ".join(f"{kind} {n}" for kind, n in sorted(counter.items()))


def _faults(t: Tally) -> str:
    struck = _counts(t.faults) or "none"
    if not t.refused:
        return struck
    return f"{struck}; refused {_counts(t.refused)} (no other seat held the table)"


def _latency(t: Tally, target: str) -> str:
    f = t.latency_figures()
    if not f:
        return "no plays"
    return (
        f"p50 {f['p50_rtt']:.2f} RTT ({f['p50_ms']:.1f} ms), p95 {f['p95_rtt']:.2f} RTT "
        f"({f['p95_ms']:.1f} ms); {100 * f['within_target']:.0f}% within {target}"
    )


def _percentile(values: Sequence[float], pct: int) -> float:
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[pct - 1]
