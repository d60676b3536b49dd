"""Typing tests, checked by `mypy --strict` (not run by pytest).

A decorated function keeps its exact signature. The wrong calls below carry `type: ignore[code]`: mypy
--strict warns about unused ignores, so if a wrong call stopped being an error, mypy would fail on this file.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any

from typing_extensions import assert_type

from mcptools import ToolRegistry, tool

registry = ToolRegistry("typing")


@registry.tool
def bare(location: str, days: int = 1) -> str:
    return location * days


@registry.tool(name="with_options", title="T")
def with_options(flag: bool, *, limit: int | None = None) -> list[int]:
    return []


@tool
def marked(x: float) -> float:
    return x


@tool(name="marked_with_options")
def marked_with_options(x: str) -> bytes:
    return x.encode()


@registry.tool
async def asynchronous(text: str) -> int:
    return len(text)


assert_type(bare("Paris", 2), str)
assert_type(with_options(True, limit=3), list[int])
assert_type(marked(1.5), float)
assert_type(marked_with_options("a"), bytes)
pending = assert_type(asynchronous("x"), Coroutine[Any, Any, int])
pending.close()
registry.add(marked)

bare(days=2)  # type: ignore[call-arg]
bare("Paris", "two")  # type: ignore[arg-type]
bare("Paris", 2, 3)  # type: ignore[call-arg]
with_options(True, 5)  # type: ignore[call-arg]
with_options(True, limit="5")  # type: ignore[arg-type]
marked("1.5")  # type: ignore[arg-type]
marked_with_options(b"a")  # type: ignore[arg-type]
registry.tool(name=3)  # type: ignore[call-overload]
