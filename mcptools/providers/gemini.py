"""Gemini function calling: function declarations, and ``function_call`` parts answered.

``tools(registry)`` returns ``function_declarations`` under the Gemini profile (the OpenAPI-flavoured schema
subset of ``FunctionDeclaration.parameters``); ``tools(registry, json_schema=True)`` sends the schemas as they
are in ``parameters_json_schema`` instead. Names are mapped to Gemini's rule (a letter or ``_`` first, then
``[A-Za-z0-9_.:-]``, 64 at most) and back. ``run`` takes a ``GenerateContentResponse``, a ``Content``, its
``parts`` or ``function_call``\\ s (objects or dicts) and returns one ``function_response`` part per call, in order;
send them back as ``{"role": "user", "parts": results}``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from ._common import Call, NameRule, Outcome, Toolset, acall_all, call_all, calls_container, items_of, plain, toolset

if TYPE_CHECKING:
    from .._registry import ToolRegistry

__all__ = ["arun", "run", "tools"]

_NAMES: Final = NameRule("A-Za-z0-9_.:-", 64, first="A-Za-z_")


def _toolset(registry: ToolRegistry, json_schema: bool) -> Toolset:
    return toolset(registry, "anthropic" if json_schema else "gemini", _NAMES, "gemini")


def tools(registry: ToolRegistry, *, json_schema: bool = False) -> list[dict[str, Any]]:
    """The ``function_declarations`` of one ``types.Tool`` (``{"function_declarations": tools(registry)}``)."""
    found = _toolset(registry, json_schema)
    out: list[dict[str, Any]] = []
    for entry in registry:
        declaration: dict[str, Any] = {"name": found.to_provider[entry.name]}
        if entry.description:
            declaration["description"] = entry.description
        declaration["parameters_json_schema" if json_schema else "parameters"] = found.exported[entry.name].schema
        out.append(declaration)
    return out


def _calls(calls: Any) -> list[Call]:
    value: Any = calls_container(
        calls, "gemini", "a GenerateContentResponse, a Content, its parts, or function_call parts"
    )
    if isinstance(value, dict):
        if "candidates" in value:
            candidates = value["candidates"]
            value = plain(candidates[0]).get("content", {}) if candidates else {}
        value = items_of(value, ("parts",)) if isinstance(value, dict) and "parts" in value else [value]
    found: list[Call] = []
    for raw in value if isinstance(value, list) else []:
        part = plain(raw)
        if not isinstance(part, dict):
            continue
        call = part.get("function_call", part.get("functionCall"))
        if call is None and "name" in part and ("args" in part or "id" in part):
            call = part
        if isinstance(call, dict):
            found.append(Call(call.get("id"), call.get("name"), call.get("args")))
    return found


def _shape(call: Call, outcome: Outcome) -> dict[str, Any]:
    response: dict[str, Any] = {"name": call.name, "response": {"error" if outcome[1] else "result": outcome[0]}}
    if call.id is not None:
        response["id"] = call.id
    return {"function_response": response}


def run(
    registry: ToolRegistry, calls: Any, *, json_schema: bool = False, repair: object = None
) -> list[dict[str, Any]]:
    """Answer the ``function_call`` parts of one model turn: one ``function_response`` part per call, in order."""
    found = _calls(calls)
    outcomes = call_all(registry, _toolset(registry, json_schema), found, repair)
    return [_shape(c, o) for c, o in zip(found, outcomes, strict=True)]


async def arun(
    registry: ToolRegistry, calls: Any, *, json_schema: bool = False, repair: object = None
) -> list[dict[str, Any]]:
    """``run`` for async code: the calls run concurrently (async tools awaited), results keep their order."""
    found = _calls(calls)
    outcomes = await acall_all(registry, _toolset(registry, json_schema), found, repair)
    return [_shape(c, o) for c, o in zip(found, outcomes, strict=True)]
