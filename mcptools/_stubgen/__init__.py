"""Typed Python stubs from MCP tool schemas: JSON Schema back into Python types.

``generate_stubs`` turns the ``tools`` array of a tools/list result into the text of one module;
``stubgen_main`` is the ``mcptools stubgen`` command.
"""

from mcptools._errors import StubgenError
from mcptools._stubgen._command import (
    add_stubgen_arguments,
    fetch_tools,
    load_tools,
    run_stubgen,
    stubgen_main,
    tools_from_json,
)
from mcptools._stubgen._render import generate_stubs

__all__ = [
    "StubgenError",
    "add_stubgen_arguments",
    "fetch_tools",
    "generate_stubs",
    "load_tools",
    "run_stubgen",
    "stubgen_main",
    "tools_from_json",
]
