"""Transports: stdio, Streamable HTTP (ASGI) and in-memory. They move bytes to the registry's engine and back;
loading a TARGET and the ``serve`` command live with the CLI (``mcptools._target``, ``mcptools._serve``)."""

from __future__ import annotations

from .asgi import DEFAULT_ALLOWED_HOSTS, StreamableHTTPApp, create_app
from .memory import MemoryClient
from .mount import mount
from .stdio import claim_stdout, serve_stdio, serve_stdio_async

__all__ = [
    "DEFAULT_ALLOWED_HOSTS",
    "MemoryClient",
    "StreamableHTTPApp",
    "claim_stdout",
    "create_app",
    "mount",
    "serve_stdio",
    "serve_stdio_async",
]
