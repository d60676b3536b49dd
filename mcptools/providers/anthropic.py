"""Anthropic Messages tool use: tool definitions, and ``tool_use`` blocks answered with ``tool_result`` blocks.

Anthropic takes JSON Schema as it is, so ``tools(registry)`` sends each served tool's input schema unchanged.
``strict=True`` asks for Anthropic's strict tool use under its own profile (the subset its structured outputs
document: closed objects, optional properties kept, no numeric, length or array bounds beyond ``minItems`` 0 or
1, no recursion), tool by tool: a schema the subset cannot take, or a tool past the request's strict budget (20
strict tools, 24 optional properties, 16 unions), is sent non-strict with its reason logged once
(``relaxed(registry, strict=True)`` lists them). Names outside ``[A-Za-z0-9_-]{1,64}`` are mapped (``.`` to
``_``) and mapped back by ``run``. ``run`` takes a ``Message``, its ``content``, or ``tool_use`` blocks
(objects or dicts) and returns one ``tool_result`` block per call, in order, ``is_error`` set for an error; send
them back as ``{"role": "user", "content": results}``. ``principal=`` says whom the export and the calls are
for (see ``mcptools.providers``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from .._profiles import strict_budget
from ._common import (
    NOT_GIVEN,
    TOOL_NAMES,
    Call,
    Outcome,
    Profiles,
    Provider,
    Reader,
    items_of,
)

if TYPE_CHECKING:
    from .._registry import ToolRegistry
    from ..auth import Principal

__all__ = ["arun", "relaxed", "run", "tools"]

_STRICT: Final = Profiles("anthropic", "anthropic-strict", "anthropic", TOOL_NAMES, budget=strict_budget)
_AS_IS: Final = Profiles("anthropic", "anthropic", None, TOOL_NAMES)
_FORMS: Final = "a Message, its content, or tool_use blocks"


def _one(block: dict[str, Any]) -> Call | str | None:
    """A ``tool_use`` block; ``None`` for another content block (text, thinking, ...)."""
    kind = block.get("type")
    if kind == "tool_use":
        return Call(block.get("id"), block.get("name"), block.get("input"))
    if isinstance(kind, str):
        return None
    return "a content block has a 'type' ('tool_use' with 'id', 'name' and 'input'; 'text', ...)"


def _unwrap(value: dict[str, Any]) -> list[Any]:
    # A Message's content is always a list of blocks: null there is no form of it.
    return items_of("anthropic", value, ("content",), null=False) if "content" in value else [value]


_READ: Final = Reader("anthropic", _FORMS, "", _unwrap, _one, ("role",))


def _shape(call: Call, outcome: Outcome) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call.id, "content": outcome[0]}
    if outcome[1]:
        block["is_error"] = True
    return block


_ANTHROPIC: Final = Provider("anthropic", lambda strict: _STRICT if strict else _AS_IS, _READ, _shape)


def tools(
    registry: ToolRegistry, *, strict: bool = False, fallback: bool = True, principal: Principal | None = NOT_GIVEN
) -> list[dict[str, Any]]:
    """The ``tools`` parameter for ``messages.create``: the tools ``registry`` serves now, those
    ``principal``'s scopes allow (``None``: every served tool; with ``fallback=False`` a tool strict mode
    cannot take is left out rather than sent non-strict)."""
    out: list[dict[str, Any]] = []
    for entry in _ANTHROPIC.toolset(registry, strict, fallback, principal).entries:
        tool: dict[str, Any] = {"name": entry.name}
        if entry.description:
            tool["description"] = entry.description
        tool["input_schema"] = entry.exported.schema
        if strict and entry.relaxed is None:
            tool["strict"] = True
        out.append(tool)
    return out


def relaxed(
    registry: ToolRegistry, *, strict: bool = False, fallback: bool = True, principal: Principal | None = NOT_GIVEN
) -> dict[str, str]:
    """The served tools ``tools(...)`` with the same options does not send strict (or leaves out), each with the
    reason."""
    return _ANTHROPIC.relaxed(registry, strict, fallback, principal)


def run(
    registry: ToolRegistry,
    calls: Any,
    *,
    strict: bool = False,
    fallback: bool = True,
    principal: Principal | None = NOT_GIVEN,
    repair: object = None,
) -> list[dict[str, Any]]:
    """Answer the ``tool_use`` blocks of one model turn: one ``tool_result`` block per call, in order.

    ``strict``, ``fallback`` and ``principal`` must match the ``tools`` export (``principal`` is also the
    calls' ``Context.principal``); ``repair`` is the registry's ``repair=`` option for these calls (``None``:
    the registry's own).
    """
    return _ANTHROPIC.run(registry, calls, strict, fallback, principal, repair)


async def arun(
    registry: ToolRegistry,
    calls: Any,
    *,
    strict: bool = False,
    fallback: bool = True,
    principal: Principal | None = NOT_GIVEN,
    repair: object = None,
) -> list[dict[str, Any]]:
    """``run`` for async code: the calls run concurrently (async tools awaited), results keep their order."""
    return await _ANTHROPIC.arun(registry, calls, strict, fallback, principal, repair)
