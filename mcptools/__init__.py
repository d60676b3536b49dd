"""mcptools: typed, strict and fast MCP tools.

Define tools with ``@registry.tool`` (or mark them with ``@tool`` and ``registry.add`` them later); the input
schema comes from the type hints and docstring, arguments are validated by a compiled JSON Schema checker before
the function runs, and ``registry.handle(message)`` answers JSON-RPC.
"""

from mcptools._call import call_tool
from mcptools._errors import SchemaError
from mcptools._errors import ToolDefinitionError
from mcptools._errors import ToolError
from mcptools._registry import Tool
from mcptools._registry import ToolAnnotations
from mcptools._registry import ToolRegistry
from mcptools._registry import tool
from mcptools._schema import Param
from mcptools._validation import Validator
from mcptools._validation import compile_schema
from mcptools._validation import validate

__all__ = [
    "Param",
    "SchemaError",
    "Tool",
    "ToolAnnotations",
    "ToolDefinitionError",
    "ToolError",
    "ToolRegistry",
    "Validator",
    "call_tool",
    "compile_schema",
    "tool",
    "validate",
]

__version__ = "0.1.0"
