"""Peer processes on loopback, run by python tools/bench.py net [--peers N ...] [--json].

A host and bot processes at level 10 play a table of each size; each writes what it
measured (``--stats``): commit latency, set against a plain TCP round trip on the same
loopback, the frames and bytes it sent, and its CPU time.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import p2pnerts

from .common import p99
from .hops import hops, print_hops
from .thinking import THINK_MS

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


THINKING = Path(__file__).with_name("thinking.py")


def _same_tree(tmp: str, **more: str) -> dict[str, Any]:
    """How a peer process is started so that it runs the package this benchmark imported:
    that tree first on its path, and a working directory of its own. ``python -m`` puts
    the working directory first, so a peer started inside a checkout ran that checkout,
    whatever tree was on ``PYTHONPATH``: a before-and-after run measured one tree twice."""
    tree = str(Path(p2pnerts.__file__).resolve().parents[1])
    path = os.pathsep.join([tree, *filter(None, [os.environ.get("PYTHONPATH")])])
    return {"cwd": tmp, "env": {**os.environ, "PYTHONPATH": path, **more}}


def net_table(
    peers: int, rounds: int, thinking: float = 0.0, majority: bool = False, where: bool = False
) -> dict[str, Any]:
    """One host and peers-1 bot processes at level 10 play ``rounds``; their own figures.

    ``thinking``: the last bot thinks that many milliseconds of CPU before each move
    (`thinking.Thinking`), and the latencies are the other seats'. ``majority``: the host
    commits by version 3's majority (from 4 seats; the bots follow its Welcome), as a
    table of 4 or more does unless told ``--acks``; else by acknowledgement, as told.
    ``where``: with where a play's milliseconds go (`hops`), from the peers' game logs
    (kept, as a peer keeps them, in a directory of the run's own, not the player's)."""
    command = [sys.executable, "-m", "p2pnerts"]
    policy = ["--policy", f"{THINKING}:Thinking"] if thinking else []
    with tempfile.TemporaryDirectory() as tmp:
        stats = [Path(tmp, f"{seat}.json") for seat in range(peers)]
        logs = Path(tmp, "logs")
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
                "--log",
                str(logs),
                "--majority" if majority else "--acks",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            **_same_tree(tmp),
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
                    "--log",
                    str(logs),
                    *(policy if k == peers - 1 else []),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                **_same_tree(tmp, **{THINK_MS: str(thinking)}),
            )
            for k in range(1, peers)
        ]
        for proc in bots:
            proc.wait(timeout=NET_LIMIT)
        host.communicate(timeout=NET_LIMIT)
        figures = [json.loads(path.read_text()) for path in stats]
        where_ms = hops(sorted(logs.glob("*.p2plog"))) if where else None
    timed = figures[:-1] if thinking else figures
    latencies = sorted(x for f in timed for x in f["commit_latencies"])
    seconds = statistics.mean(f["seconds"] for f in figures)
    return {
        "peers": peers,
        "plays_timed": len(latencies),
        "commit_p50_ms": 1000 * statistics.median(latencies),
        "commit_p99_ms": 1000 * p99(latencies),
        "frames_per_s_per_peer": statistics.mean(f["frames_sent"] for f in figures) / seconds,
        "bytes_per_s_per_peer": statistics.mean(f["bytes_sent"] for f in figures) / seconds,
        "cpu_per_peer": statistics.mean(f["cpu_seconds"] for f in figures) / seconds,
        **({"hops": where_ms} if where_ms is not None else {}),
    }


def bench_net(args: argparse.Namespace) -> dict[str, Any]:
    rtt = tcp_round_trip()
    rows = [
        net_table(p, int(args.rounds), float(args.thinking), args.majority, args.hops)
        for p in args.peers
    ]
    for row in rows:
        row["p50_over_rtt"] = row["commit_p50_ms"] / 1000 / rtt
        row["p99_over_rtt"] = row["commit_p99_ms"] / 1000 / rtt
    if not args.json:
        thinks = f"the last thinks {args.thinking:g} ms a move, timed: the others; "
        rule = "committing by a majority (from 4 seats); " if args.majority else ""
        print(
            f"peers as processes on loopback, bots at level 10, {args.rounds} round(s); "
            f"{rule}{thinks if args.thinking else ''}"
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
            if "hops" in r:
                print_hops(r["hops"])
    return {"tcp_rtt_us": 1e6 * rtt, "tables": rows}
