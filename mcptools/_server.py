"""The method table: one decoded JSON-RPC message in, the response out.

``handle`` is a function of (registry, message); transports only move bytes. It never raises: whatever arrives,
the caller gets a JSON-RPC response (or ``None`` for a notification or a response), and a tool never sees
arguments that failed validation.
"""

from __future__ import annotations

import asyncio
import copy
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final

from ._call import failure_result, invalid_arguments_result, run_coroutine, text_result
from ._context import Context
from ._jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    RequestId,
    classify,
    echo_id,
    error_response,
    result_response,
)

if TYPE_CHECKING:
    from ._registry import Tool, ToolRegistry

__all__ = ["handle", "handle_async"]

logger = logging.getLogger("mcptools")

Response = dict[str, Any]
Handler = Callable[["ToolRegistry", RequestId, dict[str, Any]], Response]
AsyncHandler = Callable[["ToolRegistry", RequestId, dict[str, Any]], Awaitable[Response]]


def _invalid_request(message: object) -> Response:
    return error_response(
        echo_id(message),
        INVALID_REQUEST,
        "Invalid Request: expected a JSON-RPC 2.0 object with \"jsonrpc\": \"2.0\", a string \"method\" "
        "and a string or integer \"id\"",
    )


def _ping(registry: ToolRegistry, request_id: RequestId, params: dict[str, Any]) -> Response:
    return result_response(request_id, {"resultType": "complete"})


def _tools_list(registry: ToolRegistry, request_id: RequestId, params: dict[str, Any]) -> Response:
    # A copy, so that a caller who edits the response cannot edit the registry's published schemas.
    tools = copy.deepcopy(registry.list_tools())
    return result_response(request_id, {"resultType": "complete", "tools": tools})


def _prepare_call(
    registry: ToolRegistry, request_id: RequestId, params: dict[str, Any]
) -> tuple[Tool, dict[str, Any]] | Response:
    """Everything before the function runs: find the tool, validate, convert. A dict return is the answer."""
    name = params.get("name")
    if type(name) is not str:
        return error_response(request_id, INVALID_PARAMS, "Invalid params: 'name' must be a string")
    tool = registry.get(name)
    if tool is None:
        return error_response(request_id, INVALID_PARAMS, f"Unknown tool: {name}")
    arguments = params.get("arguments")
    if arguments is None:
        arguments = {}
    elif type(arguments) is not dict:
        return result_response(request_id, invalid_arguments_result(["arguments must be an object"]))
    validator = tool.validator
    if not validator.is_valid(arguments):
        return result_response(request_id, invalid_arguments_result(validator.errors(arguments)))
    return tool, arguments


def _kwargs(tool: Tool, arguments: dict[str, Any], request_id: RequestId) -> dict[str, Any]:
    kwargs = tool.convert(arguments) if tool.convert is not None else arguments
    if tool.context_param is not None:
        kwargs = {**kwargs, tool.context_param: Context(request_id)}
    return kwargs


def _tool_result(tool: Tool, value: Any) -> dict[str, Any]:
    return text_result(str(value), is_error=False)


def _tools_call(registry: ToolRegistry, request_id: RequestId, params: dict[str, Any]) -> Response:
    prepared = _prepare_call(registry, request_id, params)
    if type(prepared) is dict:
        return prepared
    tool, arguments = prepared
    try:
        value = tool.fn(**_kwargs(tool, arguments, request_id))
        if tool.is_async:
            value = run_coroutine(value)
        result = _tool_result(tool, value)
    except (Exception, SystemExit) as exc:
        result = failure_result(tool.name, exc, expose_errors=registry.expose_errors)
    return result_response(request_id, result)


async def _tools_call_async(registry: ToolRegistry, request_id: RequestId, params: dict[str, Any]) -> Response:
    prepared = _prepare_call(registry, request_id, params)
    if type(prepared) is dict:
        return prepared
    tool, arguments = prepared
    try:
        kwargs = _kwargs(tool, arguments, request_id)
        if tool.is_async:
            value = await tool.fn(**kwargs)
        else:
            # A sync tool may block (I/O, CPU): keep it off the event loop that serves other requests.
            value = await asyncio.to_thread(tool.fn, **kwargs)
        result = _tool_result(tool, value)
    except (Exception, SystemExit) as exc:
        result = failure_result(tool.name, exc, expose_errors=registry.expose_errors)
    return result_response(request_id, result)


METHODS: Final[dict[str, Handler]] = {
    "tools/call": _tools_call,
    "tools/list": _tools_list,
    "ping": _ping,
}
ASYNC_METHODS: Final[dict[str, AsyncHandler]] = {
    "tools/call": _tools_call_async,
}


def _route(registry: ToolRegistry, message: object) -> tuple[Handler, str, RequestId, dict[str, Any]] | Response | None:
    """Check the envelope; return the handler to run, an error response, or ``None`` when nothing is owed."""
    kind = classify(message)
    if kind == "invalid":
        return _invalid_request(message)
    if kind != "request":
        # Notifications and responses to our own requests are never answered.
        return None
    assert isinstance(message, dict)
    request_id: RequestId = message["id"]
    method: str = message["method"]
    params = message.get("params")
    if params is None:
        params = {}
    elif type(params) is not dict:
        return error_response(request_id, INVALID_PARAMS, "Invalid params: 'params' must be an object")
    handler = METHODS.get(method)
    if handler is None:
        return error_response(request_id, METHOD_NOT_FOUND, f"Method not found: {method}")
    return handler, method, request_id, params


def _internal_error(message: object) -> Response:
    logger.exception("mcptools: internal error while handling a message")
    return error_response(echo_id(message), INTERNAL_ERROR, "Internal error")


def handle(registry: ToolRegistry, message: object) -> Response | None:
    try:
        routed = _route(registry, message)
        if type(routed) is not tuple:
            return routed
        handler, _method, request_id, params = routed
        return handler(registry, request_id, params)
    except Exception:
        return _internal_error(message)


async def handle_async(registry: ToolRegistry, message: object) -> Response | None:
    try:
        routed = _route(registry, message)
        if type(routed) is not tuple:
            return routed
        handler, method, request_id, params = routed
        async_handler = ASYNC_METHODS.get(method)
        if async_handler is not None:
            return await async_handler(registry, request_id, params)
        return handler(registry, request_id, params)
    except Exception:
        return _internal_error(message)
