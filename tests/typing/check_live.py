"""Typing tests for the live tool list, composition, URL elicitation and the test client, checked by
`mypy --strict` (not run by pytest). Wrong uses carry `type: ignore[code]`; mypy --strict reports unused ignores,
so a wrong use that stopped being an error would fail this file.
"""

from __future__ import annotations

from typing import Any, Literal

from typing_extensions import assert_type

from mcptools import Context, Elicited, ToolRegistry, URLElicitationRequired
from mcptools.testing import CallResult, Client, SyncClient

registry = ToolRegistry("typing-live")
other = ToolRegistry("typing-other")


@registry.tool(tags={"admin"})
def tagged(x: int) -> int:
    return x


assert_type(tagged(1), int)  # tags keep the decorated signature
registry.include(other, prefix="o_")
registry.disable("tagged", tags={"admin"})
registry.enable(tags=["admin"])
assert_type(registry.is_enabled("tagged"), bool)
assert_type(registry.included(), list[ToolRegistry])
registry.include("other")  # type: ignore[arg-type]
registry.disable(tags=3)  # type: ignore[arg-type]


@registry.tool
async def visit(ctx: Context) -> str:
    answer = await ctx.elicit_url("Sign in", "https://example.com", elicitation_id="e")
    assert_type(answer, Elicited[None])
    assert_type(answer.action, Literal["accept", "decline", "cancel"])
    await ctx.complete_elicitation("e")
    raise URLElicitationRequired([Context.url_elicitation("Consent", "https://example.com/c")])


async def uses_client() -> None:
    async with Client(registry, protocol="2026-07-28", elicitation=lambda params: {"action": "accept"}) as client:
        assert_type(client, Client)
        assert_type(await client.list_tools(), list[dict[str, Any]])
        result = await client.call_tool("tagged", {"x": 1})
        assert_type(result, CallResult)
        assert_type(result.text, str)
        assert_type(result.progress, list[dict[str, Any]])
    Client(registry, protocol="2024-11-05")  # type: ignore[arg-type]


def uses_sync_client() -> None:
    with SyncClient(registry) as client:
        assert_type(client.call_tool("tagged", {"x": 1}), CallResult)
    SyncClient(registry, protocol="1999")  # type: ignore[arg-type]
