"""The method table: one decoded JSON-RPC message in, the response out.

``handle`` is a function of (registry, message); transports only move bytes. It never raises: whatever
arrives, the caller gets a JSON-RPC response (or ``None`` for a notification or a response), and a tool never
sees arguments that failed validation.

The common case, a sync tool without a ``Context`` called through the sync ``handle``, runs straight through
this module with no event loop. Everything else (``initialize``, ``server/discover``, requests naming a
protocol revision in ``_meta``, async tools, tools that take a ``Context``, and all of ``handle_async``) goes
to the protocol engine in ``_protocol.engine``, which serves both protocol generations.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from ._call import failure_result, invalid_arguments_result, text_result
from ._jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    RequestId,
    classify,
    echo_id,
    error_response,
    result_response,
)
from ._protocol.engine import engine_for
from ._protocol.revisions import META_CLIENT_CAPABILITIES, META_LOG_LEVEL, META_PROTOCOL_VERSION, STATELESS_VERSIONS
from ._protocol.session import Session

if TYPE_CHECKING:
    from ._registry import Tool, ToolRegistry

__all__ = ["handle", "handle_async"]

logger = logging.getLogger("mcptools")

Response = dict[str, Any]


def _invalid_request(message: object) -> Response:
    return error_response(
        echo_id(message),
        INVALID_REQUEST,
        'Invalid Request: expected a JSON-RPC 2.0 object with "jsonrpc": "2.0", a string "method" '
        'and a string or integer "id"',
    )


def _ping(registry: ToolRegistry, request_id: RequestId, params: dict[str, Any]) -> Response:
    return result_response(request_id, {"resultType": "complete"})


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


def _tool_result(registry: ToolRegistry, tool: Tool, value: Any) -> dict[str, Any]:
    if type(value) is str and tool.output_schema is None:
        return text_result(value, is_error=False)
    return engine_for(registry).build_result(tool, value)


def _tools_call(registry: ToolRegistry, request_id: RequestId, params: dict[str, Any]) -> Response | None:
    prepared = _prepare_call(registry, request_id, params)
    if isinstance(prepared, dict):
        return prepared
    tool, arguments = prepared
    if tool.is_async or tool.context_param is not None:
        return None  # the engine's job: it needs an event loop, or a Context wired to a session
    try:
        kwargs = tool.convert(arguments) if tool.convert is not None else arguments
        result = _tool_result(registry, tool, tool.fn(**kwargs))
    except (Exception, SystemExit) as exc:
        result = failure_result(tool.name, exc, expose_errors=registry.expose_errors)
    return result_response(request_id, result)


# The sync fast path. A handler returning ``None`` hands the request to the protocol engine.
FAST_METHODS: Final[dict[str, Callable[[ToolRegistry, RequestId, dict[str, Any]], Response | None]]] = {
    "tools/call": _tools_call,
    "ping": _ping,
}


def _plain_stateless(params: dict[str, Any]) -> bool:
    """A 2026-07-28 tools/call that needs nothing from the engine: a well-formed ``_meta`` naming a revision we
    serve, no log level to honour, and no earlier round of an input-required exchange to resume.

    Anything else (a malformed or unsupported ``_meta``, a resumed round) goes to the engine, which owns those
    answers; tools that are async or take a Context are handed over by ``_tools_call`` itself.
    """
    meta = params["_meta"]
    return (
        type(meta) is dict
        and meta.get(META_PROTOCOL_VERSION) in STATELESS_VERSIONS
        and type(meta.get(META_CLIENT_CAPABILITIES)) is dict
        and META_LOG_LEVEL not in meta
        and "requestState" not in params
        and "inputResponses" not in params
    )


async def _discard(message: dict[str, Any]) -> None:
    # Without a transport there is no stream: progress and log notifications have nowhere to go.
    return None


def handle(registry: ToolRegistry, message: object) -> Response | None:
    try:
        kind = classify(message)
        if kind == "invalid":
            return _invalid_request(message)
        if kind != "request":
            # Notifications and responses to our own requests are never answered.
            return None
        assert isinstance(message, dict)
        request_id: RequestId = message["id"]
        params = message.get("params")
        if params is None:
            params = {}
        elif type(params) is not dict:
            return error_response(request_id, INVALID_PARAMS, "Invalid params: 'params' must be an object")
        method = message["method"]
        fast = FAST_METHODS.get(method)
        if fast is not None and ("_meta" not in params or (method == "tools/call" and _plain_stateless(params))):
            response = fast(registry, request_id, params)
            if response is not None:
                return response
        return engine_for(registry).handle_sync(message)
    except Exception:
        return _internal_error(message)


def _internal_error(message: object) -> Response:
    logger.exception("mcptools: internal error while handling a message")
    return error_response(echo_id(message), INTERNAL_ERROR, "Internal error")


async def handle_async(registry: ToolRegistry, message: object) -> Response | None:
    """Served by the engine: async tools are awaited, sync ones run in a worker thread."""
    return await engine_for(registry).handle(message, Session(), _discard)
