"""Benchmarks, one subcommand each: ``python tools/bench.py rules|sim|net|ui|bots [--json]``.

Every benchmark runs on one core from fixed seeds, so two runs measure the same work. A
new benchmark is one function taking the parsed arguments, and a subparser naming it in
`parser()`.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import json
import platform
import pstats
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, NamedTuple

import benchhistory  # beside this script

from p2pnerts import sim, ui
from p2pnerts.arena import play_arena
from p2pnerts.bots import POLICIES, Policy, SimpleBots
from p2pnerts.protocol import Play, Signer, Timing, signed_bytes, verify
from p2pnerts.rules import (
    NERTS,
    CallNerts,
    DeclareStuck,
    Move,
    Rotate,
    SlideUnder,
    State,
    TableOptions,
    ToFoundation,
    ToWork,
    TurnStock,
    apply,
    deal,
    legal_moves,
    private_view,
    solo_seats,
)
from p2pnerts.sim import SimConfig

HISTORY = Path(__file__).parent / "bench-history.jsonl"

Benchmark = Callable[[argparse.Namespace], dict[str, Any]]
"""A benchmark: it prints its figures (unless ``--json``) and returns them for JSON."""

ROOT = Path(__file__).resolve().parent.parent

# --- rules: apply and legal_moves --------------------------------------------------------

RULES_PLAYERS = (2, 4, 14)
PROFILE_PLAYERS = 4


class Playout(NamedTuple):
    """A recorded round: the deal, the moves made, and who was asked for moves before each."""

    initial: State
    moves: list[Move]
    asked: list[tuple[State, int]]


class RulesResult(NamedTuple):
    players: int
    playouts: int
    moves: int
    legal_calls: int
    apply_per_s: float
    legal_per_s: float


def record_playout(players: int, seed: int, max_moves: int) -> Playout:
    """Play random legal moves (foundation and Nerts plays preferred) from a seeded deal."""
    rng = random.Random(seed)
    state = deal(TableOptions(), solo_seats(players), rng=random.Random(seed))
    initial, moves, asked = state, list[Move](), list[tuple[State, int]]()
    while state.ended is None and len(moves) < max_moves and len(asked) < 4 * max_moves:
        seat = rng.randrange(players)
        asked.append((state, seat))
        legal = legal_moves(state, seat)
        if not legal:
            continue  # stuck, waiting for the others to be
        move = rng.choices(legal, [_weight(m) for m in legal])[0]
        state, _ = apply(state, move)
        moves.append(move)
    return Playout(initial, moves, asked)


def _weight(move: Move) -> int:
    match move:
        case CallNerts() | Rotate():
            return 1000
        case ToFoundation():
            return 30
        case ToWork(source=source) | SlideUnder(source=source) if source == NERTS:
            return 20
        case TurnStock():
            return 8
        case DeclareStuck():
            return 1
    return 4


def time_apply(playouts: Sequence[Playout]) -> float:
    """Seconds spent in `apply` replaying every recorded move list."""
    total = 0.0
    for p in playouts:
        state = p.initial
        start = time.perf_counter()
        for move in p.moves:
            state, _ = apply(state, move)
        total += time.perf_counter() - start
    return total


def time_legal(playouts: Sequence[Playout]) -> float:
    """Seconds spent in `legal_moves` over every recorded (state, seat)."""
    total = 0.0
    for p in playouts:
        start = time.perf_counter()
        for state, seat in p.asked:
            legal_moves(state, seat)
        total += time.perf_counter() - start
    return total


def rules_figures(
    players: int, playouts: int, max_moves: int, repeat: int, seed: int
) -> RulesResult:
    """Best-of-``repeat`` rates for one table size over ``playouts`` recorded rounds."""
    recorded = [record_playout(players, seed + i, max_moves) for i in range(playouts)]
    moves = sum(len(p.moves) for p in recorded)
    calls = sum(len(p.asked) for p in recorded)
    apply_s = min(time_apply(recorded) for _ in range(repeat))
    legal_s = min(time_legal(recorded) for _ in range(repeat))
    return RulesResult(players, playouts, moves, calls, moves / apply_s, calls / legal_s)


def profile_rules(playouts: int, max_moves: int, seed: int, top: int) -> list[dict[str, Any]]:
    """cProfile a whole 4-player run (recording, replaying, generating); print the top."""
    profiler = cProfile.Profile()
    profiler.enable()
    recorded = [record_playout(PROFILE_PLAYERS, seed + i, max_moves) for i in range(playouts)]
    time_apply(recorded)
    time_legal(recorded)
    profiler.disable()
    stats = pstats.Stats(profiler, stream=io.StringIO()).sort_stats(pstats.SortKey.CUMULATIVE)
    rows = []
    for func, (_, ncalls, tottime, cumtime, _) in stats.stats.items():  # type: ignore[attr-defined]
        filename, line, name = func
        rows.append(
            {
                "function": f"{_short(filename)}:{line}({name})",
                "calls": ncalls,
                "tottime_s": round(tottime, 4),
                "cumtime_s": round(cumtime, 4),
            }
        )
    rows.sort(key=lambda r: -r["cumtime_s"])
    return rows[:top]


def _short(filename: str) -> str:
    """A profiled function's file: relative to the repository, else its last two parts."""
    path = Path(filename)
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else "/".join(path.parts[-2:])


def bench_rules(args: argparse.Namespace) -> dict[str, Any]:
    playouts, max_moves, seed = int(args.playouts), int(args.max_moves), int(args.seed)
    if args.profile:
        rows = profile_rules(playouts, max_moves, seed, int(args.top))
        if not args.json:
            print(f"cProfile, {PROFILE_PLAYERS} players, {playouts} playouts: top by cumulative")
            print(f"{'calls':>9} {'tottime':>8} {'cumtime':>8}  function")
            for row in rows:
                calls, tottime, cumtime = row["calls"], row["tottime_s"], row["cumtime_s"]
                print(f"{calls:>9} {tottime:>8.3f} {cumtime:>8.3f}  {row['function']}")
        return {"profile": rows}
    results = []
    if not args.json:
        print(f"rules engine, one core, Python {platform.python_version()}")
        print(f"{'players':>7} {'playouts':>8} {'moves':>7} {'apply/s':>10} {'legal_moves/s':>14}")
    for players in RULES_PLAYERS:
        r = rules_figures(players, playouts, max_moves, int(args.repeat), seed)
        results.append(r._asdict())
        if not args.json:
            print(
                f"{r.players:>7} {r.playouts:>8} {r.moves:>7} "
                f"{r.apply_per_s:>10,.0f} {r.legal_per_s:>14,.0f}"
            )
    return {"results": results}


# --- sim: the simulator's speed, and the protocol's cost per play -------------------------

SIM_SPEED_PEERS = (4, 14)
SIM_COST_PEERS = (2, 3, 4, 6, 8, 10, 14)


def sim_speed(peers: int, rounds: int, seeds: Sequence[int]) -> dict[str, Any]:
    """Simulated rounds per second of one core, invariant checks on, no faults."""
    config = SimConfig(peers=peers, rounds=rounds)
    start = time.perf_counter()
    report = sim.run(config, seeds, SimpleBots())
    elapsed = time.perf_counter() - start
    done = report.tally.rounds
    return {
        "peers": peers,
        "rounds": done,
        "seconds": round(elapsed, 3),
        "rounds_per_s": done / elapsed,
        "violations": len(report.violations),
    }


def sim_cost(
    peers: int, rounds: int, seeds: Sequence[int], timing: Timing | None = None
) -> dict[str, Any]:
    """Messages and bytes per committed play, and commit latency against the baseline."""
    config = SimConfig(peers=peers, rounds=rounds, timing=timing or Timing())
    report = sim.run(config, seeds, SimpleBots(), sequencer=True)
    figures = report.to_json()
    t = report.tally
    plays = max(1, t.plays + t.returns)
    ours, theirs = figures["commit_latency"], figures["sequencer"]["commit_latency"]
    return {
        "peers": peers,
        "plays": t.plays + t.returns,
        "messages_per_play": figures["messages_per_play"],
        "ordered_per_play": round(t.messages["ordered"] / plays, 2),
        "acks_per_play": round(t.messages["ack"] / plays, 2),
        "heartbeats_per_play": round(t.messages["heartbeat"] / plays, 2),
        "aim_per_play": 2 * (peers - 1),
        "bytes_per_play": figures["bytes_per_play"],
        "p2p_p50_rtt": ours.get("p50_rtt", 0.0),
        "p2p_p95_rtt": ours.get("p95_rtt", 0.0),
        "p2p_within_target": ours.get("within_target", 0.0),
        "floor_p50_rtt": statistics.median(f for s in seeds for f in sim.commit_floors(config, s)),
        "sequencer_p50_rtt": theirs["p50_rtt"],
        "sequencer_p95_rtt": theirs["p95_rtt"],
        "sequencer_messages_per_play": figures["sequencer"]["messages_per_play"],
        "violations": figures["invariant_violations"],
    }


def bench_sim(args: argparse.Namespace) -> dict[str, Any]:
    seeds = range(int(args.seed), int(args.seed) + int(args.seeds))
    speed = [sim_speed(p, int(args.rounds), seeds) for p in SIM_SPEED_PEERS]
    timing = Timing(ack_at_once=bool(args.ack_at_once))
    cost = [sim_cost(p, int(args.rounds), seeds, timing) for p in SIM_COST_PEERS]
    if not args.json:
        acks = "at once unless one went out within" if args.ack_at_once else "after"
        print(f"simulator, one core, Python {platform.python_version()}, faults none")
        print(f"Acks {acks} {1000 * timing.ack_delay:g} ms (the costs below)")
        for row in speed:
            print(f"{row['peers']:>5} peers: {row['rounds_per_s']:6.2f} rounds/s")
        print(
            "\nper committed play, heartbeats aside; commit latency in round trips (mean RTT)\n"
            "peers  msgs  ordered   acks  aim 2(N-1)  bytes  p2p p50/p95  in target"
            "  floor p50  sequencer p50/p95  msgs"
        )
        for r in cost:
            print(
                f"{r['peers']:>5} {r['messages_per_play']:5.1f} {r['ordered_per_play']:8.1f} "
                f"{r['acks_per_play']:6.1f} {r['aim_per_play']:11} {r['bytes_per_play']:6.0f} "
                f"{r['p2p_p50_rtt']:6.2f}/{r['p2p_p95_rtt']:4.2f} "
                f"{100 * r['p2p_within_target']:9.0f}% "
                f"{r['floor_p50_rtt']:10.2f} "
                f"{r['sequencer_p50_rtt']:11.2f}/{r['sequencer_p95_rtt']:4.2f} "
                f"{r['sequencer_messages_per_play']:5.1f}"
            )
        print(
            "floor: the mean round trip to the farthest other peer, which any commit rule "
            "that waits\nfor every member to hold a play costs its player at the least"
        )
        broken = sum(r["violations"] for r in speed + cost)
        if broken:
            print(
                f"\n{broken} runs broke an invariant and stopped early, so their figures mean "
                "little: `p2pnerts sim --faults none` on their seeds shows why"
            )
    return {"speed": speed, "cost": cost}


# --- net: real peer processes on loopback -------------------------------------------------

NET_PEERS = (2, 4, 8, 14)
NET_LIMIT = 600.0


def tcp_round_trip(trips: int = 2000) -> float:
    """The median round trip of a small frame over a loopback TCP connection, seconds."""
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]

    def echo() -> None:
        conn, _ = server.accept()
        with conn:
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            while data := conn.recv(64):
                conn.sendall(data)

    thread = threading.Thread(target=echo, daemon=True)
    thread.start()
    times = []
    with socket.create_connection(("127.0.0.1", port)) as client:
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for _ in range(trips):
            start = time.perf_counter()
            client.sendall(b"x" * 24)
            client.recv(64)
            times.append(time.perf_counter() - start)
    thread.join(timeout=5)
    server.close()
    return statistics.median(times)


def net_table(peers: int, rounds: int) -> dict[str, Any]:
    """One host and peers-1 bot processes at level 10 play ``rounds``; their own figures."""
    command = [sys.executable, "-m", "p2pnerts"]
    with tempfile.TemporaryDirectory() as tmp:
        stats = [Path(tmp, f"{seat}.json") for seat in range(peers)]
        host = subprocess.Popen(
            [
                *command,
                "host",
                "--name",
                "bench",
                "--seats",
                str(peers),
                "--rounds",
                str(rounds),
                "--level",
                "10",
                "--no-advertise",
                "--headless",
                "--stats",
                str(stats[0]),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert host.stdout is not None
        port = int(host.stdout.readline().split("port ")[1].split(":")[0])
        bots = [
            subprocess.Popen(
                [
                    *command,
                    "bot",
                    "--join",
                    f"127.0.0.1:{port}",
                    "--level",
                    "10",
                    "--stats",
                    str(stats[k]),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            for k in range(1, peers)
        ]
        for proc in bots:
            proc.wait(timeout=NET_LIMIT)
        host.communicate(timeout=NET_LIMIT)
        figures = [json.loads(path.read_text()) for path in stats]
    latencies = sorted(x for f in figures for x in f["commit_latencies"])
    seconds = statistics.mean(f["seconds"] for f in figures)
    return {
        "peers": peers,
        "plays_timed": len(latencies),
        "commit_p50_ms": 1000 * statistics.median(latencies),
        "commit_p99_ms": 1000 * latencies[int(0.99 * (len(latencies) - 1))],
        "frames_per_s_per_peer": statistics.mean(f["frames_sent"] for f in figures) / seconds,
        "bytes_per_s_per_peer": statistics.mean(f["bytes_sent"] for f in figures) / seconds,
        "cpu_per_peer": statistics.mean(f["cpu_seconds"] for f in figures) / seconds,
    }


def bench_net(args: argparse.Namespace) -> dict[str, Any]:
    rtt = tcp_round_trip()
    rows = [net_table(p, int(args.rounds)) for p in args.peers]
    for row in rows:
        row["p50_over_rtt"] = row["commit_p50_ms"] / 1000 / rtt
        row["p99_over_rtt"] = row["commit_p99_ms"] / 1000 / rtt
    if not args.json:
        print(
            f"peers as processes on loopback, bots at level 10, {args.rounds} round(s); "
            f"plain TCP round trip {1e6 * rtt:.0f} µs (median)"
        )
        print("peers  plays  commit p50 / p99 ms   ×RTT p50 / p99   frames/s  kB/s  CPU/peer")
        for r in rows:
            print(
                f"{r['peers']:>5} {r['plays_timed']:6} {r['commit_p50_ms']:10.1f} / "
                f"{r['commit_p99_ms']:6.1f} {r['p50_over_rtt']:9.0f} / {r['p99_over_rtt']:5.0f} "
                f"{r['frames_per_s_per_peer']:10.0f} {r['bytes_per_s_per_peer'] / 1000:5.0f} "
                f"{100 * r['cpu_per_peer']:8.0f}%"
            )
    return {"tcp_rtt_us": 1e6 * rtt, "tables": rows}


# --- ui: frames drawn, and a key's way to the screen ----------------------------------------

UI_PLAYERS = (2, 4, 14)
UI_SIZES = ((80, 24), (160, 50))


class _Screen(io.StringIO):
    """A terminal's output stream that notes when each frame is flushed."""

    def __init__(self) -> None:
        super().__init__()
        self.flushed: Callable[[], None] = lambda: None

    def flush(self) -> None:
        self.flushed()


def _ui_app(model: ui.TableModel, size: tuple[int, int], input: Any = None) -> Any:
    from prompt_toolkit.data_structures import Size
    from prompt_toolkit.input import DummyInput
    from prompt_toolkit.output.vt100 import Vt100_Output

    screen = _Screen()
    width, height = size
    output = Vt100_Output(screen, lambda: Size(rows=height, columns=width), term="xterm-256color")
    app = ui.create_application(model, input=input or DummyInput(), output=output)
    return app, screen


def ui_frames(players: int, size: tuple[int, int], frames: int, seed: int) -> dict[str, Any]:
    """Milliseconds per frame: the table changed by one move, then drawn and written out
    by prompt_toolkit as in the terminal (layout, rendering, diff, escape codes)."""
    from prompt_toolkit.application.current import set_app

    playout = record_playout(players, seed, frames)
    state, moves = playout.initial, playout.moves
    del playout  # its thousands of recorded states would weigh on every garbage collection
    gc.collect()
    names = tuple(["You"] + [f"Bot {k}" for k in range(1, players)])
    model = ui.TableModel(0, names, TableOptions())
    app, _ = _ui_app(model, size)
    gc.freeze()  # as `ui.run_with_trio` does before the screen opens
    times, ours = [], []
    with set_app(app):
        for move in moves:
            state, _ = apply(state, move)
            model.refresh(ui.Snapshot(display=private_view(state, 0), totals=(0,) * players))
            start = time.perf_counter()
            app.renderer.render(app, app.layout)
            times.append(time.perf_counter() - start)
            start = time.perf_counter()
            ui.render(model, *size)
            ours.append(time.perf_counter() - start)
    times.sort()
    return {
        "players": players,
        "size": f"{size[0]}x{size[1]}",
        "frames": len(times),
        "frame_p50_ms": 1000 * statistics.median(times),
        "frame_p99_ms": 1000 * times[int(0.99 * (len(times) - 1))],
        "frame_max_ms": 1000 * times[-1],
        "layout_p50_ms": 1000 * statistics.median(ours),
    }


REFUSED_AFTER = 1.0
"""Seconds after which a key whose move never showed counts as refused, not as slow."""


def ui_key_latency(presses: int, players: int) -> dict[str, Any]:
    """Milliseconds from a key written to the terminal's input to the frame showing its move
    flushed to the output: the stock turned (a move of one's own, shown at once), at a
    real table on loopback with bots, trio running as the guest of prompt_toolkit's loop."""
    from prompt_toolkit.input import create_pipe_input

    from p2pnerts.commands import _seats
    from p2pnerts.commands._config import HostConfig, SeatConfig
    from p2pnerts.net import TableSpec

    latencies: list[float] = []
    model = ui.TableModel(0, ("You",), TableOptions())
    with create_pipe_input() as pipe:
        app, screen = _ui_app(model, (80, 24), pipe)
        me = ui.Session(model, app.invalidate, "You", random.Random(1)).player
        waiting: list[tuple[float, int]] = []

        def flushed() -> None:
            tableau = model.tableau
            if waiting and tableau is not None and len(tableau.stock) != waiting[0][1]:
                latencies.append(time.perf_counter() - waiting.pop()[0])

        screen.flushed = flushed
        spec = TableSpec("bench", players, TableOptions(rounds=1))
        seat = SeatConfig("You", level=1, seed=1)
        table = HostConfig(seat, spec, bots=players - 1, advertise=False, bind="127.0.0.1")

        async def press_keys() -> None:
            import trio

            async with trio.open_nursery() as nursery:
                nursery.start_soon(lambda: _seats.run_host(table, me=me, report=lambda _: None))
                pipe.send_text("\r")  # the person is ready for the first round
                while len(latencies) < presses and not model.snap.over:
                    tableau = model.tableau
                    if waiting and time.perf_counter() - waiting[0][0] > REFUSED_AFTER:
                        waiting.clear()  # refused (the countdown, stuck): no sample, again
                    if tableau is not None and model.playing and not waiting:
                        waiting.append((time.perf_counter(), len(tableau.stock)))
                        pipe.send_text(" ")
                    await trio.sleep(0.02)
                nursery.cancel_scope.cancel()
            app.exit()

        ui.run_with_trio(app, press_keys)
    latencies.sort()
    return {
        "presses": len(latencies),
        "key_p50_ms": 1000 * statistics.median(latencies),
        "key_p99_ms": 1000 * latencies[int(0.99 * (len(latencies) - 1))],
        "key_max_ms": 1000 * latencies[-1],
    }


def bench_ui(args: argparse.Namespace) -> dict[str, Any]:
    frames = [ui_frames(p, size, args.frames, args.seed) for p in UI_PLAYERS for size in UI_SIZES]
    key = ui_key_latency(args.presses, 4)
    if not args.json:
        print(
            f"frames: the table changed by one move, then drawn by prompt_toolkit ({args.frames})"
        )
        print("players  screen   frame p50 / p99 / max ms   of which the layout p50 ms")
        for f in frames:
            print(
                f"{f['players']:>7}  {f['size']:>7} {f['frame_p50_ms']:9.2f} / "
                f"{f['frame_p99_ms']:5.2f} / {f['frame_max_ms']:5.2f} {f['layout_p50_ms']:14.2f}"
            )
        print(
            f"key to screen, turning the stock at a 4-player loopback table "
            f"({key['presses']} presses): p50 {key['key_p50_ms']:.2f} ms, "
            f"p99 {key['key_p99_ms']:.2f} ms, max {key['key_max_ms']:.2f} ms"
        )
    return {"frames": frames, "key": key}


# --- bots: decision time per policy, and the strong bot's margin over the baseline ---------

BOT_POLICIES = ("simple", "baseline", "strong")
BOT_PLAYERS = 4


def bot_positions(count: int, seed: int) -> list[tuple[State, int, int]]:
    """``count`` seats' views (with the seat and the round), from rounds of the built-in
    policies playing each other."""
    rng = random.Random(seed)
    views: list[tuple[State, int, int]] = []
    number = 0
    while len(views) < count:
        number += 1
        state = deal(TableOptions(), solo_seats(BOT_PLAYERS), rng=rng)
        bots = [POLICIES[BOT_POLICIES[s % 3]](random.Random(s)) for s in range(BOT_PLAYERS)]
        for _ in range(20_000):
            if state.ended is not None or len(views) >= count:
                break
            seat = rng.randrange(BOT_PLAYERS)
            view = private_view(state, seat)
            views.append((view, seat, number))
            move = bots[seat].choose(view, seat)
            if move is not None:
                state, _ = apply(state, move)
    return views


def decision_times(
    name: str,
    views: Sequence[tuple[State, int, int]],
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, float]:
    """Milliseconds per ``choose`` of policy ``name`` on each view: p50, p99, max, mean.

    One policy per seat and round, made outside the timing, sees that seat's views in
    turn (as at a table: a policy may remember what it has seen)."""
    make = POLICIES[name]
    times = []
    policies: dict[tuple[int, int], Policy] = {}
    for view, seat, number in views:
        policy = policies.setdefault((seat, number), make(random.Random(seat)))
        start = clock()
        policy.choose(view, seat)
        times.append(clock() - start)
    times.sort()

    def at(q: float) -> float:
        return 1000 * times[min(len(times) - 1, int(q * len(times)))]

    return {
        "p50_ms": at(0.50),
        "p99_ms": at(0.99),
        "max_ms": 1000 * times[-1],
        "mean_ms": 1000 * statistics.fmean(times),
    }


def bench_bots(args: argparse.Namespace) -> dict[str, Any]:
    views = bot_positions(int(args.positions), int(args.seed))
    clock = time.process_time if args.cpu else time.perf_counter
    timing = {name: decision_times(name, views, clock) for name in POLICIES}
    if not args.json:
        kind = "CPU time of this process" if args.cpu else "wall-clock time"
        print(f"decision time per move ({kind}), {len(views)} views at {BOT_PLAYERS} players")
        print(f"{'policy':<10}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}{'mean ms':>9}")
        for name, t in timing.items():
            print(
                f"{name:<10}{t['p50_ms']:>9.3f}{t['p99_ms']:>9.3f}"
                f"{t['max_ms']:>9.3f}{t['mean_ms']:>9.3f}"
            )
    if not args.rounds:
        return {"decision_ms": timing}
    progress = None if args.json else _progress
    report = play_arena(
        ["baseline", "strong"],
        int(args.rounds),
        int(args.seed),
        players=BOT_PLAYERS,
        progress=progress,
    )
    strong = report.figures[1]
    assert strong.margin is not None and strong.margin_ci95 is not None
    low, high = strong.margin - strong.margin_ci95, strong.margin + strong.margin_ci95
    deciding = sum(f.decision_ms * f.decisions for f in report.figures) / 1000
    margin = {
        "rounds": report.rounds,
        "players": BOT_PLAYERS,
        "seed": report.seed,
        "baseline_points": report.figures[0].mean_points,
        "strong_points": strong.mean_points,
        "margin": strong.margin,
        "ci95": [low, high],
        "seconds": report.seconds,
        "seconds_per_round": report.seconds / report.rounds,
        "seconds_deciding": deciding,
    }
    if not args.json:
        print(
            f"\nstrong over baseline, {report.rounds} paired rounds at {BOT_PLAYERS} players "
            f"(seats baseline, strong, baseline, strong; each deal in all 4 rotations), "
            f"seed {report.seed}:"
        )
        print(
            f"  points per round: baseline {report.figures[0].mean_points:.2f}, strong "
            f"{strong.mean_points:.2f}; margin {strong.margin:+.2f}, 95% CI "
            f"[{low:+.2f}, {high:+.2f}]"
        )
        print(
            f"  arena: {report.seconds:.0f} s, {margin['seconds_per_round']:.3f} s per round, "
            f"{deciding / report.seconds:.0%} of it in the policies' decisions"
        )
    return {"decision_ms": timing, "margin": margin}


FAST_MIXES = (("simple", "baseline"), ("baseline", "strong"))


def bench_fast(args: argparse.Namespace) -> dict[str, Any]:
    """The fast arena's four-player rounds per second on one core, per mix of policies,
    and the share of that time the policies' own decisions take."""
    figures = {}
    for mix in FAST_MIXES:
        report = play_arena(list(mix), int(args.rounds), int(args.seed), fast=True)
        deciding = sum(f.decision_ms * f.decisions for f in report.figures) / 1000
        figures[",".join(mix)] = {
            "rounds": report.rounds,
            "rounds_per_second": report.rounds / report.seconds,
            "share_deciding": deciding / report.seconds,
        }
    if not args.json:
        print(f"fast arena, {BOT_PLAYERS} players, one core, seed {args.seed}")
        print(f"{'policies':<20}{'rounds':>8}{'rounds/s':>10}{'deciding':>10}")
        for name, f in figures.items():
            print(
                f"{name:<20}{f['rounds']:>8}{f['rounds_per_second']:>10.1f}"
                f"{f['share_deciding']:>10.0%}"
            )
    return {"fast_arena": figures}


def bench_sign(args: argparse.Namespace) -> dict[str, Any]:
    """What a signed message costs on one core: signing a Play, and verifying it (the
    verdict's memo bypassed, as a peer verifies each message of another seat once)."""
    signer = Signer.computed(0, 4)
    play = Play(0, 0, 17, 5, 1, TurnStock(0))
    count = int(args.messages)
    start = time.process_time()
    for n in range(count):
        signed = signer.sign(replace(play, clock=17 + n))
    signing = (time.process_time() - start) / count
    data = signed_bytes(signed)
    start = time.process_time()
    for _ in range(count):
        verify(signer.keys[0], signed.sig, data)
    verifying = (time.process_time() - start) / count
    figures = {"sign_us": signing * 1e6, "verify_us": verifying * 1e6, "messages": count}
    if not args.json:
        print(f"Ed25519 per Play, one core, {count} messages")
        print(f"  sign    {figures['sign_us']:6.1f} us (payload encoded once more)")
        print(f"  verify  {figures['verify_us']:6.1f} us")
    return {"sign": figures}


def _progress(done: int, total: int) -> None:
    if done == total or done % 50 == 0:
        print(f"\r  {done}/{total} rounds", end="\n" if done == total else "", file=sys.stderr)


# --- the command line --------------------------------------------------------------------


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    sub = top.add_subparsers(dest="benchmark", required=True)

    rules = sub.add_parser("rules", help="apply and legal_moves rates at 2, 4 and 14 players")
    rules.add_argument("--json", action="store_true", help="emit the figures as JSON")
    rules.add_argument("--profile", action="store_true", help="cProfile a 4-player run")
    rules.add_argument("--top", type=int, default=25, help="functions the profile lists")
    rules.add_argument("--playouts", type=int, default=20, help="rounds per table size")
    rules.add_argument("--max-moves", type=int, default=600, help="moves per round at most")
    rules.add_argument("--repeat", type=int, default=3, help="timing runs; the best counts")
    rules.add_argument("--seed", type=int, default=1, help="first deal and playout seed")
    rules.set_defaults(run=bench_rules)

    simulated = sub.add_parser(
        "sim",
        help="simulated rounds per second at 4 and 14 peers; messages, bytes and commit "
        "latency per play against a central sequencer, by peer count",
    )
    simulated.add_argument("--json", action="store_true", help="emit the figures as JSON")
    simulated.add_argument("--rounds", type=int, default=3, help="rounds per seed and table")
    simulated.add_argument("--seeds", type=int, default=2, help="seeds per table size")
    simulated.add_argument("--seed", type=int, default=1, help="first seed")
    simulated.add_argument(
        "--ack-at-once",
        action="store_true",
        help="the costs with Acks sent at once unless one went out within the coalescing "
        "delay (Timing.ack_at_once), for the trade-off in SPEC Appendix B",
    )
    simulated.set_defaults(run=bench_sim)

    net = sub.add_parser(
        "net", help="peer processes on loopback: commit latency against TCP's, traffic, CPU"
    )
    net.add_argument("--json", action="store_true", help="emit the figures as JSON")
    net.add_argument("--rounds", type=int, default=1, help="rounds each table plays")
    net.add_argument(
        "--peers", type=int, nargs="+", default=list(NET_PEERS), help="table sizes (2 4 8 14)"
    )
    net.set_defaults(run=bench_net)

    front = sub.add_parser(
        "ui", help="the table screen: time per frame at 2, 4 and 14 players; key to screen"
    )
    front.add_argument("--json", action="store_true", help="emit the figures as JSON")
    front.add_argument("--frames", type=int, default=300, help="frames per table size")
    front.add_argument("--presses", type=int, default=100, help="keys pressed for latency")
    front.add_argument("--seed", type=int, default=1, help="the recorded rounds' seed")
    front.set_defaults(run=bench_ui)

    bots = sub.add_parser(
        "bots",
        help="decision time per policy (p50, p99), and the strong bot's margin over the "
        "baseline in mean points per round over paired arena rounds, with its 95%% CI",
    )
    bots.add_argument("--json", action="store_true", help="emit the figures as JSON")
    bots.add_argument(
        "--rounds", type=int, default=2000, help="arena rounds (2000; 0: decision times only)"
    )
    bots.add_argument("--positions", type=int, default=3000, help="views timed per policy")
    bots.add_argument(
        "--cpu",
        action="store_true",
        help="time decisions by this process's CPU time, not the wall clock (on a core that "
        "other work shares)",
    )
    bots.add_argument("--seed", type=int, default=1, help="the arena's and the views' seed")
    bots.set_defaults(run=bench_bots)

    fast = sub.add_parser("fast", help="the fast arena's 4-player rounds per second, one core")
    fast.add_argument("--json", action="store_true", help="emit the figures as JSON")
    fast.add_argument("--rounds", type=int, default=400, help="rounds per mix (400)")
    fast.add_argument("--seed", type=int, default=1, help="the arena's seed")
    fast.set_defaults(run=bench_fast)

    sign = sub.add_parser("sign", help="the cost of signing and verifying one message")
    sign.add_argument("--json", action="store_true", help="emit the figures as JSON")
    sign.add_argument("--messages", type=int, default=5000, help="messages timed (5000)")
    sign.set_defaults(run=bench_sign)
    for each in sub.choices.values():
        each.add_argument(
            "--history",
            type=Path,
            default=HISTORY,
            metavar="FILE",
            help="append the figures to FILE and compare them with the last run of the "
            "same benchmark on another commit (default tools/bench-history.jsonl)",
        )
        each.add_argument("--no-history", action="store_true", help="keep no history")
    return top


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    run: Benchmark = args.run
    report = run(args)
    if args.json:
        meta = {"benchmark": args.benchmark, "python": platform.python_version()}
        json.dump(meta | report, sys.stdout, indent=2)
        print()
    if not args.no_history:
        at = benchhistory.commit(Path(__file__).parent)
        before = benchhistory.previous(benchhistory.read(args.history), args.benchmark, at)
        after = benchhistory.record(args.history, args.benchmark, report, at)
        if before is not None:
            print("\n".join(benchhistory.compare(before, after)), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
