"""OpenAI function calling (Chat Completions and Responses): tool definitions, and tool calls answered.

``tools(registry)`` exports what the registry serves now under the strict profile (``strict: true``: every
property required, optional ones nullable, closed objects), tool by tool: a schema strict mode cannot take is
sent as it is with ``strict: false`` and its reason logged once (``relaxed(registry)`` lists them);
``strict=False`` sends every schema as it is. Names outside ``[A-Za-z0-9_-]{1,64}``
are mapped (``.`` to ``_``) and mapped back by ``run``. ``run`` takes a ``ChatCompletion``, its message, its
``tool_calls``, a Responses ``Response`` or its ``output`` (objects or dicts) and returns, per call, a
``{"role": "tool", ...}`` message (Chat Completions) or a ``function_call_output`` item (Responses).
``principal=`` says whom the export and the calls are for (see ``mcptools.providers``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, Literal

from .._errors import UsageError
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

_STRICT: Final = Profiles("openai", "openai", "anthropic", TOOL_NAMES)
_AS_IS: Final = Profiles("openai", "anthropic", None, TOOL_NAMES)
_FORMS: Final = "a ChatCompletion, a Choice, its message, its tool_calls, a Responses response or its output"


def _unwrap(value: dict[str, Any]) -> list[Any]:
    if "message" in value:  # a Choice
        value = value["message"]
        if not isinstance(value, dict):
            raise UsageError(f"openai.run(): a choice's message must be an object; got {type(value).__name__}")
    if "tool_calls" in value or "output" in value or "role" in value:
        return items_of("openai", value, ("tool_calls", "output"))
    return [value]


_A_CALL: Final = (
    "a tool call is {'id', 'type': 'function', 'function': {'name', 'arguments'}} (Chat Completions), a Responses "
    "output item has a 'type' ('function_call', 'message', ...)"
)


def _one(item: dict[str, Any]) -> Call | str | None:
    """A Chat Completions tool call, or a Responses ``function_call`` item (``form``: "responses"); ``None`` for
    another Responses item (a message, reasoning)."""
    if "function" in item:
        function = item["function"]
        if not isinstance(function, dict):
            return _A_CALL
        return Call(item.get("id"), function.get("name"), function.get("arguments"))
    kind = item.get("type")
    if kind == "function_call":
        return Call(item.get("call_id"), item.get("name"), item.get("arguments"), "responses")
    return None if isinstance(kind, str) and kind != "function" else _A_CALL


_READ: Final = Reader("openai", _FORMS, "choices", _unwrap, _one, ("choices", "message", "tool_calls", "output"))


def _shape(call: Call, outcome: Outcome) -> dict[str, Any]:
    # Chat Completions' tool message has no error flag: the text says "Invalid arguments: ..." and so on.
    if call.form == "responses":
        return {"type": "function_call_output", "call_id": call.id, "output": outcome[0]}
    return {"role": "tool", "tool_call_id": call.id, "content": outcome[0]}


_OPENAI: Final = Provider("openai", lambda strict: _STRICT if strict else _AS_IS, _READ, _shape)


def tools(
    registry: ToolRegistry,
    *,
    api: Literal["chat", "responses"] = "chat",
    strict: bool = True,
    fallback: bool = True,
    principal: Principal | None = NOT_GIVEN,
) -> list[dict[str, Any]]:
    """The ``tools`` parameter for ``chat.completions.create`` (``api="chat"``) or ``responses.create``: the
    tools ``registry`` serves now, those ``principal``'s scopes allow (``None``: every served tool).

    With ``strict``, a tool whose schema strict mode cannot take is sent with ``strict: false`` (its reason
    logged once and in ``relaxed()``), or left out with ``fallback=False``."""
    if api not in ("chat", "responses"):
        raise UsageError(f"tools(..., api={api!r}): api is 'chat' or 'responses'")
    out: list[dict[str, Any]] = []
    for entry in _OPENAI.toolset(registry, strict, fallback, principal).entries:
        function: dict[str, Any] = {"name": entry.name}
        if entry.description:
            function["description"] = entry.description
        function["parameters"] = entry.exported.schema
        function["strict"] = strict and entry.relaxed is None
        out.append({"type": "function", "function": function} if api == "chat" else {"type": "function", **function})
    return out


def relaxed(
    registry: ToolRegistry, *, strict: bool = True, fallback: bool = True, principal: Principal | None = NOT_GIVEN
) -> dict[str, str]:
    """The served tools ``tools(...)`` with the same options does not send strict (or leaves out), each with the
    reason."""
    return _OPENAI.relaxed(registry, strict, fallback, principal)


def run(
    registry: ToolRegistry,
    calls: Any,
    *,
    strict: bool = True,
    fallback: bool = True,
    principal: Principal | None = NOT_GIVEN,
    repair: object = None,
) -> list[dict[str, Any]]:
    """Answer the tool calls of one model turn; one message (or Responses item) per call, in order.

    ``strict``, ``fallback`` and ``principal`` must match the ``tools`` export (so nulls standing for absent
    properties map back, and a tool the caller may not see is unknown to it; ``principal`` is also the calls'
    ``Context.principal``); ``repair`` is the registry's ``repair=`` option for these calls (``None``: the
    registry's own).
    """
    return _OPENAI.run(registry, calls, strict, fallback, principal, repair)


async def arun(
    registry: ToolRegistry,
    calls: Any,
    *,
    strict: bool = True,
    fallback: bool = True,
    principal: Principal | None = NOT_GIVEN,
    repair: object = None,
) -> list[dict[str, Any]]:
    """``run`` for async code: the calls run concurrently (async tools awaited), results keep their order."""
    return await _OPENAI.arun(registry, calls, strict, fallback, principal, repair)
