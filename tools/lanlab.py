#!/usr/bin/env python3
"""The LAN lab, hosts in namespaces on one bridge, as root: tools/lanlab run|up|check|clean.

K hosts in network namespaces on one private bridge.

What it builds, all inside namespaces it creates (the machine's own interfaces, routes and
addresses are never touched, and nothing in the lab has a route out)::

    p2pn-lab-<pid>-<n>-br    a namespace holding the bridge br0 (multicast snooping off)
    p2pn-lab-<pid>-<n>-h<i>  host i: eth0 = 10.254.<subnet>.<i+1>/24, multicast on, a route
                             for 224.0.0.0/4 on eth0, lo up; eth0 is a veth pair whose
                             other end, p<i>, is a port of br0

so mDNS from one host reaches every other host, and only them. Everything is removed on
exit, also on an error, Ctrl-C, SIGTERM or SIGHUP: first the processes still running in
the lab's namespaces, then the namespaces (the veths and the bridge go with them). Only
``kill -9`` of the lab itself leaves a lab behind; ``lanlab clean`` removes the labs of
lanlab processes that no longer exist.

Command line (``tools/lanlab`` runs this file with the repository's virtualenv)::

    tools/lanlab run --hosts 3 [--until I] [--timeout S] -- CMD0 ... ::: CMD1 ... ::: CMD2 ...
        host i runs CMDi (fewer commands than hosts: the last hosts stay idle); output
        lines come back prefixed "[h<i>] ". Without --until, waits for every command and
        exits with the first non-zero status (by host order); with --until I, stops the
        others (SIGTERM, then SIGKILL after 5 s) once host I's command has ended, and
        exits with its status; --timeout stops everything and exits 124.
    tools/lanlab up --hosts 3 [--seconds S]
        builds the lab, prints one line per host ("h<i> NAMESPACE ADDRESS"), then
        "ready", and waits (for Ctrl-C, SIGTERM or S seconds); meanwhile, from another
        shell: ip netns exec NAMESPACE COMMAND
    tools/lanlab check      exit 0 if a lab can be built here, else 77 and the reason
    tools/lanlab clean      remove labs whose lanlab process is gone

Each command runs through ``ip netns exec`` with these in its environment:
``LANLAB_INDEX`` (i), ``LANLAB_NS``, ``LANLAB_ADDR`` (its address), ``LANLAB_ADDRS`` (every
host's, comma-separated), and ``P2PNERTS_INTERFACES`` = its address, so that p2pnerts
announces and browses on the lab link. Commands are argv lists, not shell text: for
``$LANLAB_ADDR`` in an argument use ``sh -c '... "$LANLAB_ADDR"'``.

Python API (tests): ``with lab(3) as net:`` gives ``net.hosts`` (index, ns, address),
``net.exec_in(host, argv, **popen_kwargs)`` and ``net.run_in(host, argv, **run_kwargs)``;
``unavailable_reason()`` says why a lab cannot be built here (or None);
``LabUnavailable`` is raised when building fails.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from types import FrameType
from typing import IO, Any

if sys.platform != "linux":
    sys.exit("tools/lanlab.py builds Linux network namespaces: it runs on Linux only")

PREFIX = "p2pn-lab-"
SKIP_STATUS = 77  # "skipped", as automake's test drivers read it
MAX_HOSTS = 200
_counter = itertools.count()


class LabUnavailable(Exception):
    """A lab cannot be built here (not root, no ``ip``, no namespaces, no bridge...)."""


@dataclass(frozen=True)
class Host:
    index: int
    ns: str
    address: str
    interface: str = "eth0"


@dataclass
class Lab:
    name: str
    bridge_ns: str
    hosts: list[Host]
    processes: list[subprocess.Popen[Any]] = field(default_factory=list)

    @property
    def namespaces(self) -> list[str]:
        return [self.bridge_ns, *(h.ns for h in self.hosts)]

    def host(self, which: Host | int | str) -> Host:
        for host in self.hosts:
            if which in (host, host.index, host.ns):
                return host
        raise KeyError(which)

    def env_for(self, host: Host, base: dict[str, str] | None = None) -> dict[str, str]:
        env = dict(os.environ if base is None else base)
        env.update(
            LANLAB_INDEX=str(host.index),
            LANLAB_NS=host.ns,
            LANLAB_ADDR=host.address,
            LANLAB_ADDRS=",".join(h.address for h in self.hosts),
            P2PNERTS_INTERFACES=host.address,
        )
        return env

    def exec_in(
        self, which: Host | int | str, argv: Sequence[str], **popen: Any
    ) -> subprocess.Popen[Any]:
        """Start ``argv`` in a host's namespace (its own process group); stopped at exit."""
        host = self.host(which)
        popen["env"] = self.env_for(host, popen.get("env"))
        popen.setdefault("start_new_session", True)
        proc = subprocess.Popen(["ip", "netns", "exec", host.ns, *argv], **popen)
        self.processes.append(proc)
        return proc

    def run_in(
        self, which: Host | int | str, argv: Sequence[str], **run: Any
    ) -> subprocess.CompletedProcess[Any]:
        """Run ``argv`` in a host's namespace to the end (``subprocess.run`` arguments)."""
        host = self.host(which)
        run["env"] = self.env_for(host, run.get("env"))
        return subprocess.run(["ip", "netns", "exec", host.ns, *argv], **run)


# ---------------------------------------------------------------- building and removing


def _ip(*args: str) -> None:
    """One ``ip`` command; CalledProcessError (with its stderr) if it fails."""
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True)


def unavailable_reason() -> str | None:
    """Why no lab can be built here, as far as can be told without trying; else None."""
    if sys.platform != "linux":
        return f"network namespaces need Linux, this is {sys.platform}"
    if os.geteuid() != 0:
        return "network namespaces need root (this process is not root)"
    if shutil.which("ip") is None:
        return "the 'ip' command (iproute2) is not installed"
    return None


def existing_namespaces() -> list[str]:
    """The names of all network namespaces (``ip netns list``)."""
    done = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=False)
    return [line.split()[0] for line in done.stdout.splitlines() if line.strip()]


def _stop_processes(procs: Sequence[subprocess.Popen[Any]], grace: float = 5.0) -> None:
    """SIGTERM each running process's group, SIGKILL what is left after ``grace`` s."""
    running = [p for p in procs if p.poll() is None]
    for proc in running:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    for proc in running:
        try:
            proc.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _kill_namespace_processes(namespaces: Sequence[str]) -> None:
    """SIGKILL whatever still runs in these namespaces (started in the lab, or by it)."""
    for ns in namespaces:
        done = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True)
        for pid in done.stdout.split():
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int(pid), signal.SIGKILL)


def _remove(namespaces: Sequence[str]) -> list[str]:
    """Delete the namespaces; returns those that would not go."""
    _kill_namespace_processes(namespaces)
    stuck: list[str] = []
    for ns in reversed(namespaces):
        done = subprocess.run(["ip", "netns", "del", ns], capture_output=True, text=True)
        if done.returncode != 0 and ns in existing_namespaces():
            stuck.append(ns)
    return stuck


def _build(name: str, k: int, subnet: int) -> tuple[Lab, list[str]]:
    """Create the namespaces, bridge and links; returns the lab and what was created."""
    created: list[str] = []
    bridge_ns = f"{name}-br"
    hosts = [Host(i, f"{name}-h{i}", f"10.254.{subnet}.{i + 1}") for i in range(k)]
    try:
        for ns in [bridge_ns, *(h.ns for h in hosts)]:
            _ip("netns", "add", ns)
            created.append(ns)
        _ip("-n", bridge_ns, "link", "add", "br0", "type", "bridge")
        with contextlib.suppress(subprocess.CalledProcessError):  # older kernels: flooding anyway
            _ip("-n", bridge_ns, "link", "set", "br0", "type", "bridge", "mcast_snooping", "0")
        _ip("-n", bridge_ns, "link", "set", "br0", "up")
        for host in hosts:
            port = f"p{host.index}"
            _ip("-n", bridge_ns, "link", "add", port, "type", "veth", "peer", "name",
                host.interface, "netns", host.ns)  # fmt: skip
            _ip("-n", bridge_ns, "link", "set", port, "master", "br0")
            _ip("-n", bridge_ns, "link", "set", port, "up")
            _ip("-n", host.ns, "link", "set", "lo", "up")
            _ip("-n", host.ns, "addr", "add", f"{host.address}/24", "dev", host.interface)
            _ip("-n", host.ns, "link", "set", "dev", host.interface, "multicast", "on")
            _ip("-n", host.ns, "link", "set", "dev", host.interface, "up")
            _ip("-n", host.ns, "route", "add", "224.0.0.0/4", "dev", host.interface)
    except BaseException as exc:  # also Ctrl-C or SIGTERM halfway: nothing may stay
        _remove(created)
        if not isinstance(exc, subprocess.CalledProcessError | OSError):
            raise
        detail = exc.stderr.strip() if isinstance(exc, subprocess.CalledProcessError) else exc
        command = " ".join(exc.cmd) if isinstance(exc, subprocess.CalledProcessError) else "ip"
        raise LabUnavailable(f"cannot build the lab: {command}: {detail}") from exc
    return Lab(name, bridge_ns, hosts), created


@contextlib.contextmanager
def lab(k: int, *, subnet: int = 0) -> Iterator[Lab]:
    """Build a lab of ``k`` hosts, yield it, and remove it all on the way out.

    LabUnavailable if it cannot be built here; RuntimeError if some namespace would not
    go away at the end.
    """
    if not 1 <= k <= MAX_HOSTS:
        raise ValueError(f"a lab has 1..{MAX_HOSTS} hosts, not {k}")
    if not 0 <= subnet <= 255:
        raise ValueError(f"subnet is 0..255, not {subnet}")
    reason = unavailable_reason()
    if reason is not None:
        raise LabUnavailable(reason)
    name = f"{PREFIX}{os.getpid()}-{next(_counter)}"
    net, created = _build(name, k, subnet)
    try:
        yield net
    finally:
        _stop_processes(net.processes)
        stuck = _remove(created)
        if stuck:
            raise RuntimeError(f"could not remove network namespaces: {', '.join(stuck)}")


def clean_stale() -> list[str]:
    """Remove the namespaces of labs whose lanlab process no longer exists."""
    stale: list[str] = []
    for ns in existing_namespaces():
        found = re.fullmatch(re.escape(PREFIX) + r"(\d+)-.*", ns)
        if found is None:
            continue
        if not _alive(int(found.group(1))):
            stale.append(ns)
    _remove(stale)
    return stale


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie (killed, not yet reaped) is gone too
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return True


# ---------------------------------------------------------------- command line


def _split_commands(words: Sequence[str]) -> list[list[str]]:
    commands: list[list[str]] = [[]]
    for word in words:
        if word == ":::":
            commands.append([])
        else:
            commands[-1].append(word)
    if commands == [[]]:
        return []
    if any(not command for command in commands):
        raise SystemExit("lanlab: an empty command between ':::' separators")
    return commands


def _relay(stream: IO[bytes], prefix: bytes, out: IO[bytes], lock: threading.Lock) -> None:
    with stream:
        for line in iter(stream.readline, b""):
            with lock:
                out.write(prefix + line if line.endswith(b"\n") else prefix + line + b"\n")
                out.flush()


def _layout(net: Lab) -> str:
    return "\n".join(f"h{h.index} {h.ns} {h.address}" for h in net.hosts)


def _run(net: Lab, commands: list[list[str]], until: int | None, timeout: float | None) -> int:
    lock = threading.Lock()
    relays: list[threading.Thread] = []
    procs: list[subprocess.Popen[bytes]] = []
    for index, argv in enumerate(commands):
        proc = net.exec_in(index, argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)  # fmt: skip
        procs.append(proc)
        prefix = f"[h{index}] ".encode()
        for stream, out in ((proc.stdout, sys.stdout.buffer), (proc.stderr, sys.stderr.buffer)):
            assert stream is not None
            relay = threading.Thread(target=_relay, args=(stream, prefix, out, lock), daemon=True)
            relay.start()
            relays.append(relay)
    deadline = None if timeout is None else time.monotonic() + timeout
    status: int | None = None
    while status is None:
        if until is not None and procs[until].poll() is not None:
            status = procs[until].returncode
        elif until is None and all(p.poll() is not None for p in procs):
            status = next((p.returncode for p in procs if p.returncode != 0), 0)
        elif deadline is not None and time.monotonic() > deadline:
            print(f"lanlab: --timeout {timeout:g} s reached, stopping", file=sys.stderr)
            status = 124
        else:
            time.sleep(0.05)
    _stop_processes(procs)
    for relay in relays:
        relay.join(5)
    return status


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tools/lanlab",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run a command in each host, then remove the lab")
    run.add_argument("--hosts", type=int, required=True)
    run.add_argument("--subnet", type=int, default=0, help="10.254.SUBNET.0/24 (default 0)")
    run.add_argument("--until", type=int, default=None, help="stop when host I's command ends")
    run.add_argument("--timeout", type=float, default=None, help="stop everything after S s")
    run.add_argument("words", nargs=argparse.REMAINDER, help="-- CMD0 ::: CMD1 ...")
    up = sub.add_parser("up", help="build the lab and wait (Ctrl-C or SIGTERM ends it)")
    up.add_argument("--hosts", type=int, required=True)
    up.add_argument("--subnet", type=int, default=0)
    up.add_argument("--seconds", type=float, default=None)
    sub.add_parser("check", help="exit 0 if a lab can be built here, 77 with the reason if not")
    sub.add_parser("clean", help="remove labs left behind by lanlab processes that are gone")
    return parser


def _on_signal(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(signal.Signals(signum).name)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "check":
        reason = unavailable_reason()
        if reason is None:
            try:
                with lab(1):
                    pass
            except LabUnavailable as exc:
                reason = str(exc)
        print(f"lanlab: {reason}" if reason else "lanlab: a lab can be built here")
        return SKIP_STATUS if reason else 0
    if args.command == "clean":
        for ns in clean_stale():
            print(f"removed {ns}")
        return 0

    commands: list[list[str]] = []
    if args.command == "run":
        words = args.words[1:] if args.words[:1] == ["--"] else args.words
        commands = _split_commands(words)
        if not commands:
            raise SystemExit("lanlab run: no command given (tools/lanlab run --hosts K -- CMD)")
        if len(commands) > args.hosts:
            raise SystemExit(f"lanlab run: {len(commands)} commands for {args.hosts} hosts")
        if args.until is not None and not 0 <= args.until < len(commands):
            raise SystemExit(f"lanlab run: --until {args.until}: no such command")

    # SIGINT too: a shell starts background jobs with SIGINT ignored, and the lab must go
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _on_signal)
    try:
        with lab(args.hosts, subnet=args.subnet) as net:
            try:
                print(_layout(net), file=sys.stderr if args.command == "run" else sys.stdout)
                if args.command == "run":
                    return _run(net, commands, args.until, args.timeout)
                print("ready", flush=True)
                if args.seconds is None:
                    while True:
                        signal.pause()
                time.sleep(args.seconds)
                return 0
            except KeyboardInterrupt as exc:
                print(f"lanlab: {exc or 'SIGINT'}: removing the lab", file=sys.stderr)
                return 0 if args.command == "up" else 130
            finally:
                # no second interruption in the middle of the clean-up
                for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                    signal.signal(signum, signal.SIG_IGN)
    except LabUnavailable as exc:
        print(f"lanlab: {exc}", file=sys.stderr)
        return SKIP_STATUS
    except KeyboardInterrupt as exc:  # while building: _build removed what it had made
        print(f"lanlab: {exc or 'SIGINT'}: stopped", file=sys.stderr)
        return 130
    finally:
        sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
