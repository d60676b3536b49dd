"""The package's import graph has no cycle.

Every ``import`` in every module of ``mcptools`` counts: at module top, under ``if TYPE_CHECKING:`` and inside
functions (the lazy imports). A cycle hidden behind ``TYPE_CHECKING`` or a function-level import is still a
cycle in the design (two modules that each need the other's names), and it is how the ``Any``-typed slots and
loader parameters this test replaced came about, so none is exempt. The only edge not counted is the one
Python adds itself: importing ``a.b`` first imports the package ``a``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "mcptools"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(ROOT.rglob("*.py"))}


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The package modules ``name`` imports, anywhere in its text."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                source = ".".join([*base, node.module] if node.module else base)
            else:
                source = node.module or ""
            # `from pkg import sub` imports the module pkg.sub when there is one, else a name from pkg.
            targets = [
                f"{source}.{alias.name}" if f"{source}.{alias.name}" in known else source for alias in node.names
            ]
        else:
            continue
        found.update(target for target in targets if target in known and target != name)
    return found


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a path that ends where it starts, or ``None`` (iterative DFS, three colours)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: finished
    for start in sorted(graph):
        if state.get(start):
            continue
        path = [start]
        pending = [iter(sorted(graph[start]))]
        state[start] = 1
        while pending:
            successor = next(pending[-1], None)
            if successor is None:
                state[path.pop()] = 2
                pending.pop()
            elif state.get(successor) == 1:
                return [*path[path.index(successor) :], successor]
            elif not state.get(successor):
                state[successor] = 1
                path.append(successor)
                pending.append(iter(sorted(graph[successor])))
    return None


def test_the_package_has_no_import_cycle() -> None:
    found = modules()
    graph = {name: imports_of(name, path, set(found)) for name, path in found.items()}
    assert len(graph) > 40, "the walk must see the whole package"
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


@pytest.mark.parametrize(
    ("graph", "has_cycle"),
    [
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, True),
        ({"a": {"a"}}, True),
        ({"a": {"b", "c"}, "b": {"c"}, "c": set()}, False),
    ],
)
def test_the_cycle_finder_finds_cycles(graph: dict[str, set[str]], has_cycle: bool) -> None:
    assert (find_cycle(graph) is not None) is has_cycle


def test_type_checking_and_function_level_imports_are_edges(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import X\n"
        "def f():\n    from .b import Y\n    import mcptools.c\n",
        encoding="utf-8",
    )
    known = {"mcptools.a", "mcptools.b", "mcptools.c", "mcptools.m"}
    assert imports_of("mcptools.m", module, known) == {"mcptools.a", "mcptools.b", "mcptools.c"}


def test_the_transports_never_reach_the_command_line() -> None:
    # Loading a TARGET and parsing `serve`'s options belong to the CLI; a transport only moves bytes.
    found = modules()
    graph = {name: imports_of(name, path, set(found)) for name, path in found.items()}
    command_line = {"mcptools._cli", "mcptools._serve", "mcptools._target"}
    for name, imported in graph.items():
        if name.startswith("mcptools._transports"):
            assert not imported & command_line, f"{name} imports {sorted(imported & command_line)}"
