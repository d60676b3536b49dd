"""mcptools: typed, strict and fast MCP tools.

Define tools with ``@registry.tool`` (or mark them with ``@tool`` and ``registry.add`` them later); the input
schema comes from the type hints and docstring, arguments are validated by a compiled JSON Schema checker before
the function runs, and ``registry.handle(message)`` answers JSON-RPC. Every exception mcptools raises on purpose
derives from ``MCPToolsError`` (the documentation draws the tree from the classes).
"""

from typing import TYPE_CHECKING as _TYPE_CHECKING

from mcptools._contract import call_tool
from mcptools._content import AudioContent
from mcptools._content import EmbeddedResource
from mcptools._content import ImageContent
from mcptools._content import ResourceLink
from mcptools._content import TextContent
from mcptools._context import Context
from mcptools._context import ElicitResult
from mcptools._elicit import Elicited
from mcptools._errors import ElicitationError
from mcptools._context import InputRequest
from mcptools._errors import ClientRequestError
from mcptools._errors import LifespanError
from mcptools._errors import MCPToolsError
from mcptools._errors import MissingDependency
from mcptools._errors import ProtocolError
from mcptools._errors import SchemaError
from mcptools._errors import ToolDefinitionError
from mcptools._errors import ToolDefinitionWarning
from mcptools._errors import ToolError
from mcptools._errors import ToolNotFound
from mcptools._middleware import Middleware
from mcptools._middleware import RequestInfo
from mcptools._middleware import ToolCall
from mcptools._errors import URLElicitationRequired
from mcptools._errors import UsageError
from mcptools._registry import Tool
from mcptools._registry import ToolAnnotations
from mcptools._registry import ToolRegistry
from mcptools._registry import tool
from mcptools._schema import Param
from mcptools._validation import Validator
from mcptools._validation import compile_schema
from mcptools._validation import validate
from mcptools import middleware  # the public submodule of shipped middleware (LogCalls, Timing, RateLimit, ...)

__all__ = [
    "Audio",
    "AudioContent",
    "ClientRequestError",
    "Context",
    "ElicitResult",
    "ElicitationError",
    "Elicited",
    "EmbeddedResource",
    "File",
    "Icon",
    "Image",
    "ImageContent",
    "InputRequest",
    "LifespanError",
    "MCPToolsError",
    "Middleware",
    "MissingDependency",
    "Param",
    "ProtocolError",
    "RequestInfo",
    "ResourceLink",
    "SSEApp",
    "SchemaError",
    "StreamableHTTPApp",
    "TextContent",
    "Tool",
    "ToolAnnotations",
    "ToolCall",
    "ToolDefinitionError",
    "ToolDefinitionWarning",
    "ToolError",
    "ToolNotFound",
    "ToolRegistry",
    "URLElicitationRequired",
    "UsageError",
    "Validator",
    "auth",
    "call_tool",
    "compile_schema",
    "middleware",
    "mount",
    "providers",
    "serve_stdio",
    "tool",
    "validate",
]


def _version() -> str:
    # The installed distribution's metadata is the one place the version is written (pyproject.toml); a
    # source tree that was never installed has none. Read on first use: importlib.metadata costs more to
    # import than half of mcptools.
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mcptools")
    except PackageNotFoundError:
        return "0.0.0+unknown"


# The transports pull in asyncio, sockets and ssl; a tool module that only defines tools should not pay for
# them at import, so they load on first use (PEP 562). So do the helpers few tool modules use: the peers'
# file helpers and icons.
_LAZY = frozenset({"SSEApp", "StreamableHTTPApp", "mount", "serve_stdio"})
_SUBMODULES = frozenset({"auth", "providers"})
_HELPERS = {"Audio": "_media", "File": "_media", "Image": "_media", "Icon": "_icons"}

if _TYPE_CHECKING:
    __version__: str
    from mcptools import auth
    from mcptools._icons import Icon
    from mcptools._media import Audio
    from mcptools._media import File
    from mcptools._media import Image
    from mcptools._transports import SSEApp
    from mcptools._transports import StreamableHTTPApp
    from mcptools._transports import mount
    from mcptools._transports import serve_stdio


def __getattr__(name: str) -> object:
    if name == "__version__":
        found = globals()["__version__"] = _version()
        return found
    if name in _SUBMODULES:
        # The model-API front ends (mcptools.providers.openai, ...) and bearer-token authorization (Principal,
        # verifiers; only HTTP deployments use it): loaded when first named.
        import importlib

        return importlib.import_module(f"mcptools.{name}")
    if name in _HELPERS:
        import importlib

        helper = globals()[name] = getattr(importlib.import_module(f"mcptools.{_HELPERS[name]}"), name)
        return helper
    if name in _LAZY:
        from mcptools import _transports

        value = getattr(_transports, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'mcptools' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY, *_HELPERS, *_SUBMODULES, "__version__"})
