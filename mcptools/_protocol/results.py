"""Tool results: what a tool returned, as a ``CallToolResult`` the client's revision understands.

A tool returns content blocks, a list of them, or a plain value. Blocks go out as they are. A plain value of a
type with an output schema becomes ``structuredContent``, checked against ``outputSchema`` (a tool that breaks
its own promise gets an error result, not a silent pass) and mirrored as JSON text for clients that read only
``content``. A value with no declared type that is JSON-shaped is JSON text (and ``structuredContent`` when it
is an object); a value with no JSON form is its ``str()`` when its class writes one, else (a coroutine, a
function, an object showing only ``<X object at 0x...>``, one nested in a container) an error result naming the
type, never a repr sent as success. Python values become JSON in one place, ``mcptools/_schema/jsonify.py``.
(The contract's bare ``call_tool`` does not come here: it sends ``str()``.)
"""

from __future__ import annotations

import inspect
import json
import logging
import types
from typing import TYPE_CHECKING, Any, Final

from .._content import is_content
from .._peers import peer_result
from .._schema.jsonify import NotJSON, jsonify
from .._validation.depth import nests_deeper_than

if TYPE_CHECKING:
    from .._tool import Tool

__all__ = ["MAX_OUTPUT_DEPTH", "build_result", "downgrade_for_oldest", "text_result"]

logger = logging.getLogger("mcptools")

# What no peer's result type is: a value of these types is data, never looked at as one (see build_result).
_NATIVE: Final = frozenset({int, float, bool, dict, type(None)})

# Arrays and objects a structured result may nest, whatever the Python version's recursion limit.
MAX_OUTPUT_DEPTH: Final = 512

# Fields 2025-03-26 does not define: tool titles and output schemas, structured results (added in 2025-06-18).
_NEWER_TOOL_FIELDS: Final = ("title", "outputSchema", "icons", "_meta")


def text_result(text: str, *, is_error: bool) -> dict[str, Any]:
    return {"resultType": "complete", "content": [{"type": "text", "text": text}], "isError": is_error}


def downgrade_for_oldest(result: dict[str, Any]) -> None:
    """Reshape a result for a 2025-03-26 client, which knows no structured output, no resource links, and no
    titles, icons or website in ``serverInfo``."""
    result.pop("structuredContent", None)
    info = result.get("serverInfo")
    if isinstance(info, dict) and not info.keys() <= {"name", "version"}:
        result["serverInfo"] = {"name": info.get("name"), "version": info.get("version")}
    tools = result.get("tools")
    if isinstance(tools, list):
        result["tools"] = [{k: v for k, v in tool.items() if k not in _NEWER_TOOL_FIELDS} for tool in tools]
    content = result.get("content")
    if isinstance(content, list):
        result["content"] = [
            {"type": "text", "text": f"{block.get('name')}: {block.get('uri')}"}
            if block.get("type") == "resource_link"
            else block
            for block in content
        ]


def build_result(tool: Tool, value: Any) -> dict[str, Any]:
    """A ``CallToolResult`` for what the tool returned: content blocks as they are, a value with a declared
    output type as ``structuredContent`` (checked against ``outputSchema``) plus its JSON text, any other
    JSON-shaped value as JSON text (an object also as ``structuredContent``), else ``str()`` when its class writes
    one; what has no such form is an error result naming the type."""
    if type(value) is str and tool.output_schema is None:
        return text_result(value, is_error=False)  # the commonest return, answered before any other test
    if is_content(value):
        return {"resultType": "complete", "content": [value.to_json()], "isError": False}
    if isinstance(value, (list, tuple)) and value and all(is_content(item) for item in value):
        return {"resultType": "complete", "content": [item.to_json() for item in value], "isError": False}
    if type(value) not in _NATIVE:
        # A tool written for a peer may return the peer's CallToolResult, Image, ...: looked for only past JSON's
        # own types, which every call returning data has (a set lookup, not a call, on that path).
        peer = peer_result(value)
        if peer is not None:
            return _whole(tool, peer) if tool.output_schema is not None else peer
    if tool.output_schema is not None:
        return _structured(tool, value)
    return _unannotated(tool, value)


def _unannotated(tool: Tool, value: Any) -> dict[str, Any]:
    """A value returned without a declared output type (no annotation, or ``Any``).

    JSON-shaped data (after ``jsonify``: models, dataclasses, datetimes...) is sent as JSON text, never Python's
    repr. An object is also ``structuredContent``: MCP (2025-06-18 on) asks only that it be an object, and
    conform to ``outputSchema`` when there is one; there is none here. Other values (an array, a number) have
    no object to be, so they are text only; a value with no JSON form at all is its ``str()``.
    """
    try:
        data = jsonify(value)
    except NotJSON as exc:
        if exc.path or not _has_own_text(value):
            return _unrepresentable(tool, value, exc)
        return text_result(str(value), is_error=False)  # its class's own text, as the peers send it
    except RecursionError:
        return text_result(str(value), is_error=False)
    if type(data) is str:
        return text_result(data, is_error=False)
    text = _json_text(tool, data)
    if not isinstance(text, str):
        return text
    result: dict[str, Any] = {"resultType": "complete", "content": [{"type": "text", "text": text}]}
    if type(data) is dict:
        result["structuredContent"] = data
    result["isError"] = False
    return result


# Values whose text is never data: a repr such as "<coroutine object f at 0x...>" sent as a success would hide that
# the work never happened.
_NEVER_DATA: Final = (
    types.CoroutineType,
    types.GeneratorType,
    types.AsyncGeneratorType,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    types.ModuleType,
    type,
)


def _has_own_text(value: Any) -> bool:
    """Whether ``str(value)`` is text its class chose (a ``__str__`` or ``__repr__`` of its own), not Python's
    ``<X object at 0x...>``; never for awaitables, generators, functions, modules and classes."""
    if isinstance(value, _NEVER_DATA) or inspect.isawaitable(value):
        return False
    cls: Any = type(value)  # Any: mypy takes a class's __str__ for a bound method, object's for a function
    return cls.__str__ is not object.__str__ or cls.__repr__ is not object.__repr__


def _unrepresentable(tool: Tool, value: Any, exc: NotJSON) -> dict[str, Any]:
    """The error result for a value with no JSON form and no text of its own (or one nested in a container)."""
    logger.error("tool %r returned output that cannot be sent as a result: %s", tool.name, exc)
    hint = ""
    if inspect.isawaitable(value):
        hint = "; it is awaitable: await it inside the tool"
        if isinstance(value, types.CoroutineType):
            value.close()  # never awaited on purpose: no "never awaited" warning besides this result
    text = f"Tool '{tool.name}' returned output that cannot be sent as a result: {exc}{hint}"
    return text_result(text, is_error=True)


def _structured(tool: Tool, value: Any) -> dict[str, Any]:
    try:
        structured = tool.serialize_output(value) if tool.serialize_output is not None else value
    except NotJSON as exc:
        return _not_json(tool, exc)
    except RecursionError:
        return text_result(f"Tool '{tool.name}' returned output nested too deeply to send as JSON", is_error=True)
    checker = tool.output_checker()
    if not checker.is_valid(structured):
        return _mismatch(tool, checker.errors(structured))
    # A scalar or list return is wrapped as {"result": ...} to make an object; the text shows it bare.
    shown = structured
    wrapped = type(structured) is dict and len(structured) == 1 and "result" in structured
    if wrapped and not (isinstance(value, dict) and "result" in value):
        shown = structured["result"]
    text = shown if type(shown) is str else _json_text(tool, shown)
    if not isinstance(text, str):
        return text
    return {
        "resultType": "complete",
        "content": [{"type": "text", "text": text}],
        "structuredContent": structured,
        "isError": False,
    }


def _whole(tool: Tool, result: dict[str, Any]) -> dict[str, Any]:
    """A whole result the tool built itself (the SDK's ``Annotated[CallToolResult, Model]``): its
    ``structuredContent`` must match the published ``outputSchema`` as a returned value's does, and be there (MCP:
    a tool with an output schema must give structured results that conform to it). An error result is sent as
    it is."""
    if result.get("isError") is True:
        return result
    structured = result.get("structuredContent")
    if structured is None:
        return _mismatch(tool, ["its result has no structuredContent"])
    checker = tool.output_checker()
    return result if checker.is_valid(structured) else _mismatch(tool, checker.errors(structured))


def _mismatch(tool: Tool, errors: list[str]) -> dict[str, Any]:
    logger.error("tool %r returned output that does not match its outputSchema: %s", tool.name, errors)
    return text_result(
        f"Tool '{tool.name}' returned output that does not match its outputSchema: " + "; ".join(errors),
        is_error=True,
    )


def _not_json(tool: Tool, exc: NotJSON) -> dict[str, Any]:
    logger.error("tool %r returned output with no JSON form: %s", tool.name, exc)
    return text_result(f"Tool '{tool.name}' returned output that cannot be sent as JSON: {exc}", is_error=True)


def _json_text(tool: Tool, data: Any) -> str | dict[str, Any]:
    """The JSON text of ``data``, or the error result saying why it cannot be sent."""
    # Our own fixed limit, checked without recursion: the interpreter's limit (and whether json's C
    # encoder honours it) differs between Python versions, and a result must not depend on which one runs.
    if isinstance(data, (dict, list, tuple)) and nests_deeper_than(data, MAX_OUTPUT_DEPTH):
        return text_result(f"Tool '{tool.name}' returned output nested too deeply to send as JSON", is_error=True)
    try:
        # The mirror covers all of structuredContent, so this one encoding also vets it for the wire.
        return json.dumps(data, ensure_ascii=False, allow_nan=False)
    except RecursionError:
        return text_result(f"Tool '{tool.name}' returned output nested too deeply to send as JSON", is_error=True)
    except ValueError:
        logger.error("tool %r returned a non-finite number (NaN or Infinity)", tool.name)
        return text_result(
            f"Tool '{tool.name}' returned a non-finite number (NaN or Infinity) in its output, which JSON cannot carry",
            is_error=True,
        )
