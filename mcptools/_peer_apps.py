"""The peers' spellings of a registry's HTTP apps, for servers mounted in Starlette or FastAPI.

Code written for the official SDK mounts ``mcp.streamable_http_app(json_response=True)`` (or ``mcp.sse_app()``,
fastmcp's ``mcp.http_app(path=...)``) and runs ``async with mcp.session_manager.run():`` in its host app's
lifespan. Each spelling here builds mcptools' own app (``StreamableHTTPApp``, ``SSEApp``) from the registry's
serving settings with the peer's keywords mapped onto ours, and ``session_manager.run()`` is the registry's
lifespan, which on the way out also ends the sessions of the apps built here (a mounted app sees no lifespan
events of its own). An option the peer takes that mcptools has no meaning for is refused by name, as ``run()``
refuses it.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, final

from ._options import resolve
from ._run import allowed_hosts, sse_app, streamable_app, token_auth
from ._transports.asgi_lifespan import host_lifespan

if TYPE_CHECKING:
    from ._transports.asgi import StreamableHTTPApp
    from ._transports.sse import SSEApp

__all__ = ["SessionManager", "peer_app"]

# The peers' keywords for what mcptools calls ``path``.
_PATH_KEYWORDS: Final = ("streamable_http_path", "sse_path")
_DEFAULT_PATHS: Final = {"http": "/mcp", "sse": "/sse"}

# The apps built for each registry, ended when its session manager's run() ends.
# (The registry is typed Any in this module: _registry imports it, and the import graph has no cycle.)
_built: weakref.WeakKeyDictionary[Any, list[StreamableHTTPApp | SSEApp]] = weakref.WeakKeyDictionary()


def _hosts(security: Any, hosts: list[str]) -> list[str]:
    """The SDK's ``transport_security=TransportSecuritySettings(...)``: its allowed hosts join ours; with its
    DNS-rebinding protection switched off, every host passes (``allowed_hosts=["*"]``)."""
    if not getattr(security, "enable_dns_rebinding_protection", True):
        return ["*"]
    extra: Iterable[str] = getattr(security, "allowed_hosts", None) or ()
    return [*hosts, *extra]


def peer_app(registry: Any, transport: str, given: Mapping[str, Any], spelling: str) -> StreamableHTTPApp | SSEApp:
    """The app ``transport`` (``http`` or ``sse``) for ``registry``, from a peer's keywords ``given``."""
    where = f"ToolRegistry({registry.name!r}).{spelling}"
    options = {key: value for key, value in given.items() if value is not None}  # None: the server's setting
    security = options.pop("transport_security", None)
    message_path = options.pop("message_path", "/messages/")
    for keyword in _PATH_KEYWORDS:
        if keyword in options:
            options["path"] = options.pop(keyword)
    resolved = resolve(transport, options, registry.settings.given(), where=where)
    hosts = allowed_hosts(resolved["allowed_hosts"], resolved["host"])
    if security is not None:
        hosts = _hosts(security, hosts)
    auth = token_auth(resolved)
    path = resolved["path"] or _DEFAULT_PATHS[transport]
    app: StreamableHTTPApp | SSEApp
    if transport == "sse":
        app = sse_app(registry, resolved, path, hosts, auth, message_path=message_path)
    else:
        app = streamable_app(registry, resolved, path, hosts, auth)
    _built.setdefault(registry, []).append(app)
    return app


@final
@dataclass(slots=True, eq=False)
class SessionManager:
    """``registry.session_manager``: the SDK's session manager as host apps use it, ``run()`` in their
    lifespan."""

    _registry: Any

    def run(self) -> AbstractAsyncContextManager[None]:
        """The registry's lifespan around the block; on the way out, the sessions of its apps end."""
        return host_lifespan(self._registry, lambda: _built.get(self._registry, ()))
