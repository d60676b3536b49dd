"""Tool results: what a tool returned, as a ``CallToolResult`` the client's revision understands.

A tool returns content blocks, a list of them, or a plain value. Blocks go out as they are. A plain value of a
type with an output schema becomes ``structuredContent``, checked against ``outputSchema`` (a tool that breaks
its own promise gets an error result, not a silent pass) and mirrored as JSON text for clients that read only
``content``. Anything else is its ``str()``, as the contract has it.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any, Final

from .._content import is_content
from .._validation.depth import nests_deeper_than

if TYPE_CHECKING:
    from .._tool import Tool

__all__ = ["MAX_OUTPUT_DEPTH", "build_result", "downgrade_for_oldest", "text_result"]

logger = logging.getLogger("mcptools")

# Arrays and objects a structured result may nest, whatever the Python version's recursion limit.
MAX_OUTPUT_DEPTH: Final = 512

# Fields 2025-03-26 does not define: tool titles and output schemas, structured results (added in 2025-06-18).
_NEWER_TOOL_FIELDS: Final = ("title", "outputSchema", "icons", "_meta")


def text_result(text: str, *, is_error: bool) -> dict[str, Any]:
    return {"resultType": "complete", "content": [{"type": "text", "text": text}], "isError": is_error}


def downgrade_for_oldest(result: dict[str, Any]) -> None:
    """Reshape a result for a 2025-03-26 client, which knows no structured output and no resource links."""
    result.pop("structuredContent", None)
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
    output type as ``structuredContent`` (checked against ``outputSchema``) plus its JSON text, else ``str()``."""
    if type(value) is str and tool.output_schema is None:
        return text_result(value, is_error=False)  # the commonest return, answered before any other test
    if is_content(value):
        return {"resultType": "complete", "content": [value.to_json()], "isError": False}
    if isinstance(value, (list, tuple)) and value and all(is_content(item) for item in value):
        return {"resultType": "complete", "content": [item.to_json() for item in value], "isError": False}
    if tool.output_schema is not None:
        return _structured(tool, value)
    return text_result(str(value), is_error=False)


def _structured(tool: Tool, value: Any) -> dict[str, Any]:
    structured = tool.serialize_output(value) if tool.serialize_output is not None else value
    checker = tool.output_checker()
    if not checker.is_valid(structured):
        errors = checker.errors(structured)
        logger.error("tool %r returned output that does not match its outputSchema: %s", tool.name, errors)
        return text_result(
            f"Tool '{tool.name}' returned output that does not match its outputSchema: " + "; ".join(errors),
            is_error=True,
        )
    # A scalar or list return is wrapped as {"result": ...} to make an object; the text shows it bare.
    shown = structured
    wrapped = type(structured) is dict and len(structured) == 1 and "result" in structured
    if wrapped and not (isinstance(value, dict) and "result" in value):
        shown = structured["result"]
    if type(shown) is str:
        text = shown
    else:
        # Our own fixed limit, checked without recursion: the interpreter's limit (and whether json's C
        # encoder honours it) differs between Python versions, and a result must not depend on which one runs.
        if isinstance(shown, (dict, list, tuple)) and nests_deeper_than(shown, MAX_OUTPUT_DEPTH):
            return text_result(f"Tool '{tool.name}' returned output nested too deeply to send as JSON", is_error=True)
        try:
            # The mirror covers all of structuredContent, so this one encoding also vets it for the wire.
            text = json.dumps(shown, ensure_ascii=False, allow_nan=False)
        except RecursionError:
            return text_result(f"Tool '{tool.name}' returned output nested too deeply to send as JSON", is_error=True)
        except ValueError:
            logger.error("tool %r returned a non-finite number (NaN or Infinity)", tool.name)
            return text_result(
                f"Tool '{tool.name}' returned a non-finite number (NaN or Infinity) in its output, which "
                "JSON cannot carry",
                is_error=True,
            )
    return {
        "resultType": "complete",
        "content": [{"type": "text", "text": text}],
        "structuredContent": structured,
        "isError": False,
    }
