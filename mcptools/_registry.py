"""The registry: the tools of one server, and its front door ``handle``.

``ToolRegistry`` holds tools (add, get, remove, iterate, the contract's ``tools`` mapping). The tool list is
live: tools may be added, removed, enabled or disabled (by name or tag) while clients are connected, and other
registries included under a prefix; every change that alters what is served tells the open 2025 sessions and
2026-07-28 ``subscriptions/listen`` streams (``notifications/tools/list_changed``); any client's next
``tools/list`` shows it. The protocol state
(sessions' engine, the sealer of ``requestState`` and cursors) is an ``Engine`` the registry owns, typed and made
on first use; transports reach it through ``registry.engine``.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar, final, overload

from typing_extensions import ParamSpec, Unpack

from ._errors import ToolDefinitionError, ToolNotFound, UsageError
from ._lifespan import LifespanRunner, check_lifespan
from ._middleware import Middleware, check_middleware, layers
from ._protocol.engine import Engine
from ._protocol.session import Session
from ._repair import DEFAULT_REPAIRS, repairs_option
from ._tool import (
    Tool,
    ToolAnnotations,
    ToolDecorator,
    ToolOptions,
    ToolSettings,
    describe,
    is_tool_name,
    marked_options,
    named,
    tool,
)

if TYPE_CHECKING:
    from ._icons import Icon
    from ._options import ServeDefaults, ServeSettings, TransportName
    from ._peer_apps import SessionManager
    from ._peer_auth import PeerTokenVerifier
    from ._profiles import ProfileName
    from ._tasks.host import ToolChanges
    from ._tasks.service import TaskService
    from ._transports.asgi import StreamableHTTPApp
    from ._transports.sse import SSEApp

__all__ = ["Lifespan", "Tool", "ToolAnnotations", "ToolRegistry", "tool"]

Lifespan = Callable[["ToolRegistry"], AbstractAsyncContextManager[Any]]
"""``lifespan=``: a function taking the registry and returning an async context manager (see ``_lifespan``)."""

P = ParamSpec("P")
R = TypeVar("R")


# Long: ToolRegistry is the one class users hold, and its surface is the peers' (FastMCP's constructor, run, the
# apps); registration, the tool list's changes (sent to the other replicas when a task store is shared), serving and
# tasks are each a few lines here that hand over to their own modules. Split, the class would be split with them.
@final
class ToolRegistry:
    """The tools of one server, and the JSON-RPC entry point that serves them.

    ``registry.tools`` is the contract's mapping ``{name: (schema, fn)}``, usable with ``call_tool`` directly;
    ``registry.handle(message)`` answers one JSON-RPC message. ``profile=`` publishes the schemas under a model
    API's profile (see ``mcptools._profiles``) and ``repair=`` names the repairs made to arguments that fail
    validation (``mcptools._repair``; JSON text where an object or array is wanted, by default).
    """

    __slots__ = (
        "__weakref__",
        "_disabled_names",
        "_disabled_tags",
        "_engine",
        "_entries",
        "_every",
        "_includes",
        "_lifespan",
        "_listeners",
        "_listing",
        "_lock",
        "_parents",
        "_replica",
        "_serve",
        "_served",
        "_task_service",
        "_tools",
        "call_layers",
        "icons",
        "instructions",
        "lookup",
        "mask_error_details",
        "middleware",
        "name",
        "profile",
        "repair",
        "request_layers",
        "served_version",
        "suggest_names",
        "version",
        "website_url",
    )

    # Long: the constructor takes the peers' settings too (FastMCP's keywords), each checked where it is given.
    def __init__(
        self,
        name: str,
        instructions: str | None = None,
        *,
        version: str | None = None,
        website_url: str | None = None,
        icons: Iterable[Icon | Mapping[str, Any]] | None = None,
        mask_error_details: bool = False,
        expose_errors: bool | None = None,
        suggest_names: bool = False,
        profile: ProfileName | None = None,
        repair: bool | str | Collection[str] | None = DEFAULT_REPAIRS,
        lifespan: Lifespan | None = None,
        middleware: Sequence[Middleware] | None = None,
        token_verifier: PeerTokenVerifier | None = None,
        **settings: Unpack[ServeSettings],
    ) -> None:
        if type(name) is not str or not name:
            raise ToolDefinitionError("ToolRegistry needs a server name, e.g. ToolRegistry('weather-server')")
        where = f"ToolRegistry({name!r})"
        check_lifespan(name, lifespan)
        self._lifespan = LifespanRunner(self, lifespan, self._services)
        # Tasks (mcptools._tasks): made on first use, so a registry without task tools never loads them.
        self._task_service: TaskService | None = None
        # Set while a shared task store replicates this registry's tool changes (mcptools._tasks.replicate).
        self._replica: ToolChanges | None = None
        # Plain attributes, not properties: the engine reads them on every call, and with no middleware that read
        # is all middleware costs (registry.use() keeps the three in step).
        self.middleware: tuple[Middleware, ...] = check_middleware(name, middleware)
        self.call_layers, self.request_layers = layers(self.middleware)
        self.name = name
        self.version = version if version is not None else "0.1.0"
        self.instructions = instructions
        # What initialize names besides the name and version (2025-11-25): a link and icons a client may show.
        if website_url is not None and type(website_url) is not str:
            raise ToolDefinitionError(f"{where}: website_url must be a string, got {type(website_url).__name__}")
        self.website_url = website_url
        if icons is not None:
            from ._icons import icons_json  # loaded for a registry given icons only
        self.icons = None if icons is None else icons_json(icons, where=where)
        # A raised exception's message reaches the model, as with both peers; masking leaves the class only, for
        # deployments whose exception text may hold secrets. expose_errors= is the older spelling, its inverse.
        if expose_errors is not None and mask_error_details:
            raise ToolDefinitionError(f"{where}: pass mask_error_details=True or expose_errors=..., not both")
        self.mask_error_details = not expose_errors if expose_errors is not None else bool(mask_error_details)
        # Off by default because the contract's strings are exact: with it, an unknown argument close to a
        # known one reads "unexpected property 'locaton' (did you mean 'location'?)".
        self.suggest_names = suggest_names
        # Schema profile for picky MCP clients (they forward schemas to model APIs); see mcptools._profiles.
        if profile is not None and profile not in ("openai", "gemini", "anthropic"):
            raise ToolDefinitionError(
                f"ToolRegistry({name!r}, profile={profile!r}): unknown profile; the profiles are openai, gemini, "
                f"anthropic"
            )
        self.profile = profile
        try:
            self.repair = repairs_option(repair, where=f"ToolRegistry({name!r}, repair=...)")
        except ValueError as exc:
            raise ToolDefinitionError(str(exc)) from None
        # Serving settings given here (host=, port=, ... as FastMCP takes them) are run()'s defaults; checked by
        # name now, by value when run() knows the transport. _options is imported only when some are given.
        self._serve: dict[str, Any] = {}
        if settings or token_verifier is not None:
            from ._options import check_defaults

            code = ToolRegistry.__init__.__code__  # its own keywords, named in the error for a misspelt one
            own = code.co_varnames[2 : code.co_argcount + code.co_kwonlyargcount]
            given: dict[str, Any] = dict(settings)
            if token_verifier is not None:
                # The SDK's token_verifier= goes with its auth=AuthSettings(...): both become mcptools' auth=.
                given["token_verifier"] = token_verifier
            self._serve = check_defaults(given, where, own)
        self._start_empty()

    @property
    def expose_errors(self) -> bool:
        """The older spelling of ``not mask_error_details``, kept for code that reads or sets it."""
        return not self.mask_error_details

    @expose_errors.setter
    def expose_errors(self, value: bool) -> None:
        self.mask_error_details = not value

    @property
    def settings(self) -> ServeDefaults:
        """The serving settings ``run()`` starts from (given to the constructor, or set here as the peers do:
        ``registry.settings.port = 8080``); what ``run()`` is given wins."""
        from ._options import ServeDefaults

        return ServeDefaults(self._serve, f"ToolRegistry({self.name!r})")

    @property
    def server_info(self) -> dict[str, Any]:
        """``serverInfo`` as ``initialize`` and ``server/discover`` name this server."""
        info: dict[str, Any] = {"name": self.name, "version": self.version}
        if self.website_url is not None:
            info["websiteUrl"] = self.website_url
        if self.icons is not None:
            info["icons"] = self.icons
        return info

    def _start_empty(self) -> None:
        """The tools' state of a new registry: none of its own, none included, nothing disabled."""
        # Own tools by name; what is served is derived from them, the included registries and the disabled
        # names and tags (see ``_refresh``).
        self._tools: dict[str, Tool] = {}
        self._includes: list[tuple[ToolRegistry, str]] = []
        self._parents: weakref.WeakSet[ToolRegistry] = weakref.WeakSet()
        self._disabled_names: set[str] = set()
        self._disabled_tags: set[str] = set()
        # Derived on every change, so the per-call lookup stays one dict access: every name in this registry's
        # namespace (own and included, enabled or not), the served ones, their listing and the contract's map.
        self._every: dict[str, Tool] = {}
        self._served: dict[str, Tool] = {}
        # ``get`` as the pipeline calls it on every call: the served dict's own C-level get, kept in step with it.
        self.lookup: Callable[[str], Tool | None] = self._served.get
        self._listing: list[dict[str, Any]] = []
        self._entries: dict[str, tuple[dict[str, Any], Callable[..., Any]]] = {}
        # Who is told when the served tools change (the engines serving this registry, which tell their 2025
        # sessions); weak, so an engine nobody uses any more is forgotten.
        self._listeners: list[Callable[[], Callable[[], None] | None]] = []
        # Bumped by every change to what is served (``_announce``): exports built from the served tools (the
        # providers' cache) are current while it holds.
        self.served_version = 0
        # Changes may come from several threads at once (sync tools run in worker threads). A change locks this
        # registry, then the ones including it as it cascades upward: includes form no cycle, so neither do
        # the locks.
        self._lock = threading.RLock()
        # The protocol state (sealed requestState and cursors, paging) is made on first use: a registry that
        # is only ever called through call_tool never builds it.
        self._engine: Engine | None = None

    @overload
    def tool(self, fn: Callable[P, R], /) -> Callable[P, R]: ...
    @overload
    def tool(self, name: str, /, **options: Unpack[ToolSettings]) -> ToolDecorator: ...
    @overload
    def tool(self, /, **options: Unpack[ToolSettings]) -> ToolDecorator: ...
    def tool(self, fn: Callable[..., Any] | str | None = None, /, **options: Unpack[ToolSettings]) -> Any:
        """Register a function as a tool; usable bare (``@registry.tool``) or with options (``ToolSettings``:
        the same ones ``@tool`` and ``registry.add`` take). ``@registry.tool("name")`` names it, as the peers'
        positional name does.

        ``timeout`` (seconds): past it an async tool is cancelled, a sync one abandoned in its thread (and
        logged), and the model gets an error result naming the limit."""
        if isinstance(fn, str):  # the peers' positional name: @mcp.tool("name")
            options = named(fn, options)
            fn = None
        checked = None if fn is not None else options

        def register(function: Callable[P, R]) -> Callable[P, R]:
            # Stacked on a @tool mark, the mark's options apply too, exactly as with registry.add(function).
            self.add(function, **(checked or {}))
            return function

        return register if fn is None else register(fn)

    def add(self, fn: Callable[..., Any], /, **options: Unpack[ToolSettings]) -> Tool:
        """Register ``fn``: the options given here win over those of its ``@tool`` mark, if any.

        ``tags`` label the tool for ``enable`` and ``disable``; they are never published."""
        # Every problem of the options and of the function's signature and types, in one error.
        problems: list[str] = []
        checked = ToolOptions.check(fn, options, problems).over(marked_options(fn))
        name = checked.name if checked.name is not None else getattr(fn, "__name__", None)
        existing = self._every.get(name) if type(name) is str else None
        if existing is not None:
            problems.append(
                f"function {describe(fn)}: a tool named {name!r} is already registered "
                f"(function {describe(existing.fn)}); pass name='...' to give one of them another name"
            )
        try:
            entry = Tool(fn, checked, suggest_names=self.suggest_names, profile=self.profile)
        except ToolDefinitionError as derived:
            raise ToolDefinitionError.of(f"function {describe(fn)}", [*problems, *derived.problems]) from None
        if problems:
            raise ToolDefinitionError.of(f"function {describe(fn)}", problems)
        with self._lock:
            added = self._insert(entry, fn)
        if self._replica is not None:
            self._replica.added(added.name, fn, options)
        return added

    def _insert(self, entry: Tool, fn: Callable[..., Any]) -> Tool:
        if entry.name in self._every:  # another thread registered the name since the check above
            raise ToolDefinitionError(
                f"function {describe(fn)}: a tool named {entry.name!r} is already registered; pass name='...'"
            )
        if not (self._includes or self._parents or self._disabled_names or self._disabled_tags):
            # The common case (a plain registry filled at import time): no need to derive everything again.
            self._tools[entry.name] = entry
            self._every[entry.name] = entry
            self._served[entry.name] = entry
            self._listing.append(entry.listing)
            self._entries[entry.name] = (entry.input_schema, fn)
            self._announce()
            return entry
        self._change(lambda: self._tools.__setitem__(entry.name, entry), lambda: self._tools.pop(entry.name))
        return entry

    @property
    def tools(self) -> Mapping[str, tuple[dict[str, Any], Callable[..., Any]]]:
        """The contract's ``{name: (schema, fn)}`` of the served tools: the schema as published, the function as
        registered."""
        return MappingProxyType(self._entries)

    def get(self, name: str) -> Tool | None:
        """The tool served under ``name`` (included ones by their prefixed name); ``None`` when there is none
        or it is disabled."""
        return self._served.get(name)

    def remove(self, name: str) -> Tool:
        """Unregister this registry's tool called ``name`` and return it; ``KeyError`` when there is none."""
        if name not in self._tools:
            if name in self._every:
                raise ToolNotFound(
                    f"tool {name!r} comes from an included registry; remove it there, or disable({name!r}) it here"
                )
            known = ", ".join(sorted(self._every)) or "none"
            raise ToolNotFound(f"no tool named {name!r} is registered (registered: {known})")
        removed = self._tools[name]
        self._change(lambda: self._tools.pop(name), lambda: self._tools.__setitem__(name, removed))
        if self._replica is not None:
            self._replica.removed(name)
        return removed

    # -- enabling and disabling ---------------------------------------------------------------------------

    def disable(self, *names: str, tags: Iterable[str] = ()) -> None:
        """Stop serving the tools called ``names`` and every tool carrying one of ``tags``: they leave
        ``tools/list`` and calling them answers "Unknown tool", until ``enable`` brings them back. A tag may
        name tools registered later; an unknown name is a ``KeyError`` (a typo would otherwise disable
        nothing)."""
        with self._lock:
            wanted, labels = self._selection("disable", names, tags)
            self._disabled_names |= wanted
            self._disabled_tags |= labels
            self._refresh()
        if self._replica is not None:
            self._replica.toggled("disable", wanted, labels)

    def enable(self, *names: str, tags: Iterable[str] = ()) -> None:
        """Undo ``disable`` for these names and tags. A tool is served when neither its name nor any of its
        tags is disabled, so enabling a name does not override a disabled tag."""
        with self._lock:
            wanted, labels = self._selection("enable", names, tags)
            self._disabled_names -= wanted
            self._disabled_tags -= labels
            self._refresh()
        if self._replica is not None:
            self._replica.toggled("enable", wanted, labels)

    def _selection(self, verb: str, names: tuple[str, ...], tags: Iterable[str]) -> tuple[set[str], set[str]]:
        if isinstance(tags, str):
            raise UsageError(f"registry.{verb}: tags must be a collection of labels, e.g. tags={{{tags!r}}}")
        labels = set(tags)
        for name in names:
            if name not in self._every:
                known = ", ".join(sorted(self._every)) or "none"
                raise ToolNotFound(f"registry.{verb}: no tool named {name!r} (registered: {known})")
        return set(names), labels

    def is_enabled(self, name: str) -> bool:
        """Whether the tool called ``name`` is served now (``KeyError`` when there is no such tool)."""
        if name not in self._every:
            raise ToolNotFound(f"no tool named {name!r} is registered")
        return name in self._served

    # -- composition --------------------------------------------------------------------------------------

    def include(self, other: ToolRegistry, *, prefix: str = "") -> None:
        """Serve ``other``'s tools here too, each under ``prefix + name``.

        The tools stay ``other``'s objects (nothing is copied, so nothing drifts), and the inclusion is live:
        tools added to, removed from, enabled or disabled in ``other`` later change what this registry serves,
        and its clients are told. A name that would clash is a ``ToolDefinitionError`` now, or when the later
        change that causes it is made (that change is then undone).
        """
        if not isinstance(other, ToolRegistry):
            raise ToolDefinitionError(f"registry.include: expected a ToolRegistry, got {type(other).__name__}")
        if type(prefix) is not str or (prefix and not is_tool_name(prefix)):
            raise ToolDefinitionError(
                f"registry.include: prefix must be a string of A-Z a-z 0-9 _ - . (a tool name's characters), "
                f"e.g. prefix='gh_', got {prefix!r}"
            )
        if other is self or self._reaches(other):
            raise ToolDefinitionError(
                f"registry.include: {self.name!r} cannot include {other.name!r}: it would include itself"
            )
        if any(existing is other for existing, _ in self._includes):
            raise ToolDefinitionError(f"registry.include: {other.name!r} is already included in {self.name!r}")
        entry = (other, prefix)
        self._change(lambda: self._includes.append(entry), lambda: self._includes.remove(entry))
        other._parents.add(self)

    def included(self) -> list[ToolRegistry]:
        """The registries included here directly, in the order they were included."""
        return [other for other, _ in self._includes]

    def _reaches(self, other: ToolRegistry) -> bool:
        """Whether ``self`` is included, directly or not, in ``other`` (including ``other`` would loop)."""
        return any(child is self or self._reaches_from(child) for child, _ in other._includes)

    def _reaches_from(self, registry: ToolRegistry) -> bool:
        return any(child is self or self._reaches_from(child) for child, _ in registry._includes)

    # -- deriving what is served --------------------------------------------------------------------------

    def _change(self, apply: Callable[[], object], undo: Callable[[], object]) -> None:
        """Make a change and derive everything again; a clash found on the way (here or in a registry that
        includes this one) undoes the change and is raised."""
        with self._lock:
            apply()
            try:
                self._refresh()
            except ToolDefinitionError:
                undo()
                self._refresh()
                raise

    def _allows(self, name: str, tool: Tool) -> bool:
        return name not in self._disabled_names and not (tool.tags and tool.tags & self._disabled_tags)

    def _refresh(self) -> None:
        """Derive the namespace, the served tools and their listing from the own tools, the included registries
        and the disabled names and tags; announce the change when what is served changed; then let the
        registries including this one derive theirs."""
        every: dict[str, Tool] = dict(self._tools)
        served = {name: member for name, member in self._tools.items() if self._allows(name, member)}
        for other, prefix in self._includes:
            for name, member in other._every.items():
                full = prefix + name
                if not is_tool_name(full):
                    raise ToolDefinitionError(
                        f"registry {self.name!r}: tool {name!r} of included registry {other.name!r} would be served "
                        f"as {full!r}, longer than MCP's 128 characters for a tool name; include it with a shorter "
                        "prefix='...'"
                    )
                clash = every.get(full)
                if clash is not None:
                    raise ToolDefinitionError(
                        f"registry {self.name!r}: tool {name!r} of included registry {other.name!r} would be "
                        f"served as {full!r}, which is already the name of function {describe(clash.fn)}; "
                        "include it with another prefix='...' or rename one of them"
                    )
                every[full] = member
                if other._served.get(name) is member and self._allows(full, member):
                    served[full] = member
        changed = served != self._served
        self._every = every
        self._served = served
        self.lookup = served.get
        self._listing = [
            member.listing if member.name == name else {**member.listing, "name": name}
            for name, member in served.items()
        ]
        self._entries = {name: (member.input_schema, member.fn) for name, member in served.items()}
        if changed:
            self._announce()
        for parent in list(self._parents):
            with parent._lock:
                parent._refresh()

    # -- telling clients ----------------------------------------------------------------------------------

    def on_tools_changed(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` whenever the served tools change (a bound method is held weakly); each engine
        serving this registry subscribes, and tells its open 2025 sessions and listen streams."""
        try:
            reference: Callable[[], Callable[[], None] | None] = weakref.WeakMethod(callback)
        except TypeError:  # not a bound method: kept as long as the registry
            reference = lambda: callback  # noqa: E731
        self._listeners.append(reference)

    def _announce(self) -> None:
        self.served_version += 1
        # A 2026-07-28 client without a listen stream sees the change on its next tools/list (ttlMs says how
        # long a list stays fresh; the engine's default 0 means "ask again each time", true of a live list).
        alive = []
        for reference in self._listeners:
            callback = reference()
            if callback is not None:
                callback()
                alive.append(reference)
        self._listeners = alive

    def __iter__(self) -> Iterator[Tool]:
        """Every tool in this registry's namespace (own and included, enabled or not)."""
        return iter(self._every.values())

    def __len__(self) -> int:
        return len(self._every)

    def __contains__(self, name: object) -> bool:
        return name in self._every

    def list_tools(self) -> list[dict[str, Any]]:
        """The ``tools`` array of a ``tools/list`` result: the served tools, own ones in registration order,
        then included ones."""
        return list(self._listing)

    @property
    def engine(self) -> Engine:
        """The protocol engine serving this registry, one per registry so registries never share state;
        transports hand it every message."""
        engine = self._engine
        if engine is None:
            engine = self._engine = Engine(self)
        return engine

    def handle(self, message: object) -> dict[str, Any] | None:
        """Answer one decoded JSON-RPC message; ``None`` for a notification. Never raises.

        Sync tools run inline in the caller's thread; a call that needs an event loop (an async tool, a
        ``Context``, a time limit, middleware) runs on one this thread keeps (see ``_pipeline``)."""
        return (self._engine or self.engine).handle_sync(message)

    async def handle_async(self, message: object) -> dict[str, Any] | None:
        """Answer one message from async code: async tools are awaited, sync ones run in a worker thread."""
        return await self.engine.handle(message, Session(peer="local"))

    # -- lifespan, middleware, run (issue 11 part A) ----------------------------------------------------------

    @property
    def offers_tasks(self) -> bool:
        """Whether a served tool may run as a task (``task=``): then the Tasks capability is advertised."""
        return any(tool.task is not None for tool in self._served.values())

    @property
    def task_service(self) -> TaskService:
        """This registry's tasks: their settings, store and workers (``mcptools._tasks.service``)."""
        service = self._task_service
        if service is None:
            from ._tasks.service import TaskService

            service = self._task_service = TaskService(self)
        return service

    def _services(self) -> AbstractAsyncContextManager[Any] | None:
        """What serving this registry runs besides its lifespan: its tasks, when it has any to run or a shared
        store to replicate its tool list through."""
        if self._task_service is None and not self.offers_tasks:
            return None
        return self.task_service.running()

    def running(self) -> AbstractAsyncContextManager[Any]:
        """``async with registry.running() as state:`` runs the lifespan around the block (entries nest; the
        last one out closes it), and, for a registry with task tools or a shared task store, its tasks (the store,
        the workers in this process, the replication of its tool list). Servers enter it themselves; enter it to
        use ``handle_async`` (or a test client) with lifespan state. ``registry.handle`` used bare never runs the
        lifespan."""
        return self._lifespan.running()

    @property
    def state(self) -> Any:
        """What the lifespan yielded (``None`` without one); ``LifespanError`` when it is not running."""
        return self._lifespan.state(self.name)

    def use(self, *middleware: Middleware) -> None:
        """Add middleware after those given to the constructor (innermost last)."""
        self.middleware = check_middleware(self.name, [*self.middleware, *middleware])
        self.call_layers, self.request_layers = layers(self.middleware)

    def run(self, transport: TransportName = "stdio", **options: Unpack[ServeSettings]) -> int:
        """Serve this registry until it stops, its lifespan around it: ``if __name__ == "__main__":
        registry.run()``. stdio by default; ``"http"`` (or ``"streamable-http"``) serves Streamable HTTP and
        ``"sse"`` the deprecated HTTP+SSE transport, both on one app, with the options of ``mcptools serve``
        (``ServeSettings``: host, port, path, workers, timeouts, authorization, ...; those given to the
        constructor are the defaults). Returns the exit status (also on SIGTERM, after the lifespan has closed)."""
        from ._run import run_registry

        return run_registry(self, transport, options, defaults=self._serve)

    # -- the peers' HTTP apps, for servers mounted in Starlette or FastAPI (see _peer_apps) --------------------

    def streamable_http_app(self, **options: Any) -> StreamableHTTPApp:
        """The SDK's ``StreamableHTTPApp(registry)``: its keywords over this registry's serving settings."""
        from ._peer_apps import peer_app

        return peer_app(self, "http", options, "streamable_http_app()")  # type: ignore[return-value]

    def http_app(self, path: str | None = None, *, transport: str = "http", **options: Any) -> Any:
        """fastmcp's spelling: ``StreamableHTTPApp`` at ``path``, or ``SSEApp`` for ``transport="sse"``."""
        from ._peer_apps import peer_app

        return peer_app(self, "sse" if transport == "sse" else "http", {"path": path, **options}, "http_app()")

    def sse_app(self, **options: Any) -> SSEApp:
        """The SDK's ``SSEApp(registry)``, the deprecated HTTP+SSE transport."""
        from ._peer_apps import peer_app

        return peer_app(self, "sse", options, "sse_app()")  # type: ignore[return-value]

    @property
    def session_manager(self) -> SessionManager:
        """The SDK's ``async with mcp.session_manager.run():``: this registry's lifespan (``running()``)."""
        from ._peer_apps import SessionManager

        return SessionManager(self)

    def __repr__(self) -> str:
        return f"<ToolRegistry {self.name!r} with {len(self._every)} tools>"

    def prompt(self, *args: object, **kwargs: object) -> NoReturn:
        """``@registry.prompt`` / ``@mcp.prompt()``: refused at decoration, saying what to do instead."""
        self._not_served("prompt", "@registry.prompt", args)

    def resource(self, *args: object, **kwargs: object) -> NoReturn:
        """``@registry.resource("uri")`` / ``@mcp.resource(...)``: refused at decoration, saying what to do instead."""
        self._not_served("resource", "@registry.resource", args)

    def add_prompt(self, *args: object, **kwargs: object) -> NoReturn:
        """The peers' ``mcp.add_prompt(...)``: refused, as ``prompt`` is."""
        self._not_served("prompt", "registry.add_prompt", args)

    def add_resource(self, *args: object, **kwargs: object) -> NoReturn:
        """The peers' ``mcp.add_resource(...)``: refused, as ``resource`` is."""
        self._not_served("resource", "registry.add_resource", args)

    def add_template(self, *args: object, **kwargs: object) -> NoReturn:
        """fastmcp's ``mcp.add_template(...)`` (a resource template): refused, as ``resource`` is."""
        self._not_served("resource", "registry.add_template", args)

    def _not_served(self, kind: str, spelling: str, args: tuple[object, ...]) -> NoReturn:
        # Raised when the decorator is made (before @mcp.prompt() sees the function): the user's line is shown.
        subject = next((item for item in args if item is not None), None)
        what = f"function {describe(subject)}: " if callable(subject) else ""
        what = f"{kind} {subject!r}: " if isinstance(subject, str) else what
        fix = (
            "to give the model this text, make it a tool (@registry.tool, returning str)"
            if kind == "prompt"
            else "to give the model this data, make it a tool that reads it (@registry.tool)"
        )
        raise ToolDefinitionError(
            f"ToolRegistry({self.name!r}): {what}{spelling}: mcptools serves tools only, so {kind}s cannot be "
            f"registered here; {fix}, or serve {kind}s from another MCP server (the official SDK or fastmcp) "
            "beside this one"
        )
