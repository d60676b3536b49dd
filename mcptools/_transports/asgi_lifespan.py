"""ASGI lifespan events as a reusable piece: any ASGI app of ours (Streamable HTTP, the deprecated HTTP+SSE
transport, both mounted together) runs the registry's lifespan around serving with it.

Startup enters ``registry.running()`` (in each worker process: each runs its own), shutdown closes it after the
app's own ``on_shutdown`` (its sessions close). A lifespan that fails to start fails the startup, so the server
does not serve; one that fails to close is reported as a failed shutdown. Mounted where lifespan events do not
arrive (inside Starlette or FastAPI), enter ``registry.running()`` in the host app's own lifespan.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .._protocol.engine import Served

__all__ = ["serve_lifespan"]

logger = logging.getLogger("mcptools.http")

Receive = Callable[[], Awaitable[Any]]
Send = Callable[[Any], Awaitable[None]]


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
