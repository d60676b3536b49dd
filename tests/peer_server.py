"""A server written the way public FastMCP servers are, served by mcptools with its import line changed alone.

Its habits are the surveyed servers' (issue 18): the constructor's settings (host and port from the environment,
log_level, dependencies, instructions), a lifespan read as ``ctx.request_context.lifespan_context`` through the
official SDK's own ``Context`` annotation, failures reported by raising (the SDK's ``ToolError`` too), sync tools
that return their async implementation's coroutine, ``x: str = None`` and unannotated parameters, the SDK's
``ToolAnnotations`` model, and ``run(transport=...)`` naming any of the peers' transports. tests/test_dropin.py
serves it to the official client over stdio, Streamable HTTP and the deprecated HTTP+SSE transport.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, cast

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations

from mcptools import ToolRegistry as FastMCP  # was: from mcp.server.mcpserver import MCPServer as FastMCP


@dataclass
class People:
    ages: dict[str, int] = field(default_factory=lambda: {"ada": 36, "bob": 25})


@asynccontextmanager
async def lifespan(server: FastMCP) -> AsyncIterator[People]:
    yield People()


mcp = FastMCP(
    "people",
    instructions="Ages of people; add_person adds one.",
    host=os.environ.get("PEOPLE_HOST", "127.0.0.1"),
    port=int(os.environ.get("PEOPLE_PORT", "8000")),
    log_level="ERROR",
    dependencies=["sqlite-utils"],
    lifespan=lifespan,
)


@mcp.tool()
def age(name: str, ctx: Context[People, Any]) -> int:
    """How old a person is."""
    people = ctx.request_context.lifespan_context
    if name not in people.ages:
        raise ValueError(f"No person named {name!r}; known: {', '.join(sorted(people.ages))}")
    return people.ages[name]


async def _add(people: People, name: str, age: int, note: str | None) -> str:
    await asyncio.sleep(0)  # the storage an implementation awaits
    people.ages[name] = age
    return f"added {name}" + (f" ({note})" if note else "")


@mcp.tool(annotations=ToolAnnotations(destructive_hint=False, idempotent_hint=True))
def add_person(name: str, age: int, ctx: Context, note: str = None):  # type: ignore[no-untyped-def,assignment]  # noqa: RUF013
    """Add a person (the work is an async implementation's coroutine, returned as it is)."""
    return _add(cast(People, ctx.request_context.lifespan_context), name, age, note)


@mcp.tool()
def oldest(limit=1) -> list[str]:  # type: ignore[no-untyped-def]
    """The oldest people's names."""
    if limit < 1:
        raise ValueError("limit must be at least 1")
    if limit > 2:
        raise ToolError("only two people are known")  # the SDK's own ToolError: its message as it is
    people = {"ada": 36, "bob": 25}
    return sorted(people, key=lambda name: -people[name])[:limit]


@mcp.tool()
def shout(text: str) -> Any:
    """The text in capitals."""
    return text.upper()


if __name__ == "__main__":
    mcp.run(transport=sys.argv[1] if len(sys.argv) > 1 else "stdio")  # type: ignore[arg-type]
