"""The rules a request or a batch must meet before the engine serves it, and the HTTP status each refusal
travels with.

The engine applies them to every message; the HTTP transport applies them too, before it opens a stream, so
that a refusal is a plain JSON response with the right status rather than an event on a stream.
"""

from __future__ import annotations

from typing import Any, Final, final

from .._errors import ProtocolError
from .._jsonrpc import (
    HEADER_MISMATCH,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    MISSING_CLIENT_CAPABILITY,
    PARSE_ERROR,
    SERVER_BUSY,
    batch_request_ids,
    echo_id,
    error_response,
)
from .revisions import (
    LOG_LEVELS,
    META_CLIENT_CAPABILITIES,
    META_LOG_LEVEL,
    META_PROTOCOL_VERSION,
    UNSUPPORTED_PROTOCOL_VERSION,
)
from .session import Session
from .wire import encode_message

__all__ = [
    "INVALID_REQUEST_TEXT",
    "LEGACY_METHODS",
    "LENIENT_METHODS",
    "MAX_BATCH_ENTRIES",
    "MAX_BATCH_RESPONSE_BYTES",
    "STATELESS_METHODS",
    "TASK_METHODS",
    "BatchBudget",
    "check_request_meta",
    "http_status_for",
    "names_revision",
    "refuse_batch",
]

Response = dict[str, Any]
# The only revision with JSON-RPC batches: 2025-03-26 says implementations MUST accept them, 2025-06-18 removed them.
_BATCH_REVISION: Final = "2025-03-26"
# What one batch may cause. The body limit bounds its bytes, not its work: one 3.4 MB body of 70,000 tools/list
# requests made an 83 MiB response, a gigabyte of memory and a 34 s stall for every other client. A batch holds
# at most MAX_BATCH_ENTRIES messages (a longer one is refused whole: each request in it gets an error carrying its
# id, so a client matching responses to ids waits for none; past ten times the limit, one error), and its
# responses together take at most MAX_BATCH_RESPONSE_BYTES (the default body limit: a client gets back no more
# than it may send); a response past that is replaced by an error for its id.
MAX_BATCH_ENTRIES: Final = 100
MAX_BATCH_RESPONSE_BYTES: Final = 4 * 1024 * 1024
_REFUSED_ONE_BY_ONE: Final = 10 * MAX_BATCH_ENTRIES
INVALID_REQUEST_TEXT: Final = (
    'Invalid Request: expected a JSON-RPC 2.0 object with "jsonrpc": "2.0", a string "method" '
    'and a string or integer "id"'
)
# The methods each generation serves: a 2026-07-28 request, a request on an initialized 2025 session. The tasks/*
# methods: the Tasks extension's three over 2026-07-28, 2025-11-25's four on a session (mcptools._tasks.methods).
STATELESS_METHODS: Final = frozenset(
    {"server/discover", "tools/list", "tools/call", "subscriptions/listen", "tasks/get", "tasks/update", "tasks/cancel"}
)
LEGACY_METHODS: Final = frozenset(
    {"ping", "logging/setLevel", "tools/list", "tools/call", "tasks/get", "tasks/result", "tasks/cancel", "tasks/list"}
)
# The tasks/* methods of either generation, served by mcptools._tasks.methods.
TASK_METHODS: Final = frozenset({"tasks/get", "tasks/update", "tasks/cancel", "tasks/result", "tasks/list"})
# Without ``_meta`` and without a session (``registry.handle`` called directly, or a client that skipped
# ``initialize``) we serve the current revision leniently, and keep ``ping`` for the older clients' sake; a
# listen stream is for 2026-07-28 clients, which always name their revision.
LENIENT_METHODS: Final = (STATELESS_METHODS - {"subscriptions/listen"}) | {"ping"}


def names_revision(meta: object) -> bool:
    """Whether a request's ``_meta`` names its revision: then it is a 2026-07-28 request, served on its own
    whatever session a transport knows it by (the engine routes on this; HTTP decides on it whether an
    ``Mcp-Session-Id`` applies)."""
    return type(meta) is dict and META_PROTOCOL_VERSION in meta


def check_request_meta(params: dict[str, Any]) -> ProtocolError | None:
    """The 2026-07-28 rule that every request names its revision and the client's capabilities in
    ``_meta``."""
    meta = params.get("_meta")
    if type(meta) is not dict:
        return ProtocolError(
            INVALID_PARAMS,
            "Invalid params: every request must carry _meta with "
            f"'{META_PROTOCOL_VERSION}' and '{META_CLIENT_CAPABILITIES}'",
        )
    if META_PROTOCOL_VERSION not in meta or META_CLIENT_CAPABILITIES not in meta:
        missing = [key for key in (META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES) if key not in meta]
        return ProtocolError(INVALID_PARAMS, f"Invalid params: _meta is missing {', '.join(repr(k) for k in missing)}")
    if type(meta[META_PROTOCOL_VERSION]) is not str:
        return ProtocolError(INVALID_PARAMS, f"Invalid params: _meta '{META_PROTOCOL_VERSION}' must be a string")
    if type(meta[META_CLIENT_CAPABILITIES]) is not dict:
        return ProtocolError(INVALID_PARAMS, f"Invalid params: _meta '{META_CLIENT_CAPABILITIES}' must be an object")
    level = meta.get(META_LOG_LEVEL)
    if level is not None and level not in LOG_LEVELS:
        return ProtocolError(
            INVALID_PARAMS, f"Invalid params: _meta '{META_LOG_LEVEL}' must be one of {list(LOG_LEVELS)}"
        )
    return None


def refuse_batch(messages: list[Any], session: Session) -> Response | list[Response] | None:
    """Why a JSON-RPC batch cannot be served on ``session``: the single error response a batch gets when it is
    not one this session takes, or (a batch past ``MAX_BATCH_ENTRIES``) an error for each request in it, carrying
    its id; ``None`` when it can be served (a session initialized at 2025-03-26, a non-empty batch within the
    limit, no ``initialize`` inside)."""
    if not messages:
        return error_response(None, INVALID_REQUEST, "Invalid Request: an empty JSON-RPC batch")
    if any(type(m) is dict and m.get("method") == "initialize" and "id" in m for m in messages):
        return error_response(None, INVALID_REQUEST, "Invalid Request: initialize must not be part of a JSON-RPC batch")
    version = session.protocol_version
    if version != _BATCH_REVISION:
        spoken = f"protocol revision {version}" if version is not None else "a request without a 2025-03-26 session"
        return error_response(
            None,
            INVALID_REQUEST,
            f"Invalid Request: JSON-RPC batches are not supported in {spoken}; only sessions initialized at "
            f"{_BATCH_REVISION} accept them (later revisions removed batching): send one message at a time",
        )
    if len(messages) > MAX_BATCH_ENTRIES:
        # Nothing in it is served. Only requests get their refusal (what else it holds owes no answer a client
        # could match), sharing one error object; a batch no client could have expected served (past ten times
        # the limit) gets one error, so answering it costs no more than reading it did.
        text = f"Invalid Request: a batch of {len(messages)}; the limit is {MAX_BATCH_ENTRIES}"
        if len(messages) > _REFUSED_ONE_BY_ONE:
            return error_response(None, INVALID_REQUEST, text)
        error = {"code": INVALID_REQUEST, "message": text}
        refusals = [{"jsonrpc": "2.0", "id": request_id, "error": error} for request_id in batch_request_ids(messages)]
        return refusals or error_response(None, INVALID_REQUEST, text)
    return None


@final
class BatchBudget:
    """The bytes a batch's responses may still take: ``fit`` passes a response that fits and counts it, and
    replaces one that does not with an error for its id (the request was served; only its response is not sent)."""

    __slots__ = ("left",)

    def __init__(self) -> None:
        self.left = MAX_BATCH_RESPONSE_BYTES

    def fit(self, response: Response) -> Response:
        encoded = encode_message(response)
        size = len(encoded) if encoded is not None else 0
        if size <= self.left:
            self.left -= size
            return response
        return error_response(
            echo_id(response),
            INVALID_REQUEST,
            f"Invalid Request: a batch's responses may take {MAX_BATCH_RESPONSE_BYTES} bytes and this one did not "
            "fit; the request was served, its response is not sent: send such requests one at a time",
        )


_HTTP_STATUS: Final = {
    PARSE_ERROR: 400,
    INVALID_REQUEST: 400,
    METHOD_NOT_FOUND: 404,
    INVALID_PARAMS: 400,
    HEADER_MISMATCH: 400,
    MISSING_CLIENT_CAPABILITY: 400,
    UNSUPPORTED_PROTOCOL_VERSION: 400,
    SERVER_BUSY: 503,  # the server is shutting down (see _transports.cutoff)
}


def http_status_for(response: Response | None) -> int:
    """The HTTP status a 2026-07-28 response travels with: errors map to 4xx, results to 200."""
    if response is None:
        return 202
    error = response.get("error")
    if type(error) is not dict:
        return 200
    return _HTTP_STATUS.get(error.get("code"), 500)  # type: ignore[arg-type]
