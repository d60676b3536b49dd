"""ASGI lifespan events as a reusable piece: any ASGI app of ours (Streamable HTTP, the deprecated HTTP+SSE
transport, both mounted together) runs the registry's lifespan around serving with it.

Startup enters ``registry.running()`` (in each worker process: each runs its own), shutdown closes it after the
app's own ``on_shutdown`` (its sessions close). A lifespan that fails to start fails the startup, so the server
does not serve; one that fails to close is reported as a failed shutdown. Mounted where lifespan events do not
arrive (inside Starlette or FastAPI), the host app's own lifespan runs it: ``host_lifespan``, which is fastmcp's
``FastAPI(lifespan=mcp_app.lifespan)`` and the SDK's ``session_manager.run()``.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .._protocol.engine import Served

__all__ = ["host_lifespan", "serve_lifespan"]

logger = logging.getLogger("mcptools.http")

Receive = Callable[[], Awaitable[Any]]
Send = Callable[[Any], Awaitable[None]]


class Stoppable(Protocol):
    def stopping(self) -> None: ...
    def close_sessions(self) -> None: ...


@contextlib.asynccontextmanager
async def host_lifespan(registry: Served, apps: Callable[[], Iterable[Stoppable]]) -> AsyncIterator[None]:
    """The registry's lifespan around a host app's serving (Starlette, FastAPI): on the way out, the ``apps``
    serving it stop and their sessions close, as a shutdown of their own would do."""
    async with registry.running():
        try:
            yield
        finally:
            for app in apps():
                app.stopping()
                app.close_sessions()


async def serve_lifespan(registry: Served, receive: Receive, send: Send, on_shutdown: Callable[[], None]) -> None:
    """Answer one ASGI ``lifespan`` scope: the registry's lifespan runs from startup to shutdown."""
    message = await receive()
    if message["type"] != "lifespan.startup":
        return
    try:
        async with registry.running():
            await send({"type": "lifespan.startup.complete"})
            while message["type"] != "lifespan.shutdown":
                message = await receive()
            on_shutdown()
    except Exception as exc:
        logger.exception("mcptools: the lifespan of %r failed", registry.name)
        failed = "lifespan.shutdown.failed" if message["type"] == "lifespan.shutdown" else "lifespan.startup.failed"
        await send({"type": failed, "message": f"{type(exc).__name__}: {exc}"})
        return
    await send({"type": "lifespan.shutdown.complete"})
