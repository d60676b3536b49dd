"""Typing tests for tasks, checked by `mypy --strict` (not run by pytest).

A task tool keeps its exact signature; `task=` takes the three modes or a bool, nothing else; the test client's
task calls are typed. The wrong lines carry `type: ignore[code]`: mypy --strict warns about unused ignores, so if
one stopped being an error, mypy would fail on this file.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any

from typing_extensions import assert_type

from mcptools import Context, ToolRegistry, tool
from mcptools.testing import CallResult, Client, SyncClient, Task

registry = ToolRegistry("typing-tasks")


@registry.tool(task="optional")
async def build(target: str, ctx: Context) -> str:
    await ctx.continue_as_task()
    return target


@registry.tool(task="required")
def report(year: int) -> list[str]:
    return [str(year)]


@tool(task=True)
def marked(x: float) -> float:
    return x


pending = assert_type(build("docs", Context()), Coroutine[Any, Any, str])
pending.close()
assert_type(report(2025), list[str])
assert_type(marked(1.5), float)
report("2025")  # type: ignore[arg-type]
registry.tool(task="sometimes")  # type: ignore[call-overload]
registry.add(marked, task="always")  # type: ignore[arg-type]


async def client_side(client: Client) -> None:
    task = assert_type(await client.call_tool_as_task("build", {"target": "docs"}), Task)
    assert_type(task.task_id, str)
    done = assert_type(await client.wait_for_task(task.task_id, timeout=5), Task)
    assert_type(done.result, CallResult | None)
    assert_type(done.error, dict[str, Any] | None)
    assert_type(await client.get_task(task.task_id), Task)
    await client.update_task(task.task_id, {"key": {"action": "accept"}})
    await client.cancel_task(task.task_id)
    await client.update_task(task.task_id, ["not", "a", "mapping"])  # type: ignore[arg-type]


def sync_side(client: SyncClient) -> None:
    assert_type(client.wait_for_task(client.call_tool_as_task("report", {"year": 2025}).task_id), Task)
