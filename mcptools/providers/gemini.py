"""Gemini function calling: function declarations, and ``function_call`` parts answered.

``tools(registry)`` returns ``function_declarations`` for the tools the registry serves now, under the Gemini
profile (the OpenAPI-flavoured ``Schema`` subset of ``FunctionDeclaration.parameters``), tool by tool: a schema
that subset cannot express (an open map, a recursive ref, ...) is sent as it is in ``parameters_json_schema``
with its reason logged once (``relaxed(registry)`` lists them; ``fallback=False`` leaves such tools out);
``tools(registry, json_schema=True)`` sends every schema that way. A tool without parameters has no
``parameters``. Names are mapped to Gemini's rule (a letter or ``_`` first, then ``[A-Za-z0-9_.:-]``, 64 at
most) and back. ``run`` takes a ``GenerateContentResponse``, a ``Content``, its ``parts`` or
``function_call``\\ s (objects or dicts) and returns one ``function_response`` part per call, in order; send them
back as ``{"role": "user", "parts": results}``. ``principal=`` says whom the export and the calls are for (see
``mcptools.providers``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from ._common import (
    NOT_GIVEN,
    Call,
    NameRule,
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

_NAMES: Final = NameRule("A-Za-z0-9_.:-", 64, first="A-Za-z_")
_PROFILE: Final = Profiles("gemini", "gemini", "anthropic", _NAMES, relaxed_as="as parameters_json_schema")
_AS_IS: Final = Profiles("gemini", "anthropic", None, _NAMES)
_FORMS: Final = "a GenerateContentResponse, a Content, its parts, or function_call parts"


def _unwrap(value: dict[str, Any]) -> list[Any]:
    found: Any = value.get("content", value)  # a Candidate's content, or a Content
    if isinstance(found, dict) and ("parts" in found or "role" in found):
        return items_of("gemini", found, ("parts",))  # (a Content without parts: a turn cut short has none)
    return [found]


_A_PART: Final = "a part holds a 'function_call' ({'name', 'args'}), or text, ..."


def _one(part: dict[str, Any]) -> Call | str | None:
    """A ``function_call`` part (or the call itself); ``None`` for another part (text, thought, ...) or a
    content without parts."""
    call = part.get("function_call", part.get("functionCall"))
    if call is None and "name" in part and ("args" in part or "id" in part):
        call = part
    if isinstance(call, dict):
        return Call(call.get("id"), call.get("name"), call.get("args"))
    return _A_PART if call is not None or not part else None


_READ: Final = Reader("gemini", _FORMS, "candidates", _unwrap, _one, ("candidates", "content", "parts", "role"))


def _shape(call: Call, outcome: Outcome) -> dict[str, Any]:
    response: dict[str, Any] = {"name": call.name, "response": {"error" if outcome[1] else "result": outcome[0]}}
    if call.id is not None:
        response["id"] = call.id
    return {"function_response": response}


_GEMINI: Final = Provider("gemini", lambda json_schema: _AS_IS if json_schema else _PROFILE, _READ, _shape)


def tools(
    registry: ToolRegistry,
    *,
    json_schema: bool = False,
    fallback: bool = True,
    principal: Principal | None = NOT_GIVEN,
) -> list[dict[str, Any]]:
    """The ``function_declarations`` of one ``types.Tool`` (``{"function_declarations": tools(registry)}``): the
    tools ``registry`` serves now, those ``principal``'s scopes allow (``None``: every served tool)."""
    out: list[dict[str, Any]] = []
    for entry in _GEMINI.toolset(registry, json_schema, fallback, principal).entries:
        declaration: dict[str, Any] = {"name": entry.name}
        if entry.description:
            declaration["description"] = entry.description
        schema = entry.exported.schema
        if json_schema or entry.relaxed is not None:
            declaration["parameters_json_schema"] = schema
        elif schema.get("properties") or schema.get("anyOf"):
            # Gemini's reference: "for function with no parameters, this can be left unset".
            declaration["parameters"] = schema
        out.append(declaration)
    return out


def relaxed(
    registry: ToolRegistry,
    *,
    json_schema: bool = False,
    fallback: bool = True,
    principal: Principal | None = NOT_GIVEN,
) -> dict[str, str]:
    """The served tools ``tools(...)`` with the same options sends as ``parameters_json_schema`` (or leaves out),
    each with the reason the Gemini profile could not take it."""
    return _GEMINI.relaxed(registry, json_schema, fallback, principal)


def run(
    registry: ToolRegistry,
    calls: Any,
    *,
    json_schema: bool = False,
    fallback: bool = True,
    principal: Principal | None = NOT_GIVEN,
    repair: object = None,
) -> list[dict[str, Any]]:
    """Answer the ``function_call`` parts of one model turn: one ``function_response`` part per call, in order.

    ``json_schema``, ``fallback`` and ``principal`` must match the ``tools`` export (``principal`` is also the
    calls' ``Context.principal``)."""
    return _GEMINI.run(registry, calls, json_schema, fallback, principal, repair)


async def arun(
    registry: ToolRegistry,
    calls: Any,
    *,
    json_schema: bool = False,
    fallback: bool = True,
    principal: Principal | None = NOT_GIVEN,
    repair: object = None,
) -> list[dict[str, Any]]:
    """``run`` for async code: the calls run concurrently (async tools awaited), results keep their order."""
    return await _GEMINI.arun(registry, calls, json_schema, fallback, principal, repair)
