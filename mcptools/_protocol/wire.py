"""JSON text on the wire: decoding what a client sent, encoding what we send, with the limits both need.

Decoding bounds nesting. Python's decoder recurses once per level, so a two-kilobyte line of brackets would
otherwise raise ``RecursionError`` (which is no ``ValueError``) from deep inside a transport and take the
server down with the replies it still owed. ``MAX_NESTING`` is fixed rather than "whatever the interpreter's
recursion limit allows here", so the answer does not depend on which transport or stack depth decoded the
message, and it leaves enough headroom for everything after decoding (validation, the tool, encoding the
reply) to handle any message it admits.

Decoding also refuses text no reply could carry: a ``\\ud800`` escape (a UTF-16 surrogate alone) decodes to a
Python string that UTF-8 cannot encode, so echoing it in an id or a result failed only when the answer was
written (a 500 over HTTP, a reply silently lost on stdio). Valid UTF-8 holds no surrogate, so only a
``\\ud800``-``\\udfff`` escape can make one: a message is checked in full only when its bytes may hold such an
escape. A message without a backslash (nearly every one) costs one ``memchr``; one with escapes, a regex search.

Encoding gives the UTF-8 bytes every transport writes, and refuses what no client could read: NaN and Infinity
(``allow_nan=False``: JSON has no such numbers and a strict client rejects the whole message) and text UTF-8
cannot carry (a tool that returns a lone surrogate made the write itself fail: a 500 over HTTP, a reply lost on
stdio). A message that cannot be encoded is replaced by a JSON-RPC error for the same id (or, for a
notification, dropped and logged), so one bad value never costs the stream or the reply its client waits for.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from typing import Any, Final

from .._jsonrpc import INTERNAL_ERROR, echo_id, error_response

__all__ = ["MAX_NESTING", "ParseFailure", "decode_message", "encode_message", "nesting_depth"]

logger = logging.getLogger("mcptools")

# Arrays and objects inside one another; the JSON-RPC envelope itself takes two or three of these levels.
MAX_NESTING: Final = 512
# The start of an escaped UTF-16 surrogate, \uD800 to \uDFFF (a pair is fine: it decodes to one character).
_SURROGATE_ESCAPE: Final = re.compile(rb"\\u[dD][89a-fA-F]")
_SURROGATE_ESCAPE_TEXT: Final = re.compile(r"\\u[dD][89a-fA-F]")
_SEARCHED: Final = 2048
_BACKSLASH: Final = 0x5C


class ParseFailure(ValueError):
    """The text is not a JSON message this server takes (invalid JSON, or nested too deeply)."""


def nesting_depth(value: object, limit: int | None = None) -> int:
    """How many arrays and objects deep ``value`` goes (a scalar is 0), without recursing in Python; with a
    ``limit``, the walk stops at the first container deeper than it (and returns that depth).

    A depth-first walk holding one iterator per open level: wide documents cost one step per container and no
    memory per node (a breadth of a million empty objects in a 4 MiB body takes 0.17 s, where a queue of
    (node, depth) pairs took 1.3 s and 80 MiB)."""
    if type(value) is dict:
        stack: list[Iterator[Any]] = [iter(value.values())]
    elif type(value) is list:
        stack = [iter(value)]
    else:
        return 0
    deepest = 1
    while stack:
        for child in stack[-1]:
            kind = type(child)
            if kind is dict:
                stack.append(iter(child.values()))
                break
            if kind is list:
                stack.append(iter(child))
                break
        else:
            stack.pop()
            continue
        if len(stack) > deepest:
            deepest = len(stack)
            if limit is not None and deepest > limit:
                return deepest
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
    if opening > MAX_NESTING and nesting_depth(value, MAX_NESTING) > MAX_NESTING:
        raise ParseFailure(f"Parse error: the JSON nests deeper than {MAX_NESTING} levels")
    if _may_hold_surrogate(data) and not _encodable(value):
        raise ParseFailure("Parse error: the JSON holds an unpaired surrogate (\\ud800 to \\udfff): not Unicode text")
    return value


def _may_hold_surrogate(data: bytes | str) -> bool:
    """Whether ``data`` may decode to a lone surrogate: cheap, and never wrong when it says no."""
    if isinstance(data, str):
        # Text given as str may hold a surrogate itself, unescaped (isascii() is O(1)).
        return not data.isascii() or _SURROGATE_ESCAPE_TEXT.search(data) is not None
    if _BACKSLASH not in data:
        return False  # nearly every message: one memchr (an int is searched so; b"\\" takes ~8x longer)
    # The search costs ~10 ns per escape it passes over: a large message dense with them (escaped CJK text) is
    # checked in full instead, which costs less.
    if len(data) > _SEARCHED and data.count(b"\\") * 16 > len(data):
        return True
    return _SURROGATE_ESCAPE.search(data) is not None


def _encodable(value: Any) -> bool:
    """Whether every string in ``value``, keys included, is text UTF-8 can carry (no surrogate code point)."""
    pending = [value]
    try:
        while pending:
            node = pending.pop()
            cls = type(node)
            if cls is str:
                node.encode("utf-8")
            elif cls is dict:
                "".join(node).encode("utf-8")  # its keys, in one call
                pending.extend(node.values())
            elif cls is list:
                pending.extend(node)
    except UnicodeEncodeError:
        return False
    return True


def _refuse_constant(name: str) -> Any:
    # Python's decoder takes NaN, Infinity and -Infinity by default; JSON has none of them.
    raise ValueError(f"{name} is not JSON")


def _dumps(message: Any) -> bytes:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")


# What json.dumps and the UTF-8 encoding raise for a value no JSON text can carry (UnicodeEncodeError is a
# ValueError: checked first, so the log says which).
_UNENCODABLE: Final = (ValueError, TypeError, RecursionError)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, UnicodeEncodeError):
        return "text that is not Unicode (a lone surrogate)"
    return "a non-finite number (NaN or Infinity)" if isinstance(exc, ValueError) else type(exc).__name__


def encode_message(message: dict[str, Any] | list[dict[str, Any]]) -> bytes | None:
    """``message`` as compact JSON in UTF-8; a message JSON cannot carry becomes an error for its id (``None``
    for a notification or a server request, which has no one to answer)."""
    try:
        return _dumps(message)
    except _UNENCODABLE as exc:
        logger.error("mcptools: a message could not be encoded as JSON (%s); it is not sent", _reason(exc))
    if type(message) is list:
        kept = [r for r in map(_replacement, message) if r is not None]
        return _dumps(kept) if kept else None
    replacement = _replacement(message)
    return _dumps(replacement) if replacement is not None else None


def _replacement(message: Any) -> dict[str, Any] | None:
    try:
        _dumps(message)
        return message  # type: ignore[no-any-return]
    except _UNENCODABLE:
        pass
    if type(message) is dict and "method" not in message and "id" in message:
        request_id = echo_id(message)
        try:
            _dumps(request_id)
        except _UNENCODABLE:
            request_id = None  # an id of our own making never gets here; a client's was checked at decode
        return error_response(
            request_id, INTERNAL_ERROR, "Internal error: the response holds a value JSON cannot carry"
        )
    return None
