"""Typing tests for authorization (mcptools.auth), checked by `mypy --strict` (not run by pytest).

Wrong uses carry `type: ignore[code]`; mypy --strict reports unused ignores, so a wrong use that stopped being
an error would fail this file.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from typing_extensions import assert_type

from mcptools import Context, StreamableHTTPApp, ToolRegistry
from mcptools.auth import AuthSettings, Principal, StaticTokenVerifier, TokenVerifier

registry = ToolRegistry("typing-auth")


@registry.tool(scopes=["admin", "weather:write"])
async def guarded(city: str, ctx: Context) -> str:
    principal = ctx.principal
    assert_type(principal, Principal | None)
    if principal is None:
        return "anonymous"
    assert_type(principal.subject, str)
    assert_type(principal.scopes, frozenset[str])
    assert_type(principal.client_id, str | None)
    assert_type(principal.expires_at, float | None)
    return city


keeps_its_signature: Callable[[str, Context], Coroutine[Any, Any, str]] = guarded


class TableVerifier:
    async def verify(self, token: str) -> Principal | None:
        return Principal("someone") if token == "x" else None


class SyncVerifier:
    def verify(self, token: str) -> Principal | None:
        return None


mine: TokenVerifier = TableVerifier()
static: TokenVerifier = StaticTokenVerifier("token", scopes=["mcp"])
wrong: TokenVerifier = SyncVerifier()  # type: ignore[assignment]
app = StreamableHTTPApp(registry, auth=AuthSettings(mine, required_scopes=["mcp"]))
registry.tool(scopes=[1])  # type: ignore[list-item]
ctx_principal: Principal | None = Context().principal
ctx_principal.subject = "changed"  # type: ignore[misc, union-attr]
