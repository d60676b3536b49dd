"""Transports: stdio, Streamable HTTP (ASGI), the deprecated HTTP+SSE transport (ASGI) and in-memory. They move
messages to the registry's engine and back: the connection-shaped ones (stdio, in-memory, HTTP+SSE's event streams)
implement ``loop.Transport`` and share ``loop.serve_connection``; Streamable HTTP routes and serves each POST
itself. Loading a TARGET and the ``serve`` command live with the CLI
(``mcptools._target``, ``mcptools._serve``)."""

from __future__ import annotations

from .asgi import DEFAULT_ALLOWED_HOSTS, StreamableHTTPApp
from .loop import Transport, serve_connection
from .memory import MemoryConnection
from .mount import mount
from .sse import SSEApp
from .stdio import claim_stdout, serve_stdio, serve_stdio_async

__all__ = [
    "DEFAULT_ALLOWED_HOSTS",
    "MemoryConnection",
    "SSEApp",
    "StreamableHTTPApp",
    "Transport",
    "claim_stdout",
    "serve_connection",
    "mount",
    "serve_stdio",
    "serve_stdio_async",
]
