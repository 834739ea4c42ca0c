"""The real-process benchmark (python tools/bench.py net) runs its peers on the tree it
imported itself, wherever it is started from."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

from benchmarks.net import _same_tree

import p2pnerts

SAYS_WHERE = "import p2pnerts; print(p2pnerts.__file__)"


def test_a_peer_runs_the_tree_the_benchmark_imported_not_the_checkout_it_starts_in(
    tmp_path: Path,
) -> None:
    # A copy of the package elsewhere stands for a tree on PYTHONPATH; the benchmark is
    # started in another directory holding a package of the same name, as a checkout
    # does (`python -m` puts the working directory first on the path).
    tree, checkout = tmp_path / "tree", tmp_path / "checkout"
    shutil.copytree(Path(p2pnerts.__file__).parent, tree / "p2pnerts")
    (checkout / "p2pnerts").mkdir(parents=True)
    (checkout / "p2pnerts" / "__init__.py").write_text("")
    bench = (
        "import subprocess, sys, tempfile\n"
        "from benchmarks.net import _same_tree\n"
        "with tempfile.TemporaryDirectory() as tmp:\n"
        f"    run = subprocess.run([sys.executable, '-c', {SAYS_WHERE!r}], capture_output=True,"
        " text=True, **_same_tree(tmp))\n"
        "print(run.stdout.strip())\n"
    )
    tools = str(Path(__file__).resolve().parents[1] / "tools")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree), tools])}
    plain = subprocess.run(
        [sys.executable, "-c", SAYS_WHERE], cwd=checkout, env=env, capture_output=True, text=True
    )
    where = Path(plain.stdout.strip()).resolve()
    assert where == (checkout / "p2pnerts" / "__init__.py").resolve(), "the pitfall"
    script = tmp_path / "bench.py"  # (run as a script, as tools/bench.py is: not -c)
    script.write_text(bench)
    peer = subprocess.run(
        [sys.executable, str(script)], cwd=checkout, env=env, capture_output=True, text=True
    )
    assert peer.returncode == 0, peer.stderr
    assert Path(peer.stdout.strip()).resolve() == (tree / "p2pnerts" / "__init__.py").resolve()
    assert _same_tree(str(tmp_path))["cwd"] == str(tmp_path)
