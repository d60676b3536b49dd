"""Typing tests for lifespan state and middleware, checked by `mypy --strict` (not run by pytest).

Wrong uses carry `type: ignore[code]`; mypy --strict reports unused ignores, so a wrong use that stopped being
an error would fail this file.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from typing_extensions import assert_type

from mcptools import Context, Middleware, ToolCall, ToolRegistry
from mcptools.auth import Principal
from mcptools.middleware import CallNext, CallResult, LogCalls, RateLimit, Timing, ToolTiming


@dataclass
class AppState:
    timezone: str


@asynccontextmanager
async def lifespan(registry: ToolRegistry) -> AsyncIterator[AppState]:
    yield AppState("UTC")


class Audit(Middleware):
    async def on_call(self, call: ToolCall, call_next: CallNext) -> CallResult:
        assert_type(call.name, str)
        assert_type(call.principal, Principal | None)
        assert_type(call.elapsed(), float)
        assert_type(call.client, str)
        result = await call_next(call)
        assert_type(result, dict[str, Any])
        return result


timing = Timing()
registry = ToolRegistry("typing-lifespan", lifespan=lifespan, middleware=[Audit(), LogCalls(), RateLimit(5), timing])
ToolRegistry("bad", lifespan=AppState)  # type: ignore[arg-type]
ToolRegistry("bad", middleware=[Audit])  # type: ignore[list-item]
assert_type(timing.stats["x"], ToolTiming)


@registry.tool(timeout=30)
async def local_time(ctx: Context[AppState]) -> str:
    assert_type(ctx.state, AppState)
    ctx.state.zone  # type: ignore[attr-defined]  # noqa: B018
    return ctx.state.timezone


@registry.tool
async def untyped(ctx: Context) -> str:
    assert_type(ctx.state, Any)
    return "ok"


registry.tool(timeout="long")  # type: ignore[call-overload]


async def entered() -> None:
    async with registry.running() as state:
        assert_type(state, Any)
    assert_type(registry.state, Any)


def main() -> None:
    assert_type(registry.run(), int)
    registry.run("http", port=8080, workers=2)
    registry.run("websocket")  # type: ignore[arg-type]
