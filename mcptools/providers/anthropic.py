"""Anthropic Messages tool use: tool definitions, and ``tool_use`` blocks answered with ``tool_result`` blocks.

Anthropic takes JSON Schema as it is, so ``tools(registry)`` sends each served tool's input schema unchanged.
``strict=True`` asks for Anthropic's strict tool use under its own profile (the subset its structured outputs
document: closed objects, optional properties kept, no numeric, length or array bounds beyond ``minItems`` 0 or
1, no recursion), tool by tool: a schema the subset cannot take, or a tool past the request's strict budget (20
strict tools, 24 optional properties, 16 unions), is sent non-strict with its reason logged once
(``relaxed(registry, strict=True)`` lists them). Names outside ``[A-Za-z0-9_-]{1,64}`` are mapped (``.`` to
``_``) and mapped back by ``run``. ``run`` takes a ``Message``, its ``content``, or ``tool_use`` blocks
(objects or dicts) and returns one ``tool_result`` block per call, in order, ``is_error`` set for an error; send
them back as ``{"role": "user", "content": results}``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from .._profiles import strict_budget
from ._common import (
    Call,
    NameRule,
    Outcome,
    Profiles,
    Toolset,
    acall_all,
    call_all,
    calls_container,
    items_of,
    plain,
    toolset,
)

if TYPE_CHECKING:
    from .._registry import ToolRegistry
    from ..auth import Principal

__all__ = ["arun", "relaxed", "run", "tools"]

_NAMES: Final = NameRule("A-Za-z0-9_-", 64)
_STRICT: Final = Profiles("anthropic", "anthropic-strict", "anthropic", _NAMES, budget=strict_budget)
_AS_IS: Final = Profiles("anthropic", "anthropic", None, _NAMES)


def _toolset(registry: ToolRegistry, strict: bool, fallback: bool, principal: Principal | None) -> Toolset:
    return toolset(registry, _STRICT if strict else _AS_IS, fallback=fallback, principal=principal)


def tools(
    registry: ToolRegistry, *, strict: bool = False, fallback: bool = True, principal: Principal | None = None
) -> list[dict[str, Any]]:
    """The ``tools`` parameter for ``messages.create``: the tools ``registry`` serves now, those
    ``principal``'s scopes allow when one is given (with ``fallback=False`` a tool strict mode cannot take is
    left out rather than sent non-strict)."""
    out: list[dict[str, Any]] = []
    for entry in _toolset(registry, strict, fallback, principal).entries:
        tool: dict[str, Any] = {"name": entry.name}
        if entry.description:
            tool["description"] = entry.description
        tool["input_schema"] = entry.exported.schema
        if strict and entry.relaxed is None:
            tool["strict"] = True
        out.append(tool)
    return out


def relaxed(
    registry: ToolRegistry, *, strict: bool = False, fallback: bool = True, principal: Principal | None = None
) -> dict[str, str]:
    """The served tools ``tools(...)`` with the same options does not send strict, each with the reason."""
    return _toolset(registry, strict, fallback, principal).relaxed()


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


def run(
    registry: ToolRegistry,
    calls: Any,
    *,
    strict: bool = False,
    fallback: bool = True,
    principal: Principal | None = None,
    repair: object = None,
) -> list[dict[str, Any]]:
    """Answer the ``tool_use`` blocks of one model turn: one ``tool_result`` block per call, in order.

    ``strict``, ``fallback`` and ``principal`` must match the ``tools`` export (``principal`` is also the
    calls' ``Context.principal``); ``repair`` is the registry's ``repair=`` option for these calls (``None``:
    the registry's own).
    """
    found = _calls(calls)
    outcomes = call_all(registry, _toolset(registry, strict, fallback, principal), found, repair, principal)
    return [_shape(c, o) for c, o in zip(found, outcomes, strict=True)]


async def arun(
    registry: ToolRegistry,
    calls: Any,
    *,
    strict: bool = False,
    fallback: bool = True,
    principal: Principal | None = None,
    repair: object = None,
) -> list[dict[str, Any]]:
    """``run`` for async code: the calls run concurrently (async tools awaited), results keep their order."""
    found = _calls(calls)
    outcomes = await acall_all(registry, _toolset(registry, strict, fallback, principal), found, repair, principal)
    return [_shape(c, o) for c, o in zip(found, outcomes, strict=True)]
