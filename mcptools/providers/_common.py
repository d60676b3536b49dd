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
    from ..auth import Principal

__all__ = ["Call", "Entry", "Profiles", "Toolset", "acall_all", "call_all", "plain", "toolset"]

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
@dataclass(slots=True, frozen=True)
class Profiles:
    """How one provider option exports: its profile, the relaxed one a tool falls back to when the profile cannot
    take it (``None``: the profile takes every schema), and the provider's name rule."""

    provider: str
    profile: str
    relaxed: str | None
    rule: NameRule
    # What a tool under the relaxed profile is, in the provider's words (for the log).
    relaxed_as: str = "non-strict"
    # A limit over the whole request (Anthropic's strict budget): made fresh per export, it says why a tool that
    # its profile takes does not fit after the ones before it, or ``None`` when it fits (and counts it).
    budget: Callable[[], Callable[[dict[str, Any]], str | None]] | None = None


@final
@dataclass(slots=True, frozen=True)
class Entry:
    """One served tool as a provider sees it: its served name, its name for the provider, its description,
    its exported schema, and why it is not under the provider's profile (``None``: it is)."""

    served: str
    name: str
    description: str | None
    exported: Exported
    relaxed: str | None


@final
class Toolset:
    """The tools a registry serves now, exported under one provider option, for one caller: the enabled tools
    (included ones under their served names, as ``tools/list`` shows them) the caller's scopes let it see.

    A tool the profile cannot take is exported under the relaxed profile (``fallback``), or left out; either
    way its reason is kept in ``relaxed``/``refused`` and the rest of the registry exports."""

    __slots__ = ("by_name", "entries", "refused", "version")

    def __init__(
        self, registry: ToolRegistry, profiles: Profiles, scopes: frozenset[str] | None, *, fallback: bool
    ) -> None:
        self.version = registry.served_version
        self.entries: list[Entry] = []
        self.by_name: dict[str, Entry] = {}
        self.refused: dict[str, str] = {}
        admit = profiles.budget() if profiles.budget is not None else None
        for listed in registry.list_tools():
            served = listed["name"]
            tool = registry.get(served)
            if tool is None or (scopes is not None and not scopes.issuperset(tool.scopes)):
                continue
            exported, reason = _export(tool.input_schema, profiles, served)
            if exported is not None and admit is not None:
                reason = admit(exported.schema)
                exported = None if reason is not None else exported
            if exported is None:
                if not fallback or profiles.relaxed is None:
                    self.refused[served] = reason or ""
                    continue
                exported = export_schema(tool.input_schema, profiles.relaxed, tool=served)
            self._add(Entry(served, profiles.rule.map(served), listed.get("description"), exported, reason), profiles)

    def _add(self, entry: Entry, profiles: Profiles) -> None:
        other = self.by_name.get(entry.name)
        if other is not None:
            raise ToolDefinitionError(
                f"tools {other.served!r} and {entry.served!r} both become {entry.name!r} under the "
                f"{profiles.provider} name rule; rename one of them (registry.tool(name='...'))"
            )
        self.by_name[entry.name] = entry
        self.entries.append(entry)

    def relaxed(self) -> dict[str, str]:
        """Every served tool not under the provider's profile, with the reason (exported relaxed or refused)."""
        found = {entry.served: entry.relaxed for entry in self.entries if entry.relaxed is not None}
        return {**found, **self.refused}


def _export(schema: Mapping[str, Any], profiles: Profiles, served: str) -> tuple[Exported | None, str | None]:
    try:
        return export_schema(schema, profiles.profile, tool=served), None
    except ToolDefinitionError as exc:
        return None, str(exc)


_CACHE: Final[weakref.WeakKeyDictionary[Any, dict[tuple[Any, ...], Toolset]]] = weakref.WeakKeyDictionary()
# Distinct callers' scope sets kept per registry; past it the oldest export is dropped (they are rebuilt cheaply).
_CACHED_CALLERS: Final = 64
# (registry, provider, profile, tool, reason) already logged: a reason is reported once, not on every export.
_LOGGED: Final[weakref.WeakKeyDictionary[Any, set[tuple[str, ...]]]] = weakref.WeakKeyDictionary()


def caller_scopes(principal: Principal | None) -> frozenset[str] | None:
    """The scopes exports are cut to: the given principal's (as ``tools/list`` shows that caller the tools);
    without one, ``None``: every served tool."""
    return principal.scopes if principal is not None else None


def toolset(
    registry: ToolRegistry, profiles: Profiles, *, fallback: bool = True, principal: Principal | None = None
) -> Toolset:
    """The export for what ``registry`` serves now: cached until ``served_version`` moves (every add, remove,
    enable, disable and include, here or in an included registry, bumps it)."""
    scopes = caller_scopes(principal)
    per_registry = _CACHE.setdefault(registry, {})
    key = (profiles, fallback, scopes)
    found = per_registry.get(key)
    if found is None or found.version != registry.served_version:
        found = Toolset(registry, profiles, scopes, fallback=fallback)
        if len(per_registry) >= _CACHED_CALLERS and key not in per_registry:
            del per_registry[next(iter(per_registry))]
        per_registry[key] = found
        _report(registry, profiles, found)
    return found


def _report(registry: ToolRegistry, profiles: Profiles, found: Toolset) -> None:
    logged = _LOGGED.setdefault(registry, set())
    for served, reason in found.relaxed().items():
        action = "left out" if served in found.refused else f"exported {profiles.relaxed_as}"
        mark = (profiles.provider, profiles.profile, served, reason, action)
        if mark not in logged:
            logged.add(mark)
            logger.warning("%s export: tool %r %s: %s", profiles.provider, served, action, reason)


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
    """``(served name, arguments)`` for the pipeline, or an ``Outcome`` when the call cannot reach it."""
    entry = tools.by_name.get(call.name) if isinstance(call.name, str) else None
    if entry is None:
        known = ", ".join(tools.by_name)
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
    return entry.served, entry.exported.from_provider(arguments)


def _fixes(repair_option: object) -> frozenset[str] | None:
    return None if repair_option is None else repairs_option(repair_option, where="run(..., repair=...)")


def call_all(
    registry: ToolRegistry, tools: Toolset, calls: Iterable[Call], repair_option: object, principal: Principal | None
) -> list[Outcome]:
    """Each call through the registry's own ``tools/call`` pipeline (the one way a provider call reaches a tool:
    validated once; for arguments that fail, the repairs ``run(..., repair=...)`` chose), with ``principal`` as
    the caller (the pipeline's scope check, ``Context.principal``); both ride on the call."""
    fixes = _fixes(repair_option)
    engine = registry.engine
    outcomes: list[Outcome] = []
    for call in calls:
        prepared = _prepare(tools, call)
        if isinstance(prepared[1], dict):
            prepared = _outcome(engine.handle_sync(_request(*prepared), repairs=fixes, principal=principal))
        outcomes.append(prepared)
    return outcomes


async def acall_all(
    registry: ToolRegistry, tools: Toolset, calls: Iterable[Call], repair_option: object, principal: Principal | None
) -> list[Outcome]:
    import asyncio

    fixes = _fixes(repair_option)
    engine = registry.engine

    async def one(call: Call) -> Outcome:
        prepared = _prepare(tools, call)
        if not isinstance(prepared[1], dict):
            return prepared
        request = _request(*prepared)
        return _outcome(await engine.handle(request, Session(peer="local"), principal=principal, repairs=fixes))

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
