"""What the three provider modules share: exports cached per registry, reversible names, and one tool call.

A provider module only reads its API's tool calls and writes its API's results. Finding the tool, validating
and calling it is the registry's ``tools/call`` pipeline, reached through ``_call``/``_acall`` alone, so the
model gets the same errors from a provider loop as from an MCP client.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, final

from .._errors import ToolDefinitionError, UsageError
from .._profiles import Exported, export_schema
from .._protocol.session import Session
from .._repair import repairs_option
from .._validation.messages import invalid_arguments

if TYPE_CHECKING:
    from .._registry import ToolRegistry

__all__ = ["Call", "Toolset", "acall_all", "call_all", "plain", "toolset"]

logger = logging.getLogger("mcptools")


def plain(value: Any) -> Any:
    """A provider SDK object as its dict form (pydantic models), anything else as is."""
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json", exclude_none=True)
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict) and not isinstance(value, Mapping):
        return to_dict()
    return value


@final
@dataclass(slots=True, eq=False)
class Call:
    """One tool call as the provider sent it: its id (or None), the provider's tool name, raw arguments."""

    id: Any
    name: Any
    arguments: Any


@final
class NameRule:
    """A provider's tool-name rule, and how a name that breaks it is mapped (reversibly, checked for clashes)."""

    __slots__ = ("allowed", "first", "limit")

    def __init__(self, allowed: str, limit: int, first: str | None = None) -> None:
        self.allowed = re.compile(f"[^{allowed}]")
        self.limit = limit
        self.first = re.compile(f"[{first}]") if first else None

    def map(self, name: str) -> str:
        mapped = self.allowed.sub("_", name)
        if self.first is not None and not self.first.match(mapped):
            mapped = "_" + mapped
        if len(mapped) > self.limit or (mapped != name and len(mapped) > self.limit - 9):
            digest = hashlib.sha256(name.encode()).hexdigest()[:8]
            mapped = f"{mapped[: self.limit - 9]}_{digest}"
        return mapped


@final
class Toolset:
    """A registry's tools exported under one profile: schemas, and names both ways."""

    __slots__ = ("count", "exported", "to_original", "to_provider")

    def __init__(self, registry: ToolRegistry, profile: str, rule: NameRule) -> None:
        self.count = len(registry)
        self.exported: dict[str, Exported] = {}
        self.to_provider: dict[str, str] = {}
        self.to_original: dict[str, str] = {}
        for entry in registry:
            mapped = rule.map(entry.name)
            other = self.to_original.get(mapped)
            if other is not None:
                raise ToolDefinitionError(
                    f"tools {other!r} and {entry.name!r} both become {mapped!r} under the {profile} name rule; "
                    f"rename one of them (registry.tool(name='...'))"
                )
            self.to_provider[entry.name] = mapped
            self.to_original[mapped] = entry.name
            self.exported[entry.name] = export_schema(entry.input_schema, profile, tool=entry.name)


_CACHE: Final[weakref.WeakKeyDictionary[Any, dict[tuple[str, str], Toolset]]] = weakref.WeakKeyDictionary()


def toolset(registry: ToolRegistry, profile: str, rule: NameRule, key: str) -> Toolset:
    # Tools are only ever added to a registry, so the count tells a stale export from a current one.
    per_registry = _CACHE.setdefault(registry, {})
    found = per_registry.get((profile, key))
    if found is None or found.count != len(registry):
        found = per_registry[(profile, key)] = Toolset(registry, profile, rule)
    return found


# -- one call --------------------------------------------------------------------------------------------

Outcome = tuple[str, bool]  # (the text for the model, is it an error)


def _request(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 0, "method": "tools/call", "params": {"name": name, "arguments": arguments}}


def _outcome(response: dict[str, Any] | None) -> Outcome:
    """An MCP ``tools/call`` response as text for the model: its text contents, or its structured content."""
    if response is None or "error" in response:
        error = (response or {}).get("error") or {}
        return str(error.get("message", "Internal error")), True
    result = response.get("result") or {}
    texts: list[str] = []
    for item in result.get("content") or []:
        if item.get("type") == "text":
            texts.append(str(item.get("text", "")))
        else:
            texts.append(f"[{item.get('type')} content: {item.get('mimeType', item.get('uri', ''))}]")
    if not texts and "structuredContent" in result:
        texts.append(json.dumps(result["structuredContent"], ensure_ascii=False))
    return "\n".join(texts), bool(result.get("isError"))


def _prepare(tools: Toolset, call: Call) -> tuple[str, dict[str, Any]] | Outcome:
    """``(name, arguments)`` for the pipeline, or an ``Outcome`` when the call cannot reach it."""
    original = tools.to_original.get(call.name) if isinstance(call.name, str) else None
    if original is None:
        known = ", ".join(tools.to_provider.values())
        return f"Unknown tool: {call.name}; the tools are: {known}", True
    arguments = call.arguments
    if isinstance(arguments, (str, bytes)):
        if not arguments.strip():
            arguments = {}
        else:
            try:
                arguments = json.loads(arguments)
            except ValueError as exc:
                reason = getattr(exc, "msg", "not JSON")
                return invalid_arguments([f"arguments are not valid JSON ({reason}); send one JSON object"]), True
    elif arguments is None:
        arguments = {}
    arguments = plain(arguments)
    if not isinstance(arguments, dict):
        return invalid_arguments(["arguments must be an object"]), True
    return original, tools.exported[original].from_provider(arguments)


def _call(registry: ToolRegistry, name: str, arguments: dict[str, Any], fixes: frozenset[str] | None) -> Outcome:
    """The one way a provider call reaches the tool: the registry's own ``tools/call`` pipeline, which validates
    once and, for arguments that fail, makes the repairs ``run(..., repair=...)`` chose (``fixes``, riding on the
    call; ``None``: the registry's own ``repair=``)."""
    return _outcome(registry.engine.handle_sync(_request(name, arguments), repairs=fixes))


async def _acall(registry: ToolRegistry, name: str, arguments: dict[str, Any], fixes: frozenset[str] | None) -> Outcome:
    return _outcome(await registry.engine.handle(_request(name, arguments), Session(peer="local"), repairs=fixes))


def _fixes(repair_option: object) -> frozenset[str] | None:
    return None if repair_option is None else repairs_option(repair_option, where="run(..., repair=...)")


def call_all(registry: ToolRegistry, tools: Toolset, calls: Iterable[Call], repair_option: object) -> list[Outcome]:
    fixes = _fixes(repair_option)
    outcomes: list[Outcome] = []
    for call in calls:
        prepared = _prepare(tools, call)
        outcomes.append(_call(registry, *prepared, fixes) if isinstance(prepared[1], dict) else prepared)
    return outcomes


async def acall_all(
    registry: ToolRegistry, tools: Toolset, calls: Iterable[Call], repair_option: object
) -> list[Outcome]:
    import asyncio

    fixes = _fixes(repair_option)

    async def one(call: Call) -> Outcome:
        prepared = _prepare(tools, call)
        return await _acall(registry, *prepared, fixes) if isinstance(prepared[1], dict) else prepared

    # Calls of one batch run concurrently; gather keeps their order.
    return list(await asyncio.gather(*(one(call) for call in calls)))


def calls_container(calls: Any, provider: str, forms: str) -> dict[str, Any] | list[Any]:
    """``calls`` as its dict or list form; anything else is refused by name, never read as "no calls"
    (an agent that answered nothing would fail far from the cause, at the provider's next request)."""
    value = plain(calls)
    if not isinstance(value, (dict, list)):
        raise UsageError(f"{provider}.run() takes {forms}; got {type(calls).__name__}")
    return value


def items_of(value: Any, keys: tuple[str, ...]) -> list[Any]:
    """The first list found under one of ``keys`` in a dict, else []."""
    for key in keys:
        found = value.get(key) if isinstance(value, dict) else None
        if isinstance(found, list):
            return found
    return []


Shape = Callable[[Call, Outcome], dict[str, Any]]
