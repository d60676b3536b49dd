"""The SDK's error vocabulary.

Definition-time problems (a tool or a schema that can never work) raise at decoration or compile time, so the
developer sees them before any client does. Call-time problems become JSON-RPC errors or ``isError`` results in
one place (``_call.py``) and never escape ``handle``.
"""

from __future__ import annotations

__all__ = ["SchemaError", "ToolDefinitionError", "ToolError"]


class ToolDefinitionError(TypeError):
    """A tool cannot be defined as written: raised at decoration or registration, never at call time.

    The message names the function, the parameter when there is one, and the fix.
    """


class SchemaError(ValueError):
    """A JSON Schema is not valid: raised when it is compiled, naming the keyword and its location."""


class ToolError(Exception):
    """Raised by a tool to tell the model something: the message is shown to it as is, with ``isError: true``.

    Any other exception is logged with its traceback and the model only learns which tool failed and the
    exception's class, so internals never leak to the client.
    """
