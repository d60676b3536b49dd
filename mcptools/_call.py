"""Calling a tool: the contract's ``call_tool`` and the result builders the registry shares with it.

The contract (``validate-and-call.md``) fixes the shapes: an unknown tool is a JSON-RPC error ``-32602``, invalid
arguments are an ``isError`` result whose one text reads ``"Invalid arguments: " + "; ".join(errors)``, and a
valid call returns ``str()`` of the function's value. A tool never sees invalid arguments, and a tool that raises
never takes the server down.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Coroutine, Mapping
from typing import Any, TypeVar

from ._errors import ToolError
from ._jsonrpc import INVALID_PARAMS, echo_id, error_response, result_response
from ._validation import validate

__all__ = [
    "call_tool",
    "failure_result",
    "invalid_arguments_result",
    "run_coroutine",
    "text_result",
]

logger = logging.getLogger("mcptools")

_T = TypeVar("_T")


def text_result(text: str, *, is_error: bool) -> dict[str, Any]:
    return {"resultType": "complete", "content": [{"type": "text", "text": text}], "isError": is_error}


def invalid_arguments_result(errors: list[str]) -> dict[str, Any]:
    return text_result("Invalid arguments: " + "; ".join(errors), is_error=True)


def failure_result(tool_name: str, exc: BaseException, *, expose_errors: bool = False) -> dict[str, Any]:
    """The result for a tool that raised.

    A ``ToolError`` is the tool speaking to the model, so its message is shown as is. Anything else is a bug
    or an outage: the traceback goes to the log, and the model learns only which tool failed and how, since
    exception text can hold paths, credentials or data from other users.
    """
    if isinstance(exc, ToolError):
        return text_result(str(exc), is_error=True)
    logger.error("tool %r raised %s", tool_name, type(exc).__name__, exc_info=exc)
    text = f"Tool '{tool_name}' failed: {type(exc).__name__}"
    if expose_errors:
        text += f": {exc}"
    return text_result(text, is_error=True)


def run_coroutine(coroutine: Coroutine[Any, Any, _T]) -> _T:
    """Run an async tool to completion from synchronous code.

    With no event loop in this thread, ``asyncio.run`` does it. Inside a running loop we cannot block that loop
    on itself, so the coroutine gets a loop of its own in a short-lived thread.
    """
    import asyncio  # here, not at module top: asyncio costs more to import than the rest of mcptools
    import threading

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        running = False
    else:
        running = True
    if not running:
        # Outside the except block, so a failing tool's traceback is not chained to "no running event loop".
        return asyncio.run(coroutine)
    outcome: list[Any] = []

    def runner() -> None:
        try:
            outcome.append((True, asyncio.run(coroutine)))
        except BaseException as exc:  # handed back to the caller's thread below
            outcome.append((False, exc))

    thread = threading.Thread(target=runner, name="mcptools-async-tool")
    thread.start()
    thread.join()
    ok, value = outcome[0]
    if ok:
        return value  # type: ignore[no-any-return]
    raise value


def call_tool(
    tools: Mapping[str, tuple[Mapping[str, Any], Callable[..., Any]]], request: Mapping[str, Any]
) -> dict[str, Any]:
    """Answer a ``tools/call`` request against ``tools``, a mapping ``{name: (schema, fn)}``.

    Exactly the contract: unknown tool is ``-32602``; invalid arguments give an ``isError`` result and the
    function is not called; otherwise ``fn(**arguments)`` and its ``str()`` as text. ``params.arguments``
    absent means ``{}``. This function does no conversion of argument values (the registry's ``handle`` does).
    """
    request_id = echo_id(request)
    params = request.get("params") if isinstance(request, Mapping) else None
    if not isinstance(params, Mapping):
        return error_response(request_id, INVALID_PARAMS, "Invalid params: 'params' must be an object")
    name = params.get("name")
    if type(name) is not str:
        return error_response(request_id, INVALID_PARAMS, "Invalid params: 'name' must be a string")
    entry = tools.get(name)
    if entry is None:
        return error_response(request_id, INVALID_PARAMS, f"Unknown tool: {name}")
    schema, fn = entry
    arguments = params.get("arguments", {})
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        return result_response(request_id, invalid_arguments_result(["arguments must be an object"]))
    errors = validate(arguments, schema)
    if errors:
        return result_response(request_id, invalid_arguments_result(errors))
    try:
        value = fn(**arguments)
        if inspect.iscoroutine(value):
            value = run_coroutine(value)
    except (Exception, SystemExit) as exc:
        return result_response(request_id, failure_result(name, exc))
    return result_response(request_id, text_result(str(value), is_error=False))
