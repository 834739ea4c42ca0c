"""Separate processes on loopback: a host and bots finish a match, even when one is killed."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import trio

from p2pnerts.cheats import CHEATS, DEAL_CHEATS, FRAME_CHEATS, LINK_CHEATS
from p2pnerts.logs import read_log
from p2pnerts.net import COUNTDOWN
from p2pnerts.protocol import Play, SeatKey, decode
from p2pnerts.system import WINDOWS

COMMAND = [sys.executable, "-m", "p2pnerts"]
LIMIT = 180
_started: list[subprocess.Popen[str]] = []


def _as_at_a_terminal() -> None:
    """In a child before it runs: Ctrl-C as a terminal leaves it to a command (SIGINT at
    its default and not blocked), whatever an earlier test left in the process that runs
    this one (a child inherits both; either way a bot's Ctrl-C went unheard)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    if sys.platform != "win32":  # (never run there: Windows has no preexec_fn)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _spawn(args: list[str], env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        args,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        preexec_fn=None if WINDOWS else _as_at_a_terminal,
    )
    _started.append(proc)
    return proc


@pytest.fixture(autouse=True)
def _no_process_outlives_its_test() -> Iterator[None]:
    """A failed assertion leaves the other processes running: end them with the test."""
    yield
    while _started:
        proc = _started.pop()
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


@contextmanager
def _host(
    *extra: str, env: dict[str, str] | None = None
) -> Iterator[tuple[subprocess.Popen[str], int]]:
    args = [*COMMAND, "host", "--name", "lab", "--headless", "--no-advertise", *extra]
    proc = _spawn(args, env)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        match = re.search(r"open on port (\d+)", first)
        assert match, f"the host said {first!r}"
        yield proc, int(match.group(1))
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


def _bot(
    port: int, name: str, *extra: str, env: dict[str, str] | None = None
) -> subprocess.Popen[str]:
    args = [*COMMAND, "bot", "--join", f"127.0.0.1:{port}", "--name", name, "--level", "9"]
    return _spawn([*args, *extra], env)


def _finish(proc: subprocess.Popen[str]) -> str:
    out, _ = proc.communicate(timeout=LIMIT)
    assert proc.returncode == 0, out
    return out


def _summary(out: str) -> str:
    return [line for line in out.splitlines() if line.startswith("match over")][-1]


SHORT = ("--nerts-pile", "6")
"""Nerts piles of 6 cards, where a test needs rounds, not long ones: two rounds of 13-card
piles at level 9 took some 20 s."""


def test_a_host_and_three_bot_processes_finish_a_match_and_agree() -> None:
    with _host("--seats", "4", "--rounds", "2", "--level", "9", *SHORT) as (host, port):
        bots = [_bot(port, f"B{k}") for k in (1, 2, 3)]
        outs = [_finish(b) for b in bots]
        assert host.stdout is not None
        host_out = host.stdout.read()
        host.wait(timeout=LIMIT)
    summaries = {_summary(o) for o in [*outs, host_out]}
    assert len(summaries) == 1, summaries
    assert "after 2 rounds" in summaries.pop()


def test_a_peer_killed_mid_round_is_left_out_and_the_others_finish() -> None:
    with _host("--seats", "4", "--rounds", "2", "--level", "8", *SHORT) as (host, port):
        bots = [_bot(port, f"B{k}") for k in (1, 2, 3)]
        assert host.stdout is not None
        for line in host.stdout:  # wait until play is under way
            if "round 1 starts" in line:
                break
        time.sleep(COUNTDOWN + 1.0)  # a second into play
        bots[2].kill()  # kill -9, or TerminateProcess on Windows
        bots[2].communicate()
        outs = [_finish(b) for b in bots[:2]]
        rest = host.stdout.read()
        host.wait(timeout=LIMIT)
    assert "B3 is left out; the table plays on" in rest
    assert len({_summary(o) for o in [*outs, rest]}) == 1


def test_a_killed_peer_started_again_with_its_state_file_comes_back(tmp_path: Path) -> None:
    state = tmp_path / "b3.json"
    with _host("--seats", "4", "--rounds", "2", "--level", "8") as (host, port):
        bots = [_bot(port, f"B{k}") for k in (1, 2)]
        bots.append(_bot(port, "B3", "--state", str(state)))
        assert host.stdout is not None
        for line in host.stdout:  # wait until play is under way
            if "round 1 starts" in line:
                break
        time.sleep(COUNTDOWN + 1.0)  # a second into play
        assert state.exists(), "the seat's state file is written once play begins"
        kept = json.loads(state.read_text())
        assert kept["roster"][kept["seat"]][1] == "B3" and len(kept["disk"]["order"]) == 52
        bots[2].kill()  # kill -9, or TerminateProcess on Windows
        bots[2].communicate()
        again = _bot(port, "B3", "--state", str(state))
        outs = [_finish(b) for b in [*bots[:2], again]]
        rest = host.stdout.read()
        host.wait(timeout=LIMIT)
    assert f"B3 coming back to seat {kept['seat'] + 1}" in outs[2]  # (as it was told it sat)
    assert "B3 is back" in rest
    summaries = {_summary(o) for o in [*outs, rest]}
    assert len(summaries) == 1, summaries
    assert "after 2 rounds" in summaries.pop()
    assert not state.exists(), "the state file goes when the match is over"


@pytest.mark.skipif(WINDOWS, reason="Ctrl-C reaches a console's whole process group there")
def test_a_bot_that_leaves_comes_back_to_its_seat_and_score_and_another_key_cannot(
    tmp_path: Path,
) -> None:
    """Zoe leaves by Ctrl-C a few seconds into play: the others read that she left, and her
    round is audited and scored as played. The same command again takes her seat back,
    proved by the key kept in her data directory; a copy of that seat with another key is
    refused, and so is a newcomer at the full table."""
    home = {**os.environ, "P2PNERTS_DATA_DIR": str(tmp_path / "zoe")}
    with _host("--seats", "3", "--rounds", "2", "--level", "8") as (host, port):
        assert host.stdout is not None
        b1, zoe = _bot(port, "B1"), _bot(port, "Zoe", env=home)
        told = []
        for line in host.stdout:  # wait until play is under way
            told.append(line)
            if "round 1 starts" in line:
                break
        time.sleep(COUNTDOWN + 1.0)  # a second into play
        zoe.send_signal(signal.SIGINT)
        left, _ = zoe.communicate(timeout=LIMIT)
        assert zoe.returncode == 130, left
        assert "Zoe left the table: join it again to come back" in left
        for line in host.stdout:
            told.append(line)
            if "left the table" in line:
                break
        assert told[-1] == "Zoe left the table; the others play on\n", told
        (kept,) = (tmp_path / "zoe" / "seats").glob("*.json")
        seat = json.loads(kept.read_text())["seat"]

        other = SeatKey.generate()
        forged = json.loads(kept.read_text())
        forged["key"] = other.secret.hex()
        forged["roster"][seat][4] = other.public.hex()
        (tmp_path / "eve" / "seats").mkdir(parents=True)
        (tmp_path / "eve" / "seats" / kept.name).write_text(json.dumps(forged))
        eve = {**os.environ, "P2PNERTS_DATA_DIR": str(tmp_path / "eve")}
        refused, _ = _bot(port, "Zoe", env=eve).communicate(timeout=LIMIT)
        assert f"refused this seat: that is not seat {seat}'s key" in refused, refused
        assert "refused: table 'lab' is full" in refused, "nor can it take a new seat"
        full, _ = _bot(port, "Newcomer").communicate(timeout=LIMIT)
        assert "refused: table 'lab' is full" in full, full

        again = _bot(port, "Zoe", env=home)
        outs = [_finish(b) for b in (b1, again)]
        rest = "".join(told) + host.stdout.read()
        host.wait(timeout=LIMIT)
    assert re.search(rf"^welcome back, Zoe: your seat {seat + 1}, -?\d+ points?$", outs[1], re.M)
    assert "Zoe is back" in rest
    assert "failed" not in rest + outs[0] + outs[1], "no audit failed"
    assert len({_summary(o) for o in [*outs, rest]}) == 1
    assert not kept.exists(), "the kept seat goes when the match is over"


def test_the_host_killed_and_started_again_with_its_state_file_comes_back(
    tmp_path: Path,
) -> None:
    state = tmp_path / "host.json"
    table = ("--seats", "3", "--rounds", "2", "--level", "8", "--state", str(state))
    with _host(*table) as (host, port):
        bots = [_bot(port, f"B{k}") for k in (1, 2)]
        assert host.stdout is not None
        for line in host.stdout:
            if "round 1 starts" in line:
                break
        time.sleep(COUNTDOWN + 1.0)  # a second into play
        host.kill()
        host.wait()
    args = [*COMMAND, "host", "--name", "lab", "--headless", "--no-advertise", *table]
    again = _spawn(args)
    assert again.stdout is not None
    told = []
    for line in again.stdout:
        told.append(line)
        if "coming back to seat 1" in line:
            break
    # Back, the host is still where a spectator watches the table.
    watch = _spawn([*COMMAND, "watch", f"127.0.0.1:{port}", "--headless"])
    outs = [_finish(p) for p in [*bots, again]]
    outs[2] = "".join(told) + outs[2]
    assert "Player is back" in outs[0]
    assert len({_summary(o) for o in outs}) == 1
    assert not state.exists()
    seen = _finish(watch).splitlines()
    assert re.fullmatch(rf"watching 127.0.0.1:{port} as Player sees it: Player, B\d, B\d", seen[0])
    commits = [int(line.split()[0][1:]) for line in seen[1:-1]]
    assert commits and commits == list(range(commits[0], commits[0] + len(commits)))


def test_a_killed_teammate_started_again_with_its_state_file_plays_its_team_deck(
    tmp_path: Path,
) -> None:
    # Teams 2+2: the host (seat 0) deals its team's deck to seat 1, whoever that is.
    names = ("B1", "B2", "B3")
    states = {name: tmp_path / f"{name}.json" for name in ("host", *names)}
    stats = {name: tmp_path / f"{name}-stats.json" for name in names}

    logs = tmp_path / "logs"

    def bot(port: int, name: str) -> subprocess.Popen[str]:
        kept = ("--state", str(states[name]), "--stats", str(stats[name]), "--log", str(logs))
        return _bot(port, name, *kept)

    table = ("--teams", "2+2", "--rounds", "2", "--level", "8", "--state", str(states["host"]))
    with _host(*table) as (host, port):
        bots = {name: bot(port, name) for name in names}
        assert host.stdout is not None
        for line in host.stdout:  # wait until play is under way
            if "round 1 starts" in line:
                break
        time.sleep(COUNTDOWN + 1.0)  # a second into play
        kept = {name: json.loads(path.read_text()) for name, path in states.items()}
        mate = next(name for name in names if kept[name]["seat"] == 1)
        mine, dealt = kept[mate]["disk"], kept["host"]["disk"]
        assert (mine["round"], mine["order"]) == (dealt["round"], dealt["order"]), (
            "the teammate keeps the team's deck as its dealer shuffled it"
        )
        bots[mate].kill()  # kill -9, or TerminateProcess on Windows
        bots[mate].communicate()
        before = set(logs.glob("*.p2plog"))
        bots[mate] = bot(port, mate)
        outs = {name: _finish(proc) for name, proc in bots.items()}
        rest = host.stdout.read()
        host.wait(timeout=LIMIT)
    assert f"{mate} coming back to seat 2" in outs[mate]
    assert f"{mate} is in team 1 of 2, with Player" in outs[mate]
    assert f"{mate} is back" in rest
    summaries = {_summary(o) for o in [*outs.values(), rest]}
    assert len(summaries) == 1, summaries
    assert summaries.pop().startswith(f"match over after 2 rounds: Player & {mate} ")
    # Back at its seat, the teammate plays the team's deck: it sends moves (its teammate,
    # at the same tableau, may play every card up before it does: a check that it played
    # one up failed so once in a while).
    (log,) = set(logs.glob("*.p2plog")) - before
    _, records = read_log(log)
    sent = [decode(r[3]) for r in records if r[0] == "sent"]
    assert any(isinstance(m, Play) for m in sent), "back at its seat, it made moves"
    assert not any(path.exists() for path in states.values())


def _stop_for(proc: subprocess.Popen[str], seconds: float) -> None:
    """Stop a process as a closed lid does, then let it run on."""
    if sys.platform == "win32":
        pytest.skip("SIGSTOP is POSIX")
    proc.send_signal(signal.SIGSTOP)
    try:
        time.sleep(seconds)
    finally:
        proc.send_signal(signal.SIGCONT)


@pytest.mark.skipif(WINDOWS, reason="SIGSTOP and SIGCONT are POSIX: Windows cannot stop a process")
def test_a_peer_stopped_for_5_s_is_told_it_was_away_sits_out_and_its_record_is_whole() -> None:
    with _host("--seats", "3", "--rounds", "3", "--level", "9") as (host, port):
        lid, other = _bot(port, "B2"), _bot(port, "B1")
        assert lid.stdout is not None
        before = []
        for line in lid.stdout:  # stopped between rounds, before it deals the next
            before.append(line)
            if line.startswith("round 1 over"):
                break
        _stop_for(lid, 5.0)
        out = "".join(before) + _finish(lid)
        outs = [out, _finish(other), host.communicate(timeout=LIMIT)[0]]
    assert "the others left you out and played on" in out and "you were away for " in out
    assert "you are back in" in out
    sits = "you sit out this round (it began while you were away) and the next; you deal in"
    assert sits + " the one after" in out
    assert not re.search(r"is silent$", out, re.MULTILINE), "its own stall is nobody's silence"
    for seen in outs:
        over = [int(n) for n in re.findall(r"^round (\d+) over", seen, re.MULTILINE)]
        assert over == [1, 2, 3], seen
    assert re.search(r"^round 2 over \(you sat out; ", out, re.MULTILINE)
    assert re.search(r"^round 3 over \(you sat out; ", out, re.MULTILINE)  # (as it was told)
    assert all(re.search(r"^B2 is back after \d+\.\d s away$", o, re.MULTILINE) for o in outs[1:])
    assert len({_summary(o) for o in outs}) == 1
    assert re.search(r"^membership: .*left out, .*back, .*; away \d+\.\d s$", out, re.MULTILINE)
    assert all(re.search(r"^membership: .*silent, .*left out, .*back, ", o, re.M) for o in outs[1:])


WIFI = ("--delay", "15", "--jitter", "25", "--loss", "0.02")
"""A bad Wi-Fi link: 15 ± 25 ms, 2% of frames lost (and sent again, late)."""


def test_four_peers_on_bad_wi_fi_links_finish_the_match_alike(tmp_path: Path) -> None:
    stats = [tmp_path / f"{name}.json" for name in ("h", "b1", "b2", "b3")]
    host_args = ("--seats", "4", "--rounds", "2", "--level", "9", *SHORT, "--stats", str(stats[0]))
    with _host(*host_args, *WIFI) as (host, port):
        bots = [_bot(port, f"B{k}", "--stats", str(stats[k]), *WIFI) for k in (1, 2, 3)]
        outs = [_finish(b) for b in bots] + [host.communicate(timeout=LIMIT)[0]]
    assert all("links shaped: 15 ms ± 25 ms, 2% lost" in out for out in outs)
    assert len({_summary(o) for o in outs}) == 1
    plays = [json.loads(path.read_text())["commit_latencies"] for path in stats]
    assert all(plays), "every peer played, over its lossy links"


def test_a_peer_whose_links_are_cut_for_seconds_is_told_and_comes_back_over_new_links(
    tmp_path: Path,
) -> None:
    """At a table that commits by acknowledgement (``--acks``), where a seat silent for 2 s
    is left out: a majority's table waits 10 s for it and plays on meanwhile (SPEC's notes,
    "A hiccup is not a departure"; `tests/net/test_majority_links.py`)."""
    stats = [tmp_path / f"{name}.json" for name in ("h", "b1", "b2", "b3")]
    table = ("--seats", "4", "--rounds", "2", "--level", "8", "--acks")
    with _host(*table, "--stats", str(stats[0])) as (host, port):
        bots = [_bot(port, f"B{k}", "--stats", str(stats[k])) for k in (1, 2)]
        bots.append(_bot(port, "B3", "--stats", str(stats[3]), "--stall", "6:3.5"))
        outs = [_finish(b) for b in bots] + [host.communicate(timeout=LIMIT)[0]]
    cut = outs[2]
    lines = cut.splitlines()
    said = [lines.index(line) for line in ("links cut for 3.5 s (--stall)", "links back (--stall)")]
    assert said == sorted(said)
    assert "the others went on without you: rejoining" in cut and "you are back in" in cut
    assert all(
        re.search(r"^B3 is back after \d+\.\d s away$", o, re.M) for o in outs[:2] + outs[3:]
    )
    for seen in outs:
        over = [int(n) for n in re.findall(r"^round (\d+) over", seen, re.MULTILINE)]
        assert over == [1, 2], seen
    assert len({_summary(o) for o in outs}) == 1
    # Its old connections would carry again only 2.7 s after the link's return (TCP's
    # retransmission timer, as the shaper keeps it): new ones replaced them first.
    probed = [json.loads(path.read_text())["probed"] for path in stats]
    assert sum(probed) >= 1, probed


REFUSED = sorted(set(CHEATS) - DEAL_CHEATS - LINK_CHEATS - FRAME_CHEATS)  # (no frames here)
DETECTED = dict.fromkeys(REFUSED, "C broke the protocol and is refused from now on") | {
    "no-ack": "C talks on but acknowledges nothing: left out for a while",
    "equivocate": "signed two different messages as its message",
    # Its own reason at every honest peer: not the gap the forgery leaves in C's numbers.
    "impersonate": r"C broke the protocol and is refused from now on: "
    r"seat \d's connection carried seat \d",
}
"""What every honest peer says of a cheat, by kind (a pattern)."""


def _against_a_cheat(
    kind: str, stats: Path
) -> tuple[str, subprocess.Popen[str], str, subprocess.Popen[str], str]:
    """A one-round table of three: a headless host (its figures in ``stats``), an honest
    bot B1 and a bot C cheating as ``kind``; what the honest two said, their processes,
    and what the host and C said, for a failure's message (C's account of its links).
    Nerts piles of 4 cards end the round some 4 s after C is left out (the cheat lies
    from its 13th message on), where 13-card piles played on for some 16 s more: these
    13 tests took 115 s of the cores, now 61."""
    table = ("--seats", "3", "--rounds", "1", "--level", "9", "--nerts-pile", "4")
    with _host(*table, "--stats", str(stats)) as (host, port):
        honest = _bot(port, "B1")
        cheat = _bot(port, "C", "--cheat", kind)
        out, _ = honest.communicate(timeout=LIMIT)
        host_out, _ = host.communicate(timeout=LIMIT)  # bounded: a host that hangs fails
        cheat.kill()
        cheat_out, _ = cheat.communicate(timeout=LIMIT)
    return out, honest, host_out, host, f"--- the host said:\n{host_out}--- C said:\n{cheat_out}"


@pytest.mark.parametrize("kind", REFUSED)
def test_a_cheating_peer_is_named_by_every_honest_peer_and_they_finish_alike(
    kind: str, tmp_path: Path
) -> None:
    stats = tmp_path / "host.json"
    out, honest, host_out, host, others = _against_a_cheat(kind, stats)
    for seen, status in ((out, honest.returncode), (host_out, host.returncode)):
        assert status == 3, f"{seen}{others}"  # saw an attack
        assert re.search(DETECTED[kind], seen), f"{seen}{others}"
        assert "p2pnerts: this table could not be trusted: " in seen
        assert "C is left out; the table plays on" in seen
    assert _summary(out) == _summary(host_out)
    figures = json.loads(stats.read_text())
    assert len(figures["stalled"] if kind == "no-ack" else figures["refused"]) == 1


@pytest.mark.parametrize("kind", sorted(DEAL_CHEATS))
def test_a_seat_cheating_on_its_deal_is_voided_alike_by_every_honest_peer(
    kind: str, tmp_path: Path
) -> None:
    """``stack-deck`` deals itself a winning deck, ``lie-about-deck`` reveals a secret it
    never pledged: either way the honest peers' audit fails its deck, its round scores the
    round's lowest (at most 0), and both honest peers end with the same result and exit 3."""
    stats = tmp_path / "host.json"
    out, honest, host_out, host, others = _against_a_cheat(kind, stats)
    for seen, status in ((out, honest.returncode), (host_out, host.returncode)):
        assert status == 3, f"{seen}{others}"
        void = r"audit of round 1 failed C: .*; C's round is void and scores [-+]?\d"
        assert re.search(void, seen)
        assert "p2pnerts: this table could not be trusted: " in seen
        assert "failed the audit of its deal" in seen
    assert _summary(out) == _summary(host_out)
    assert "Winner: C" not in _summary(out)
    figures = json.loads(stats.read_text())
    assert [re.sub(r"seat \d", "seat", f) for f in figures["audits_failed"]] == ["seat, round 1"]


def test_a_seat_that_links_to_the_host_alone_is_left_out_and_the_others_finish_alike() -> None:
    """``cut-links`` keeps its link to the host and refuses every other seat's: no one can
    prove who cut the links, but both honest bots suspect it, and it suspects both of them,
    so the view change leaves it out (SPEC §6.4) — whatever seat it has — and lets it back
    only now and then, and it gains nothing. Before, every seat voted and each view kept all
    four: the table held itself up view after view."""
    with _host("--seats", "4", "--rounds", "2", "--level", "9") as (host, port):
        cheat = _bot(port, "C", "--cheat", "cut-links")
        bots = [_bot(port, f"B{k}") for k in (1, 2)]
        outs = [_finish(b) for b in bots] + [host.communicate(timeout=LIMIT)[0]]
        cheat.kill()
        cheat.communicate()
    assert host.returncode == 0, outs[-1]
    for seen in outs:
        assert "C is left out; the table plays on" in seen, seen
        over = [int(n) for n in re.findall(r"^round (\d+) over", seen, re.MULTILINE)]
        assert over == [1, 2], seen
        # C gains nothing: 0 when it is out of both deals, its round's score (at most 0)
        # when a view still held it as a round was dealt, and it never revealed its secret.
        total = re.search(r"^match over after 2 rounds: .*\bC (-?\d+)\b", seen, re.MULTILINE)
        assert total is not None and int(total[1]) <= 0, seen
    assert len({_summary(o) for o in outs}) == 1


def test_a_bot_without_the_passphrase_cannot_sit_at_a_private_table_and_one_with_it_can() -> None:
    secret = {**os.environ, "TABLE_SECRET": "correct horse battery staple"}
    table = ["--seats", "2", "--rounds", "1", "--level", "9", "--nerts-pile", "4"]
    table += ["--passphrase-env", "TABLE_SECRET"]
    with _host(*table, env=secret) as (host, port):
        refused = {
            "no passphrase": _bot(port, "Eve"),
            "wrong passphrase": _bot(port, "Mal", "--passphrase", "Tr0ub4dor&3"),
        }
        told = {why: proc.communicate(timeout=LIMIT)[0] for why, proc in refused.items()}
        welcome = _bot(port, "Bea", "--passphrase-env", "TABLE_SECRET", env=secret)
        out = _finish(welcome)
        assert host.stdout is not None
        host_out = host.stdout.read()
        host.wait(timeout=LIMIT)
    assert all(proc.returncode == 1 for proc in refused.values())
    where = f"the table at 127.0.0.1:{port}"
    assert told["no passphrase"].endswith(
        f"p2pnerts: cannot join: {where} is private: give its passphrase "
        "(--passphrase, --passphrase-env or --ask-passphrase)\n"
    )
    assert told["wrong passphrase"].endswith(
        f"p2pnerts: cannot join: wrong passphrase for {where}\n"
    )
    said = [line.split(" ", 2)[2] for line in host_out.splitlines() if line.startswith("refused ")]
    assert "(Eve): no passphrase" in said and "(Mal): wrong passphrase" in said, said
    assert _summary(out) == _summary(host_out) and "after 1 round" in _summary(out)


def _back_with_edited_state(tmp_path: Path, edit: Callable[[dict[str, Any]], None]) -> str:
    """A table of three where B2, killed a second into play, comes back with its state
    file changed by ``edit``: what it said, once it stopped with status 1. Whole rounds:
    with Nerts piles of 4 cards round 1 could end while B2 was away, and B2 came back to
    sit out round 2, its deck of round 1 never checked. B1 and the host are stopped then
    (waiting for them to finish without B2 took some 25 s a test, and showed nothing that
    `test_a_peer_killed_mid_round_is_left_out_and_the_others_finish` does not)."""
    state = tmp_path / "b2.json"
    with _host("--seats", "3", "--rounds", "2", "--level", "8") as (host, port):
        bots = [_bot(port, "B1"), _bot(port, "B2", "--state", str(state))]
        assert host.stdout is not None
        for line in host.stdout:  # wait until play is under way
            if "round 1 starts" in line:
                break
        time.sleep(COUNTDOWN + 1.0)
        bots[1].kill()
        bots[1].communicate()
        kept = json.loads(state.read_text())
        edit(kept)
        state.write_text(json.dumps(kept))
        again = _bot(port, "B2", "--state", str(state))
        out, _ = again.communicate(timeout=LIMIT)
        assert again.returncode == 1, out
    return out


def test_a_seat_coming_back_with_other_options_is_refused_and_stops(tmp_path: Path) -> None:
    def other_options(kept: dict[str, Any]) -> None:
        kept["options"]["rounds"] = 5  # a file edited, or another table's

    last = _back_with_edited_state(tmp_path, other_options).strip().splitlines()[-1]
    assert re.fullmatch(
        r"p2pnerts: refused by the table: seat \d \(127\.0\.0\.1:\d+\) plays this table "
        r"with another size or other options than this seat",
        last,
    ), last


@pytest.mark.parametrize("edit", ["round", "order"])
def test_a_seat_coming_back_with_a_deck_the_table_never_dealt_it_stops_in_one_line(
    edit: str, tmp_path: Path
) -> None:
    def edited(kept: dict[str, Any]) -> None:
        disk = kept["disk"]
        if edit == "round":
            disk["round"] = 1000  # the seat would never deal again
        else:
            disk["order"] = disk["order"][::-1]  # another deck

    last = _back_with_edited_state(tmp_path, edited).strip().splitlines()[-1]
    why = r"p2pnerts: state file: (it holds|its deck of) .*table's, or edited"
    assert re.fullmatch(why, last), last


def test_a_spectator_draws_the_messages_between_seats_other_than_the_host() -> None:
    """The mesh, not a star: with the host's ticket the spectator hears every seat, so the
    diagram has arrows from one bot's lane to another's, the host on neither end. (Heard
    through the host alone, a bot's message is drawn as the host's receipt, to the host's
    lane; from the bot's own stream, it goes to the seat it was sent to, or to every lane
    for a message to all, which is most of them.)"""
    from p2pnerts.net import watch_table
    from p2pnerts.ui import WatchModel

    drawn = []
    with _host("--seats", "4", "--rounds", "1", "--level", "9") as (host, port):
        model = WatchModel(f"127.0.0.1:{port}")

        def hear(sight: Any) -> None:
            last = model.arrows[-1] if model.arrows else None
            model.hear(sight)
            if model.arrows and model.arrows[-1] is not last:
                drawn.append(model.arrows[-1])

        bots = [_bot(port, f"B{k}") for k in (1, 2, 3)]
        trio.run(watch_table, "127.0.0.1", port, hear)
        for bot in bots:
            _finish(bot)
        _finish(host)
    assert model.hearing == {1, 2, 3}
    between = {(a.sender, a.to) for a in drawn if not a.commit and a.sender > 0 and a.to != 0}
    assert between, "no message drawn between two seats other than the host"
