"""Mounting an ASGI app (the Streamable HTTP app) in Starlette or FastAPI so that it answers at the path the user
names, with no redirect.

Starlette's ``Mount("/mcp", app)`` matches ``/mcp/`` and everything below it, never ``/mcp`` itself, so its router
answers ``POST /mcp`` with a 307 to ``/mcp/`` before the app sees the request: every call is sent twice, and a
client that does not follow a redirected POST gets nothing. No app mounted that way can fix it, the router
answers first. ``mount`` is that same ``Mount`` matching its own path too:

    from mcptools import StreamableHTTPApp, mount
    app = Starlette(routes=[mount("/mcp", StreamableHTTPApp(registry))])
    api.router.routes.append(mount("/mcp", StreamableHTTPApp(registry)))   # FastAPI

A request for ``/mcp`` reaches the app as a request for the mount point (``root_path`` ``/mcp``, nothing below),
which the app answers as its endpoint. Starlette is imported when ``mount`` is first called, not before.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from starlette.routing import Mount
    from starlette.types import ASGIApp

__all__ = ["mount"]


def mount(path: str, app: ASGIApp, *, name: str | None = None) -> Mount:
    """A Starlette route serving ``app`` at ``path`` and below it, ``path`` itself answered without a redirect."""
    route: Mount = _mount_class()(path, app=app, name=name)
    return route


@cache
def _mount_class() -> type[Mount]:
    from starlette.routing import Match, Mount
    from starlette.types import Scope

    class MountAtItsPath(Mount):
        def matches(self, scope: Scope) -> tuple[Match, Scope]:
            match, child = super().matches(scope)
            path: str = scope.get("path", "")
            if match is Match.NONE and scope["type"] == "http" and not path.endswith("/"):
                # `/mcp` is matched as `/mcp/` would be (the mount point, nothing below it); the request keeps its
                # own path, so the app sees `/mcp` under root_path `/mcp`.
                return super().matches({**scope, "path": path + "/"})
            return match, child

    return MountAtItsPath
