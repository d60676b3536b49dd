"""stubs/ holds the generated stubs of every registry in examples/, and they never go stale."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from mcptools import ToolRegistry
from mcptools._errors import TargetError
from mcptools._stubgen import generate_stubs
from mcptools._target import load_registry

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
STUBS = ROOT / "stubs"
LINE_LENGTH = 120  # this repository's ruff line-length (pyproject.toml)


def example_registries() -> dict[str, ToolRegistry]:
    """Every examples/*.py that holds a registry, by file stem."""
    found: dict[str, ToolRegistry] = {}
    for path in sorted(EXAMPLES.glob("*.py")):
        try:
            found[path.stem] = load_registry(str(path))
        except TargetError:
            continue  # a client, not a server
    return found


@pytest.fixture(scope="module")
def registries() -> dict[str, ToolRegistry]:
    return example_registries()


def test_every_example_registry_has_a_stub_and_no_stub_is_orphaned(
    registries: dict[str, ToolRegistry],
) -> None:
    assert {"weather", "everything_server"} <= set(registries)
    committed = {path.name for path in STUBS.glob("*.py")} - {"__init__.py"}
    assert committed == {f"{stem}_tools.py" for stem in registries}


def test_committed_stubs_match_a_fresh_generation(registries: dict[str, ToolRegistry]) -> None:
    stale: list[str] = []
    for stem, registry in sorted(registries.items()):
        expected = generate_stubs(registry.list_tools(), source=f"examples/{stem}.py", line_length=LINE_LENGTH)
        path = STUBS / f"{stem}_tools.py"
        if not path.exists() or path.read_text(encoding="utf-8") != expected:
            stale.append(f"mcptools stubgen examples/{stem}.py -o stubs/{stem}_tools.py --line-length {LINE_LENGTH}")
    assert not stale, "stubs/ is stale; regenerate from the repository root:\n  " + "\n  ".join(stale)


def test_the_typed_example_client_runs() -> None:
    completed = subprocess.run(
        [sys.executable, str(EXAMPLES / "weather_client.py")],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
        timeout=60,
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.splitlines() == [
        "Paris: sunny, 21°C, for the next 2 day(s)",
        "Lyon: sunny, 70°F, for the next 1 day(s)",
    ]
