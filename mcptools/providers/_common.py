"""What the three provider modules share: exports cached per registry and caller, reversible names, one tool
call, and ``Provider``, the four functions every module offers written once.

A provider module only reads its API's tool calls and writes its API's results. Finding the tool, validating
and calling it is the registry's ``tools/call`` pipeline, reached through ``call_all``/``acall_all`` alone, so
the model gets the same errors from a provider loop as from an MCP client.
"""

from __future__ import annotations

import json
import logging
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, final

from .._call import ProviderCall
from .._errors import ToolDefinitionError, UsageError
from .._profiles import Exported, NameRule, export_schema
from .._protocol.session import Session
from .._repair import repairs_option
from .._scopes import visible
from .._validation.messages import invalid_arguments

if TYPE_CHECKING:
    from .._registry import ToolRegistry
    from ..auth import Principal

__all__ = [
    "NOT_GIVEN",
    "TOOL_NAMES",
    "Call",
    "Entry",
    "NameRule",
    "Outcome",
    "Profiles",
    "Provider",
    "Reader",
    "Toolset",
    "acall_all",
    "call_all",
    "items_of",
    "plain",
    "toolset",
]

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
    # Which of its API's forms the call came in, where the answer's shape depends on it (OpenAI: "responses").
    form: str = ""


# OpenAI's and Anthropic's tool names: [A-Za-z0-9_-]{1,64} (``geo.lookup`` is sent as ``geo_lookup``).
TOOL_NAMES: Final = NameRule("A-Za-z0-9_-", 64)


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

    A tool the profile cannot take is exported under the relaxed profile (``fallback``), or left out; a tool whose
    provider name an earlier one already has is left out. Either way its reason is kept in ``relaxed``/``refused``
    and the rest of the registry exports."""

    __slots__ = ("by_name", "entries", "refused", "scoped", "version")

    def __init__(
        self, registry: ToolRegistry, profiles: Profiles, principal: Principal | None, *, fallback: bool
    ) -> None:
        self.version = registry.served_version
        self.entries: list[Entry] = []
        self.by_name: dict[str, Entry] = {}
        self.refused: dict[str, str] = {}
        admit = profiles.budget() if profiles.budget is not None else None
        listing, self.scoped = visible(registry, registry.list_tools(), principal)
        for listed in listing:
            served = listed["name"]
            tool = registry.get(served)
            if tool is None:
                continue
            name = profiles.rule.map(served)
            if name in self.by_name:
                self.refused[served] = _clash(profiles.provider, served, name, self.by_name[name].served)
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
            entry = Entry(served, name, listed.get("description"), exported, reason)
            self.by_name[name] = entry
            self.entries.append(entry)

    def relaxed(self) -> dict[str, str]:
        """Every served tool not under the provider's profile, with the reason (exported relaxed or refused)."""
        found = {entry.served: entry.relaxed for entry in self.entries if entry.relaxed is not None}
        return {**found, **self.refused}


def _clash(provider: str, served: str, name: str, first: str) -> str:
    return (
        f"tool {served!r} is {name!r} under the {provider} name rule, and so is {first!r}, listed before it; "
        f"rename one of them: name='...' on registry.tool or registry.add for a tool of this registry, "
        f"prefix='...' on registry.include for an included registry's"
    )


def _export(schema: Mapping[str, Any], profiles: Profiles, served: str) -> tuple[Exported | None, str | None]:
    try:
        return export_schema(schema, profiles.profile, tool=served), None
    except ToolDefinitionError as exc:
        return None, str(exc)


_CACHE: Final[weakref.WeakKeyDictionary[Any, dict[tuple[Any, ...], Toolset]]] = weakref.WeakKeyDictionary()
# Distinct callers' scope sets kept per registry; past it the oldest export is dropped (they are rebuilt cheaply).
_CACHED_CALLERS: Final = 64
# (registry, provider, tool, reason, action) already logged: a line is reported once, not on every export.
_LOGGED: Final[weakref.WeakKeyDictionary[Any, set[tuple[str, ...]]]] = weakref.WeakKeyDictionary()


def toolset(
    registry: ToolRegistry, profiles: Profiles, *, fallback: bool = True, principal: Principal | None = None
) -> Toolset:
    """The export for what ``registry`` serves now to ``principal`` (``None``: no particular caller, scopes not
    applied): cached until ``served_version`` moves (every add, remove, enable, disable and include, here or in an
    included registry, bumps it)."""
    per_registry = _CACHE.setdefault(registry, {})
    key = (profiles, fallback, principal.scopes if principal is not None else None)
    found = per_registry.get(key)
    if found is None or found.version != registry.served_version:
        found = Toolset(registry, profiles, principal, fallback=fallback)
        if len(per_registry) >= _CACHED_CALLERS and key not in per_registry:
            del per_registry[next(iter(per_registry))]
        per_registry[key] = found
        _report(registry, profiles, found)
    return found


def _report(registry: ToolRegistry, profiles: Profiles, found: Toolset) -> None:
    # Relaxed is the documented default, so a tool exported relaxed is news (INFO); a tool left out is missing
    # from what the model can call, which its developer should see (WARNING).
    logged = _LOGGED.setdefault(registry, set())
    for served, reason in found.relaxed().items():
        left_out = served in found.refused
        action = "left out" if left_out else f"exported {profiles.relaxed_as}"
        # Keyed by what the line says: a clash reads the same under every profile of a provider (strict or not).
        mark = (profiles.provider, served, reason, action)
        if mark not in logged:
            logged.add(mark)
            level = logging.WARNING if left_out else logging.INFO
            logger.log(level, "%s export: tool %r %s: %s", profiles.provider, served, action, reason)


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


def _prepare(tools: Toolset, call: Call, provider: ProviderCall) -> tuple[dict[str, Any], ProviderCall] | Outcome:
    """The ``tools/call`` request for the pipeline and what rides on it, or an ``Outcome`` when the call cannot
    reach it."""
    entry = tools.by_name.get(call.name) if isinstance(call.name, str) else None
    if entry is None:
        return _unknown(call.name, list(tools.by_name)), True
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
    exported = entry.exported
    if exported.renames:
        # A refusal's paths are said in the names the model sent (read only when the arguments fail).
        sent = arguments
        provider = ProviderCall(provider.repairs, lambda errors: exported.provider_paths(sent, errors))
    return _request(entry.served, exported.from_provider(arguments)), provider


# An unknown tool's answer names this many of the tools at most (github's server has 117), closest first.
_NAMED: Final = 20


def _unknown(name: object, names: list[str]) -> str:
    if len(names) <= _NAMED:
        return f"Unknown tool: {name}; the tools are: {', '.join(names)}"
    import difflib  # only for a big registry's unknown tool

    close = difflib.get_close_matches(str(name), names, n=5)
    shown = list(dict.fromkeys([*close, *names]))[:_NAMED]
    return f"Unknown tool: {name}; the tools include: {', '.join(shown)} (and {len(names) - len(shown)} more)"


def _provider_call(repair_option: object) -> ProviderCall:
    fixes = None if repair_option is None else repairs_option(repair_option, where="run(..., repair=...)")
    return ProviderCall(fixes)


def call_all(
    registry: ToolRegistry, tools: Toolset, calls: Iterable[Call], repair_option: object, principal: Principal | None
) -> list[Outcome]:
    """Each call through the registry's own ``tools/call`` pipeline (the one way a provider call reaches a tool:
    validated once; for arguments that fail, the repairs ``run(..., repair=...)`` chose), with ``principal`` as
    the caller (the pipeline's scope check, ``Context.principal``); both ride on the call, and so does the mark
    that its arguments are the original schema's already (the registry's ``profile=`` maps a client's, not
    these)."""
    provider = _provider_call(repair_option)
    engine = registry.engine
    outcomes: list[Outcome] = []
    for call in calls:
        prepared = _prepare(tools, call, provider)
        if isinstance(prepared[0], dict):
            request, rides = prepared
            prepared = _outcome(engine.handle_sync(request, provider=rides, principal=principal))
        outcomes.append(prepared)
    return outcomes


async def acall_all(
    registry: ToolRegistry, tools: Toolset, calls: Iterable[Call], repair_option: object, principal: Principal | None
) -> list[Outcome]:
    import asyncio

    provider = _provider_call(repair_option)
    engine = registry.engine

    async def one(call: Call) -> Outcome:
        prepared = _prepare(tools, call, provider)
        if not isinstance(prepared[0], dict):
            return prepared
        request, rides = prepared
        return _outcome(await engine.handle(request, Session(peer="local"), principal=principal, provider=rides))

    # Calls of one batch run concurrently; gather keeps their order.
    return list(await asyncio.gather(*(one(call) for call in calls)))


@final
@dataclass(slots=True, frozen=True)
class Reader:
    """How one API's tool calls are read from what its SDK hands over (objects or dicts): a form it cannot read
    is refused by name, never read as "no calls" (an agent that answered nothing would fail far from the cause,
    at the provider's next request)."""

    provider: str
    # The forms ``run`` takes, in the API's words (for the refusal).
    forms: str
    # A response's list of alternatives, of which the first is read ("choices", "candidates"), or "".
    listed: str
    # A dict form's items (a message's tool calls, a content's parts; ``[value]`` for a single call).
    unwrap: Callable[[dict[str, Any]], list[Any]]
    # One item as a call; ``None`` when it is a recognisable item that is none (text, thinking, ...); a string
    # saying what a call looks like when it is neither (a malformed call is refused, never dropped: its id would
    # get no answer, and the API refuses the next request).
    one: Callable[[dict[str, Any]], Call | str | None]
    # The keys that mark an item holding calls itself (``response.choices`` passed as the list).
    containers: tuple[str, ...]

    def __call__(self, calls: Any) -> list[Call]:
        value = plain(calls)
        if not isinstance(value, (dict, list)):
            raise UsageError(f"{self.provider}.run() takes {self.forms}; got {type(calls).__name__}")
        if isinstance(value, dict):
            if self.listed and self.listed in value:
                value = self._first(value)
                if value is None:
                    return []  # a response with no choices (candidates) has no calls
            value = self.unwrap(value)
        found: list[Call] = []
        for index, raw in enumerate(value):
            item = plain(raw)
            if not isinstance(item, dict):
                raise UsageError(
                    f"{self.provider}.run(): item {index} of the calls must be an object; got {_kind(raw)}"
                )
            call = self.one(item)
            if isinstance(call, Call):
                found.append(call)
                continue
            held = next((key for key in self.containers if key in item), None)
            if held is not None:
                raise UsageError(
                    f"{self.provider}.run() takes {self.forms}; got a list of {type(raw).__name__} (an item "
                    f"holding {held!r}): pass one of them"
                )
            if call is not None:
                keys = f"a dict with keys {sorted(item)}" if item else "an empty dict"
                raise UsageError(f"{self.provider}.run() takes {self.forms}; got {keys}: {call}")
        return found

    def _first(self, value: dict[str, Any]) -> dict[str, Any] | None:
        """The first of a response's choices or candidates as a dict, ``None`` when there is none; a malformed
        list is refused by name."""
        key = self.listed
        items = value[key]
        if not isinstance(items, list):
            raise UsageError(f"{self.provider}.run(): {key!r} must be a list of objects; got {_kind(items)}")
        if not items:
            return None
        first = plain(items[0])
        if not isinstance(first, dict):
            raise UsageError(f"{self.provider}.run(): {key}[0] must be an object; got {_kind(items[0])}")
        return first


def _kind(value: Any) -> str:
    return "None" if value is None else type(value).__name__


def items_of(provider: str, value: dict[str, Any], keys: tuple[str, ...], *, null: bool = True) -> list[Any]:
    """The list under the first of ``keys`` that ``value`` holds (``[]`` for none, and for null where the API
    sends null for "no calls", ``null``); anything else there is refused by name."""
    for key in keys:
        if key in value:
            found = value[key]
            if isinstance(found, list):
                return found
            if found is None and null:
                return []
            raise UsageError(f"{provider}.run(): {key!r} must be a list; got {_kind(found)}")
    return []


# -- the four functions of a provider module ------------------------------------------------------------


@final
class _NotGiven:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<not given>"


NOT_GIVEN: Final[Any] = _NotGiven()
"""``principal=``'s default: no caller named. A registry serving tools with scopes refuses it (``UsageError``):
the caller must be said, ``ctx.principal`` inside an authorized request or ``None`` for no particular caller."""


@final
@dataclass(slots=True, frozen=True)
class Provider:
    """One model API's side of ``tools``/``relaxed``/``run``/``arun``: the profiles its option chooses
    (``strict``, or Gemini's ``json_schema``), how its tool calls are read from what its SDK hands over, and how
    an outcome is written back. Each module's public functions are these, with its own keywords and words."""

    name: str
    profiles: Callable[[bool], Profiles]
    read: Reader
    write: Callable[[Call, Outcome], dict[str, Any]]

    def toolset(self, registry: ToolRegistry, option: bool, fallback: bool, principal: Any) -> Toolset:
        given = principal is not NOT_GIVEN
        found = toolset(registry, self.profiles(option), fallback=fallback, principal=principal if given else None)
        if not given and found.scoped:
            names = [listed["name"] for listed in registry.list_tools()]
            scoped = [name for name in names if getattr(registry.get(name), "scopes", None)]
            raise UsageError(
                f"mcptools.providers.{self.name}: registry {registry.name!r} serves tools with scopes "
                f"({', '.join(scoped[:5])}), and no principal= says whom these calls are for: pass "
                "principal=ctx.principal inside an authorized request (the tools that caller's scopes allow), or "
                "principal=None for no particular caller (every served tool, scopes not applied, as over stdio)"
            )
        return found

    def relaxed(self, registry: ToolRegistry, option: bool, fallback: bool, principal: Any) -> dict[str, str]:
        return self.toolset(registry, option, fallback, principal).relaxed()

    def run(
        self, registry: ToolRegistry, calls: Any, option: bool, fallback: bool, principal: Any, repair: object
    ) -> list[dict[str, Any]]:
        found = self.read(calls)
        tools = self.toolset(registry, option, fallback, principal)
        outcomes = call_all(registry, tools, found, repair, _caller(principal))
        return [self.write(call, outcome) for call, outcome in zip(found, outcomes, strict=True)]

    async def arun(
        self, registry: ToolRegistry, calls: Any, option: bool, fallback: bool, principal: Any, repair: object
    ) -> list[dict[str, Any]]:
        found = self.read(calls)
        tools = self.toolset(registry, option, fallback, principal)
        outcomes = await acall_all(registry, tools, found, repair, _caller(principal))
        return [self.write(call, outcome) for call, outcome in zip(found, outcomes, strict=True)]


def _caller(principal: Any) -> Principal | None:
    return None if principal is NOT_GIVEN else principal
