"""The typing checks for typed tools (tests/typing/check_types_in.py, check_types_out.py) run under mypy --strict
from pytest too, so a change that loses a decorated tool's signature, or ``ctx.elicit(message, Model)``'s
``Elicited[Model]``, fails the suite and not only the separate mypy step. A control file with known mistakes
shows the run can fail.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHECKS = [ROOT / "tests" / "typing" / "check_types_in.py", ROOT / "tests" / "typing" / "check_types_out.py"]

# Each line must fail: a lost signature, a lost model type, a lost Elicited parameter.
CONTROL = """
from __future__ import annotations

import uuid

import pydantic
from typing_extensions import assert_type

from mcptools import Context, Elicited, ToolRegistry

registry = ToolRegistry("control")


class Order(pydantic.BaseModel):
    order_id: uuid.UUID


class Other(pydantic.BaseModel):
    name: str


@registry.tool
def place(order: Order, count: int = 1) -> list[uuid.UUID]:
    return [order.order_id] * count


place(Order(order_id=uuid.uuid4()), count="2")
assert_type(place(Order(order_id=uuid.uuid4())), list[str])


@registry.tool
async def ask(ctx: Context) -> str:
    assert_type(await ctx.elicit("?", Order), Elicited[Other])
    return ""
"""


def _mypy(paths: list[Path], cache: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "mypy", "--strict", "--python-version", "3.10", "--cache-dir", str(cache)]
    return subprocess.run(
        [*command, *map(str, paths)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
        check=False,
    )


def test_typed_tools_keep_their_signatures_under_mypy_strict(mypy_cache_dir: Path) -> None:
    done = _mypy(CHECKS, mypy_cache_dir)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("Success: no issues found in 2 source files"), done.stdout


def test_the_check_can_fail(tmp_path: Path, mypy_cache_dir: Path) -> None:
    control = tmp_path / "control_types.py"
    control.write_text(CONTROL)
    done = _mypy([control], mypy_cache_dir)
    lines = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert len(lines) == 3, done.stdout
    assert 'Argument "count" to "place" has incompatible type "str"; expected "int"' in lines[0]
    assert "list[UUID]" in lines[1] and "list[str]" in lines[1]
    assert "Elicited[Order]" in lines[2] and "Elicited[Other]" in lines[2]
