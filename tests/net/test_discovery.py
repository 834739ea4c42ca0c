"""Discovery: mDNS on loopback only, within one process and between processes.

Every wait is bounded (``trio.fail_after``) and generous; nothing asserts how fast
zeroconf is. Other programs on this machine may announce tables on loopback too, so
every check looks only at the tables these tests made (by table id or service name).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager, contextmanager
from dataclasses import replace
from pathlib import Path

import pytest
import trio
from zeroconf import IPVersion, ServiceInfo, Zeroconf

from p2pnerts.commands.tables import _render, tables_command
from p2pnerts.net import (
    SERVICE_TYPE,
    TableBrowser,
    TableInfo,
    advertise,
    browse,
    find_tables,
)
from p2pnerts.net._known import KnownHosts
from p2pnerts.net._tables import instance_label, table_from_txt, txt_of
from p2pnerts.protocol import PROTOCOL_VERSION

LOOPBACK = ["127.0.0.1"]
WAIT = 20.0  # seconds: a bound for failure only; discovery here takes well under one


def a_table(name: str = "Kitchen table", **changes: object) -> TableInfo:
    info = TableInfo(
        name=name,
        table_id=uuid.uuid4().hex,
        version=PROTOCOL_VERSION,
        seats_taken=1,
        seats_total=4,
        options="target 100",
        state="lobby",
        host="127.0.0.1",
        port=4000,
    )
    return replace(info, **changes)  # type: ignore[arg-type]


def ours(tables: Sequence[TableInfo], table_id: str) -> TableInfo | None:
    found = [t for t in tables if t.table_id == table_id]
    assert len(found) <= 1
    return found[0] if found else None


async def wait_until(
    view: TableBrowser, done: Callable[[list[TableInfo]], bool], seconds: float = WAIT
) -> list[TableInfo]:
    with trio.fail_after(seconds):
        while True:
            tables = view.tables()
            if done(tables):
                return tables
            await view.wait_changed()


def zeroconf_threads() -> list[str]:
    return [
        t.name
        for t in threading.enumerate()
        if "zeroconf" in t.name.lower() or "_run_loop" in t.name
    ]


# ---------------------------------------------------------------- records, no network


def test_table_info_validates_every_field() -> None:
    good = a_table()
    for bad in [
        {"name": ""},
        {"name": "   "},
        {"name": "red\x1b[31m"},
        {"name": "x" * 201},
        {"table_id": "ABC"},
        {"table_id": "g" * 32},
        {"version": 0},
        {"seats_total": 0},
        {"seats_total": 65},
        {"seats_taken": 5},
        {"seats_taken": -1},
        {"seats_taken": True},
        {"options": "tab\there"},
        {"state": "closed"},
        {"host": "localhost"},
        {"host": "::1"},
        {"host": "127.000.0.1"},
        {"port": 0},
        {"port": 70000},
    ]:
        with pytest.raises(ValueError):
            replace(good, **bad)  # type: ignore[arg-type]
    assert replace(good, name="Café ♠", options="").name == "Café ♠"


def txt(**fields: str | bytes | None) -> dict[bytes, bytes | None]:
    base: dict[str, str | bytes | None] = {
        "name": "Kitchen",
        "v": str(PROTOCOL_VERSION),
        "id": "0123456789abcdef0123456789abcdef",
        "seats": "2",
        "total": "4",
        "opts": "target 100",
        "state": "lobby",
    }
    base.update(fields)
    out: dict[bytes, bytes | None] = {}
    for key, value in base.items():
        if value is not None or key in fields:
            out[key.encode()] = value.encode() if isinstance(value, str) else value
    return out


def test_txt_parses_into_a_table() -> None:
    table = table_from_txt(txt(), ["10.0.0.5"], 4000)
    assert table == TableInfo(
        "Kitchen", "0123456789abcdef0123456789abcdef", PROTOCOL_VERSION, 2, 4, "target 100",
        "lobby", "10.0.0.5", 4000,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"state": None}, "'state' is missing"),
        ({"seats": "two"}, "'seats' is not a number"),
        ({"seats": "-1"}, "'seats' is not a number"),
        ({"total": "4.0"}, "'total' is not a number"),
        ({"seats": "99999999999999999999"}, "'seats' is not a number"),
        ({"v": "1"}, "protocol version 1"),
        ({"v": ""}, "'v' is not a number"),
        ({"id": "xyz"}, "table id"),
        ({"seats": "5"}, "seats taken 5"),
        ({"name": b"\xff\xfe"}, "'name' is not UTF-8"),
        ({"name": "\x1b[2J"}, "control characters"),
        ({"state": "closed"}, "'state' is 'closed'"),
        ({"p": "yes"}, "'p' is 'yes', not 1"),
    ],
)
def test_bad_txt_is_refused_with_a_reason(fields: dict[str, str | None], reason: str) -> None:
    with pytest.raises(ValueError, match=re.escape(reason)):
        table_from_txt(txt(**fields), ["10.0.0.5"], 4000)


def test_a_private_table_says_so_in_its_txt_and_nothing_more() -> None:
    private = a_table(key="aaaa:bbbb:cccc", private=True)
    assert txt_of(private) == txt_of(replace(private, private=False)) | {"p": "1"}
    assert table_from_txt(txt(p="1"), ["10.0.0.5"], 4000).private
    assert not table_from_txt(txt(), ["10.0.0.5"], 4000).private


def test_txt_without_address_or_port_is_refused() -> None:
    with pytest.raises(ValueError, match="no IPv4 address"):
        table_from_txt(txt(), [], 4000)
    with pytest.raises(ValueError, match="no port"):
        table_from_txt(txt(), ["10.0.0.5"], None)


def test_instance_labels_are_dns_safe_and_unique_per_table() -> None:
    for name in ["Kitchen table", "Café ♠ ♣", "♠♣♥♦", "x" * 200, "--a--b--", "a.b_c"]:
        table = a_table(name)
        label = instance_label(table)
        assert re.fullmatch(r"[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?", label), label
        assert len(label.encode()) <= 63
        assert label.endswith(table.table_id[:8])
    assert instance_label(a_table("Kitchen table")).startswith("Kitchen-table-")
    assert instance_label(a_table("♠♣♥♦")).startswith("table-")


# ---------------------------------------------------------------- one process


async def test_advertise_find_update_and_unregister_in_one_process() -> None:
    info = a_table("Kitchen table")
    playing = replace(info, seats_taken=3, state="playing")
    updated = trio.Event()
    leave = trio.Event()

    async def host(task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        async with advertise(info, interfaces=LOOPBACK) as ad:
            assert ad.service_name.startswith("Kitchen-table-")
            task_status.started()
            await updated.wait()
            await ad.update(playing)
            assert ad.info == playing
            await leave.wait()

    with trio.fail_after(3 * WAIT):
        async with trio.open_nursery() as nursery:
            await nursery.start(host)
            # find_tables, in another task than the advertiser's:
            assert ours(await find_tables(3.0, interfaces=LOOPBACK), info.table_id) == info

            async with browse(interfaces=LOOPBACK) as view:
                await wait_until(view, lambda ts: ours(ts, info.table_id) == info)
                updated.set()
                await wait_until(view, lambda ts: ours(ts, info.table_id) == playing)
                leave.set()
                await wait_until(view, lambda ts: ours(ts, info.table_id) is None)
    assert zeroconf_threads() == []


async def test_snapshots_follow_changes_and_end_with_the_timeout() -> None:
    info = a_table("Snapshots")
    with trio.fail_after(3 * WAIT):
        async with browse(interfaces=LOOPBACK, timeout=WAIT) as view:
            snapshots = aiter(view)
            first = await anext(snapshots)  # at once, before anything changed
            assert ours(first, info.table_id) is None
            async with advertise(info, interfaces=LOOPBACK):
                async for snapshot in snapshots:
                    if ours(snapshot, info.table_id) is not None:
                        assert ours(snapshot, info.table_id) == info
                        break
        assert view.closed
        assert await view.wait_changed() in (True, False)  # returns, never blocks

        async with browse(interfaces=LOOPBACK, timeout=0.5) as short:
            async for _ in short:
                pass  # ends by itself after half a second
            assert short.closed
            short.tables()
            assert await short.wait_changed() is False


async def test_a_cancelled_browse_and_advertise_leave_nothing_behind() -> None:
    info = a_table("Cancelled")
    with trio.move_on_after(0.5):
        async with browse(interfaces=LOOPBACK), advertise(info, interfaces=LOOPBACK):
            await trio.sleep_forever()
    assert zeroconf_threads() == []


async def test_an_error_in_a_browse_block_comes_out_as_it_is() -> None:
    with pytest.raises(KeyError, match="mine"):
        async with browse(interfaces=LOOPBACK):
            raise KeyError("mine")
    with trio.move_on_after(0.2) as scope:
        async with browse(interfaces=LOOPBACK):
            await trio.sleep_forever()
    assert scope.cancelled_caught
    assert zeroconf_threads() == []


async def test_advertiser_refuses_another_table_id() -> None:
    info = a_table("Same id")
    async with advertise(info, interfaces=LOOPBACK) as ad:
        with pytest.raises(ValueError, match="table id"):
            await ad.update(a_table("Other"))
        await ad.update(info)  # unchanged: nothing to send
    with pytest.raises(RuntimeError):
        await ad.update(replace(info, seats_taken=2))


# ---------------------------------------------------------------- two processes


def advertiser_argv(info: TableInfo) -> list[str]:
    return [
        sys.executable, "-W", "error", "-m", "p2pnerts.commands._mdns_tool", "advertise",
        "--interface", "127.0.0.1", "--name", info.name, "--id", info.table_id,
        "--port", str(info.port), "--seats", f"{info.seats_taken}/{info.seats_total}",
        "--state", info.state, "--options", info.options,
        "--seconds", "120", "--until-eof", "--key", info.key,
    ] + (["--private"] if info.private else [])  # fmt: skip


class Child:
    def __init__(self, proc: trio.Process) -> None:
        self.proc = proc
        self.stderr = ""


@asynccontextmanager
async def child_advertiser(info: TableInfo) -> AsyncIterator[Child]:
    """A child process advertising ``info`` until its stdin closes (120 s at most)."""
    proc = await trio.lowlevel.open_process(
        advertiser_argv(info),
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    child = Child(proc)
    assert proc.stdin is not None and proc.stderr is not None
    try:
        yield child
    finally:
        with trio.CancelScope(shield=True):
            await proc.stdin.aclose()
            with trio.move_on_after(WAIT):
                await proc.wait()
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
            with trio.move_on_after(WAIT):
                chunks = []
                while chunk := await proc.stderr.receive_some():
                    chunks.append(chunk)
                child.stderr = b"".join(chunks).decode(errors="replace")
            await proc.stderr.aclose()


async def test_discovery_between_processes_on_loopback() -> None:
    info = a_table("Other process", seats_taken=2, seats_total=5, options="stock 1 at a time")
    with trio.fail_after(3 * WAIT):
        async with browse(interfaces=LOOPBACK) as view:
            async with child_advertiser(info) as child:
                tables = await wait_until(view, lambda ts: ours(ts, info.table_id) is not None)
                assert ours(tables, info.table_id) == info
            # stdin closed: the child sent goodbyes and exited
            assert child.proc.returncode == 0, child.stderr
            await wait_until(view, lambda ts: ours(ts, info.table_id) is None)


# ---------------------------------------------------------------- malformed announcements


def bad_services(run: str) -> dict[str, dict[bytes, bytes | None]]:
    good: dict[bytes, bytes | None] = {
        b"name": b"Bad",
        b"v": str(PROTOCOL_VERSION).encode(),
        b"id": uuid.uuid4().hex.encode(),
        b"seats": b"1",
        b"total": b"4",
        b"opts": b"",
        b"state": b"lobby",
    }
    return {
        f"missing-{run}": {k: v for k, v in good.items() if k != b"state"},
        f"nan-{run}": good | {b"seats": b"two"},
        f"version-{run}": good | {b"v": b"1"},
        f"id-{run}": good | {b"id": b"not-hex"},
        f"utf8-{run}": good | {b"name": b"\xff\xfe"},
        f"seats-{run}": good | {b"seats": b"9"},
        f"escape-{run}": good | {b"name": b"\x1b[2Jgotcha"},
        f"state-{run}": good | {b"state": b"closed"},
    }


def register_raw(services: dict[str, dict[bytes, bytes | None]]) -> Zeroconf:
    """Announce services with arbitrary TXT through zeroconf itself (worker thread)."""
    zc = Zeroconf(interfaces=LOOPBACK, ip_version=IPVersion.V4Only)
    try:
        for label, properties in services.items():
            service = ServiceInfo(
                SERVICE_TYPE,
                f"{label}.{SERVICE_TYPE}",
                port=4100,
                properties=properties,
                server=f"{label}.local.",
                parsed_addresses=["127.0.0.1"],
            )
            zc.register_service(service, cooperating_responders=True)  # no probing: quick
    except BaseException:
        zc.close()
        raise
    return zc


async def test_malformed_txt_is_skipped_and_browsing_goes_on() -> None:
    run = uuid.uuid4().hex[:8]
    bad = bad_services(run)
    good = a_table("Good table")
    bad_names = {f"{label}.{SERVICE_TYPE}" for label in bad}
    zc = await trio.to_thread.run_sync(register_raw, bad)
    try:
        with trio.fail_after(3 * WAIT):
            async with (
                browse(interfaces=LOOPBACK) as view,
                advertise(good, interfaces=LOOPBACK) as ad,
            ):
                await wait_until(
                    view,
                    lambda ts: ours(ts, good.table_id) == good,
                )
                with trio.fail_after(WAIT):
                    # rejections change no list, so no wait_changed() for them: poll
                    while not bad_names <= set(view.rejected()):  # noqa: ASYNC110
                        await trio.sleep(0.05)
                rejected = view.rejected()
                assert "'state' is missing" in rejected[f"missing-{run}.{SERVICE_TYPE}"]
                assert "protocol version 1" in rejected[f"version-{run}.{SERVICE_TYPE}"]
                assert "not UTF-8" in rejected[f"utf8-{run}.{SERVICE_TYPE}"]
                assert {t.name for t in view.tables()}.isdisjoint({"Bad", "\x1b[2Jgotcha"})
                # and the view still follows changes
                playing = replace(good, state="playing")
                await ad.update(playing)
                await wait_until(view, lambda ts: ours(ts, good.table_id) == playing)
    finally:
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(zc.close)


# ---------------------------------------------------------------- the CLI's command


@contextmanager
def advertiser_process(info: TableInfo) -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen(advertiser_argv(info), stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        # A thread waits for the line: select() on a pipe is POSIX only.
        with ThreadPoolExecutor(1) as reader:
            first = reader.submit(proc.stdout.readline)
            try:
                line = first.result(timeout=WAIT)
            except TimeoutError:
                proc.kill()  # ends the readline, so the reader can be joined
                raise AssertionError("the advertiser never said it was ready") from None
        assert line.startswith(b"advertising ")
        yield proc
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        try:
            proc.wait(WAIT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


def test_tables_command_lists_json_and_text(capsys: pytest.CaptureFixture[str]) -> None:
    info = a_table("CLI table", seats_taken=3, options="bonus 10")
    with advertiser_process(info):
        assert tables_command(3.0, True, "127.0.0.1") == 0
        listed = json.loads(capsys.readouterr().out)
        assert info.table_id in [t["table_id"] for t in listed]
        assert [t for t in listed if t["table_id"] == info.table_id] == [
            {
                "name": "CLI table",
                "table_id": info.table_id,
                "version": PROTOCOL_VERSION,
                "seats_taken": 3,
                "seats_total": 4,
                "options": "bonus 10",
                "state": "lobby",
                "host": "127.0.0.1",
                "port": 4000,
                "key": "",
                "private": False,
            }
        ]

        assert tables_command(3.0, False, "127.0.0.1") == 0
        lines = capsys.readouterr().out.splitlines()
        header = lines[0].split()
        columns = ["NAME", "SEATS", "STATE", "OPTIONS", "ADDRESS", "KEY"]
        # PRIVATE shows while another test's private table is on loopback too (tests run
        # side by side): then this public table is marked "-" there.
        assert header in (columns, [*columns, "PRIVATE"])
        private = ["-"] if header[-1] == "PRIVATE" else []
        row = next(line for line in lines if line.startswith("CLI table "))
        assert row.split()[2:] == ["3/4", "lobby", "bonus", "10", "127.0.0.1:4000", "-", *private]


def test_tables_command_marks_a_private_table_and_warns_of_a_changed_host_key(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    info = a_table("Den", key="aaaa:bbbb:cccc", private=True)
    known = KnownHosts(tmp_path / "known.json", {"Den": "1111:2222:3333"})
    with advertiser_process(info):
        assert tables_command(3.0, False, "127.0.0.1", known) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert lines[0].split()[-2:] == ["KEY", "PRIVATE"]
    row = next(line for line in lines if line.startswith("Den "))
    assert row.split()[-2:] == ["aaaa:bbbb:cccc", "yes"]
    assert "table 'Den' now has host key aaaa:bbbb:cccc, not the 1111:2222:3333" in captured.err


def test_tables_command_says_so_when_mdns_cannot_start(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # 192.0.2.1 is a documentation address: no interface of this machine has it
    for interface in ["192.0.2.1", "not-an-address"]:
        assert tables_command(1.0, False, interface) == 1
        captured = capsys.readouterr()
        assert captured.out == ""
        assert len(captured.err.strip().splitlines()) == 1
        assert captured.err.startswith("p2pnerts tables: ")
        assert interface in captured.err
    assert tables_command(float("nan"), False, "127.0.0.1") == 1


def test_a_listing_shows_teams_in_a_column_of_their_own_only_when_a_table_has_them() -> None:
    key = "0123:4567:89ab"
    teams = a_table("Pairs", options="rounds=2, teams=2+2", seats_total=4, key=key)
    solo = a_table("Solo", options="standard rules", seats_total=3, key=key)
    lines = _render([teams, solo], 3.0, "here").splitlines()
    assert lines[0].split() == ["NAME", "SEATS", "TEAMS", "STATE", "OPTIONS", "ADDRESS", "KEY"]
    address = "127.0.0.1:4000"
    assert lines[1].split() == ["Pairs", "1/4", "2+2", "lobby", "rounds=2", address, key]
    assert lines[2].split() == ["Solo", "1/3", "-", "lobby", "standard", "rules", address, key]
    only_teams = _render([a_table("Trios", options="teams=3+3")], 3.0, "here").splitlines()
    assert only_teams[1].split() == ["Trios", "1/4", "3+3", "lobby", "-", address, "-"]
    alone = _render([solo], 3.0, "here").splitlines()
    assert alone[0].split() == ["NAME", "SEATS", "STATE", "OPTIONS", "ADDRESS", "KEY"]


def test_the_host_key_fingerprint_goes_through_txt_and_a_bad_one_is_refused() -> None:
    info = a_table(key="0123:4567:89ab")
    assert txt_of(info)["k"] == "0123:4567:89ab"
    assert table_from_txt(txt(k="0123:4567:89ab"), ["10.0.0.5"], 4000).key == "0123:4567:89ab"
    assert table_from_txt(txt(), ["10.0.0.5"], 4000).key == ""  # not announced
    with pytest.raises(ValueError, match="key fingerprint"):
        table_from_txt(txt(k="nope"), ["10.0.0.5"], 4000)
