"""The JSON-RPC 2.0 envelope: what a message is, and the shape of every response.

Every error response the SDK sends is built here, and every JSON-RPC and MCP error code is named here, so codes
and shapes cannot drift between the registry, the bare ``call_tool`` and the transports.
"""

from __future__ import annotations

from typing import Any, Final, Literal, TypeAlias

__all__ = [
    "HEADER_MISMATCH",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "MISSING_CLIENT_CAPABILITY",
    "PARSE_ERROR",
    "SERVER_BUSY",
    "SESSION_NOT_FOUND",
    "UNSUPPORTED_PROTOCOL_VERSION",
    "MessageKind",
    "RequestId",
    "batch_request_ids",
    "classify",
    "error_response",
    "is_request_id",
    "result_response",
]

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603
# The implementation-defined server-error range (-32000 to -32099), as MCP's transports use it.
SERVER_BUSY: Final = -32000  # Streamable HTTP: no room for another session, or the server is shutting down
SESSION_NOT_FOUND: Final = -32001  # Streamable HTTP: unknown or terminated Mcp-Session-Id
# MCP 2026-07-28's codes.
HEADER_MISMATCH: Final = -32020  # an Mcp-* header disagrees with the body
MISSING_CLIENT_CAPABILITY: Final = -32021  # the server needs a capability the client did not declare
URL_ELICITATION_REQUIRED: Final = -32042  # 2025-11-25: the user must finish a URL elicitation, then retry
UNSUPPORTED_PROTOCOL_VERSION: Final = -32022  # the request's revision is not one this server speaks

RequestId: TypeAlias = str | int
MessageKind: TypeAlias = Literal["request", "notification", "response", "invalid"]


def is_request_id(value: object) -> bool:
    """MCP ids are strings or integers; ``null``, floats and bools are not ids."""
    cls = type(value)
    return cls is str or cls is int


def classify(message: object) -> MessageKind:
    """What a decoded message is, by the JSON-RPC 2.0 rules MCP narrows (ids never null).

    ``invalid`` covers anything that is not an object, lacks ``"jsonrpc": "2.0"``, has a non-string
    ``method``, or carries an id of the wrong type.
    """
    if type(message) is not dict or message.get("jsonrpc") != "2.0":
        return "invalid"
    if "method" in message:
        if type(message["method"]) is not str:
            return "invalid"
        if "id" not in message:
            return "notification"
        # is_request_id, inlined: this runs on every message.
        id_type = type(message["id"])
        return "request" if id_type is str or id_type is int else "invalid"
    # A client answers server-to-client requests (sampling, elicitation) with responses, which carry no method.
    has_result = "result" in message
    if has_result != ("error" in message) and is_request_id(message.get("id")):
        return "response"
    return "invalid"


def batch_request_ids(messages: list[Any]) -> list[RequestId]:
    """The ids of a batch's requests: the members owed an answer."""
    return [message["id"] for message in messages if classify(message) == "request"]


def echo_id(message: object) -> RequestId | None:
    """The id to answer an invalid message with: its own when well-formed, otherwise ``null``."""
    if type(message) is dict:
        candidate = message.get("id")
        if is_request_id(candidate):
            return candidate
    return None


def error_response(request_id: RequestId | None, code: int, message: str, data: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def result_response(request_id: RequestId | None, result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}
