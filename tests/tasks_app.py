"""The registry tests/test_tasks_processes.py serves from separate processes (replicas, workers): task tools that
say which process ran them, and a tool that adds another at run time.

    mcptools serve tests/tasks_app.py --http --task-store redis://... --task-workers 0
    mcptools worker tests/tasks_app.py --task-store redis://...
"""

from __future__ import annotations

import asyncio
import os

from mcptools import Context, ToolRegistry

registry = ToolRegistry("tasks-app")

_CONFIRM = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}


@registry.tool(task="optional")
async def work(seconds: float, ctx: Context) -> str:
    """Work for `seconds`, saying which process does it."""
    await ctx.info(f"working in process {os.getpid()}")
    await asyncio.sleep(seconds)
    return f"worked {seconds:g} s in process {os.getpid()}"


@registry.tool(task="optional")
async def confirm(ctx: Context) -> str:
    """Ask for a confirmation, then answer where it ran."""
    answer = await ctx.elicit("Go ahead?", _CONFIRM, key="go")
    return f"confirmed={answer.get('content', {}).get('ok')} in process {os.getpid()}"


def extra() -> str:
    """Added at run time by install_extra: a module-level function, so every replica can add it too."""
    return "extra"


@registry.tool
def install_extra() -> str:
    """Add the tool `extra` to this replica (and so to every replica sharing the store)."""
    registry.add(extra)
    return "installed"


@registry.tool(task="required")
def stamp() -> str:
    """Runs only as a task."""
    return f"stamped in process {os.getpid()}"
