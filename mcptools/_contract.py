"""The contract's bare ``call_tool`` (``docs/contract.md``): a ``{name: (schema, fn)}`` mapping, no registry.

An unknown tool is a JSON-RPC error ``-32602``; invalid arguments an ``isError`` result whose one text reads
``"Invalid arguments: " + "; ".join(errors)`` and the function is not called; a valid call returns ``str()`` of
the function's value. It shares the pipeline's words and its one place for failures, and validates against the
raw schema it was handed; it converts nothing (the registry's ``handle`` does).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

from ._jsonrpc import INVALID_PARAMS, echo_id, error_response, result_response
from ._pipeline import NAME_NOT_STRING, failure_result, invalid_arguments_result, text_result
from ._running import run_on_loop
from ._validation import validate

__all__ = ["call_tool"]


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
        return error_response(request_id, INVALID_PARAMS, NAME_NOT_STRING)
    entry = tools.get(name)
    if entry is None:
        return error_response(request_id, INVALID_PARAMS, f"Unknown tool: {name}")
    schema, fn = entry
    arguments = params.get("arguments")
    if arguments is None:
        arguments = {}
    elif not isinstance(arguments, dict):
        return result_response(request_id, invalid_arguments_result(["arguments must be an object"]))
    errors = validate(arguments, schema)
    if errors:
        return result_response(request_id, invalid_arguments_result(errors))
    try:
        value = fn(**arguments)
        if inspect.iscoroutine(value):
            value = run_on_loop(value)
    except (Exception, SystemExit) as exc:
        return result_response(request_id, failure_result(name, exc))
    return result_response(request_id, text_result(str(value), is_error=False))
