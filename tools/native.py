"""The simulator, soak and arena at compiled speed: python tools/native.py build|run ...|clean.

A copy of p2pnerts whose pure layers are compiled to C extensions with mypyc, checked
against the recorded digests.

    python tools/native.py build                 # compile a copy into build/native, check it
    python tools/native.py run sim --seeds 100   # p2pnerts ... on the compiled copy
    python tools/native.py run tools/soak.py --rounds 1000 --jobs 2
    python tools/native.py clean

The checkout itself is never changed: the compiled copy lives in ``build/native`` and runs
only through ``run`` (its directory first on PYTHONPATH, for every process it starts), and
only while it was built from the sources of the checkout as they are now. ``build`` keeps
the copy only if every digest of ``tools/digests.json`` comes out the same as the pure
Python code's: same seeds, same runs, same logs.

It needs mypy (the ``check`` extra, which brings mypyc) and a C compiler.
"""

from __future__ import annotations

import argparse
import importlib.machinery
import json
import os
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

from p2pnerts.fanout import source_hash

ROOT = Path(__file__).resolve().parent.parent
NATIVE = ROOT / "build" / "native"
STAMP = NATIVE / "native.json"
COMPILED = ("p2pnerts/rules", "p2pnerts/protocol", "p2pnerts/sim")
"""What is compiled: the layers with no sockets, terminals or threads, where the time of
a simulated table or an arena round goes."""
EXTENSIONS = tuple(importlib.machinery.EXTENSION_SUFFIXES)
"""How a compiled module's file name ends on this system (``.so``, ``.pyd``...)."""

SETUP = """\
from mypyc.build import mypycify
from setuptools import setup

setup(
    name="p2pnerts-native",
    ext_modules=mypycify(["--config-file", "mypy.ini", *{paths!r}], opt_level="3"),
)
"""


LOADED = f"""\
import sys
import p2pnerts.protocol._replica as replica
if not replica.__file__.endswith({EXTENSIONS!r}):
    sys.exit(f"the pure module was imported, not the compiled one: {{replica.__file__}}")
"""


def build() -> int:
    """Compile a fresh copy of the package into `NATIVE`, then check it: 0 if it is kept."""
    clean()
    source = source_hash()  # of what is copied: a change made while it compiles is not
    shutil.copytree(ROOT / "p2pnerts", NATIVE / "p2pnerts", ignore=_caches)
    (NATIVE / "mypy.ini").write_text(_mypy_ini())
    (NATIVE / "setup.py").write_text(SETUP.format(paths=list(COMPILED)))
    print(f"compiling {', '.join(COMPILED)} into {NATIVE} (a few minutes)...", flush=True)
    start = time.monotonic()
    built = subprocess.run(
        [sys.executable, "setup.py", "build_ext", "--inplace"],
        cwd=NATIVE,
        capture_output=True,
        text=True,
    )
    (NATIVE / "build.log").write_text(built.stdout + built.stderr)
    if built.returncode != 0:
        print(built.stdout[-3000:] + built.stderr[-3000:], file=sys.stderr)
        print(f"native.py: the build failed (its log: {NATIVE / 'build.log'})", file=sys.stderr)
        return 1
    print(f"compiled in {time.monotonic() - start:.0f} s; checking the digests...", flush=True)
    loaded = _run([sys.executable, "-P", "-c", LOADED], cwd=ROOT)
    digests = [sys.executable, "tools/digests.py", "--check", "tools/digests.json"]
    if loaded != 0 or _run(digests, cwd=ROOT) != 0:
        clean()
        print(
            "native.py: the compiled copy was not the one imported, or it ran differently "
            "from the pure code (above); nothing kept",
            file=sys.stderr,
        )
        return 1
    STAMP.write_text(json.dumps({"source": source, "compiled": COMPILED}, indent=1))
    print(f"kept: python tools/native.py run ... runs on it ({_extensions()} modules compiled)")
    return 0


def run(command: list[str]) -> int:
    """Run ``command`` on the compiled copy: a ``.py`` script with this Python, anything
    else as ``p2pnerts`` arguments. Refused if the copy is missing or of other sources."""
    if not STAMP.exists():
        print("native.py: nothing is built: python tools/native.py build", file=sys.stderr)
        return 2
    if json.loads(STAMP.read_text())["source"] != source_hash():
        print(
            "native.py: the compiled copy was built from other sources than the checkout's "
            "now: python tools/native.py build",
            file=sys.stderr,
        )
        return 2
    if command and command[0].endswith(".py"):
        return _run([sys.executable, *command])
    # -P: the working directory does not come first on the path (in a checkout it holds
    # the pure package, which would be imported instead).
    return _run([sys.executable, "-P", "-m", "p2pnerts", *command])


def clean() -> None:
    """Remove the compiled copy."""
    shutil.rmtree(NATIVE, ignore_errors=True)


def _run(argv: list[str], cwd: Path | None = None) -> int:
    """Run ``argv`` with the compiled copy first on the path (of its children too)."""
    path = os.pathsep.join(p for p in (str(NATIVE), os.environ.get("PYTHONPATH")) if p)
    return subprocess.run(argv, cwd=cwd, env={**os.environ, "PYTHONPATH": path}).returncode


def _mypy_ini() -> str:
    """The checkout's mypy settings (pyproject.toml) as the ini file mypyc reads."""
    settings = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    lines = ["[mypy]", "strict = True", f"python_version = {settings['python_version']}"]
    for override in settings.get("overrides", []):
        lines.append(f"[mypy-{','.join(override['module'])}]")
        lines += [f"{key} = {value}" for key, value in override.items() if key != "module"]
    return "\n".join(lines) + "\n"


def _caches(directory: str, names: list[str]) -> list[str]:
    return [n for n in names if n == "__pycache__" or n.endswith(EXTENSIONS)]


def _extensions() -> int:
    return sum(1 for p in (NATIVE / "p2pnerts").rglob("*") if p.name.endswith(EXTENSIONS))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    sub.add_parser("build", help="compile a copy of the package and check its digests")
    running = sub.add_parser("run", help="run p2pnerts (or a tools/ script) on the copy")
    running.add_argument("command", nargs=argparse.REMAINDER)
    sub.add_parser("clean", help="remove the compiled copy")
    args = parser.parse_args()
    if args.what == "build":
        return build()
    if args.what == "run":
        command = args.command[1:] if args.command[:1] == ["--"] else args.command
        return run(command)
    clean()
    return 0


if __name__ == "__main__":
    sys.exit(main())
