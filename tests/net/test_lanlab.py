"""The LAN lab (tools/lanlab): discovery by mDNS alone across a bridge between namespaces.

These tests need root and iproute2; elsewhere they skip and say why. Every namespace they
make is checked to be gone at the end.
"""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import IO

import pytest
import trio

if sys.platform != "linux":
    pytest.skip("the LAN lab builds Linux network namespaces", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import lanlab  # noqa: E402

from p2pnerts.net import find_tables  # noqa: E402
from p2pnerts.protocol import PROTOCOL_VERSION  # noqa: E402

WAIT = 30.0  # seconds: bounds for failure only
TOOL = [sys.executable, "-W", "error", "-m", "p2pnerts.commands._mdns_tool"]


@pytest.fixture
def can_build() -> Iterator[None]:
    reason = lanlab.unavailable_reason()
    if reason is not None:
        print(f"skipping the LAN lab: {reason}")
        pytest.skip(reason)
    yield
    # only this process's labs: another lab may be running on the machine meanwhile
    left = namespaces_of(os.getpid())
    assert not left, f"namespaces left behind: {left}"


def read_line(stream: IO[bytes], seconds: float = WAIT) -> bytes:
    """One line from an unbuffered pipe, waiting at most ``seconds`` for it to begin."""
    ready, _, _ = select.select([stream], [], [], seconds)
    assert ready, f"no line within {seconds} s"
    return stream.readline()


def test_a_table_in_one_namespace_is_found_from_another(can_build: None) -> None:
    table_id = uuid.uuid4().hex
    try:
        with lanlab.lab(2) as net:
            h0, h1 = net.hosts
            namespaces = net.namespaces
            assert all(ns in lanlab.existing_namespaces() for ns in namespaces)
            advertiser = net.exec_in(
                h0,
                [*TOOL, "advertise", "--interface", h0.address, "--id", table_id,
                 "--name", "Lab table", "--port", "4242", "--seats", "2/3", "--seconds", "120"],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,  # unbuffered, so that select() and readline() agree
            )  # fmt: skip
            assert advertiser.stdout is not None
            assert read_line(advertiser.stdout).startswith(b"advertising Lab-table-")

            found = net.run_in(
                h1,
                [*TOOL, "tables", "--interface", h1.address, "--timeout", "3", "--json"],
                capture_output=True,
                timeout=WAIT,
            )
            assert found.returncode == 0, found.stderr
            tables = [t for t in json.loads(found.stdout) if t["table_id"] == table_id]
            assert tables == [
                {
                    "name": "Lab table",
                    "table_id": table_id,
                    "version": PROTOCOL_VERSION,
                    "seats_taken": 2,
                    "seats_total": 3,
                    "options": "",
                    "state": "lobby",
                    "host": h0.address,
                    "port": 4242,
                    "key": "",
                    "private": False,
                }
            ]

            # The lab is its own network: this process, on the machine's loopback, sees
            # nothing of it.
            here = trio.run(partial(find_tables, 1.5, interfaces=["127.0.0.1"]))
            assert table_id not in [t.table_id for t in here]

            advertiser.send_signal(signal.SIGTERM)
            assert advertiser.wait(WAIT) == 0
            assert advertiser.stdout.read().strip() == b"stopped"
            assert advertiser.stderr is not None
            assert advertiser.stderr.read() == b""
            advertiser.stdout.close()
            advertiser.stderr.close()
    except lanlab.LabUnavailable as exc:
        print(f"skipping the LAN lab: {exc}")
        pytest.skip(str(exc))
    remaining = lanlab.existing_namespaces()
    assert not [ns for ns in namespaces if ns in remaining]


def lanlab_command(*args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [str(ROOT / "tools" / "lanlab"), *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        bufsize=0,  # unbuffered, so that select() and readline() agree
    )


def namespaces_of(pid: int) -> list[str]:
    return [ns for ns in lanlab.existing_namespaces() if ns.startswith(f"{lanlab.PREFIX}{pid}-")]


def test_the_command_line_runs_one_command_per_host(can_build: None) -> None:
    # No --interface: the lab sets P2PNERTS_INTERFACES to each host's own address.
    table_id = uuid.uuid4().hex
    proc = lanlab_command(
        "run", "--hosts", "3", "--until", "2", "--timeout", str(WAIT), "--",
        *TOOL, "advertise", "--name", "North", "--id", table_id, "--seconds", "120", ":::",
        *TOOL, "advertise", "--name", "South", "--state", "playing", "--seconds", "120", ":::",
        *TOOL, "tables", "--timeout", "6", "--json",
    )  # fmt: skip
    try:
        out, err = proc.communicate(timeout=2 * WAIT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    if proc.returncode == lanlab.SKIP_STATUS:
        pytest.skip(err.decode())
    assert proc.returncode == 0, err.decode()
    lines = out.decode().splitlines()
    listing = "\n".join(line.removeprefix("[h2] ") for line in lines if line.startswith("[h2] "))
    tables = {t["name"]: t for t in json.loads(listing)}
    assert tables["North"]["host"] == "10.254.0.1"
    assert tables["North"]["table_id"] == table_id
    assert tables["South"]["host"] == "10.254.0.2"
    assert tables["South"]["state"] == "playing"
    # --until 2: the advertisers were stopped with SIGTERM and said goodbye
    assert "[h0] stopped" in lines and "[h1] stopped" in lines
    assert namespaces_of(proc.pid) == []


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_up_removes_the_lab_on_a_signal(can_build: None, signum: signal.Signals) -> None:
    proc = lanlab_command("up", "--hosts", "2", "--seconds", str(WAIT))
    try:
        assert proc.stdout is not None
        layout = [read_line(proc.stdout).decode().split() for _ in range(2)]
        assert read_line(proc.stdout) == b"ready\n"
        assert [row[0] for row in layout] == ["h0", "h1"]
        assert [row[2] for row in layout] == ["10.254.0.1", "10.254.0.2"]
        assert sorted(namespaces_of(proc.pid)) == sorted(
            [row[1] for row in layout] + [f"{lanlab.PREFIX}{proc.pid}-0-br"]
        )
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=WAIT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err.decode()
    assert b"removing the lab" in err
    assert namespaces_of(proc.pid) == []


def test_a_failure_halfway_removes_what_was_built(
    can_build: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_ip = lanlab._ip
    made: list[str] = []

    def failing_ip(*args: str) -> None:
        if args[:2] == ("netns", "add"):
            made.append(args[2])
        if "route" in args:
            raise subprocess.CalledProcessError(2, ["ip", *args], stderr="injected failure")
        real_ip(*args)

    monkeypatch.setattr(lanlab, "_ip", failing_ip)
    with pytest.raises(lanlab.LabUnavailable, match="injected failure"), lanlab.lab(2):
        pass
    assert len(made) == 3
    assert not set(made) & set(lanlab.existing_namespaces())


def test_without_root_the_lab_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("os.geteuid", lambda: 1000)
    assert lanlab.unavailable_reason() == "network namespaces need root (this process is not root)"
    with pytest.raises(lanlab.LabUnavailable, match="need root"), lanlab.lab(2):
        pass


def test_bots_in_other_namespaces_find_a_hosted_table_of_teams_by_mdns_and_finish_the_match(
    can_build: None,
) -> None:
    # Teams 2+2 without --seats: four seats, and each team deck goes to a teammate in
    # another namespace.
    command = [sys.executable, "-m", "p2pnerts"]
    name = f"Lab {uuid.uuid4().hex[:8]}"
    try:
        with lanlab.lab(4) as net:
            h0, *others = net.hosts
            host = net.exec_in(
                h0,
                [*command, "host", "--name", name, "--teams", "2+2", "--rounds", "1",
                 "--level", "9", "--headless", "--interface", h0.address],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, bufsize=0,
            )  # fmt: skip
            assert host.stdout is not None
            assert b"open on port" in read_line(host.stdout)
            # `p2pnerts tables` in another namespace lists it, by mDNS alone.
            first = others[0]
            listing = net.exec_in(
                first,
                [*command, "tables", "--timeout", "5", "--json", "--interface", first.address],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            )  # fmt: skip
            out, err = listing.communicate(timeout=WAIT)
            assert listing.returncode == 0, err.decode()
            seen = [t for t in json.loads(out) if t["name"] == name]
            assert len(seen) == 1, out.decode()
            assert seen[0]["host"] == h0.address and seen[0]["state"] == "lobby"
            assert (seen[0]["seats_taken"], seen[0]["seats_total"]) == (1, 4), seen[0]
            assert seen[0]["options"] == "rounds=1, teams=2+2, commits by a majority", seen[0]
            bots = [
                net.exec_in(
                    h,
                    [
                        *command,
                        "bot",
                        "--join",
                        name,
                        "--name",
                        f"B{h.index}",
                        "--level",
                        "9",
                        "--interface",
                        h.address,
                    ],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                )
                for h in others
            ]
            outs = [bot.communicate(timeout=180)[0].decode() for bot in bots]
            rest = host.communicate(timeout=180)[0].decode()
            assert [bot.returncode for bot in bots] == [0, 0, 0], outs
            assert host.returncode == 0, rest
            for out, h in zip(outs, others, strict=True):
                assert f"joining {h0.address}:" in out  # found by mDNS, not told where
                assert f"B{h.index} is in team " in out
            summaries = {
                [line for line in text.splitlines() if line.startswith("match over")][-1]
                for text in [*outs, rest]
            }
            assert len(summaries) == 1, summaries
            summary = summaries.pop()
            assert re.match(r"match over after 1 round: Player & B\d -?\d+, B\d & B\d ", summary)
    except lanlab.LabUnavailable as exc:
        print(f"skipping the LAN lab: {exc}")
        pytest.skip(str(exc))
