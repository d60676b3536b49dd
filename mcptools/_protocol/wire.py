"""JSON text on the wire: decoding what a client sent, encoding what we send, with the limits both need.

Decoding bounds nesting. Python's decoder recurses once per level, so a two-kilobyte line of brackets would
otherwise raise ``RecursionError`` (which is no ``ValueError``) from deep inside a transport and take the
server down with the replies it still owed. ``MAX_NESTING`` is fixed rather than "whatever the interpreter's
recursion limit allows here", so the answer does not depend on which transport or stack depth decoded the
message, and it leaves enough headroom for everything after decoding (validation, the tool, encoding the
reply) to handle any message it admits.

Encoding refuses NaN and Infinity (``allow_nan=False``): JSON has no such numbers and a strict client rejects
the whole message. A message that cannot be encoded is replaced by a JSON-RPC error for the same id (or, for a
notification, dropped), so one bad value never costs the stream.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Final

from .._jsonrpc import INTERNAL_ERROR, echo_id, error_response

__all__ = ["MAX_NESTING", "ParseFailure", "decode_message", "encode_message", "nesting_depth"]

logger = logging.getLogger("mcptools")

# Arrays and objects inside one another; the JSON-RPC envelope itself takes two or three of these levels.
MAX_NESTING: Final = 512


class ParseFailure(ValueError):
    """The text is not a JSON message this server takes (invalid JSON, or nested too deeply)."""


def nesting_depth(value: object) -> int:
    """How many arrays and objects deep ``value`` goes (a scalar is 0), without recursing in Python."""
    deepest = 0
    pending: list[tuple[object, int]] = [(value, 1)]
    while pending:
        node, depth = pending.pop()
        cls = type(node)
        if cls is dict:
            children: Any = node.values()  # type: ignore[attr-defined]
        elif cls is list:
            children = node
        else:
            continue
        deepest = max(deepest, depth)
        pending.extend((child, depth + 1) for child in children if type(child) in (dict, list))
    return deepest


def decode_message(data: bytes | str) -> Any:
    """The decoded JSON value of one message; raises ``ParseFailure`` saying why when there is none."""
    try:
        value = json.loads(data, parse_constant=_refuse_constant)
    except RecursionError:
        raise ParseFailure(f"Parse error: the JSON nests deeper than {MAX_NESTING} levels") from None
    except (ValueError, UnicodeDecodeError):
        raise ParseFailure("Parse error: not valid JSON") from None
    # Any message nesting past the limit holds more opening brackets than the limit; the exact walk is only
    # paid by the few that do.
    opening = data.count(b"[") + data.count(b"{") if isinstance(data, bytes) else data.count("[") + data.count("{")
    if opening > MAX_NESTING and nesting_depth(value) > MAX_NESTING:
        raise ParseFailure(f"Parse error: the JSON nests deeper than {MAX_NESTING} levels")
    return value


def _refuse_constant(name: str) -> Any:
    # Python's decoder takes NaN, Infinity and -Infinity by default; JSON has none of them.
    raise ValueError(f"{name} is not JSON")


def _dumps(message: Any) -> str:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def encode_message(message: dict[str, Any] | list[dict[str, Any]]) -> str | None:
    """``message`` as compact JSON text; a message JSON cannot carry becomes an error for its id (``None``
    for a notification or a server request, which has no one to answer)."""
    try:
        return _dumps(message)
    except (ValueError, TypeError, RecursionError) as exc:
        reason = "a non-finite number (NaN or Infinity)" if isinstance(exc, ValueError) else type(exc).__name__
        logger.error("mcptools: a message could not be encoded as JSON (%s); it is not sent", reason)
    if type(message) is list:
        kept = [r for r in map(_replacement, message) if r is not None]
        return _dumps(kept) if kept else None
    replacement = _replacement(message)
    return _dumps(replacement) if replacement is not None else None


def _replacement(message: Any) -> dict[str, Any] | None:
    try:
        _dumps(message)
        return message  # type: ignore[no-any-return]
    except (ValueError, TypeError, RecursionError):
        pass
    if type(message) is dict and "method" not in message and "id" in message:
        return error_response(
            echo_id(message), INTERNAL_ERROR, "Internal error: the response holds a value JSON cannot carry"
        )
    return None
