"""The package's shape, read from its source: the layers of DESIGN.md import only
downwards, no module reaches into another package's private module, and no modules
import each other in a cycle (imports made only for type checking aside)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "p2pnerts"

# What each layer may import of the others (DESIGN.md, "Layers"): rules is pure, protocol
# sans-IO above it, net above protocol; sim drives replicas as net does; neither net nor
# sim imports the bots, which the commands hand in.
MAY_NOT_IMPORT = {
    "rules": {"protocol", "net", "sim", "ui", "bots", "arena", "lab", "cli"},
    "protocol": {"net", "sim", "ui", "bots", "arena", "lab", "cli"},
    "net": {"sim", "ui", "bots", "arena", "lab", "cli"},
    "sim": {"net", "ui", "bots", "arena", "lab", "cli"},
}
SANS_IO = {"trio", "socket", "prompt_toolkit", "zeroconf", "asyncio", "selectors"}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def imports(path: Path, name: str, *, runtime_only: bool) -> Iterator[str]:
    """The modules ``path`` imports (absolute names), leaving out those under ``if
    TYPE_CHECKING:`` when ``runtime_only``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    skipped: set[int] = set()
    if runtime_only:
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                skipped.update(id(n) for child in node.body for n in ast.walk(child))
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            yield base
            for alias in node.names:  # `from p2pnerts.x import _y` imports a module too
                yield f"{base}.{alias.name}"


def layer(name: str) -> str | None:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "p2pnerts" else None


ALL = modules()


@pytest.mark.parametrize("name", sorted(n for n in ALL if layer(n) in MAY_NOT_IMPORT))
def test_a_layer_imports_only_what_lies_below_it(name: str) -> None:
    below = layer(name)
    assert below is not None
    wrong = sorted(
        i for i in imports(ALL[name], name, runtime_only=False) if layer(i) in MAY_NOT_IMPORT[below]
    )
    assert not wrong, f"{name} ({below}) imports {wrong}"
    if below in ("rules", "protocol"):
        io = sorted(
            i for i in imports(ALL[name], name, runtime_only=False) if i.split(".")[0] in SANS_IO
        )
        assert not io, f"{name} is sans-IO, and imports {io}"


@pytest.mark.parametrize("name", sorted(ALL))
def test_no_module_reaches_into_another_packages_private_module(name: str) -> None:
    package = name if ALL[name].name == "__init__.py" else name.rpartition(".")[0]
    wrong = []
    for imported in imports(ALL[name], name, runtime_only=False):
        if imported not in ALL:
            continue  # a name from a module, or not ours
        owner, _, last = imported.rpartition(".")
        if last.startswith("_") and owner != "p2pnerts" and owner != package:
            wrong.append(imported)
    assert not wrong, f"{name} imports the private modules {sorted(set(wrong))}"


def test_no_modules_import_each_other_in_a_cycle() -> None:
    graph = {
        name: {i for i in imports(path, name, runtime_only=True) if i in ALL and i != name}
        for name, path in ALL.items()
    }
    # A package's __init__ gathers its modules; a module importing its own package's
    # public names through it is not a cycle of substance: leave out edges to a package.
    packages = {n for n, p in ALL.items() if p.name == "__init__.py"}
    for name, edges in graph.items():
        if name not in packages:
            edges -= {p for p in packages if name.startswith(p + ".")}
    cycle = _find_cycle(graph)
    assert cycle is None, "modules import each other in a cycle: " + " -> ".join(cycle or [])


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` (its modules in order, the first repeated at the end), or
    None if it has none."""
    state: dict[str, int] = {}  # 1: on the path being walked, 2: done
    path: list[str] = []

    def walk(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := walk(nxt)) is not None:
                return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := walk(start)) is not None:
            return found
    return None


def test_the_cycle_finder_finds_a_cycle_and_no_false_one() -> None:
    assert _find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None
