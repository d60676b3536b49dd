"""What a user gets from an install: types their own mypy can see, and one runtime dependency."""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

USER_CODE = """
from typing_extensions import assert_type

from mcptools import ToolRegistry

registry = ToolRegistry("user")


@registry.tool
def add(a: int, b: int = 1) -> int:
    return a + b


assert_type(add(1), int)
add("x")
"""


def test_a_users_mypy_outside_the_repo_sees_mcptools_types(tmp_path: Path, mypy_cache_dir: Path) -> None:
    (tmp_path / "user_tools.py").write_text(USER_CODE)
    # The python version of the other mypy runs, so the standard library comes from their shared cache.
    command = [sys.executable, "-m", "mypy", "--strict", "--python-version", "3.10", "--cache-dir", str(mypy_cache_dir)]
    done = subprocess.run(
        [*command, "user_tools.py"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
        check=False,
    )
    assert "Cannot find implementation" not in done.stdout, done.stdout
    assert 'Argument 1 to "add" has incompatible type "str"; expected "int"' in done.stdout, done.stdout
    assert done.stdout.strip().endswith("Found 1 error in 1 file (checked 1 source file)"), done.stdout


def test_the_only_runtime_dependency_is_typing_extensions() -> None:
    required = metadata.requires("mcptools") or []
    runtime = [entry for entry in required if "extra ==" not in entry]
    assert [entry.split(">")[0].strip() for entry in runtime] == ["typing-extensions"]
    assert (ROOT / "mcptools" / "py.typed").is_file()
