"""The SDK's error vocabulary: one base class, ``MCPToolsError``, and every exception the package raises on purpose
under it, all defined in this module (``tests/test_public_api.py`` walks the package to hold it so). The tree is
drawn from these classes, never by hand: the documentation's errors page draws it at build time
(``docs/_ext/generated.py``), and ``tests/test_docs_generated.py`` holds the drawing to every public exception.

Definition-time problems (a tool or a schema that can never work) raise at decoration or compile time, so the
developer sees them before any client does. Call-time problems become JSON-RPC errors or ``isError`` results in
one place (``_pipeline.py``) and never escape ``handle``. ``ProtocolError`` and ``ClientRequestError`` are what a
tool taking a ``Context`` can meet: the first ends the request with a JSON-RPC error (a missing client
capability, -32021), the second is the client's own error answer to a question the tool asked.

Not in the tree on purpose: ``InputRequired`` and ``ContinueAsTask`` (below) are control flow, ``BaseException``s
like ``CancelledError``, so that a tool's ``except Exception`` cannot swallow them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from ._jsonrpc import INVALID_PARAMS

__all__ = [
    "ClientRequestError",
    "ContinueAsTask",
    "ElicitationError",
    "InputRequired",
    "InsufficientScope",
    "LifespanError",
    "MCPToolsError",
    "MissingDependency",
    "ProtocolError",
    "SchemaError",
    "StubgenError",
    "TargetError",
    "TaskStoreError",
    "ToolDefinitionError",
    "ToolDefinitionWarning",
    "ToolError",
    "ToolNotFound",
    "URLElicitationRequired",
    "UsageError",
]


class MCPToolsError(Exception):
    """The base of every exception mcptools raises on purpose."""


class ToolDefinitionError(MCPToolsError, TypeError):
    """A tool cannot be defined as written: raised at decoration or registration, never at call time.

    The message names the function, the parameter when there is one, and the fix; a tool with several problems
    gets one error listing each (``problems``), so one round of fixes is enough.
    """

    def __init__(self, message: str, problems: Sequence[str] | None = None) -> None:
        super().__init__(message)
        self.problems: list[str] = list(problems) if problems is not None else [message]

    @classmethod
    def of(cls, label: str, problems: Sequence[str]) -> ToolDefinitionError:
        """One problem as its own message; several as one error listing each."""
        if len(problems) == 1:
            return cls(problems[0])
        listed = "\n".join(f"  - {problem}" for problem in problems)
        return cls(f"{label} has {len(problems)} definition problems; fix each of them:\n{listed}", problems)


class ToolDefinitionWarning(MCPToolsError, UserWarning):
    """A tool works as written but probably not as meant (a parameter with no annotation accepts any JSON value):
    issued with ``warnings.warn`` at definition, pointing at the function, naming the parameter and the fix.

    A warning, so a server ported from a peer still starts; ``-W error::mcptools.ToolDefinitionWarning`` (or
    pytest's ``filterwarnings``) makes it an error where a suite wants every tool fully typed.
    """


class SchemaError(MCPToolsError, ValueError):
    """A JSON Schema is not valid: raised when it is compiled, naming the keyword and its location."""


class UsageError(MCPToolsError, ValueError, TypeError):
    """mcptools was given an option or argument it cannot take (a value out of range, the wrong kind of object,
    an HTTP option for stdio); the message names it and the fix. Also a ``ValueError`` and a ``TypeError``, so
    code written against the built-in exceptions keeps working."""


class MissingDependency(MCPToolsError, ImportError):
    """A feature needs an optional extra that is not installed; the message names the ``pip install``."""


class ToolNotFound(MCPToolsError, KeyError):
    """No tool of that name is registered here (``registry.remove``, ``enable``, ``disable``, ``is_enabled``)."""

    def __str__(self) -> str:
        # KeyError's own str() quotes the message as if it were a key.
        return str(self.args[0]) if self.args else ""


class ToolError(MCPToolsError):
    """Raised by a tool to tell the model something: the message is shown to it as is, with ``isError: true``.

    Any other exception is logged with its traceback and the model only learns which tool failed and the
    exception's class, so internals never leak to the client.
    """


class ElicitationError(ToolError):
    """The user's answer to ``ctx.elicit`` does not fit the form; ``errors`` lists why, one line each."""

    def __init__(self, message: str, errors: list[str]) -> None:
        super().__init__(f"The answer to {message!r} does not fit the form: " + "; ".join(errors))
        self.errors = errors


class ProtocolError(MCPToolsError):
    """Answer the request with this JSON-RPC error (``code``, ``message``, optional ``data``) instead of a
    result. Raised by ``Context`` when the client lacks a capability a question needs; a tool may let it pass."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


class InsufficientScope(ProtocolError):
    """A call to a tool whose scopes the caller lacks: to that caller the tool does not exist ("Unknown tool",
    -32602), and an HTTP edge answers 403 ``insufficient_scope`` naming ``scopes`` so the client can step up."""

    def __init__(self, name: str, scopes: Sequence[str]) -> None:
        super().__init__(INVALID_PARAMS, f"Unknown tool: {name}")
        self.scopes = tuple(scopes)


class ClientRequestError(MCPToolsError):
    """The client answered a server-to-client request with a JSON-RPC error (or the session ended first)."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(f"{message} (code {code})")
        self.code = code
        self.message = message
        self.data = data


class LifespanError(MCPToolsError, RuntimeError):
    """``ctx.state`` or ``registry.state`` was read while the registry's lifespan is not running (a bare
    ``registry.handle``, or a test that did not enter ``async with registry.running():``)."""


class TargetError(MCPToolsError):
    """A command-line TARGET does not name a registry; the message says what to write instead."""


class StubgenError(MCPToolsError):
    """``mcptools stubgen`` could not read the tools; the message says from where and why."""


class TaskStoreError(MCPToolsError, ValueError):
    """A task store cannot be opened as asked (an unknown URL scheme, a missing extra) or refused a write that
    can never succeed (a task id that exists already)."""


class _Dumpable(Protocol):
    """A pydantic model, such as the official SDK's ``ElicitRequestURLParams``, read by its wire names."""

    def model_dump(self, *, mode: str = ..., by_alias: bool = ..., exclude_none: bool = ...) -> dict[str, Any]: ...


class URLElicitationRequired(MCPToolsError):
    """Raised by a tool that cannot go on until the user completes one or more URL-mode elicitations (an OAuth
    consent, a payment page), built with ``Context.url_elicitation``.

    A 2025-11-25 session gets JSON-RPC error -32042 with ``data.elicitations``; a 2026-07-28 request gets an
    ``input_required`` result asking the same questions (keyed by ``elicitationId``). Either way the client
    retries once the user is done, and the tool runs again from the top.
    """

    def __init__(self, elicitations: Sequence[Mapping[str, object] | _Dumpable], message: str | None = None) -> None:
        if message is None:
            message = "URL elicitation required" if len(elicitations) == 1 else "URL elicitations required"
        super().__init__(message)
        self.message = message
        # Each item is a ``Context.url_elicitation(...)`` request, or its params alone (a mapping, or the
        # official SDK's ``ElicitRequestURLParams`` model, so its "raise UrlElicitationRequiredError" code runs).
        self.elicitations: list[dict[str, Any]] = []
        for item in elicitations:
            read = item if isinstance(item, Mapping) else item.model_dump(mode="json", by_alias=True, exclude_none=True)
            params = read.get("params", read)
            self.elicitations.append(dict(params) if isinstance(params, Mapping) else {})


class InputRequired(BaseException):
    """A 2026-07-28 tool needs answers from the client: end this round with an ``input_required`` result.

    Raised by ``Context`` and caught by the call path, never seen by the client as an error; the tool runs
    again from the top once the client retries with ``inputResponses``. A ``BaseException``, like
    ``CancelledError``, so that a tool's ``except Exception`` around its own work cannot swallow it.
    """

    def __init__(self, requests: dict[str, dict[str, Any]]) -> None:
        super().__init__(f"input required: {', '.join(requests)}")
        self.requests = requests


class ContinueAsTask(BaseException):
    """A tool called ``ctx.continue_as_task()`` on a call that becomes a task there: the call pipeline makes the
    task, with the answers the tool gathered so far, and answers the call with its handle. Control flow, as
    ``InputRequired`` is."""
