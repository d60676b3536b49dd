"""Anthropic Messages tool use: tool definitions, and ``tool_use`` blocks answered with ``tool_result`` blocks.

Anthropic takes JSON Schema as it is, so ``tools(registry)`` sends each input schema unchanged
(``strict=True`` asks for Anthropic's strict tool use, with the schemas under the same strict profile as
OpenAI's, which ``run(..., strict=True)`` maps back); names outside
``[A-Za-z0-9_-]{1,64}`` are mapped (``.`` to ``_``) and mapped back by ``run``. ``run`` takes a ``Message``, its
``content``, or ``tool_use`` blocks (objects or dicts) and returns one ``tool_result`` block per call, in order,
``is_error`` set for an error; send them back as ``{"role": "user", "content": results}``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from ._common import Call, NameRule, Outcome, Toolset, acall_all, call_all, calls_container, items_of, plain, toolset

if TYPE_CHECKING:
    from .._registry import ToolRegistry

__all__ = ["arun", "run", "tools"]

_NAMES: Final = NameRule("A-Za-z0-9_-", 64)


def _toolset(registry: ToolRegistry, strict: bool) -> Toolset:
    return toolset(registry, "openai" if strict else "anthropic", _NAMES, "anthropic")


def tools(registry: ToolRegistry, *, strict: bool = False) -> list[dict[str, Any]]:
    """The ``tools`` parameter for ``messages.create``."""
    found = _toolset(registry, strict)
    out: list[dict[str, Any]] = []
    for entry in registry:
        tool: dict[str, Any] = {"name": found.to_provider[entry.name]}
        if entry.description:
            tool["description"] = entry.description
        tool["input_schema"] = found.exported[entry.name].schema
        if strict:
            tool["strict"] = True
        out.append(tool)
    return out


def _calls(calls: Any) -> list[Call]:
    value: Any = calls_container(calls, "anthropic", "a Message, its content, or tool_use blocks")
    if isinstance(value, dict):
        value = items_of(value, ("content",)) if "content" in value else [value]
    found: list[Call] = []
    for raw in value if isinstance(value, list) else []:
        block = plain(raw)
        if isinstance(block, dict) and block.get("type") == "tool_use":
            found.append(Call(block.get("id"), block.get("name"), block.get("input")))
    return found


def _shape(call: Call, outcome: Outcome) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call.id, "content": outcome[0]}
    if outcome[1]:
        block["is_error"] = True
    return block


def run(registry: ToolRegistry, calls: Any, *, strict: bool = False, repair: object = None) -> list[dict[str, Any]]:
    """Answer the ``tool_use`` blocks of one model turn: one ``tool_result`` block per call, in order.

    ``strict`` must match the ``tools`` export; ``repair`` is the registry's ``repair=`` option for these calls
    (``None``: the registry's own).
    """
    found = _calls(calls)
    outcomes = call_all(registry, _toolset(registry, strict), found, repair)
    return [_shape(c, o) for c, o in zip(found, outcomes, strict=True)]


async def arun(
    registry: ToolRegistry, calls: Any, *, strict: bool = False, repair: object = None
) -> list[dict[str, Any]]:
    """``run`` for async code: the calls run concurrently (async tools awaited), results keep their order."""
    found = _calls(calls)
    outcomes = await acall_all(registry, _toolset(registry, strict), found, repair)
    return [_shape(c, o) for c, o in zip(found, outcomes, strict=True)]
