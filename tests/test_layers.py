"""The package's shape, read from its source: only the command line and the package's
own modules lie loose at the top, each package stands on a floor and imports only from
the floors below it, no module reaches into another package's private module, and no
modules import each other in a cycle (not even for type checking)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "p2pnerts"

# The house, floor by floor from the ground (DESIGN.md, "Layers"; each package's face says
# what it holds): a package imports only from floors below its own, never from a package
# beside it on its floor nor above it. rules is pure; protocol sans-IO above it; net, sim
# and the bots side by side (the commands hand the bots to net and sim through `driver`),
# the screens and the arena above them, the lab above the screens, the commands above all
# of them, and the command line on top. The package's own face (`p2pnerts`, its version)
# stands beneath everything.
FLOORS: tuple[frozenset[str], ...] = (
    frozenset({"errors", "system"}),
    frozenset({"rules", "fanout"}),
    frozenset({"protocol", "words", "driver"}),
    frozenset({"cheats", "logs"}),
    frozenset({"net", "sim", "bots"}),
    frozenset({"ui", "arena"}),
    frozenset({"lab"}),
    frozenset({"commands"}),
    frozenset({"cli"}),
    frozenset({"__main__"}),
)
FLOOR = {package: level for level, floor in enumerate(FLOORS) for package in floor}
# The layers that do no IO of their own beyond files: no sockets, no event loops, no screen.
SANS_IO_LAYERS = {"rules", "protocol", "words", "driver", "cheats", "logs"}
SANS_IO = {"trio", "socket", "prompt_toolkit", "zeroconf", "asyncio", "selectors"}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def imports(path: Path, name: str) -> Iterator[str]:
    """The modules ``path`` imports (absolute names), those made only for type checking
    included: a cycle of types is a cycle all the same."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
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


def test_every_package_and_module_at_the_top_stands_on_a_floor() -> None:
    tops = {top for name in ALL if (top := layer(name)) is not None}
    assert tops <= set(FLOOR), f"not on any floor of FLOORS: {sorted(tops - set(FLOOR))}"
    loose = sorted(p.name for p in ROOT.glob("*.py"))
    assert loose == ["__init__.py", "__main__.py", "cli.py", "errors.py"], loose


@pytest.mark.parametrize("name", sorted(n for n in ALL if layer(n) is not None))
def test_a_layer_imports_only_what_lies_below_it(name: str) -> None:
    wrong = sorted(set(upward_imports(name)))
    assert not wrong, f"{name} (floor {FLOOR[layer(name) or '']}) imports {wrong}"
    if layer(name) in SANS_IO_LAYERS:
        io = sorted(i for i in imports(ALL[name], name) if i.split(".")[0] in SANS_IO)
        assert not io, f"{name} is sans-IO, and imports {io}"


def upward_imports(name: str) -> Iterator[str]:
    """What ``name`` imports from its own floor (another package) or a floor above it."""
    own = layer(name)
    assert own is not None
    for imported in imports(ALL[name], name):
        other = layer(imported)
        if other is None or other == own or other == "__version__":
            continue
        if other not in FLOOR or FLOOR[other] >= FLOOR[own]:
            yield imported


def test_the_floor_check_finds_an_upward_and_a_sideways_import(tmp_path: Path) -> None:
    assert FLOOR["net"] == FLOOR["sim"] < FLOOR["ui"]
    sideways, upward = "p2pnerts.net._x", "p2pnerts.rules._x"
    ALL[sideways] = tmp_path / "net.py"
    ALL[sideways].write_text("from p2pnerts.sim import run\n", encoding="utf-8")
    ALL[upward] = tmp_path / "rules.py"
    ALL[upward].write_text("from p2pnerts import protocol\n", encoding="utf-8")
    try:
        assert list(upward_imports(sideways)) == ["p2pnerts.sim", "p2pnerts.sim.run"]
        assert list(upward_imports(upward)) == ["p2pnerts.protocol"]
    finally:
        del ALL[sideways], ALL[upward]


@pytest.mark.parametrize("name", sorted(ALL))
def test_no_module_reaches_into_another_packages_private_module(name: str) -> None:
    package = name if ALL[name].name == "__init__.py" else name.rpartition(".")[0]
    wrong = []
    for imported in imports(ALL[name], name):
        if imported not in ALL:
            continue  # a name from a module, or not ours
        owner, _, last = imported.rpartition(".")
        if last.startswith("_") and owner != "p2pnerts" and owner != package:
            wrong.append(imported)
    assert not wrong, f"{name} imports the private modules {sorted(set(wrong))}"


def test_no_modules_import_each_other_in_a_cycle() -> None:
    graph = {
        name: {i for i in imports(path, name) if i in ALL and i != name}
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


@pytest.mark.parametrize("package", sorted(n for n, p in ALL.items() if p.name == "__init__.py"))
def test_every_package_face_says_what_it_holds_and_what_it_imports(package: str) -> None:
    face = ast.get_docstring(ast.parse(ALL[package].read_text(encoding="utf-8"))) or ""
    assert len(face.split()) >= 20, f"{package}'s face says too little of what it holds"
    if package != "p2pnerts":
        assert "import" in face, f"{package}'s face does not say what it may import"
